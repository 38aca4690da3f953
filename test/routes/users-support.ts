// Helpers for the administration tests: accounts made through the admin API (POST /api/users), and error checks.
import assert from 'node:assert/strict';
import type { JsonResponse, TestServer, TestUser } from '../support/server.js';

/** Login and registration are rate limited per address; these suites log many accounts in from one. */
export const NO_RATE_LIMIT = { RATELIMIT_ENABLED: 'false' };

export type Role = 'USER' | 'ADMIN' | 'SUPERADMIN';

/** Creates an account through POST /api/users as `auth`, then logs it in to learn its token and session. */
export async function createUserViaApi(
  server: TestServer,
  auth: string,
  username: string,
  role: Role = 'USER',
  extra: Record<string, unknown> = {},
): Promise<TestUser> {
  const password = `${username}-password`;
  const res = await server.json('POST', '/api/users', { auth, body: { username, password, role, ...extra } });
  if (res.status !== 200) throw new Error(`creating ${username} failed: ${res.status} ${JSON.stringify(res.body)}`);
  const cookie = await server.login(username, password);
  const me = await server.json('GET', '/api/user', { auth: cookie });
  return { id: res.body.user.id, username, password, token: me.body.token, cookie };
}

/** Asserts the spec's error body with this status and code. */
export function assertError(res: JsonResponse, status: number, code: number, message?: string): void {
  assert.equal(
    res.status,
    status,
    `${message ?? ''} expected ${status}/${code}, got ${res.status} ${JSON.stringify(res.body)}`,
  );
  assert.equal(res.body.code, code, message);
  assert.equal(res.body.statusCode, status, message);
  assert.match(res.body.error, new RegExp(`^E${code}: `), message);
}
