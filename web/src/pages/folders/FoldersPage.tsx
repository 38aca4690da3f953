// Folders: the top-level folders as cards, or one open folder (?folder=<id>). Creating, editing, making public and
// deleting are shared by both views; a change bumps `version`, which reloads what is shown.
import { SimpleGrid, Skeleton, Stack } from '@mantine/core';
import { IconFolderPlus, IconFolders } from '@tabler/icons-react';
import { useState } from 'react';
import type { Folder } from '../../api/types';
import { EmptyCard } from '../../components/EmptyCard';
import { ErrorAlert } from '../../components/ErrorAlert';
import { PageHeader } from '../../components/PageHeader';
import { notifyError, notifySuccess } from '../../lib/notify';
import { useApi } from '../../lib/use-api';
import { navigate, useLocation } from '../../router';
import { DeleteFolderModal } from './DeleteFolderModal';
import { FolderCards, folderHref, type FolderActions } from './FolderCards';
import { FolderFormModal, type FolderForm } from './FolderFormModal';
import { listFolders, updateFolder } from './folder-api';
import { FolderView } from './FolderView';
import { IconLabelButton } from '../../components/IconLabelButton';

export function FoldersPage() {
  const { search } = useLocation();
  const openId = search.get('folder');
  const [version, setVersion] = useState(0);
  const [form, setForm] = useState<FolderForm | null>(null);
  const [deleting, setDeleting] = useState<Folder | null>(null);
  const reload = () => setVersion((v) => v + 1);

  const actions: FolderActions = {
    onEdit: (folder) => setForm({ mode: 'edit', folder }),
    onDelete: setDeleting,
    onSetPublic: (folder, value) => {
      updateFolder(folder.id, { public: value })
        .then(() => {
          notifySuccess(
            value
              ? `“${folder.name}” is public: anyone with its link can see it.`
              : `“${folder.name}” is private again.`,
          );
          reload();
        })
        .catch((err: unknown) => notifyError(err));
    },
  };

  return (
    <>
      {openId ? (
        <FolderView
          id={openId}
          version={version}
          actions={actions}
          onNewFolder={(parent) => setForm({ mode: 'create', parent })}
        />
      ) : (
        <FolderIndex
          version={version}
          actions={actions}
          onNewFolder={() => setForm({ mode: 'create', parent: null })}
        />
      )}
      <FolderFormModal
        form={form}
        onClose={() => setForm(null)}
        onSaved={(saved) => {
          // A new folder opens, ready for files.
          if (form?.mode === 'create') navigate(folderHref(saved.id));
          setForm(null);
          reload();
        }}
      />
      <DeleteFolderModal
        folder={deleting}
        onClose={() => setDeleting(null)}
        onDeleted={(folder) => {
          setDeleting(null);
          // Deleting the open folder: go to where it was.
          if (folder.id === openId) navigate(folder.parentId ? folderHref(folder.parentId) : '/dashboard/folders');
          reload();
        }}
      />
    </>
  );
}

function FolderIndex({
  version,
  actions,
  onNewFolder,
}: {
  version: number;
  actions: FolderActions;
  onNewFolder: () => void;
}) {
  const folders = useApi((signal) => listFolders('root', signal), [version]);
  return (
    <Stack gap="md">
      <PageHeader
        title="Folders"
        description="Keep files together, and share a whole folder with one link."
        actions={<IconLabelButton icon={IconFolderPlus} label="New folder" onClick={onNewFolder} />}
      />
      {folders.error ? (
        <ErrorAlert error={folders.error} onRetry={folders.reload} title="Could not load your folders" />
      ) : null}
      {!folders.data && folders.loading ? (
        <SimpleGrid cols={{ base: 1, xs: 2, md: 3, xl: 4 }} spacing="sm" aria-busy="true" aria-label="Loading folders">
          {Array.from({ length: 6 }, (_, i) => (
            <Skeleton key={i} h={88} />
          ))}
        </SimpleGrid>
      ) : null}
      {folders.data && folders.data.length === 0 ? (
        <EmptyCard
          icon={<IconFolders size={22} />}
          title="No folders yet"
          action={<IconLabelButton variant="light" icon={IconFolderPlus} label="New folder" onClick={onNewFolder} />}
        >
          Create a folder, then add files to it here or pick it in the upload options. A public folder can be shared
          with one link, and can even take uploads from the people you share it with.
        </EmptyCard>
      ) : null}
      {folders.data && folders.data.length > 0 ? <FolderCards folders={folders.data} actions={actions} /> : null}
    </Stack>
  );
}
