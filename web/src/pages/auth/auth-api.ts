// The calls of signing in and out, the first-run setup and registration (src/routes/accounts/auth.ts, setup.ts, register.ts),
// and what the session needs to know of the server and the caller (src/routes/server/server-settings.ts, user.ts).
import { startAuthentication } from '@simplewebauthn/browser';
import { request, type ApiAnswer, type ApiBody } from '../../api/client';
import type { WebAuthnAuthenticationResponse } from '../../api/types';

export type NewAccount = ApiBody<'/api/setup', 'post'>;

/** POST /api/auth/login: signed in (the session cookie is set), or { totp: true } when a code is needed. */
export function logIn(credentials: ApiBody<'/api/auth/login', 'post'>): Promise<ApiAnswer<'/api/auth/login', 'post'>> {
  return request('post', '/api/auth/login', { body: credentials });
}

/**
 * Asks the browser (and the person) for one of their passkeys for this site: the answer to a fresh login challenge,
 * whose id the server keeps in a cookie for the request that sends the answer.
 */
export async function passkeyAssertion(): Promise<WebAuthnAuthenticationResponse> {
  const { options } = await request('get', '/api/auth/webauthn/options');
  const optionsJSON = options as unknown as Parameters<typeof startAuthentication>[0]['optionsJSON'];
  return (await startAuthentication({ optionsJSON })) as unknown as WebAuthnAuthenticationResponse;
}

/** POST /api/auth/webauthn: signs in with a passkey alone. */
export async function logInWithPasskey() {
  return request('post', '/api/auth/webauthn', { body: { response: await passkeyAssertion() } });
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
