// The administration errors in words: who may grant which role, who may be deleted, quotas, settings, invites.
// The shared table (lib/errors.ts) covers what every page meets; these are only met on the admin pages.
import { ApiRequestError } from '../../api/client';
import { errorMessage, notifyError } from '../../lib/notify';

const ADMIN_MESSAGES: Record<number, string | ((serverText: string) => string)> = {
  1036: 'Invites are turned off. Turn on "Registration with an invite code" in the server settings first.',
  1039: 'That username is already taken.',
  1040: 'That username is already taken.',
  1056: 'Enter the storage limit, for example 10gb.',
  1057: 'Enter the largest number of files.',
  3007: (text) =>
    /last SUPERADMIN/i.test(text)
      ? 'The last super administrator cannot give up the role. Make someone else a super administrator first.'
      : /SUPERADMIN role/i.test(text)
        ? 'Only a super administrator can make someone a super administrator.'
        : 'Only a super administrator can make someone an administrator.',
  3008: 'Only a super administrator can create administrators.',
  3009: 'You cannot delete this account: only a super administrator deletes administrators, and super administrators cannot be deleted.',
  3010: 'You cannot delete your own account.',
  3015: 'Only a super administrator can give the super administrator role.',
  3019: (text) =>
    /own quota/i.test(text)
      ? 'Only a super administrator can change their own quota.'
      : 'You cannot change this account: administrators manage users, and only a super administrator manages administrators.',
  4004: 'That invite no longer exists.',
  4005: 'That invite no longer exists.',
  4009: 'That user no longer exists.',
};

/** "body.quota.maxBytes" -> "maxBytes". */
function fieldOf(path: unknown): string {
  return typeof path === 'string' ? (path.split('.').pop() ?? path) : '';
}

/** The invalid fields of a 1000 (issues: [{path, message}]) or a 1022 (issues: ["key: message"]), by field name. */
export function fieldIssues(err: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!(err instanceof ApiRequestError)) return out;
  const issues = err.details?.issues;
  if (!Array.isArray(issues)) return out;
  for (const issue of issues) {
    if (typeof issue === 'string') {
      const at = issue.indexOf(': ');
      if (at > 0) out[issue.slice(0, at)] = sentence(issue.slice(at + 2));
    } else if (issue && typeof issue === 'object') {
      const { path, message } = issue as { path?: unknown; message?: unknown };
      if (typeof message === 'string') out[fieldOf(path)] = sentence(message);
    }
  }
  return out;
}

/** Zod's and the services' lower-case fragments ("must be a ...", "Too small: expected number to be >=1") as sentences. */
export function sentence(text: string): string {
  let t = text.trim().replace(/^Too small: expected \w+ to be >=?(\d+)$/i, 'Must be at least $1').replace(/^Too big: expected \w+ to be <=?(\d+)$/i, 'Must be at most $1');
  t = t.replace(/^Too small: expected string to have >=(\d+) characters?$/i, 'Must not be empty');
  t = t.replace(/^Invalid input: expected (\w+), received \w+$/i, 'Must be a $1');
  t = t.replace(/^set by the environment variable (\w+)$/i, 'Set by the environment variable $1; change it there');
  t = t.replace(/^is /, 'This value is ');
  return t.charAt(0).toUpperCase() + t.slice(1) + (/[.!?]$/.test(t) ? '' : '.');
}

/** What to show a person for an error met on an admin page. */
export function adminErrorMessage(err: unknown): string {
  if (err instanceof ApiRequestError) {
    const known = ADMIN_MESSAGES[err.code];
    if (typeof known === 'string') return known;
    if (known) return known(err.serverText ?? '');
    if (err.code === 1000) {
      const issues = Object.values(fieldIssues(err));
      if (issues.length > 0) return issues.join(' ');
    }
  }
  return errorMessage(err);
}

export function notifyAdminError(err: unknown, title?: string): void {
  if (err instanceof ApiRequestError) {
    // Keep the shared toast (and its console line) but with the admin page's own words.
    notifyError(new ApiRequestError(err.code, err.status, adminErrorMessage(err), err.serverText, err.details), title);
    return;
  }
  notifyError(err, title);
}
