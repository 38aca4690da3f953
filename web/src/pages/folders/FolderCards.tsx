// Folders as a grid of cards: name (opens it), what is in it, public/uploads badges, and a menu of what can be done
// with it. Used for the top level and for the folders inside an open folder.
import { ActionIcon, Anchor, Badge, Card, Group, Menu, SimpleGrid, Stack, Text, ThemeIcon } from '@mantine/core';
import {
  IconCopy,
  IconDots,
  IconDownload,
  IconFolder,
  IconFolderShare,
  IconLock,
  IconPencil,
  IconTrash,
  IconWorld,
} from '@tabler/icons-react';
import type { Folder } from '../../api/types';
import { copyText } from '../../lib/clipboard';
import { notifyError, notifySuccess } from '../../lib/notify';
import { Link } from '../../router';
import { publicFolderLink, zipPath } from './folder-api';

export interface FolderActions {
  onEdit: (folder: Folder) => void;
  onSetPublic: (folder: Folder, value: boolean) => void;
  onDelete: (folder: Folder) => void;
}

export const folderHref = (id: string) => `/dashboard/folders?folder=${encodeURIComponent(id)}`;

export function contentsText(folder: Pick<Folder, 'fileCount' | 'childCount'>): string {
  const files = `${folder.fileCount} ${folder.fileCount === 1 ? 'file' : 'files'}`;
  if (folder.childCount === 0) return files;
  return `${files} · ${folder.childCount} ${folder.childCount === 1 ? 'folder' : 'folders'}`;
}

export async function copyPublicLink(folder: Folder): Promise<void> {
  if (await copyText(publicFolderLink(folder.id))) notifySuccess('The public link was copied.');
  else
    notifyError(
      new Error('The browser did not allow copying. Open the folder and copy the link from there.'),
      'Not copied',
    );
}

function FolderCard({ folder, actions }: { folder: Folder; actions: FolderActions }) {
  return (
    <Card withBorder padding="sm" data-testid="folder-card">
      <Group wrap="nowrap" gap="sm" align="flex-start">
        <ThemeIcon size={40} variant="light" color={folder.public ? 'teal' : 'blue'} radius="md" aria-hidden>
          {folder.public ? <IconFolderShare size={22} /> : <IconFolder size={22} />}
        </ThemeIcon>
        <Stack gap={2} style={{ minWidth: 0, flex: 1 }}>
          <Anchor component={Link} to={folderHref(folder.id)} fw={600} truncate="end" title={folder.name}>
            {folder.name}
          </Anchor>
          <Text size="xs" c="dimmed">
            {contentsText(folder)}
          </Text>
          <Group gap={4} mt={2}>
            {folder.public ? (
              <Badge size="xs" variant="light" color="teal" leftSection={<IconWorld size={10} />}>
                Public
              </Badge>
            ) : (
              <Badge size="xs" variant="light" color="gray" leftSection={<IconLock size={10} />}>
                Private
              </Badge>
            )}
            {folder.allowUploads ? (
              <Badge size="xs" variant="light" color="orange">
                Takes uploads
              </Badge>
            ) : null}
          </Group>
        </Stack>
        <Menu position="bottom-end" withArrow>
          <Menu.Target>
            <ActionIcon variant="subtle" color="gray" aria-label={`Actions for ${folder.name}`}>
              <IconDots size={18} />
            </ActionIcon>
          </Menu.Target>
          <Menu.Dropdown>
            <Menu.Item leftSection={<IconPencil size={16} />} onClick={() => actions.onEdit(folder)}>
              Rename or change
            </Menu.Item>
            {folder.public ? (
              <>
                <Menu.Item leftSection={<IconCopy size={16} />} onClick={() => void copyPublicLink(folder)}>
                  Copy public link
                </Menu.Item>
                <Menu.Item leftSection={<IconLock size={16} />} onClick={() => actions.onSetPublic(folder, false)}>
                  Make private
                </Menu.Item>
              </>
            ) : (
              <Menu.Item leftSection={<IconWorld size={16} />} onClick={() => actions.onSetPublic(folder, true)}>
                Make public
              </Menu.Item>
            )}
            <Menu.Item leftSection={<IconDownload size={16} />} component="a" href={zipPath(folder.id)} download>
              Download as zip
            </Menu.Item>
            <Menu.Divider />
            <Menu.Item color="red" leftSection={<IconTrash size={16} />} onClick={() => actions.onDelete(folder)}>
              Delete
            </Menu.Item>
          </Menu.Dropdown>
        </Menu>
      </Group>
    </Card>
  );
}

export function FolderCards({ folders, actions }: { folders: Folder[]; actions: FolderActions }) {
  return (
    <SimpleGrid cols={{ base: 1, xs: 2, md: 3, xl: 4 }} spacing="sm">
      {folders.map((folder) => (
        <FolderCard key={folder.id} folder={folder} actions={actions} />
      ))}
    </SimpleGrid>
  );
}
