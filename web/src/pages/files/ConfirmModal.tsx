// A destructive action asks first: a small modal that says what will happen, with the action in red.
import { Button, Group, Modal, Text } from '@mantine/core';
import type { ReactNode } from 'react';

export function ConfirmModal({
  opened,
  title,
  children,
  confirmLabel,
  busy,
  onConfirm,
  onClose,
}: {
  opened: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  busy?: boolean;
  onConfirm: () => void;
  onClose: () => void;
}) {
  return (
    <Modal opened={opened} onClose={onClose} title={title} centered zIndex={400}>
      <Text size="sm">{children}</Text>
      <Group justify="flex-end" mt="lg">
        <Button variant="default" onClick={onClose} disabled={busy}>
          Cancel
        </Button>
        <Button color="red" onClick={onConfirm} loading={busy} data-autofocus>
          {confirmLabel}
        </Button>
      </Group>
    </Modal>
  );
}
