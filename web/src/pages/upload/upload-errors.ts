// Why an upload failed, in words: the shared sentences (lib/errors.ts, which name the size limit and what is left of
// the quota), with the upload option named where the server's answer says which, and the chunked protocol's own
// failures told as "send it again", from the upload page.
import { ApiRequestError } from '../../api/client';
import { serverDetail } from '../../lib/errors';
import { errorMessage } from '../../lib/notify';

const OPTION_LABELS: Record<string, string> = {
  'x-service-deletes-at': 'Expiry',
  'x-service-format': 'Name format',
  'x-service-password': 'Password',
  'x-service-max-views': 'Max views',
  'x-service-folder': 'Folder',
  'x-service-original-name': 'Keep original name',
};

export function uploadErrorMessage(err: unknown): string {
  if (!(err instanceof ApiRequestError)) return errorMessage(err);
  const detail = serverDetail(err.serverText);
  switch (err.code) {
    case 1001: {
      const header = typeof err.details?.header === 'string' ? err.details.header : '';
      const label = OPTION_LABELS[header];
      const why = detail.startsWith(header) ? detail.slice(header.length).trim() : '';
      return label && why ? `${label} ${why}. Change it in the upload options and retry.` : err.message;
    }
    case 1002:
    case 1003:
    case 1004:
      return 'The server lost track of this upload halfway (it may have restarted). Retry to send the file again.';
    case 9000:
      return detail.startsWith('empty file')
        ? 'This file is empty (0 bytes), and this server does not take empty files.'
        : err.message;
    case 4001:
      return 'The chosen folder does not exist any more. Pick another one in the upload options.';
    default:
      return err.message;
  }
}

/** A warning of the server's answer for one file, as a sentence ("empty file: it has 0 bytes" -> "Empty file: ..."). */
export function uploadWarningText(warning: string): string {
  const sentence = warning.charAt(0).toUpperCase() + warning.slice(1);
  return /[.!?]$/.test(sentence) ? sentence : `${sentence}.`;
}
