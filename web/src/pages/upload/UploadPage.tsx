// Upload: drop, pick or paste files (or type text), choose the options, and watch them go up; small files go in one
// request, large ones resumable by tus in chunks (the server's chunk settings). When all are done, their links are
// copied.
import { Button, Paper, Stack, Tabs, Text, ThemeIcon } from '@mantine/core';
import { Dropzone } from '@mantine/dropzone';
import { notifications } from '@mantine/notifications';
import { IconClipboardText, IconCloudUpload, IconFileUpload, IconUpload, IconX } from '@tabler/icons-react';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { listFolders } from '../folders/folder-api';
import { PageHeader } from '../../components/PageHeader';
import { copyText } from '../../lib/clipboard';
import { folderOptions } from '../../lib/folder-paths';
import { formatBytes } from '../../lib/format';
import { notifyError, notifySuccess } from '../../lib/notify';
import { useSession, useUser } from '../../lib/session';
import { useApi } from '../../lib/use-api';
import { EarlierAssemblies } from './EarlierAssemblies';
import { TextUpload, type TextUploaded } from './TextUpload';
import { keepsOriginalName, loadOptions, optionHeaders, saveOptions, type UploadOptions } from './upload-options';
import { uploadQueue, useUploadQueue, type UploadItem } from './upload-queue';
import { UploadAnnouncer } from './UploadAnnouncer';
import { UploadOptionsPanel } from './UploadOptionsPanel';
import { UploadQueueCard, type QueueActions } from './UploadQueueCard';

/** This page's own uploads finish in their last request (tus): every assembly listed is another client's. */
const NOT_TRACKED = new Set<string>();

async function announceLinks(finished: UploadItem[]): Promise<void> {
  const links = finished.flatMap((i) => (i.link ? [i.link.url] : []));
  if (links.length === 0) return;
  const what = links.length === 1 ? 'The link is' : `All ${links.length} links are`;
  if (await copyText(links.join('\n'))) {
    notifySuccess(
      `${what} on your clipboard${links.length > 1 ? ', one per line' : ''}.`,
      links.length === 1 ? 'Uploaded' : `${links.length} files uploaded`,
    );
  } else {
    notifications.show({
      color: 'teal',
      title: links.length === 1 ? 'Uploaded' : `${links.length} files uploaded`,
      message: 'The browser did not let the page copy the links: copy them from the list.',
    });
  }
}

uploadQueue.onSettled = (finished) => void announceLinks(finished);

/** Pasted screenshots are all called image.png: give them a name that tells them apart. */
function namePasted(file: File): File {
  if (!/^image\.[a-z0-9]+$/i.test(file.name)) return file;
  const stamp = new Date()
    .toISOString()
    .replace(/\.\d+Z$/, '')
    .replace(/[-:]/g, '')
    .replace('T', '-');
  return new File([file], `pasted-${stamp}${file.name.slice(file.name.lastIndexOf('.'))}`, {
    type: file.type,
    lastModified: file.lastModified,
  });
}

