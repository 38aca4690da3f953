import { Alert, Button } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import { errorMessage } from '../lib/notify';

/** A failed load, in words, with a way to try again. */
export function ErrorAlert({
  error,
  onRetry,
  title = 'Could not load this',
}: {
  error: unknown;
  onRetry?: () => void;
  title?: string;
}) {
  return (
    <Alert color="red" icon={<IconAlertTriangle size={18} />} title={title} role="alert" my="md">
      {errorMessage(error)}
      {onRetry ? (
        <div>
          <Button size="xs" variant="light" color="red" mt="xs" onClick={onRetry}>
            Try again
          </Button>
        </div>
      ) : null}
    </Alert>
  );
}
