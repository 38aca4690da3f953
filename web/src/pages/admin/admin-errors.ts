// The administration errors in words where the admin pages can say more than the shared table (lib/errors.ts, which
// has the role, deletion and quota rules): the setting to turn on, the quota field to fill, the role to give, and the
// invalid fields of a 1000 or a 1022.
import { ApiRequestError } from '../../api/client';
import { errorMessage, notifyError } from '../../lib/notify';

const ADMIN_MESSAGES: Record<number, string> = {
  1036: 'Invites are turned off. Turn on "Registration with an invite code" in the server settings first.',
  1056: 'Enter the storage limit, for example 10gb.',
  1057: 'Enter the largest number of files.',
  3015: 'Only a super administrator can give the super administrator role.',
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
  let t = text
    .trim()
    .replace(/^Too small: expected \w+ to be >=?(\d+)$/i, 'Must be at least $1')
    .replace(/^Too big: expected \w+ to be <=?(\d+)$/i, 'Must be at most $1');
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
    if (known) return known;
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
