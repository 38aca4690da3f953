// One open folder (/dashboard/folders?folder=<id>): where it is, sharing (public link, visitor uploads), the folders
// inside it, and its files (a page at a time: "Show more files" reads on by cursor), each of which can be taken out of
// the folder.
import {
  ActionIcon,
  Anchor,
  Badge,
  Breadcrumbs,
  Button,
  Card,
  Divider,
  Group,
  Menu,
  Skeleton,
  Stack,
  Switch,
  Text,
  TextInput,
  Tooltip,
} from '@mantine/core';
import {
  IconChevronDown,
  IconDownload,
  IconExternalLink,
  IconFiles,
  IconFolderMinus,
  IconFolderPlus,
  IconLock,
  IconPencil,
  IconPlus,
  IconTrash,
} from '@tabler/icons-react';
import { useState } from 'react';
import type { FileItem, Folder, FolderDetail } from '../../api/types';
import { CopyButton } from '../../components/CopyButton';
import { EmptyCard } from '../../components/EmptyCard';
import { FileThumb } from '../../components/FileThumb';
import { OriginalName } from '../../components/OriginalName';
import { ErrorAlert } from '../../components/ErrorAlert';
import { PageHeader } from '../../components/PageHeader';
import { formatBytes, formatDate } from '../../lib/format';
import { notifyError, notifySuccess } from '../../lib/notify';
import { useApi } from '../../lib/use-api';
import { Link, navigate } from '../../router';
import { AddFilesModal } from './AddFilesModal';
import { contentsText, FolderCards, folderHref, type FolderActions } from './FolderCards';
import { getFolder, publicFolderLink, removeFileFromFolder, updateFolder, zipPath } from './folder-api';
import { IconLabelButton } from '../../components/IconLabelButton';

interface FolderViewProps {
  id: string;
  version: number;
  actions: FolderActions;
  onNewFolder: (parent: Folder) => void;
}