export function UploadPage() {
  const user = useUser();
  const { server } = useSession();
  const items = useUploadQueue();
  const [options, setOptions] = useState<UploadOptions>(loadOptions);
  const [tab, setTab] = useState<string | null>('files');
  const [text, setText] = useState('');
  const [textName, setTextName] = useState('');
  /** The last text upload: its queue item, its typed name and whether that was sent to be kept. */
  const [textUpload, setTextUpload] = useState<{ id: string; typedName: string; kept: boolean } | null>(null);
  // Until the server says otherwise, its own default (src/services/operations/settings.ts).
  const serverKeeps = server?.filesKeepOriginalName ?? true;
  const optionsRef = useRef(options);
  const serverKeepsRef = useRef(serverKeeps);
  const openChooser = useRef<() => void>(null);
  optionsRef.current = options;
  serverKeepsRef.current = serverKeeps;

  const folders = useApi((signal) => listFolders('all', signal), []);
  const choices = useMemo(() => folderOptions(folders.data ?? []), [folders.data]);

  // The queue outlives the page (uploads go on elsewhere in the dashboard), but not a change of user.
  useEffect(() => {
    if (uploadQueue.owner !== user.id) uploadQueue.reset(user.id);
  }, [user.id]);

  useEffect(() => {
    if (server) {
      uploadQueue.settings = {
        chunksEnabled: server.chunksEnabled,
        chunksThreshold: server.chunksThreshold,
        chunksSize: server.chunksSize,
      };
    }
  }, [server]);

  useEffect(() => saveOptions(options), [options]);

  // A folder that is gone is no choice any more.
  useEffect(() => {
    if (folders.data && options.folderId && !folders.data.some((f) => f.id === options.folderId)) {
      setOptions((o) => ({ ...o, folderId: null }));
    }
  }, [folders.data, options.folderId]);

  /** The options in force when the files were added (a later change does not touch them); returns the items' ids. */
  const addFiles = useCallback((files: File[]): string[] => {
    if (files.length === 0) return [];
    const chosen = optionsRef.current;
    const keeps = serverKeepsRef.current;
    return uploadQueue.add(files, () => optionHeaders(chosen, keeps));
  }, []);

  const uploadText = useCallback(
    (file: File) => {
      const [id] = addFiles([file]);
      if (id) {
        const kept = keepsOriginalName(optionsRef.current, serverKeepsRef.current);
        setTextUpload({ id, typedName: file.name, kept });
      }
    },
    [addFiles],
  );
  const textItem = textUpload ? items.find((i) => i.id === textUpload.id) : undefined;
  const textUploaded: TextUploaded | null =
    textUpload && textItem?.status === 'done' && textItem.link
      ? { typedName: textUpload.typedName, kept: textUpload.kept, linkName: textItem.link.name, url: textItem.link.url }
      : null;

  // Paste anywhere: files and images join the queue; text outside a field goes to the text tab.
  useEffect(() => {
    const onPaste = (event: ClipboardEvent) => {
      const data = event.clipboardData;
      if (!data) return;
      const files = Array.from(data.files);
      if (files.length > 0) {
        event.preventDefault();
        addFiles(files.map(namePasted));
        return;
      }
      const target = event.target instanceof Element ? event.target : null;
      if (target?.closest('input, textarea, select, [contenteditable="true"]')) return;
      const pasted = data.getData('text/plain');
      if (pasted) {
        event.preventDefault();
        setTab('text');
        setText((current) => current + pasted);
      }
    };
    document.addEventListener('paste', onPaste);
    return () => document.removeEventListener('paste', onPaste);
  }, [addFiles]);

  const actions: QueueActions = useMemo(
    () => ({
      cancel: (id) => uploadQueue.cancel(id),
      retry: (id) => {
        const chosen = optionsRef.current;
        const keeps = serverKeepsRef.current;
        uploadQueue.retry(id, () => optionHeaders(chosen, keeps));
        // A retried text goes up with the options of now: its notice follows them.
        setTextUpload((t) => (t?.id === id ? { ...t, kept: keepsOriginalName(chosen, keeps) } : t));
      },
      remove: (id) => uploadQueue.remove(id),
      cancelAll: () => uploadQueue.cancelAll(),
      clearFinished: () => uploadQueue.clearFinished(),
      copyAll: () => {
        const links = uploadQueue.snapshot().flatMap((i) => (i.status === 'done' && i.link ? [i.link.url] : []));
        void copyText(links.join('\n')).then((ok) =>
          ok
            ? notifySuccess(
                links.length === 1 ? 'The link is on your clipboard.' : `${links.length} links copied, one per line.`,
              )
            : notifyError(
                new Error('The browser did not allow copying. Select the links and copy them yourself.'),
                'Not copied',
              ),
        );
      },
    }),
    [],
  );

  const chunkHint =
    server?.chunksEnabled && server.chunksThreshold > 0
      ? `Files over ${formatBytes(server.chunksThreshold)} go up in ${formatBytes(server.chunksSize)} chunks, and resume where they stopped when chosen again after a reload.`
      : null;

  return (
    <Stack gap="md" maw={980}>
      <PageHeader
        title="Upload"
        description="Drop, choose or paste files, or paste text. The links are copied to your clipboard when the uploads finish."
      />
      <Paper withBorder radius="md" p={{ base: 'sm', sm: 'md' }}>
        <Tabs value={tab} onChange={setTab} keepMounted={false}>
          <Tabs.List mb="md">
            <Tabs.Tab value="files" leftSection={<IconFileUpload size={16} />}>
              Files
            </Tabs.Tab>
            <Tabs.Tab value="text" leftSection={<IconClipboardText size={16} />}>
              Text
            </Tabs.Tab>
          </Tabs.List>
          <Tabs.Panel value="files">
            <Dropzone
              onDrop={addFiles}
              multiple
              useFsAccessApi={false}
              activateOnClick
              // The keyboard's way in is the Choose files button: a drop zone that is itself a button could not
              // hold one (nested controls), and its name could not match what it shows.
              activateOnKeyboard={false}
              openRef={openChooser}
              radius="md"
              inputProps={{ 'aria-label': 'Choose files to upload', tabIndex: -1 }}
            >
              <Stack
                align="center"
                justify="center"
                gap="xs"
                mih={{ base: 150, sm: 190 }}
                style={{ pointerEvents: 'none' }}
                ta="center"
              >
                <Dropzone.Accept>
                  <ThemeIcon size={56} radius="xl" variant="light">
                    <IconUpload size={30} />
                  </ThemeIcon>
                </Dropzone.Accept>
                <Dropzone.Reject>
                  <ThemeIcon size={56} radius="xl" variant="light" color="red">
                    <IconX size={30} />
                  </ThemeIcon>
                </Dropzone.Reject>
                <Dropzone.Idle>
                  <ThemeIcon size={56} radius="xl" variant="light" color="gray">
                    <IconCloudUpload size={30} />
                  </ThemeIcon>
                </Dropzone.Idle>
                <Text fw={600} size="lg" visibleFrom="sm">
                  Drag files here or click to choose
                </Text>
                <Text fw={600} size="lg" hiddenFrom="sm">
                  Tap to choose files
                </Text>
                <Button
                  leftSection={<IconFileUpload size={16} />}
                  style={{ pointerEvents: 'auto' }}
                  onClick={(event) => {
                    event.stopPropagation();
                    openChooser.current?.();
                  }}
                >
                  Choose files
                </Button>
                <Text size="sm" c="dimmed" maw={460}>
                  As many as you like. You can also paste files or screenshots anywhere on this page.
                  {chunkHint ? ` ${chunkHint}` : ''}
                </Text>
              </Stack>
            </Dropzone>
          </Tabs.Panel>
          <Tabs.Panel value="text">
            <TextUpload
              text={text}
              name={textName}
              onText={setText}
              onName={setTextName}
              onUpload={uploadText}
              uploaded={textUploaded}
            />
          </Tabs.Panel>
        </Tabs>
      </Paper>
      <UploadOptionsPanel
        options={options}
        onChange={setOptions}
        folders={choices}
        foldersLoading={folders.loading}
        serverKeepsOriginalName={serverKeeps}
        serverExtensionless={server?.filesExtensionlessUrls ?? false}
      />
      <UploadAnnouncer items={items} />
      {items.length > 0 ? <UploadQueueCard items={items} actions={actions} /> : null}
      <EarlierAssemblies tracked={NOT_TRACKED} />
    </Stack>
  );
}
