// The detail panel of one file (a drawer; the whole screen on a phone): preview, facts, link actions, and the forms
// to rename it, protect it, limit its views, set its expiry, tag it, file it in a folder, make it private and share
// it through links of its own, or delete it.
import { Badge, Button, Divider, Drawer, Group, Select, SimpleGrid, Skeleton, Stack, Text, Title } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import {
  IconDownload,
  IconExternalLink,
  IconEyeOff,
  IconLock,
  IconStar,
  IconStarFilled,
  IconTrash,
} from '@tabler/icons-react';
import { useCallback, useEffect, useState, type ReactNode } from 'react';
import type { FileItem, FileTag, Folder, Tag } from '../../api/types';
import { deleteFile, getFile, updateFile, updateFiles } from './files-api';
import { ConfirmModal } from '../../components/ConfirmModal';
import { CopyButton } from '../../components/CopyButton';
import { ErrorAlert } from '../../components/ErrorAlert';
import { OriginalName } from '../../components/OriginalName';
import { fileKind, KIND_LABELS, ownerDownloadUrl } from '../../lib/file-kind';
import { formatBytes, formatDate } from '../../lib/format';
import { ExpiryForm, MaxViewsForm, PasswordForm, RenameForm } from './FileEditForms';
import { FilePreview } from './FilePreview';
import { FileShares } from './FileShares';
import { FileTags } from './FileTags';
import { notifyFileError, notifySuccess } from './messages';

const NO_FOLDER = '__none__';

function Fact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div>
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
        {children}
      </Text>
    </div>
  );
}

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Stack gap="md">
      <Divider />
      <Title order={4} size="h5">
        {title}
      </Title>
      {children}
    </Stack>
  );
}

export interface FileDetailProps {
  fileId: string | null;
  /** The file as the list has it, shown at once while the fresh copy loads. */
  initial: FileItem | undefined;
  tags: Tag[] | undefined;
  folders: Folder[] | undefined;
  folderLabel: (folder: Folder) => string;
  onClose: () => void;
  onChanged: (file: FileItem) => void;
  onDeleted: (id: string) => void;
  onTagCreated: () => void;
}

