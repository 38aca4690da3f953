// "Add files" to a folder: search the person's files, tick some (across pages), and move them in with one request.
// A file can be in one folder at a time, so a file in another folder is moved out of it (the list says where it is).
import { Button, Checkbox, Group, Pagination, Skeleton, Stack, Text } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useEffect, useMemo, useState } from 'react';
import { ApiRequestError } from '../../api/client';
import type { Folder } from '../../api/types';
import { ErrorAlert } from '../../components/ErrorAlert';
import { FileThumb } from '../../components/FileThumb';
import { OriginalName } from '../../components/OriginalName';
import { FormError } from '../../components/FormError';
import { FormModal } from '../../components/FormModal';
import { formatBytes, formatDate } from '../../lib/format';
import { errorMessage, notifySuccess } from '../../lib/notify';
import { useApi } from '../../lib/use-api';
import { listFolders, moveFilesToFolder, searchFiles } from './folder-api';
import { useSubmit } from '../../lib/use-submit';
import { SearchInput } from '../../components/SearchInput';

export function AddFilesModal({
  folder,
  onClose,
  onAdded,
}: {
  folder: Folder | null;
  onClose: () => void;
  onAdded: () => void;
}) {
  return (
    <FormModal
      value={folder}
      onClose={onClose}
      title={(f) => `Add files to “${f.name}”`}
      formKey={(f) => f.id}
      size="lg"
    >
      {(f, phone) => <AddFilesBody folder={f} phone={phone} onClose={onClose} onAdded={onAdded} />}
    </FormModal>
  );
}

function AddFilesBody({
  folder,
  phone,
  onClose,
  onAdded,
}: {
  folder: Folder;
  phone: boolean;
  onClose: () => void;
  onAdded: () => void;
}) {
  const [search, setSearch] = useState('');
  const [debounced] = useDebouncedValue(search.trim(), 300);
  const [page, setPage] = useState(1);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const {
    busy,
    error: failure,
    run,
  } = useSubmit((err) =>
    err instanceof ApiRequestError && err.code === 1028 ? 'Those files are already in this folder.' : errorMessage(err),
  );

  useEffect(() => setPage(1), [debounced]);
  const files = useApi((signal) => searchFiles({ page, search: debounced }, signal), [page, debounced]);
  const folders = useApi((signal) => listFolders('all', signal), []);
  const folderNames = useMemo(() => new Map((folders.data ?? []).map((f) => [f.id, f.name])), [folders.data]);

  const toggle = (id: string) =>
    setSelected((previous) => {
      const next = new Set(previous);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });

  const add = async () => {
    await run(async () => {
      const { count } = await moveFilesToFolder(folder.id, [...selected]);
      notifySuccess(`${count} ${count === 1 ? 'file' : 'files'} added to “${folder.name}”.`);
      onAdded();
    });
  };

  const data = files.data;
  return (
    <Stack gap="sm">
      <SearchInput label="Search your files by name" value={search} onValue={setSearch} data-autofocus />
      {files.error ? <ErrorAlert error={files.error} onRetry={files.reload} title="Could not load your files" /> : null}
      {!data && files.loading ? (
        <Stack gap={6}>
          {Array.from({ length: 5 }, (_, i) => (
            <Skeleton key={i} h={44} />
          ))}
        </Stack>
      ) : null}
      {data && data.total === 0 ? (
        <Text size="sm" c="dimmed" ta="center" py="lg">
          {debounced
            ? `No file name has “${debounced}” in it.`
            : 'You have no files yet. Upload some first, then add them here.'}
        </Text>
      ) : null}
      {data && data.page.length > 0 ? (
        <div style={{ maxHeight: phone ? undefined : 420, overflowY: 'auto', overflowX: 'hidden' }}>
          <Stack gap={4} style={{ opacity: files.loading ? 0.6 : 1 }} role="group" aria-label="Your files">
            {data.page.map((file) => {
              const here = file.folderId === folder.id;
              const elsewhere =
                file.folderId !== null && !here ? (folderNames.get(file.folderId) ?? 'another folder') : null;
              return (
                // The whole row ticks the box.
                <label key={file.id} style={{ display: 'block', cursor: here ? 'default' : 'pointer' }}>
                  <Group gap="sm" wrap="nowrap" py={4} px={4}>
                    <Checkbox
                      aria-label={`Add ${file.name}`}
                      checked={here || selected.has(file.id)}
                      disabled={here}
                      onChange={() => toggle(file.id)}
                    />
                    <FileThumb file={file} size={32} iconSize={18} />
                    <Stack gap={0} style={{ minWidth: 0, flex: 1 }}>
                      <Text size="sm" fw={500} truncate="end" title={file.name}>
                        {file.name}
                      </Text>
                      <OriginalName file={file} />
                      <Text size="xs" c="dimmed" truncate="end">
                        {[
                          here ? 'Already in this folder' : elsewhere ? `In “${elsewhere}”, moves here` : null,
                          formatBytes(file.size),
                          formatDate(file.createdAt),
                        ]
                          .filter(Boolean)
                          .join(' · ')}
                      </Text>
                    </Stack>
                  </Group>
                </label>
              );
            })}
          </Stack>
        </div>
      ) : null}
      {data && data.pages > 1 ? (
        <Group justify="center">
          <Pagination
            size="sm"
            total={data.pages}
            value={page}
            onChange={setPage}
            siblings={0}
            getControlProps={(control) => ({ 'aria-label': `${control} page` })}
          />
        </Group>
      ) : null}
      <FormError message={failure} title="The files were not added" />
      <Group justify="space-between" gap="xs">
        <Text size="sm" c="dimmed">
          {selected.size === 0 ? 'Tick the files to add' : `${selected.size} selected`}
        </Text>
        <Group gap="xs">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button disabled={selected.size === 0} loading={busy} onClick={() => void add()}>
            {selected.size > 1 ? `Add ${selected.size} files` : 'Add file'}
          </Button>
        </Group>
      </Group>
    </Stack>
  );
}
