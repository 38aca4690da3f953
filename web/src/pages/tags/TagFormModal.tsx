// Creating or editing a tag: a name and a colour (swatches, a picker, or a typed hex value), with a preview.
import { ColorInput, Group, Stack, Text, TextInput } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import type { Tag } from '../../api/types';
import { FormModal } from '../../components/FormModal';
import { TagChip } from '../../components/TagChip';
import { ModalActions } from '../../components/ModalActions';
import { notifySuccess } from '../../lib/notify';
import { useSubmit } from '../../lib/use-submit';
import { createTag, HEX_COLOR_RE, isNameTaken, TAG_SWATCHES, updateTag, tagErrorMessage } from './tag-api';
import { bound } from '../../lib/bound';

export type TagForm = { mode: 'create'; color: string } | { mode: 'edit'; tag: Tag };

export function TagFormModal({
  form,
  onClose,
  onSaved,
}: {
  form: TagForm | null;
  onClose: () => void;
  onSaved: (tag: Tag) => void;
}) {
  return (
    <FormModal
      value={form}
      onClose={onClose}
      title={(f) => (f.mode === 'edit' ? `Edit tag “${f.tag.name}”` : 'New tag')}
      formKey={(f) => (f.mode === 'edit' ? f.tag.id : 'new')}
    >
      {(f) => <TagFormBody form={f} onClose={onClose} onSaved={onSaved} />}
    </FormModal>
  );
}

function TagFormBody({ form, onClose, onSaved }: { form: TagForm; onClose: () => void; onSaved: (tag: Tag) => void }) {
  const current = form.mode === 'edit' ? form.tag : null;
  const [name, setName] = useState(current?.name ?? '');
  const [color, setColor] = useState(current?.color ?? (form.mode === 'create' ? form.color : TAG_SWATCHES[0]!));
  const [nameError, setNameError] = useState<string | null>(null);
  const [colorError, setColorError] = useState<string | null>(null);
  const {
    busy,
    error: failure,
    setError: setFailure,
    run,
  } = useSubmit((err) => {
    if (!isNameTaken(err)) return tagErrorMessage(err);
    setNameError(`You already have a tag called “${name.trim()}”.`);
    return null;
  });
  const validColor = HEX_COLOR_RE.test(color);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const trimmed = name.trim();
    const badName = !trimmed ? 'Give the tag a name.' : trimmed.length > 64 ? 'Use at most 64 characters.' : null;
    setNameError(badName);
    setColorError(validColor ? null : 'Pick a colour, or type one like #228be6.');
    setFailure(null);
    if (badName || !validColor) return;
    await run(async () => {
      const saved =
        form.mode === 'create'
          ? await createTag({ name: trimmed, color })
          : await updateTag(form.tag.id, {
              ...(trimmed !== form.tag.name && { name: trimmed }),
              ...(color.toLowerCase() !== form.tag.color && { color }),
            });
      notifySuccess(form.mode === 'create' ? `Tag “${saved.name}” created.` : 'The tag was saved.');
      onSaved(saved);
    });
  };

  return (
    <form onSubmit={(event) => void submit(event)} noValidate>
      <Stack gap="md">
        <TextInput
          label="Name"
          required
          maxLength={64}
          autoComplete="off"
          {...bound(name, setName)}
          error={nameError}
          data-autofocus
        />
        <ColorInput
          label="Colour"
          format="hex"
          withEyeDropper={false}
          swatches={TAG_SWATCHES}
          swatchesPerRow={7}
          value={color}
          onChange={setColor}
          error={colorError}
          popoverProps={{ withinPortal: true }}
        />
        <Group gap="xs" wrap="wrap" role="group" aria-label="Quick colours">
          {TAG_SWATCHES.map((swatch) => (
            <button
              key={swatch}
              type="button"
              aria-pressed={color.toLowerCase() === swatch}
              aria-label={`Pick ${swatch}`}
              onClick={() => setColor(swatch)}
              style={{
                width: 26,
                height: 26,
                borderRadius: '50%',
                background: swatch,
                cursor: 'pointer',
                border:
                  color.toLowerCase() === swatch
                    ? '3px solid var(--mantine-color-text)'
                    : '1px solid var(--mantine-color-default-border)',
                padding: 0,
              }}
            />
          ))}
        </Group>
        <Group gap="xs">
          <Text size="sm" c="dimmed">
            Preview
          </Text>
          <TagChip name={name.trim() || 'Tag name'} color={validColor ? color : '#868e96'} />
        </Group>
        <ModalActions
          failure={failure}
          failureTitle="Not saved"
          onCancel={onClose}
          busy={busy}
          label={form.mode === 'create' ? 'Create tag' : 'Save'}
        />
      </Stack>
    </form>
  );
}
