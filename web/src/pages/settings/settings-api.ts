// The calls of the Settings page (src/routes/user.ts): the profile, view settings, sessions and API token.
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
