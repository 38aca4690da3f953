// The calls of the Settings page (src/routes/user.ts): the profile, view settings, sessions and API token.
import { api } from '../../api/client';
import type { CurrentUser } from '../../api/types';
import type { SessionList } from './types';

/** PATCH /api/user: username, password (with currentPassword), avatar, view settings. */
export function updateUser(patch: Record<string, unknown>): Promise<CurrentUser> {
  return api<CurrentUser>('/api/user', { method: 'PATCH', body: patch });
}

export function listSessions(signal: AbortSignal): Promise<SessionList> {
  return api<SessionList>('/api/user/sessions', { signal });
}

/** Signs out one other session, or every other one. */
export function revokeSessions(which: { sessionId: string } | { all: true }): Promise<SessionList> {
  return api<SessionList>('/api/user/sessions', { method: 'DELETE', body: which });
}

/** A new API token; the old one stops working at once. */
export function regenerateToken(): Promise<{ token: string }> {
  return api<{ token: string }>('/api/user/token', { method: 'PATCH' });
}
