// Pieces the URLs, Folders and Tags pages share: the empty-list card with its hint, the foot of a form or
// confirmation (what went wrong, in words, then Cancel and the action), and what a closing modal keeps showing.
// Candidates for web/src/components/.
import { Alert, Button, Card, Center, Group, Stack, Text, ThemeIcon } from '@mantine/core';
import { useRef, type ReactNode } from 'react';

/** An empty list: an icon, what is (not) there, a hint of what to do, and optionally a button that does it. */
export function EmptyCard({ icon, title, children, action }: { icon: ReactNode; title: string; children: ReactNode; action?: ReactNode }) {
  return (
    <Card withBorder padding="xl">
      <Center>
        <Stack align="center" gap={6} maw={440}>
          <ThemeIcon size={44} radius="xl" variant="light">
            {icon}
          </ThemeIcon>
          <Text fw={600}>{title}</Text>
          <Text size="sm" c="dimmed" ta="center">
            {children}
          </Text>
          {action ? <div style={{ marginTop: 4 }}>{action}</div> : null}
        </Stack>
      </Center>
    </Card>
  );
}

interface ModalActionsProps {
  /** What went wrong, in words (null: nothing). */
  failure: string | null;
  failureTitle?: string;
  onCancel: () => void;
  busy: boolean;
  label: string;
  /** Without it the action is the form's submit button. */
  onConfirm?: () => void;
  danger?: boolean;
}

export function ModalActions({ failure, failureTitle, onCancel, busy, label, onConfirm, danger }: ModalActionsProps) {
  return (
    <>
      {failure ? (
        <Alert color="red" role="alert" title={failureTitle}>
          {failure}
        </Alert>
      ) : null}
      <Group justify="flex-end" gap="xs">
        <Button variant="default" onClick={onCancel}>
          Cancel
        </Button>
        <Button type={onConfirm ? 'button' : 'submit'} color={danger ? 'red' : undefined} loading={busy} onClick={onConfirm}>
          {label}
        </Button>
      </Group>
    </>
  );
}

/**
 * The last value that was not null: a modal opened for `value` keeps showing it while it fades out after `value`
 * went back to null, instead of going blank.
 */
export function useLastValue<T>(value: T | null): T | null {
  const last = useRef(value);
  if (value !== null) last.current = value;
  return last.current;
}