export function FolderView({ id, version, actions, onNewFolder }: FolderViewProps) {
  const detail = useApi((signal) => getFolder(id, signal), [id, version]);
  const [adding, setAdding] = useState(false);
  const [loadingMore, setLoadingMore] = useState(false);
  const folder = detail.data?.id === id ? detail.data : undefined;

  if (detail.error && !folder) {
    return (
      <Stack gap="sm">
        <FolderCrumbs folder={null} />
        <ErrorAlert error={detail.error} onRetry={detail.reload} title="Could not open this folder" />
      </Stack>
    );
  }
  if (!folder) {
    return (
      <Stack gap="md" aria-busy="true" aria-label="Loading the folder">
        <Skeleton h={20} w={200} />
        <Skeleton h={40} w={300} />
        <Skeleton h={110} />
        <Skeleton h={200} />
      </Stack>
    );
  }

  const removeFile = async (file: FileItem) => {
    try {
      await removeFileFromFolder(folder.id, file.id);
      detail.setData((previous) =>
        previous
          ? { ...previous, fileCount: previous.fileCount - 1, files: previous.files.filter((f) => f.id !== file.id) }
          : previous!,
      );
      notifySuccess(`${file.name} was taken out of the folder. It is still in your files.`);
    } catch (err) {
      notifyError(err);
    }
  };

  /** The next page of older files, after the last one shown, added below them. */
  const loadMore = async () => {
    const cursor = folder.nextCursor;
    if (cursor === null) return;
    setLoadingMore(true);
    try {
      const next = await getFolder(folder.id, undefined, cursor);
      detail.setData((previous) => {
        if (!previous || previous.id !== next.id || previous.nextCursor !== cursor) return previous!;
        const shown = new Set(previous.files.map((f) => f.id));
        return {
          ...previous,
          fileCount: next.fileCount,
          files: [...previous.files, ...next.files.filter((f) => !shown.has(f.id))],
          nextCursor: next.nextCursor,
        };
      });
    } catch (err) {
      notifyError(err);
    } finally {
      setLoadingMore(false);
    }
  };

  return (
    <Stack gap="md">
      <FolderCrumbs folder={folder} />
      <PageHeader
        title={folder.name}
        description={`${contentsText(folder)} · created ${formatDate(folder.createdAt)}`}
        actions={
          <>
            <Button leftSection={<IconPlus size={16} />} onClick={() => setAdding(true)}>
              Add files
            </Button>
            <Button
              variant="default"
              leftSection={<IconDownload size={16} />}
              component="a"
              href={zipPath(folder.id)}
              download
            >
              Download zip
            </Button>
            <Menu position="bottom-end" withArrow>
              <Menu.Target>
                <Button variant="default" rightSection={<IconChevronDown size={14} />}>
                  More
                </Button>
              </Menu.Target>
              <Menu.Dropdown>
                <Menu.Item leftSection={<IconFolderPlus size={16} />} onClick={() => onNewFolder(folder)}>
                  New folder inside
                </Menu.Item>
                <Menu.Item leftSection={<IconPencil size={16} />} onClick={() => actions.onEdit(folder)}>
                  Rename
                </Menu.Item>
                <Menu.Item
                  leftSection={<IconFiles size={16} />}
                  onClick={() => navigate(`/dashboard/files?folder=${encodeURIComponent(folder.id)}`)}
                >
                  Show on the Files page
                </Menu.Item>
                <Menu.Divider />
                <Menu.Item color="red" leftSection={<IconTrash size={16} />} onClick={() => actions.onDelete(folder)}>
                  Delete folder
                </Menu.Item>
              </Menu.Dropdown>
            </Menu>
          </>
        }
      />
      <SharingCard
        folder={folder}
        onSaved={(saved) => detail.setData((previous) => (previous ? { ...previous, ...saved } : previous!))}
      />
      {folder.children.length > 0 ? (
        <Stack gap="xs">
          <Text fw={600}>Folders inside</Text>
          <FolderCards folders={folder.children} actions={actions} />
        </Stack>
      ) : null}
      <Stack gap="xs">
        <Text fw={600}>
          Files{' '}
          <Text span c="dimmed" fw={400} size="sm">
            ({folder.fileCount})
          </Text>
        </Text>
        {folder.files.length === 0 ? (
          <EmptyFiles onAdd={() => setAdding(true)} />
        ) : (
          <Card withBorder padding={0}>
            {folder.files.map((file, index) => (
              <div key={file.id}>
                {index > 0 ? <Divider /> : null}
                <FileRow file={file} onRemove={() => void removeFile(file)} />
              </div>
            ))}
          </Card>
        )}
        {folder.nextCursor !== null ? (
          <Group justify="center">
            <Button variant="default" loading={loadingMore} onClick={() => void loadMore()}>
              Show more files
            </Button>
          </Group>
        ) : null}
      </Stack>
      <AddFilesModal
        folder={adding ? folder : null}
        onClose={() => setAdding(false)}
        onAdded={() => {
          setAdding(false);
          detail.reload();
        }}
      />
    </Stack>
  );
}

function FolderCrumbs({ folder }: { folder: FolderDetail | null }) {
  return (
    <Breadcrumbs separatorMargin={6} aria-label="Where this folder is" style={{ flexWrap: 'wrap', rowGap: 4 }}>
      <Anchor component={Link} to="/dashboard/folders" size="sm">
        Folders
      </Anchor>
      {(folder?.parents ?? []).map((parent) => (
        <Anchor key={parent.id} component={Link} to={folderHref(parent.id)} size="sm">
          {parent.name}
        </Anchor>
      ))}
      {folder ? (
        <Text size="sm" c="dimmed" aria-current="page">
          {folder.name}
        </Text>
      ) : null}
    </Breadcrumbs>
  );
}

/** Public or private, the public link to copy or open, and visitor uploads. A switch moves at once, and back if the
 * server refuses. */
