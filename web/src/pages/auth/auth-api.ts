// The calls of signing in and out, the first-run setup and registration (src/routes/auth.ts, setup.ts, register.ts),
// and what the session needs to know of the server and the caller (src/routes/server-settings.ts, user.ts).
import { request, type ApiAnswer, type ApiBody } from '../../api/client';

export type NewAccount = ApiBody<'/api/setup', 'post'>;

/** POST /api/auth/login: signed in (the session cookie is set), or { totp: true } when a code is needed. */
export function logIn(credentials: ApiBody<'/api/auth/login', 'post'>): Promise<ApiAnswer<'/api/auth/login', 'post'>> {
  return request('post', '/api/auth/login', { body: credentials });
}

export function logOut(): Promise<unknown> {
  return request('post', '/api/auth/logout');
}

/** Creates the first account, the super administrator, and signs in with it. */
export function setUp(account: NewAccount): Promise<unknown> {
  return request('post', '/api/setup', { body: account });
}

/** Registers (with an invite code when given) and signs in. */
export function register(account: NewAccount, code?: string): Promise<unknown> {
  return request('post', '/api/auth/register', { body: { ...account, ...(code ? { code } : {}) } });
}

export function getPublicServerInfo() {
  return request('get', '/api/server/public');
}

export function getCurrentUser() {
  return request('get', '/api/user');
}
