// A question before something that cannot be undone (deleting, signing out sessions, a new token): what will happen,
// what went wrong if it did, then Cancel and the action in red. Short enough to stay a centred dialog on a phone.
import { Modal, Stack, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { ModalActions } from './ModalActions';

export interface ConfirmModalProps {
  opened: boolean;
  title: string;
  /** What will happen: a sentence, or blocks of its own (choices, a list). */
  children: ReactNode;
  confirmLabel: string;
  busy?: boolean;
  /** Why the action failed, in words, shown above the buttons (pages that toast their failures leave it out). */
  failure?: string | null;
  onConfirm: () => void;
  onClose: () => void;
}

export function ConfirmModal({ opened, title, children, confirmLabel, busy = false, failure, onConfirm, onClose }: ConfirmModalProps) {
  return (
    // Above a Drawer (the file detail panel) it may be opened from.
    <Modal opened={opened} onClose={onClose} title={title} centered zIndex={400}>
      <Stack gap="md">
        {typeof children === 'string' ? <Text size="sm">{children}</Text> : children}
        <ModalActions failure={failure} onCancel={onClose} busy={busy} label={confirmLabel} danger onConfirm={onConfirm} />
      </Stack>
    </Modal>
  );
}
