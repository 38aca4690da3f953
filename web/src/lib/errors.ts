// API errors in words a person understands. The server's `error` text is precise but technical
// ("E1044: invalid login: ..."); the dashboard shows these sentences instead and keeps the code for support.
const MESSAGES: Record<number, string> = {
  1000: 'Some of the values entered are not valid.',
  1001: 'One of the upload options is not valid.',
  1006: 'Files of this type are not allowed on this server.',
  1007: 'That file name is not allowed.',
  1009: 'That file name is not allowed.',
  1014: 'A file with that name already exists.',
  1044: 'Wrong username or password.',
  1061: 'The upload was interrupted before the file arrived. Try again.',
  1062: 'No file was sent.',
  2000: 'Your session has ended. Please sign in again.',
  2001: 'That API token is not valid.',
  2002: 'Please sign in to continue.',
  3000: 'Only administrators can do that.',
  3015: 'Only the super administrator can do that.',
  4000: 'That file does not exist (or is not yours).',
  4001: 'That folder does not exist (or is not yours).',
  5000: 'That file is larger than this server allows.',
  5001: 'That upload is larger than this server allows.',
  5002: 'Your storage quota is full.',
  9002: 'Not found.',
};

/** A readable sentence for an API error; falls back on the server's own message without its "E1234:" prefix. */
export function humanMessage(code: number, status: number, serverText?: string): string {
  const known = MESSAGES[code];
  if (known) return known;
  if (status === 429) return 'Too many requests. Wait a moment and try again.';
  if (status === 413) return 'That is larger than this server accepts.';
  if (status >= 500) return 'The server ran into a problem. Try again; if it keeps happening, tell the administrator.';
  if (serverText) {
    const text = serverText.replace(/^E\d+:\s*/, '');
    return text.charAt(0).toUpperCase() + text.slice(1) + (text.endsWith('.') ? '' : '.');
  }
  if (status === 0) return 'Could not reach the server.';
  return `The request failed (HTTP ${status}).`;
}
