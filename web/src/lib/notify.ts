// Toasts for what just happened; errors are shown in words (ApiRequestError's message), never as raw JSON.
import { notifications } from '@mantine/notifications';
import { ApiRequestError } from '../api/client';

export function notifySuccess(message: string, title?: string): void {
  notifications.show({ color: 'teal', title, message });
}

export function errorMessage(err: unknown): string {
  if (err instanceof ApiRequestError) return err.message;
  if (err instanceof Error && err.name !== 'AbortError') return err.message;
  return 'Something went wrong.';
}

export function notifyError(err: unknown, title = 'That did not work'): void {
  if (err instanceof Error && err.name === 'AbortError') return;
  if (err instanceof ApiRequestError && err.code) console.warn(`API error ${err.code}: ${err.serverText ?? ''}`);
  notifications.show({ color: 'red', title, message: errorMessage(err) });
}
