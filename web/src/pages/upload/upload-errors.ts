// Why an upload failed, in words: the shared sentences (lib/errors.ts), with the limit or option named where the
// server's answer says which, and the chunked protocol's own failures told as "send it again".
import { ApiRequestError } from '../../api/client';
import { errorMessage } from '../../lib/notify';

const OPTION_LABELS: Record<string, string> = {
  'x-service-deletes-at': 'Expiry',
  'x-service-format': 'Name format',
  'x-service-password': 'Password',
  'x-service-max-views': 'Max views',
  'x-service-folder': 'Folder',
  'x-service-original-name': 'Keep original name',
};

/** The server's explanation after "E1234: <meaning>: ", if any. */
function serverDetail(err: ApiRequestError): string {
  const text = err.serverText ?? '';
  const parts = text.replace(/^E\d+:\s*/, '').split(': ');
  return parts.length > 1 ? parts.slice(1).join(': ') : '';
}

export function uploadErrorMessage(err: unknown): string {
  if (!(err instanceof ApiRequestError)) return errorMessage(err);
  const detail = serverDetail(err);
  switch (err.code) {
    case 5000: {
      const limit = /larger than (.+)$/.exec(detail)?.[1];
      return limit ? `That file is larger than this server allows (the limit is ${limit}).` : err.message;
    }
    case 5002: {
      const left = /^(.+) left of the (byte|file) quota$/.exec(detail);
      if (!left) return err.message;
      return left[2] === 'byte'
        ? `Your storage quota is full: ${left[1]} left, and this file is larger.`
        : 'Your storage quota is full: you cannot keep more files.';
    }
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
    case 1006:
      return `Files of this type are not allowed on this server${detail ? ` (${detail})` : ''}.`;
    case 4001:
      return 'The chosen folder does not exist any more. Pick another one in the upload options.';
    default:
      return err.message;
  }
}