function SharingCard({ folder, onSaved }: { folder: Folder; onSaved: (saved: Folder) => void }) {
  const [pending, setPending] = useState<{ public?: boolean; allowUploads?: boolean } | null>(null);
  const isPublic = pending?.public ?? folder.public;
  const allowUploads = pending?.allowUploads ?? folder.allowUploads;
  const link = publicFolderLink(folder.id);
  const change = async (patch: { public: boolean } | { allowUploads: boolean }) => {
    setPending(patch);
    try {
      const saved = await updateFolder(folder.id, patch);
      onSaved(saved);
      if ('public' in patch)
        notifySuccess(
          patch.public ? 'The folder is public: anyone with its link can see it.' : 'The folder is private again.',
        );
      else
        notifySuccess(
          patch.allowUploads
            ? 'Visitors can now upload into the folder.'
            : 'The folder no longer takes uploads from visitors.',
        );
    } catch (err) {
      notifyError(err);
    } finally {
      setPending(null);
    }
  };
  return (
    <Card withBorder padding="md">
      <Stack gap="sm">
        <Switch
          label="Public"
          description={
            isPublic
              ? 'Anyone with the link below can see the files and download them as a zip.'
              : 'Only you can see this folder. Make it public to share all of it with one link.'
          }
          checked={isPublic}
          disabled={pending !== null}
          onChange={(e) => void change({ public: e.currentTarget.checked })}
        />
        {isPublic ? (
          <Group gap="xs" wrap="nowrap">
            <TextInput
              aria-label="Public link"
              value={link}
              readOnly
              style={{ flex: 1, minWidth: 0 }}
              onFocus={(e) => e.currentTarget.select()}
            />
            <CopyButton value={link} what="public link" />
            <Tooltip label="Open the public page" withArrow>
              <ActionIcon
                variant="subtle"
                color="gray"
                component="a"
                href={link}
                target="_blank"
                rel="noreferrer"
                aria-label="Open the public page"
              >
                <IconExternalLink size={16} />
              </ActionIcon>
            </Tooltip>
          </Group>
        ) : null}
        <Switch
          label="Accept uploads from visitors"
          description={
            isPublic || allowUploads
              ? 'Anyone with the link can add files on the public page; they become yours and count against your storage.'
              : 'Make the folder public first: visitors upload on its public page.'
          }
          checked={allowUploads}
          disabled={pending !== null || (!isPublic && !allowUploads)}
          onChange={(e) => void change({ allowUploads: e.currentTarget.checked })}
        />
      </Stack>
    </Card>
  );
}

/** A file of the folder: its name opens it on the Files page (details, tags, password ...); copy or open its share
 * link; take it out of the folder. */
function FileRow({ file, onRemove }: { file: FileItem; onRemove: () => void }) {
  const secondary = [formatBytes(file.size), formatDate(file.createdAt)];
  const detail = `/dashboard/files?folder=${encodeURIComponent(file.folderId ?? '')}&file=${encodeURIComponent(file.id)}`;
  return (
    <Group gap="sm" wrap="nowrap" px="sm" py={8} data-testid="folder-file">
      <FileThumb file={file} size={36} iconSize={20} />
      <Stack gap={0} style={{ minWidth: 0, flex: 1 }}>
        <Group gap={6} wrap="nowrap">
          <Anchor component={Link} to={detail} size="sm" fw={500} truncate="end" title={file.name}>
            {file.name}
          </Anchor>
          {file.password ? (
            <Badge
              size="xs"
              variant="light"
              color="violet"
              leftSection={<IconLock size={10} />}
              style={{ flexShrink: 0 }}
            >
              Password
            </Badge>
          ) : null}
        </Group>
        <OriginalName file={file} />
        <Text size="xs" c="dimmed" truncate="end">
          {secondary.join(' · ')}
        </Text>
      </Stack>
      <Group gap={2} wrap="nowrap">
        <CopyButton value={file.url} what={`link of ${file.name}`} />
        <Tooltip label={`Open the share link of ${file.name}`} withArrow>
          <ActionIcon
            variant="subtle"
            color="gray"
            component="a"
            href={file.url}
            target="_blank"
            rel="noreferrer"
            aria-label={`Open the share link of ${file.name}`}
          >
            <IconExternalLink size={16} />
          </ActionIcon>
        </Tooltip>
        <Tooltip label={`Remove ${file.name} from the folder`} withArrow>
          <ActionIcon
            variant="subtle"
            color="gray"
            aria-label={`Remove ${file.name} from the folder`}
            onClick={onRemove}
          >
            <IconFolderMinus size={18} />
          </ActionIcon>
        </Tooltip>
      </Group>
    </Group>
  );
}

function EmptyFiles({ onAdd }: { onAdd: () => void }) {
  return (
    <EmptyCard
      icon={<IconFiles size={22} />}
      title="No files in this folder yet"
      action={<IconLabelButton variant="light" icon={IconPlus} label="Add files" onClick={onAdd} />}
    >
      Add files you have already uploaded, or choose this folder in the upload options next time.
    </EmptyCard>
  );
}
