// The calls of the Settings page (src/routes/accounts/user.ts, oauth.ts): the profile, view settings, sessions, API token and
// linked sign-in providers.
import { request, type ApiBody } from '../../api/client';

/** PATCH /api/user: username, password (with currentPassword), avatar, view settings. */
export function updateUser(patch: ApiBody<'/api/user', 'patch'>) {
  return request('patch', '/api/user', { body: patch });
}

export function listSessions(signal: AbortSignal) {
  return request('get', '/api/user/sessions', { signal });
}

/** Signs out one other session, or every other one. */
export function revokeSessions(which: ApiBody<'/api/user/sessions', 'delete'>) {
  return request('delete', '/api/user/sessions', { body: which });
}

/** A new API token; the old one stops working at once. */
export function regenerateToken() {
  return request('patch', '/api/user/token');
}

/** DELETE /api/auth/oauth: unlinks a provider; answers the links that remain. */
export function unlinkProvider(provider: ApiBody<'/api/auth/oauth', 'delete'>['provider']) {
  return request('delete', '/api/auth/oauth', { body: { provider } });
}

export function listExports(signal: AbortSignal) {
  return request('get', '/api/user/export', { signal });
}

/** Starts an export of the account (a zip made in the background). */
export function startExport() {
  return request('post', '/api/user/export');
}

export function deleteExport(id: string) {
  return request('delete', '/api/user/export', { query: { id } });
}

/** Where the browser downloads a completed export (the session cookie goes along). */
export function exportDownloadUrl(id: string): string {
  return `/api/user/export?id=${encodeURIComponent(id)}`;
}
