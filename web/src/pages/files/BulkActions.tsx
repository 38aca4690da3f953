// What can be done to several selected files at once: favourite, unfavourite, move to a folder (or out of one) and
// delete (after a confirmation). PATCH and DELETE /api/user/files/transaction.
import { Anchor, Button, Group, Modal, Paper, Select, Text } from '@mantine/core';
import { IconFolderSymlink, IconStar, IconStarOff, IconTrash, IconX } from '@tabler/icons-react';
import { useState } from 'react';
import { ApiRequestError } from '../../api/client';
import type { Folder } from '../../api/types';
import { deleteFiles, updateFiles } from './files-api';
import { ConfirmModal } from '../../components/ConfirmModal';
import { plural } from '../../lib/format';
import { Link } from '../../router';
import classes from './files.module.css';
import { notifyFileError, notifySuccess } from './messages';
import { useSubmit } from '../../lib/use-submit';

const NO_FOLDER = '__none__';
/** The selected files no longer exist (deleted elsewhere): the list must be reloaded. */
const gone = (err: unknown): boolean => err instanceof ApiRequestError && err.code === 1026;

export function BulkActions({
  ids,
  folders,
  folderLabel,
  onClear,
  onDone,
}: {
  ids: string[];
  folders: Folder[] | undefined;
  folderLabel: (folder: Folder) => string;
  onClear: () => void;
  /** After a change (or when the files turned out to be gone): reload the list and clear the selection. */
  onDone: () => void;
}) {
  // Each action says what went wrong itself (a notification), and what the selection looks like afterwards.
  const { running: busy, run } = useSubmit<'favorite' | 'unfavorite' | 'move' | 'delete'>(() => null);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [moving, setMoving] = useState(false);
  const [target, setTarget] = useState<string | null>(null);
  const count = ids.length;

  async function favorite(value: boolean) {
    await run(
      async () => {
        try {
          const res = await updateFiles(ids, { favorite: value });
          notifySuccess(
            value
              ? `${plural(res.count, 'file')} added to favourites.`
              : `${plural(res.count, 'file')} removed from favourites.`,
          );
          onDone();
        } catch (err) {
          notifyFileError(
            err,
            'Could not change the favourites',
            value ? 'They already were favourites.' : 'None of them was a favourite.',
          );
          if (gone(err)) onDone();
        }
      },
      value ? 'favorite' : 'unfavorite',
    );
  }

  async function move() {
    if (target === null) return;
    await run(async () => {
      try {
        const folder = target === NO_FOLDER ? null : target;
        const res = await updateFiles(ids, { folder });
        notifySuccess(
          folder === null
            ? `${plural(res.count, 'file')} taken out of their folder.`
            : `${plural(res.count, 'file')} moved to ${res.name ?? 'the folder'}.`,
        );
        setMoving(false);
        setTarget(null);
        onDone();
      } catch (err) {
        notifyFileError(
          err,
          'Could not move the files',
          target !== NO_FOLDER ? 'They already were in that folder.' : 'They were not in a folder.',
        );
        if (gone(err)) onDone();
      }
    }, 'move');
  }
  async function remove() {
    await run(async () => {
      try {
        const res = await deleteFiles(ids);
        notifySuccess(`${plural(res.count, 'file')} deleted.`);
        setConfirmDelete(false);
        onDone();
      } catch (err) {
        notifyFileError(err, 'Could not delete the files');
        setConfirmDelete(false);
        onDone();
      }
    }, 'delete');
  }

  return (
    <>
      <Paper
        withBorder
        shadow="sm"
        p="xs"
        mb="md"
        className={classes.bulkBar}
        role="region"
        aria-label="Selected files"
      >
        <Group gap="xs" justify="space-between" wrap="wrap">
          <Group gap={6}>
            <Text size="sm" fw={600} data-testid="selection-count">
              {plural(count, 'file')} selected
            </Text>
            <Button size="compact-sm" variant="subtle" color="gray" leftSection={<IconX size={14} />} onClick={onClear}>
              Clear
            </Button>
          </Group>
          <Group gap={6} wrap="wrap">
            <Button
              size="xs"
              variant="default"
              leftSection={<IconStar size={14} color="var(--mantine-color-yellow-6)" />}
              loading={busy === 'favorite'}
              onClick={() => void favorite(true)}
            >
              Favourite
            </Button>
            <Button
              size="xs"
              variant="default"
              leftSection={<IconStarOff size={14} />}
              loading={busy === 'unfavorite'}
              onClick={() => void favorite(false)}
            >
              Unfavourite
            </Button>
            <Button
              size="xs"
              variant="default"
              leftSection={<IconFolderSymlink size={14} />}
              onClick={() => setMoving(true)}
            >
              Move to folder
            </Button>
            <Button
              size="xs"
              variant="light"
              color="red"
              leftSection={<IconTrash size={14} />}
              onClick={() => setConfirmDelete(true)}
            >
              Delete
            </Button>
          </Group>
        </Group>
      </Paper>

      <ConfirmModal
        opened={confirmDelete}
        title={`Delete ${plural(count, 'file')}?`}
        confirmLabel={`Delete ${plural(count, 'file')}`}
        busy={busy === 'delete'}
        onConfirm={() => void remove()}
        onClose={() => setConfirmDelete(false)}
      >
        The selected files and their links are deleted for good. People who have a link will get “not found”.
      </ConfirmModal>

      <Modal opened={moving} onClose={() => setMoving(false)} title={`Move ${plural(count, 'file')}`} centered>
        {folders && folders.length === 0 ? (
          <Text size="sm" mb="md">
            You have no folders yet.{' '}
            <Anchor component={Link} to="/dashboard/folders">
              Create one
            </Anchor>{' '}
            first.
          </Text>
        ) : null}
        <Select
          label="Folder"
          placeholder="Choose a folder"
          data={[
            { value: NO_FOLDER, label: 'No folder (take them out of their folder)' },
            ...(folders ?? []).map((f) => ({ value: f.id, label: folderLabel(f) })),
          ]}
          value={target}
          onChange={setTarget}
          searchable
          comboboxProps={{ withinPortal: true }}
          data-autofocus
        />
        <Group justify="flex-end" mt="lg">
          <Button variant="default" onClick={() => setMoving(false)}>
            Cancel
          </Button>
          <Button onClick={() => void move()} disabled={target === null} loading={busy === 'move'}>
            Move
          </Button>
        </Group>
      </Modal>
    </>
  );
}
