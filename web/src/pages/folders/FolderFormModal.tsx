// Creating a folder (at the top or inside another) and editing one: its name, whether it is public, and whether
// visitors may upload into it.
import { Stack, Switch, TextInput } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import type { Folder } from '../../api/types';
import { FormModal } from '../../components/FormModal';
import { ModalActions } from '../../components/ModalActions';
import { notifySuccess } from '../../lib/notify';
import { useSubmit } from '../../lib/use-submit';
import { createFolder, updateFolder } from './folder-api';
import { requiredField } from '../../lib/bound';

export type FolderForm =
  { mode: 'create'; parent: { id: string; name: string } | null } | { mode: 'edit'; folder: Folder };

export function FolderFormModal({
  form,
  onClose,
  onSaved,
}: {
  form: FolderForm | null;
  onClose: () => void;
  onSaved: (folder: Folder) => void;
}) {
  return (
    <FormModal
      value={form}
      onClose={onClose}
      title={(f) =>
        f.mode === 'edit' ? `Edit “${f.folder.name}”` : f.parent ? `New folder in “${f.parent.name}”` : 'New folder'
      }
      formKey={(f) => (f.mode === 'edit' ? f.folder.id : 'new')}
    >
      {(f) => <FolderFormBody form={f} onClose={onClose} onSaved={onSaved} />}
    </FormModal>
  );
}

function FolderFormBody({
  form,
  onClose,
  onSaved,
}: {
  form: FolderForm;
  onClose: () => void;
  onSaved: (folder: Folder) => void;
}) {
  const current = form.mode === 'edit' ? form.folder : null;
  const [name, setName] = useState(current?.name ?? '');
  const [isPublic, setPublic] = useState(current?.public ?? false);
  const [allowUploads, setAllowUploads] = useState(current?.allowUploads ?? false);
  const [nameError, setNameError] = useState<string | null>(null);
  const { busy, error: failure, setError: setFailure, run } = useSubmit();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const trimmed = name.trim();
    setNameError(trimmed ? (trimmed.length > 255 ? 'Use at most 255 characters.' : null) : 'Give the folder a name.');
    setFailure(null);
    if (!trimmed || trimmed.length > 255) return;
    await run(async () => {
      const saved =
        form.mode === 'create'
          ? await createFolder({ name: trimmed, public: isPublic, allowUploads, parentId: form.parent?.id ?? null })
          : await updateFolder(form.folder.id, {
              ...(trimmed !== form.folder.name && { name: trimmed }),
              ...(isPublic !== form.folder.public && { public: isPublic }),
              ...(allowUploads !== form.folder.allowUploads && { allowUploads }),
            });
      notifySuccess(form.mode === 'create' ? `Folder “${saved.name}” created.` : 'The folder was saved.');
      onSaved(saved);
    });
  };

  return (
    <form onSubmit={(event) => void submit(event)} noValidate>
      <Stack gap="md">
        <TextInput label="Name" {...requiredField('off', name, setName)} error={nameError} data-autofocus />
        <Switch
          label="Public"
          description="Anyone with the folder's link can see its files and download them as a zip"
          checked={isPublic}
          onChange={(e) => setPublic(e.currentTarget.checked)}
        />
        <Switch
          label="Accept uploads from visitors"
          description={
            isPublic || allowUploads
              ? 'Anyone with the link can add files on its public page; they become yours and count against your storage'
              : 'Make the folder public first: visitors upload on its public page'
          }
          disabled={!isPublic && !allowUploads}
          checked={allowUploads}
          onChange={(e) => setAllowUploads(e.currentTarget.checked)}
        />
        <ModalActions
          failure={failure}
          failureTitle="Not saved"
          onCancel={onClose}
          busy={busy}
          label={form.mode === 'create' ? 'Create folder' : 'Save'}
        />
      </Stack>
    </form>
  );
}
