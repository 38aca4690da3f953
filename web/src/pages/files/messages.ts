// What the Files page says when an action changes nothing or fails in a way that the shared sentences do not cover.
import { ApiRequestError } from '../../api/client';
import { notifyError, notifySuccess } from '../../lib/notify';
import { notifications } from '@mantine/notifications';

const FILE_MESSAGES: Record<number, string> = {
  1000: 'Some of the values entered are not valid.',
  1008: 'That original name is not allowed (no slashes or control characters).',
  1026: 'Those files are gone: someone may have deleted them already. The list has been refreshed.',
  1027: 'Nothing was deleted: those files were already gone.',
  1032: 'That tag is not one of yours.',
  1033: 'You already have a tag with that name.',
  3011: 'That folder belongs to someone else.',
  3013: 'Some of those files are not yours to delete.',
  3014: 'Some of those files are not yours to change.',
};

/** Shows an API failure of a file action in words; 1028 (nothing to change) is not a failure but a note. */
export function notifyFileError(err: unknown, title = 'That did not work', nothingChanged?: string): void {
  if (err instanceof ApiRequestError && err.code === 1028) {
    notifications.show({ color: 'blue', message: nothingChanged ?? 'Nothing needed changing.' });
    return;
  }
  if (err instanceof ApiRequestError && FILE_MESSAGES[err.code]) {
    notifyError(new ApiRequestError(err.code, err.status, FILE_MESSAGES[err.code]!, err.serverText), title);
    return;
  }
  notifyError(err, title);
}

export const plural = (count: number, one: string, many = `${one}s`): string => `${count.toLocaleString()} ${count === 1 ? one : many}`;

export { notifySuccess };
