// The foot of a form or a confirmation in a modal: what went wrong (in words), then Cancel and the action.
import { Button, Group } from '@mantine/core';
import { FormError } from './FormError';

export interface ModalActionsProps {
  /** What went wrong, in words (null or absent: nothing). */
  failure?: string | null;
  failureTitle?: string;
  onCancel: () => void;
  busy: boolean;
  label: string;
  /** Without it the action is the form's submit button; with it, the button that confirms (and has the focus). */
  onConfirm?: () => void;
  danger?: boolean;
  disabled?: boolean;
}

export function ModalActions({
  failure = null,
  failureTitle,
  onCancel,
  busy,
  label,
  onConfirm,
  danger,
  disabled,
}: ModalActionsProps) {
  return (
    <>
      <FormError message={failure} title={failureTitle} />
      <Group justify="flex-end" gap="xs">
        <Button variant="default" onClick={onCancel} disabled={busy}>
          Cancel
        </Button>
        <Button
          type={onConfirm ? 'button' : 'submit'}
          color={danger ? 'red' : undefined}
          loading={busy}
          disabled={disabled}
          onClick={onConfirm}
          data-autofocus={onConfirm ? true : undefined}
        >
          {label}
        </Button>
      </Group>
    </>
  );
}
