// API errors of the settings page in words: what only this page can say (the field a refusal is about), and the
// shared table (lib/errors.ts) for the rest.
import { ApiRequestError } from '../../api/client';
import { errorMessage } from '../../lib/notify';
import { passwordRefusal } from '../../lib/password-strength';

const SETTINGS_MESSAGES: Record<number, string> = {
  1068: 'Your account has no password yet: leave "Current password" empty to set one.',
  1030: 'That provider is not linked to your account any more.',
  1043: 'This is the only way to sign in to your account. Set a password in your profile first, then unlink it.',
};

/** A sentence for a failed settings request; 1000s name the field the server refused, when it says which. */
export function settingsError(err: unknown): string {
  if (err instanceof ApiRequestError) {
    const known = SETTINGS_MESSAGES[err.code];
    if (known) return known;
    const refusal = passwordRefusal(err);
    if (refusal) return refusal;
    if (err.code === 1000) {
      const issues = err.details?.issues;
      const first = Array.isArray(issues)
        ? (issues[0] as { path?: unknown; message?: unknown } | undefined)
        : undefined;
      if (first && typeof first.path === 'string' && typeof first.message === 'string') {
        const field = first.path.replace(/^body\./, '');
        if (field === 'avatar') return `That image cannot be used as an avatar: it is ${first.message}.`;
        return `${field.charAt(0).toUpperCase()}${field.slice(1)}: ${first.message}.`;
      }
    }
  }
  return errorMessage(err);
}

/** The same sentence as an Error, for notifyError(). */
export function settingsErrorObject(err: unknown): Error {
  const wrapped = new Error(settingsError(err));
  if (err instanceof Error && err.name === 'AbortError') wrapped.name = 'AbortError';
  return wrapped;
}
