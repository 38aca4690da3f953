// View and embed settings (the spec's UserViewSettings), saved with PATCH /api/user {view}, beside live previews of
// the chat-app card and the view page that follow every keystroke.
import {
  Box,
  Button,
  Card,
  Collapse,
  ColorInput,
  Group,
  SegmentedControl,
  SimpleGrid,
  Stack,
  Switch,
  Text,
  Textarea,
  TextInput,
  Title,
  UnstyledButton,
} from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { updateUser } from './settings-api';
import type { UserViewSettings } from '../../api/types';
import { notifyError, notifySuccess } from '../../lib/notify';
import { useSession, useUser } from '../../lib/session';
import { EmbedPreview, ViewPagePreview } from './EmbedPreview';
import { settingsErrorObject } from './messages';
import { isEmbedColor, PLACEHOLDERS, SAMPLE_FILES, type SampleFile } from './placeholders';
import { useSubmit } from '../../lib/use-submit';

interface ViewForm {
  enabled: boolean;
  disableTextFiles: boolean;
  align: 'left' | 'center' | 'right';
  showMimetype: boolean;
  showTags: boolean;
  showFolder: boolean;
  content: string;
  embed: boolean;
  embedMediaOnly: boolean;
  embedTitle: string;
  embedDescription: string;
  embedColor: string;
  embedSiteName: string;
}

type TextField = 'content' | 'embedTitle' | 'embedDescription' | 'embedSiteName';
type Flag = 'enabled' | 'disableTextFiles' | 'showMimetype' | 'showTags' | 'showFolder' | 'embed' | 'embedMediaOnly';

function toForm(view: UserViewSettings): ViewForm {
  return {
    enabled: view.enabled ?? false,
    disableTextFiles: view.disableTextFiles ?? false,
    align: view.align ?? 'center',
    showMimetype: view.showMimetype ?? false,
    showTags: view.showTags ?? false,
    showFolder: view.showFolder ?? false,
    content: view.content ?? '',
    embed: view.embed ?? false,
    embedMediaOnly: view.embedMediaOnly ?? false,
    embedTitle: view.embedTitle ?? '',
    embedDescription: view.embedDescription ?? '',
    embedColor: view.embedColor ?? '',
    embedSiteName: view.embedSiteName ?? '',
  };
}

/** The whole view object; empty texts are sent as null, which clears them. */
function toView(form: ViewForm): UserViewSettings {
  const text = (value: string) => (value.trim() === '' ? null : value);
  return {
    ...form,
    content: text(form.content),
    embedTitle: text(form.embedTitle),
    embedDescription: text(form.embedDescription),
    embedColor: text(form.embedColor.trim()),
    embedSiteName: text(form.embedSiteName),
  };
}

function FlagSwitch({
  form,
  flag,
  label,
  description,
  onChange,
  disabled,
}: {
  form: ViewForm;
  flag: Flag;
  label: string;
  description?: string;
  onChange: (flag: Flag, value: boolean) => void;
  disabled?: boolean;
}) {
  return (
    <Switch
      label={label}
      description={description}
      checked={form[flag]}
      disabled={disabled}
      onChange={(e) => onChange(flag, e.currentTarget.checked)}
    />
  );
}

/** The {file.*} variables, each a button that inserts it; folded away on a phone, where it would be a long scroll. */
function TemplateVariables({ onInsert }: { onInsert: (key: string) => void }) {
  const phone = useMediaQuery('(max-width: 36em)', false, { getInitialValueInEffect: false });
  const [open, setOpen] = useState(!phone);
  return (
    <Card withBorder padding="lg" radius="md">
      <Group justify="space-between" gap="xs">
        <Title order={3} size="h4">
          Template variables
        </Title>
        <Button variant="subtle" size="xs" onClick={() => setOpen((o) => !o)} aria-expanded={open}>
          {open ? 'Hide' : 'Show'}
        </Button>
      </Group>
      <Text size="sm" c="dimmed">
        The page text, title, description and site name may hold these; each file fills in its own values.
      </Text>
      <Collapse in={open}>
        <Text size="sm" c="dimmed" mt={4} mb="sm">
          Click one to insert it where you were typing.
        </Text>
        <Stack gap={6}>
          {PLACEHOLDERS.map((p) => (
            <Group key={p.key} gap="xs" wrap="nowrap" align="baseline">
              <UnstyledButton
                onClick={() => onInsert(p.key)}
                aria-label={`Insert {${p.key}}`}
                style={{
                  fontFamily: 'var(--mantine-font-family-monospace)',
                  fontSize: 13,
                  padding: '1px 6px',
                  borderRadius: 4,
                  background: 'var(--mantine-color-default-hover)',
                  whiteSpace: 'nowrap',
                }}
              >
                {`{${p.key}}`}
              </UnstyledButton>
              <Text size="sm" c="dimmed">
                {p.meaning}
              </Text>
            </Group>
          ))}
        </Stack>
      </Collapse>
    </Card>
  );
}

