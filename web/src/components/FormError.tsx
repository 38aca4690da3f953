// What went wrong with a form or an action, in words (an ApiRequestError's message, or the page's own sentence), in a
// red alert that screen readers announce. Nothing is shown while there is no message.
import { Alert, type AlertProps } from '@mantine/core';

export function FormError({
  message,
  title,
  ...props
}: { message: string | null; title?: string } & Omit<AlertProps, 'title' | 'children' | 'color'>) {
  if (!message) return null;
  return (
    <Alert color="red" role="alert" title={title} {...props}>
      {message}
    </Alert>
  );
}
