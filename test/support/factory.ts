// Accounts and content made per test through the server's own API, so that a test builds what it needs instead of
// relying on what an earlier test left behind: users with a role and quota (logged in: an API token and a session
// cookie), folders, tags and short URLs. Files are uploaded with uploads.ts (uploadOne); rows written straight into
// the database, for tests that need no HTTP, are in content.ts.
import type { FolderDto } from '../../src/schemas/folder.js';
import type { TagDto } from '../../src/schemas/tag.js';
import type { UrlDto } from '../../src/schemas/url.js';
import type { QuotaInput } from '../../src/schemas/user.js';
import type { TestServer, TestUser } from './server.js';

/** Login and registration are rate limited per address; suites that log many accounts in from one turn it off. */
export const NO_RATE_LIMIT = { RATELIMIT_ENABLED: 'false' };

export type Role = 'USER' | 'ADMIN' | 'SUPERADMIN';

let serial = 0;

/** `prefix` with a number no other call in this process has had: names that cannot clash between tests. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${++serial}`;
}

/** The server's SUPERADMIN: the account `setup()` made, or one made now when setup has not run yet. */
export async function superadminOf(server: TestServer): Promise<TestUser> {
  return server.superadmin ?? (await server.setup());
}

export interface UserSpec {
  /** Default: a unique `user-N`. The password is `<username>-password`. */
  username?: string;
  role?: Role;
  quota?: QuotaInput;
  /** Who creates the account (an API token or session cookie); default the SUPERADMIN. */
  by?: string;
  /** More properties of POST /api/users. */
  extra?: Record<string, unknown>;
}

/** An account made through the API, not logged in: what a browser test signs in with. */
export interface TestAccount {
  id: string;
  username: string;
  password: string;
}

/** Creates an account through POST /api/users (by the SUPERADMIN unless `by`); the password is `<username>-password`. */
export async function makeAccount(server: TestServer, spec: UserSpec = {}): Promise<TestAccount> {
  const username = spec.username ?? uniqueName('user');
  const password = `${username}-password`;
  const by = spec.by ?? (await superadminOf(server)).token;
  const body = {
    username,
    password,
    role: spec.role ?? 'USER',
    ...(spec.quota ? { quota: spec.quota } : {}),
    ...spec.extra,
  };
  const res = await server.json('POST', '/api/users', { auth: by, body });
  if (res.status !== 200) throw new Error(`creating ${username} failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { id: res.body.user.id, username, password };
}

/**
 * makeAccount, then a login to learn the account's API token and session cookie. That login counts: with rate limits
 * on, a server takes 10 a minute from one address (NO_RATE_LIMIT for suites that need more; makeAccount for browser
 * tests, which sign in themselves; content.ts's createTestUser makes a USER with a token and no login).
 */
export async function makeUser(server: TestServer, spec: UserSpec = {}): Promise<TestUser> {
  const account = await makeAccount(server, spec);
  const cookie = await server.login(account.username, account.password);
  const me = await server.json('GET', '/api/user', { auth: cookie });
  return { ...account, token: me.body.token, cookie };
}

/** Creates through `POST path` as `user`; fails the test with the answer when it is not 200. */
async function create<T>(server: TestServer, user: TestUser, path: string, body: Record<string, unknown>): Promise<T> {
  const res = await server.json<T>('POST', path, { auth: user.token, body });
  if (res.status !== 200) throw new Error(`POST ${path} failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** A folder of `user` through POST /api/user/folders (default name: a unique `folder-N`). */
export function makeFolder(server: TestServer, user: TestUser, body: Record<string, unknown> = {}): Promise<FolderDto> {
  return create(server, user, '/api/user/folders', { name: uniqueName('folder'), ...body });
}

/** A tag of `user` through POST /api/user/tags (default name: a unique `tag-N`). */
export function makeTag(server: TestServer, user: TestUser, body: Record<string, unknown> = {}): Promise<TagDto> {
  return create(server, user, '/api/user/tags', { name: uniqueName('tag'), ...body });
}

/** A short URL of `user` through POST /api/user/urls (default destination: https://example.com/). */
export function makeUrl(server: TestServer, user: TestUser, body: Record<string, unknown> = {}): Promise<UrlDto> {
  return create(server, user, '/api/user/urls', { destination: 'https://example.com/', ...body });
}
