// What the Files page says when an action changes nothing, or when the files are gone (the page reloads its list);
// the shared sentences (lib/errors.ts) say the rest.
import { ApiRequestError } from '../../api/client';
import { notifyError, notifySuccess } from '../../lib/notify';
import { notifications } from '@mantine/notifications';

const FILE_MESSAGES: Record<number, string> = {
  1026: 'Those files are gone: someone may have deleted them already. The list has been refreshed.',
};

/** Shows an API failure of a file action in words; 1028 (nothing to change) is not a failure but a note. */
export function notifyFileError(err: unknown, title = 'That did not work', nothingChanged?: string): void {
  if (err instanceof ApiRequestError && err.code === 1028) {
    notifications.show({ color: 'blue', message: nothingChanged ?? err.message });
    return;
  }
  if (err instanceof ApiRequestError && FILE_MESSAGES[err.code]) {
    notifyError(new ApiRequestError(err.code, err.status, FILE_MESSAGES[err.code]!, err.serverText), title);
    return;
  }
  notifyError(err, title);
}

export { notifySuccess };