export function ViewSettingsSection() {
  const user = useUser();
  const { server, refresh } = useSession();
  const saved = useMemo(() => toForm(user.view), [user.view]);
  const [form, setForm] = useState<ViewForm>(saved);
  const [sample, setSample] = useState<SampleFile['kind']>('image');
  const { busy: saving, run } = useSubmit((err) => {
    notifyError(settingsErrorObject(err), 'The settings were not saved');
    return null;
  });
  const fields = useRef<Partial<Record<TextField, HTMLInputElement | HTMLTextAreaElement | null>>>({});
  const lastField = useRef<TextField>('embedTitle');

  useEffect(() => setForm(saved), [saved]);

  const dirty = JSON.stringify(form) !== JSON.stringify(saved);
  const colorError =
    form.embedColor.trim() !== '' && !isEmbedColor(form.embedColor.trim()) ? 'Use a hex colour such as #5865f2.' : null;
  const setFlag = (flag: Flag, value: boolean) => setForm((f) => ({ ...f, [flag]: value }));
  const setText = (field: TextField | 'embedColor', value: string) => setForm((f) => ({ ...f, [field]: value }));
  const textProps = (field: TextField) => ({
    ref: (el: HTMLInputElement | HTMLTextAreaElement | null) => {
      fields.current[field] = el;
    },
    value: form[field],
    onFocus: () => {
      lastField.current = field;
    },
    onChange: (e: { currentTarget: { value: string } }) => setText(field, e.currentTarget.value),
  });

  /** Puts {file.x} where the cursor was in the text field edited last. */
  const insert = (key: string) => {
    const field = lastField.current;
    const el = fields.current[field];
    const value = form[field];
    const start = el?.selectionStart ?? value.length;
    const end = el?.selectionEnd ?? value.length;
    const token = `{${key}}`;
    setText(field, value.slice(0, start) + token + value.slice(end));
    requestAnimationFrame(() => {
      el?.focus();
      el?.setSelectionRange(start + token.length, start + token.length);
    });
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (colorError) return;
    await run(async () => {
      await updateUser({ view: toView(form) });
      await refresh();
      notifySuccess('Your view and embed settings are saved.');
    });
  };

  const preview = toView(form);
  const file = SAMPLE_FILES[sample];
  return (
    <form onSubmit={submit}>
      <SimpleGrid cols={{ base: 1, lg: 2 }} spacing="md">
        <Stack gap="md">
          <Card withBorder padding="lg" radius="md">
            <Title order={3} size="h4">
              View page
            </Title>
            <Text size="sm" c="dimmed" mb="sm">
              What a browser shows when someone opens one of your share links.
            </Text>
            <Stack gap="sm">
              <FlagSwitch
                form={form}
                flag="enabled"
                label="Show a view page"
                description="Browsers get a page with the file, its name and size, instead of the bare file."
                onChange={setFlag}
              />
              <div>
                <Text size="sm" fw={500} id="view-align-label">
                  Alignment
                </Text>
                <SegmentedControl
                  aria-labelledby="view-align-label"
                  value={form.align}
                  onChange={(value) => setForm((f) => ({ ...f, align: value as ViewForm['align'] }))}
                  data={[
                    { value: 'left', label: 'Left' },
                    { value: 'center', label: 'Centre' },
                    { value: 'right', label: 'Right' },
                  ]}
                />
              </div>
              <FlagSwitch
                form={form}
                flag="showMimetype"
                label="Show the file type"
                description="Such as image/png, next to the size."
                onChange={setFlag}
              />
              <FlagSwitch
                form={form}
                flag="disableTextFiles"
                label="Do not show the contents of text files"
                description="Text files get a download link only."
                onChange={setFlag}
              />
              <FlagSwitch
                form={form}
                flag="showTags"
                label="Show the file's tags"
                description="The view page and the card in chat apps list the file's tags."
                onChange={setFlag}
              />
              <FlagSwitch
                form={form}
                flag="showFolder"
                label="Show the file's folder"
                description="The view page says which folder the file is in, linked when the folder is public; the card in chat apps names it."
                onChange={setFlag}
              />
              <Textarea
                label="Text on the page"
                description="Shown under the file's name. Template variables work here."
                autosize
                minRows={2}
                maxRows={6}
                maxLength={10_000}
                {...textProps('content')}
              />
            </Stack>
          </Card>

          <Card withBorder padding="lg" radius="md">
            <Title order={3} size="h4">
              Embeds
            </Title>
            <Text size="sm" c="dimmed" mb="sm">
              The card Discord, Slack, Telegram, X and other apps show when one of your links is posted.
            </Text>
            <Stack gap="sm">
              <FlagSwitch form={form} flag="embed" label="Show a card in chat apps" onChange={setFlag} />
              <FlagSwitch
                form={form}
                flag="embedMediaOnly"
                label="Only for images, videos and audio"
                description="Other files are posted as a plain link."
                onChange={setFlag}
              />
              <TextInput
                label="Title"
                placeholder="For example: {file.originalName}"
                maxLength={1000}
                {...textProps('embedTitle')}
              />
              <Textarea
                label="Description"
                placeholder="For example: {file.size} · {file.type}"
                autosize
                minRows={2}
                maxRows={5}
                maxLength={2000}
                {...textProps('embedDescription')}
              />
              <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
                <TextInput
                  label="Site name"
                  description={`Empty: ${server?.siteTitle ?? 'the site title'}`}
                  maxLength={1000}
                  {...textProps('embedSiteName')}
                />
                <ColorInput
                  label="Colour"
                  description="The bar beside the card."
                  placeholder="#5865f2"
                  format="hex"
                  swatches={['#5865f2', '#57f287', '#fee75c', '#eb459e', '#ed4245', '#f47b67', '#1abc9c', '#2b2d31']}
                  value={form.embedColor}
                  error={colorError}
                  onChange={(value) => setText('embedColor', value)}
                />
              </SimpleGrid>
            </Stack>
          </Card>

          <TemplateVariables onInsert={insert} />
        </Stack>

        <Box>
          <Card withBorder padding="lg" radius="md" style={{ position: 'sticky', top: 72 }}>
            <Group justify="space-between" align="center" mb="sm" gap="xs">
              <Title order={3} size="h4">
                Preview
              </Title>
              <SegmentedControl
                size="xs"
                aria-label="Preview with"
                value={sample}
                onChange={(value) => setSample(value as SampleFile['kind'])}
                data={[
                  { value: 'image', label: 'Image' },
                  { value: 'video', label: 'Video' },
                  { value: 'text', label: 'Text file' },
                ]}
              />
            </Group>
            <Stack gap="md">
              <div>
                <Text size="sm" fw={500} mb={6}>
                  In a chat app
                </Text>
                <EmbedPreview
                  view={preview}
                  file={file}
                  siteTitle={server?.siteTitle ?? 'Chute'}
                  username={user.username}
                  avatar={user.avatar}
                  origin={window.location.origin}
                />
              </div>
              <div>
                <Text size="sm" fw={500} mb={6}>
                  In a browser{' '}
                  {form.enabled ? null : (
                    <Text span size="xs" c="dimmed">
                      (off: browsers get the file itself)
                    </Text>
                  )}
                </Text>
                <ViewPagePreview view={preview} file={file} />
              </div>
              <Group justify="space-between" gap="xs">
                <Text size="sm" c={dirty ? 'orange' : 'dimmed'}>
                  {dirty ? 'You have unsaved changes.' : 'All changes are saved.'}
                </Text>
                <Group gap="xs">
                  <Button variant="default" disabled={!dirty || saving} onClick={() => setForm(saved)}>
                    Discard
                  </Button>
                  <Button type="submit" loading={saving} disabled={!dirty || colorError !== null}>
                    Save view settings
                  </Button>
                </Group>
              </Group>
            </Stack>
          </Card>
        </Box>
      </SimpleGrid>
    </form>
  );
}
