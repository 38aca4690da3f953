// Text or code typed or pasted into a box, uploaded as a file whose name (and so its extension) the person picks;
// once it is up, what its link is called, and whether the typed name was kept as its original name.
import { Alert, Anchor, Button, Group, Stack, Text, Textarea, TextInput } from '@mantine/core';
import { IconCircleCheck, IconFileText } from '@tabler/icons-react';
import { formatBytes } from '../../lib/format';

/** MIME types for the text formats people paste most; anything else is served as plain text. */
const TEXT_TYPES: Record<string, string> = {
  md: 'text/markdown',
  markdown: 'text/markdown',
  json: 'application/json',
  csv: 'text/csv',
  html: 'text/html',
  htm: 'text/html',
  css: 'text/css',
  js: 'text/javascript',
  mjs: 'text/javascript',
  xml: 'application/xml',
  yaml: 'application/yaml',
  yml: 'application/yaml',
  svg: 'image/svg+xml',
};

export const DEFAULT_TEXT_NAME = 'paste.txt';

/** The file for some text: the name as typed (".txt" added when it has no extension). */
export function textFile(text: string, name: string): File {
  let fileName = name.trim() || DEFAULT_TEXT_NAME;
  if (!/\.[A-Za-z0-9]{1,16}$/.test(fileName)) fileName += '.txt';
  const extension = fileName.slice(fileName.lastIndexOf('.') + 1).toLowerCase();
  return new File([text], fileName, { type: TEXT_TYPES[extension] ?? 'text/plain' });
}

/** The last text upload, once it is up. */
export interface TextUploaded {
  /** The file's name as the page made it from the typed one (textFile). */
  typedName: string;
  linkName: string;
  url: string;
  /** Whether the typed name was sent to be kept as the original name. */
  kept: boolean;
}

/**
 * What became of the typed name: the link name when the name format made another one (random, date ...), and whether
 * the typed name lives on as the original name.
 */
export function textUploadedNotice({ typedName, linkName, kept }: TextUploaded): string {
  if (linkName === typedName) return `Saved as ${linkName}.`;
  return kept
    ? `Saved as ${linkName}; “${typedName}” is kept as its original name.`
    : `Saved as ${linkName}; “${typedName}” is not kept (Keep original file name is off in the upload options).`;
}

interface Props {
  text: string;
  name: string;
  onText: (text: string) => void;
  onName: (name: string) => void;
  onUpload: (file: File) => void;
  uploaded: TextUploaded | null;
}

export function TextUpload({ text, name, onText, onName, onUpload, uploaded }: Props) {
  const bytes = new TextEncoder().encode(text).length;
  const submit = () => {
    if (!text) return;
    onUpload(textFile(text, name));
    onText('');
  };
  return (
    <Stack gap="sm">
      <Textarea
        label="Text or code"
        placeholder="Paste or type here…"
        autosize
        minRows={8}
        maxRows={20}
        value={text}
        onChange={(event) => onText(event.currentTarget.value)}
        onKeyDown={(event) => {
          if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
            event.preventDefault();
            submit();
          }
        }}
        styles={{
          input: { fontFamily: 'var(--mantine-font-family-monospace)', fontSize: 'var(--mantine-font-size-sm)' },
        }}
        spellCheck={false}
      />
      <Group align="flex-end" gap="sm" wrap="wrap">
        <TextInput
          label="File name"
          description="The extension says how it is shown: .txt, .md, .js, .py …"
          placeholder={DEFAULT_TEXT_NAME}
          value={name}
          onChange={(event) => onName(event.currentTarget.value)}
          style={{ flex: '1 1 220px' }}
        />
        <Button leftSection={<IconFileText size={16} />} onClick={submit} disabled={!text}>
          Upload text
        </Button>
      </Group>
      <Text size="xs" c="dimmed">
        {text
          ? `${formatBytes(bytes)} · Ctrl+Enter uploads it`
          : 'Tip: paste anywhere on this page; pasted files and images go straight to the queue.'}
      </Text>
      <div role="status" data-testid="text-uploaded">
        {uploaded ? (
          <Alert variant="light" color="teal" icon={<IconCircleCheck size={18} />} title="Text uploaded">
            <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
              {textUploadedNotice(uploaded)}{' '}
              <Anchor href={uploaded.url} target="_blank" rel="noreferrer" size="sm">
                Open it
              </Anchor>
            </Text>
          </Alert>
        ) : null}
      </div>
    </Stack>
  );
}
