// The calls of signing in and out, the first-run setup and registration (src/routes/auth.ts, setup.ts, register.ts),
// and what the session needs to know of the server and the caller (src/routes/server-settings.ts, user.ts).
import { api } from '../../api/client';
import type { CurrentUser, PublicServerInfo } from '../../api/types';

export interface NewAccount {
  username: string;
  password: string;
}

/** POST /api/auth/login: signed in (the session cookie is set), or { totp: true } when a code is needed. */
export function logIn(credentials: NewAccount & { code?: string }): Promise<{ totp?: true }> {
  return api<{ totp?: true }>('/api/auth/login', { method: 'POST', body: credentials });
}

export function logOut(): Promise<unknown> {
  return api('/api/auth/logout');
}

/** Creates the first account, the super administrator, and signs in with it. */
export function setUp(account: NewAccount): Promise<unknown> {
  return api('/api/setup', { method: 'POST', body: account });
}

/** Registers (with an invite code when given) and signs in. */
export function register(account: NewAccount, code?: string): Promise<unknown> {
  return api('/api/auth/register', { method: 'POST', body: { ...account, ...(code ? { code } : {}) } });
}

export function getPublicServerInfo(): Promise<PublicServerInfo> {
  return api<PublicServerInfo>('/api/server/public');
}

export function getCurrentUser(): Promise<CurrentUser> {
  return api<CurrentUser>('/api/user');
}
