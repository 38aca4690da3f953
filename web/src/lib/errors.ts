// API errors in words a person understands. The server's `error` text is precise but technical
// ("E1044: invalid login: ..."); the dashboard shows these sentences instead and keeps the code for support.
// A sentence here must fit every page the code can come from; a page that can say more (the field it is about, what
// to do on that page) keeps its own wording next to the page.

/** A fixed sentence, or one made from the server's explanation (`detail`: the text after "E1234: <meaning>: "). */
type Sentence = string | ((detail: string, serverText: string) => string);

const MESSAGES: Record<number, Sentence> = {
  1000: 'Some of the values entered are not valid.',
  1001: 'One of the upload options is not valid.',
  1006: (detail) => `Files of this type are not allowed on this server${detail ? ` (${detail})` : ''}.`,
  1007: 'That file name is not allowed.',
  1008: 'That original name is not allowed (no slashes or control characters).',
  1009: 'That file name is not allowed.',
  1014: 'A file with that name already exists.',
  1021: 'That is the session you are using now. Sign out instead.',
  1024: 'That export is not ready yet. Wait until it is complete.',
  1025: 'You have no files to export yet.',
  1027: 'Nothing was deleted: those files were already gone.',
  1028: 'Nothing needed changing.',
  1031: 'That session has already ended.',
  1032: 'That tag is not one of yours.',
  1033: 'You already have a tag with that name.',
  1034: 'You already have a tag with that name.',
  1038: 'That username is taken. Choose another one.',
  1039: 'That username is taken. Choose another one.',
  1040: 'That username is taken. Choose another one.',
  1041: 'That name is already used by another short link. Choose a different one.',
  1042: 'That name is already used by another short link. Choose a different one.',
  1044: 'Wrong username or password.',
  1045: 'That code is not right, or it was used already. Wait for the next code and try again.',
  1046: 'The passkey request expired. Try again.',
  1047: 'No passkey answer was sent. Try again.',
  1048: 'Adding the passkey took too long. Try again.',
  1049: 'The passkey could not be checked. Try again, or use another passkey.',
  1050: 'The passkey could not be checked. Try again, or use another passkey.',
  1051: 'That passkey could not be checked. Try again, or sign in with your password.',
  1052: 'That passkey is not one this server knows for your account.',
  1053: 'Two-step sign-in with codes is not turned on.',
  1054: 'Two-step sign-in with codes is turned off on this server.',
  1058: 'The start of the range must come before its end.',
  1059: 'The start of the range must be in the past.',
  1060: 'That passkey was added by an older version and cannot be used. Remove it and add it again.',
  1061: 'The upload was interrupted before the file arrived. Try again.',
  1062: 'No file was sent.',
  1066: 'The current password is not right.',
  1069: 'Two-step sign-in with codes is already turned on.',
  2000: 'Your session has ended. Please sign in again.',
  2001: 'That API token is not valid.',
  2002: 'Please sign in to continue.',
  3000: 'Only administrators can do that.',
  3001: 'Statistics are turned off on this server (the metricsEnabled setting).',
  3006: 'That folder does not exist (or is not yours).',
  3007: (_detail, text) =>
    /last SUPERADMIN/i.test(text)
      ? 'The last super administrator cannot give up the role. Make someone else a super administrator first.'
      : /SUPERADMIN role/i.test(text)
        ? 'Only a super administrator can make someone a super administrator.'
        : 'Only a super administrator can make someone an administrator.',
  3008: 'Only a super administrator can create administrators.',
  3009: 'You cannot delete this account: only a super administrator deletes administrators, and super administrators cannot be deleted.',
  3010: 'You cannot delete your own account.',
  3011: 'That folder belongs to someone else.',
  3012: (_detail, text) => {
    const limit = /allows (\d+)/.exec(text)?.[1];
    const links = limit === undefined ? 'short links' : `${limit} short ${limit === '1' ? 'link' : 'links'}`;
    return `You have reached your limit of ${links}. Delete some to make room, or ask an administrator for more.`;
  },
  3013: 'Some of those files are not yours to delete.',
  3014: 'Some of those files are not yours to change.',
  3015: 'Only the super administrator can do that.',
  3019: (_detail, text) =>
    /own quota/i.test(text)
      ? 'Only a super administrator can change their own quota.'
      : 'You cannot change this account: administrators manage users, and only a super administrator manages administrators.',
  4000: 'That file does not exist (or is not yours).',
  4001: 'That folder does not exist (or is not yours).',
  4004: 'That invite no longer exists.',
  4005: 'That invite does not exist.',
  4006: 'Nothing was moved: those files were already in that folder.',
  4009: 'That user no longer exists.',
  5001: (detail) => {
    const limit = /larger than (.+)$/.exec(detail)?.[1];
    return limit
      ? `That file is larger than this server allows (the limit is ${limit}).`
      : 'That file is larger than this server allows.';
  },
  5002: (detail) => {
    const left = /^(.+) left of the (byte|file) quota$/.exec(detail);
    if (!left) return 'Your storage quota is full.';
    return left[2] === 'byte'
      ? `Your storage quota is full: ${left[1]} left, and this file is larger.`
      : 'Your storage quota is full: you cannot keep more files.';
  },
  9002: 'Not found.',
  9004: (_detail, text) =>
    /LDAP directory cannot be reached/.test(text)
      ? 'The directory that checks your password cannot be reached right now. Try again later; accounts of this server still sign in.'
      : 'The server ran into a problem. Try again; if it keeps happening, tell the administrator.',
};

/** The server's explanation after "E1234: <meaning>: ", if any. */
export function serverDetail(serverText: string | undefined): string {
  const parts = (serverText ?? '').replace(/^E\d+:\s*/, '').split(': ');
  return parts.length > 1 ? parts.slice(1).join(': ') : '';
}

/** A readable sentence for an API error; falls back on the server's own message without its "E1234:" prefix. */
export function humanMessage(code: number, status: number, serverText?: string): string {
  const known = MESSAGES[code];
  if (typeof known === 'string') return known;
  if (known) return known(serverDetail(serverText), serverText ?? '');
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
