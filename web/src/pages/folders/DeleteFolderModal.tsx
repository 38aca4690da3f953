// Deleting a folder, saying what happens to what is in it: its files are kept (unfiled) unless the person chooses to
// delete them too; folders inside it are deleted with it, or moved up a level.
import { Radio, Stack, Text } from '@mantine/core';
import { useEffect, useState } from 'react';
import type { Folder } from '../../api/types';
import { ConfirmModal } from '../../components/ConfirmModal';
import { plural } from '../../lib/format';
import { notifySuccess } from '../../lib/notify';
import { useLastValue } from '../../lib/use-last-value';
import { deleteFolder } from './folder-api';

export function DeleteFolderModal({
  folder: requested,
  onClose,
  onDeleted,
}: {
  folder: Folder | null;
  onClose: () => void;
  onDeleted: (folder: Folder) => void;
}) {
  const folder = useLastValue(requested);
  const [files, setFiles] = useState<'keep' | 'delete'>('keep');
  const [children, setChildren] = useState<'delete' | 'lift'>('delete');

  // Each folder starts from the safe choices (and not while the last one fades out).
  useEffect(() => {
    if (requested === null) return;
    setFiles('keep');
    setChildren('delete');
  }, [requested]);

  const remove = async () => {
    if (!folder) return;
    const result = await deleteFolder(folder.id, { files, children });
    const parts = [`Folder “${folder.name}” deleted`];
    if (result.folders > 1) parts.push(`with ${plural(result.folders - 1, 'folder', 'folders')} inside it`);
    let message = `${parts.join(' ')}.`;
    if (result.keptFiles > 0)
      message += ` ${plural(result.keptFiles, 'file was', 'files were')} kept; find them under Files.`;
    if (result.deletedFiles > 0) message += ` ${plural(result.deletedFiles, 'file was', 'files were')} deleted.`;
    notifySuccess(message);
    onDeleted(folder);
  };

  const nested = folder !== null && folder.childCount > 0;
  const filesBelow = nested && children === 'delete' ? ' (and in the folders inside it)' : '';
  return (
    <ConfirmModal
      opened={requested !== null}
      title={folder ? `Delete “${folder.name}”?` : ''}
      confirmLabel={files === 'delete' ? 'Delete folder and files' : 'Delete folder'}
      onConfirm={remove}
      onClose={onClose}
    >
      {folder ? (
        <>
          <Text size="sm">
            It holds {plural(folder.fileCount, 'file', 'files')}
            {nested ? ` and ${plural(folder.childCount, 'folder', 'folders')}` : ''}.
            {folder.public ? ' Its public link will stop working.' : ''}
          </Text>
          <Radio.Group
            label={`The files in it${filesBelow}`}
            value={files}
            onChange={(v) => setFiles(v as 'keep' | 'delete')}
          >
            <Stack gap={8} mt={6}>
              <Radio
                value="keep"
                label="Keep them"
                description="They stay in your files, outside any folder, with their links"
              />
              <Radio
                value="delete"
                color="red"
                label="Delete them too"
                description="Their links stop working and they cannot be brought back"
              />
            </Stack>
          </Radio.Group>
          {nested ? (
            <Radio.Group
              label="The folders inside it"
              value={children}
              onChange={(v) => setChildren(v as 'delete' | 'lift')}
            >
              <Stack gap={8} mt={6}>
                <Radio value="delete" label="Delete them with it" />
                <Radio
                  value="lift"
                  label="Move them up one level"
                  description="They and their files stay as they are"
                />
              </Stack>
            </Radio.Group>
          ) : null}
        </>
      ) : null}
    </ConfirmModal>
  );
}