export function FileDetail(props: FileDetailProps) {
  const { fileId, initial, onChanged } = props;
  const phone = useMediaQuery('(max-width: 36em)');
  const [file, setFile] = useState<FileItem | null>(initial ?? null);
  const [error, setError] = useState<unknown>(null);
  const [tick, setTick] = useState(0);

  useEffect(() => {
    setError(null);
    if (!fileId) {
      setFile(null);
      return;
    }
    setFile((current) => (current?.id === fileId ? current : initial?.id === fileId ? initial : null));
    const controller = new AbortController();
    getFile(fileId, controller.signal)
      .then((fresh) => setFile(fresh))
      .catch((err: unknown) => {
        if (!controller.signal.aborted) setError(err);
      });
    return () => controller.abort();
    // `initial` is only a first picture; a new list page must not refetch the open file.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [fileId, tick]);

  const update = useCallback(
    (next: FileItem) => {
      setFile(next);
      onChanged(next);
    },
    [onChanged],
  );

  const patch = useCallback(
    async (body: Record<string, unknown>) => {
      if (!file) throw new Error('No file is open.');
      const next = await updateFile(file.id, body);
      update(next);
      return next;
    },
    [file, update],
  );

  return (
    <Drawer
      opened={fileId !== null}
      onClose={props.onClose}
      position="right"
      size={phone ? '100%' : 'lg'}
      title={
        <div style={{ minWidth: 0 }}>
          <Text fw={600} truncate maw={phone ? 260 : 520}>
            {file?.name ?? 'File'}
          </Text>
          {file ? <OriginalName file={file} maw={phone ? 260 : 520} /> : null}
        </div>
      }
      closeButtonProps={{ 'aria-label': 'Close the file details' }}
      // Escape closes only the dialog on top: a confirmation opened from the panel (a portal, outside the panel's
      // elements, whose key presses still reach this handler through React) closes itself and leaves the panel open.
      closeOnEscape={false}
      onKeyDown={(event) => {
        if (event.key === 'Escape' && event.currentTarget.contains(event.target as Node)) props.onClose();
      }}
    >
      {error ? (
        <ErrorAlert error={error} onRetry={() => setTick((t) => t + 1)} title="Could not load this file" />
      ) : file ? (
        <FileDetailBody key={file.id} {...props} file={file} patch={patch} update={update} />
      ) : (
        <Stack>
          <Skeleton h={220} />
          <Skeleton h={16} w="60%" />
          <Skeleton h={16} w="40%" />
        </Stack>
      )}
    </Drawer>
  );
}

function FileDetailBody({
  file,
  patch,
  update,
  tags,
  folders,
  folderLabel,
  onDeleted,
  onTagCreated,
}: FileDetailProps & {
  file: FileItem;
  patch: (body: Record<string, unknown>) => Promise<FileItem>;
  update: (file: FileItem) => void;
}) {
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [favoriteBusy, setFavoriteBusy] = useState(false);
  const [folderBusy, setFolderBusy] = useState(false);
  const folder = folders?.find((f) => f.id === file.folderId);

  async function toggleFavorite() {
    setFavoriteBusy(true);
    try {
      await patch({ favorite: !file.favorite });
    } catch (err) {
      notifyFileError(err);
    } finally {
      setFavoriteBusy(false);
    }
  }

  async function moveTo(value: string | null) {
    const target = value === NO_FOLDER || value === null ? null : value;
    if (target === file.folderId) return;
    setFolderBusy(true);
    try {
      await updateFiles([file.id], { folder: target });
      update({ ...file, folderId: target });
      notifySuccess(
        target === null
          ? 'Taken out of its folder.'
          : `Moved to ${folders?.find((f) => f.id === target)?.name ?? 'the folder'}.`,
      );
    } catch (err) {
      notifyFileError(err, 'Could not move the file');
    } finally {
      setFolderBusy(false);
    }
  }

  async function remove() {
    try {
      await deleteFile(file.id);
      notifySuccess(`${file.name} was deleted.`);
      setConfirmDelete(false);
      onDeleted(file.id);
    } catch (err) {
      notifyFileError(err, 'Could not delete the file');
    }
  }

  return (
    <Stack gap="md" data-testid="file-detail">
      <FilePreview file={file} />

      <Group gap={6}>
        <Badge variant="light" tt="none">
          {KIND_LABELS[fileKind(file.type)]}
        </Badge>
        <Badge variant="default" tt="none">
          {formatBytes(file.size)}
        </Badge>
        {file.password ? (
          <Badge variant="light" color="orange" tt="none" leftSection={<IconLock size={12} />}>
            Password
          </Badge>
        ) : null}
        {file.private ? (
          <Badge variant="light" color="grape" tt="none" leftSection={<IconEyeOff size={12} />}>
            Private
          </Badge>
        ) : null}
        {file.favorite ? (
          <Badge variant="light" color="yellow" tt="none" leftSection={<IconStarFilled size={12} />}>
            Favourite
          </Badge>
        ) : null}
      </Group>

      <Group gap="xs">
        <CopyButton
          value={file.url}
          label="Copy link"
          variant="filled"
          size="xs"
          iconSize={14}
          notice="The link is on your clipboard."
        />
        <Button
          size="xs"
          variant="default"
          component="a"
          href={file.url}
          target="_blank"
          rel="noopener noreferrer"
          leftSection={<IconExternalLink size={14} />}
        >
          Open link
        </Button>
        <Button
          size="xs"
          variant="default"
          component="a"
          href={ownerDownloadUrl(file.id)}
          download
          leftSection={<IconDownload size={14} />}
        >
          Download
        </Button>
        <Button
          size="xs"
          variant="default"
          loading={favoriteBusy}
          aria-pressed={file.favorite}
          leftSection={
            file.favorite ? <IconStarFilled size={14} color="var(--mantine-color-yellow-6)" /> : <IconStar size={14} />
          }
          onClick={() => void toggleFavorite()}
        >
          {file.favorite ? 'Unfavourite' : 'Favourite'}
        </Button>
      </Group>

      <Fact label="Link">{file.url}</Fact>
      <SimpleGrid cols={2} spacing="sm" verticalSpacing="xs" mt={-6}>
        <Fact label="Type">{file.type}</Fact>
        <Fact label="Original name">{file.originalName ?? 'Not kept'}</Fact>
        <Fact label="Views">
          {file.views.toLocaleString()}
          {file.maxViews !== null ? ` of ${file.maxViews.toLocaleString()} allowed` : ''}
        </Fact>
        <Fact label="Uploaded">{formatDate(file.createdAt)}</Fact>
        <Fact label="Expires">{file.deletesAt ? formatDate(file.deletesAt) : 'Never'}</Fact>
      </SimpleGrid>

      <Section title="Organise">
        <RenameForm file={file} patch={patch} />
        <FileTags
          file={file}
          tags={tags}
          onChanged={(next: FileTag[]) => update({ ...file, tags: next })}
          onTagCreated={onTagCreated}
        />
        <Select
          label="Folder"
          placeholder={folders && folders.length === 0 ? 'You have no folders yet' : 'No folder'}
          data={[
            { value: NO_FOLDER, label: 'No folder' },
            ...(folders ?? []).map((f) => ({ value: f.id, label: folderLabel(f) })),
          ]}
          value={file.folderId ?? NO_FOLDER}
          onChange={(value) => void moveTo(value)}
          disabled={folderBusy || (folders !== undefined && folders.length === 0)}
          description={folder ? `In ${folderLabel(folder)}.` : 'Not in a folder.'}
          allowDeselect={false}
          searchable
          comboboxProps={{ withinPortal: true }}
        />
      </Section>

      <Section title="Access">
        <PasswordForm file={file} patch={patch} />
        <MaxViewsForm file={file} patch={patch} />
        <ExpiryForm file={file} patch={patch} />
      </Section>

      <Section title="Share links">
        <FileShares file={file} patch={patch} />
      </Section>

      <Section title="Delete">
        <Group justify="space-between" wrap="nowrap" gap="sm">
          <Text size="sm" c="dimmed">
            Deletes the file and its link for good.
          </Text>
          <Button
            size="xs"
            color="red"
            variant="light"
            leftSection={<IconTrash size={14} />}
            onClick={() => setConfirmDelete(true)}
            style={{ flex: 'none' }}
          >
            Delete the file
          </Button>
        </Group>
      </Section>

      <ConfirmModal
        opened={confirmDelete}
        title={`Delete ${file.name}?`}
        confirmLabel="Delete the file"
        onConfirm={remove}
        onClose={() => setConfirmDelete(false)}
      >
        The file and its link are deleted for good. People who have the link will get “not found”.
      </ConfirmModal>
    </Stack>
  );
}
