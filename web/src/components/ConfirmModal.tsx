// A question before something that cannot be undone (deleting, signing out sessions, a new token): what will happen,
// what went wrong if it did, then Cancel and the action in red. Short enough to stay a centred dialog on a phone.
import { Modal, Stack, Text } from '@mantine/core';
import { useEffect, useState, type ReactNode } from 'react';
import { errorMessage } from '../lib/notify';
import { ModalActions } from './ModalActions';

export interface ConfirmModalProps {
  opened: boolean;
  title: string;
  /** What will happen: a sentence, or blocks of its own (choices, a list). */
  children: ReactNode;
  confirmLabel: string;
  /**
   * The action. When it returns a promise, the button spins until it settles, and a rejection is shown in words
   * above the buttons (`failureText`); the caller closes the dialog when it succeeded.
   */
  onConfirm: () => void | Promise<unknown>;
  onClose: () => void;
  /** How a failed action is said (default: the error's sentence, lib/notify's errorMessage). */
  failureText?: (err: unknown) => string;
  /** For an action the caller runs itself: whether it is running, and why it failed. */
  busy?: boolean;
  failure?: string | null;
}

export function ConfirmModal({
  opened,
  title,
  children,
  confirmLabel,
  onConfirm,
  onClose,
  failureText = errorMessage,
  busy,
  failure,
}: ConfirmModalProps) {
  const [running, setRunning] = useState(false);
  const [failed, setFailed] = useState<string | null>(null);
  // Each time it opens, it asks afresh.
  useEffect(() => {
    if (opened) setFailed(null);
  }, [opened]);

  const confirm = async () => {
    const result = onConfirm();
    if (!(result instanceof Promise)) return;
    setRunning(true);
    setFailed(null);
    try {
      await result;
    } catch (err) {
      setFailed(failureText(err));
    } finally {
      setRunning(false);
    }
  };

  return (
    // Above a Drawer (the file detail panel) it may be opened from.
    <Modal opened={opened} onClose={onClose} title={title} centered zIndex={400}>
      <Stack gap="md">
        {typeof children === 'string' ? <Text size="sm">{children}</Text> : children}
        <ModalActions
          failure={failure ?? failed}
          onCancel={onClose}
          busy={busy ?? running}
          label={confirmLabel}
          danger
          onConfirm={() => void confirm()}
        />
      </Stack>
    </Modal>
  );
}
