// Starts a real Chute for a test: its own temp data folder, its own database (a fresh SQLite file, or a fresh
// PostgreSQL database created on TEST_DATABASE_URL's server and dropped afterwards), listening on a free port.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe } from 'node:test';
import pg from 'pg';
import { loadConfig } from '../../src/config.js';
import type { AppContext } from '../../src/context.js';
import type { Engine } from '../../src/db/index.js';
import type { Clock } from '../../src/lib/clock.js';
import { randomString } from '../../src/lib/security/ids.js';
import { createChute, type Chute } from '../../src/server.js';

const PG_URL = process.env.TEST_DATABASE_URL;

export const ENGINES: Engine[] = PG_URL ? ['sqlite', 'postgres'] : ['sqlite'];

let noticePrinted = false;
function printPostgresNotice(): void {
  if (PG_URL || noticePrinted) return;
  noticePrinted = true;
  console.log('# NOTICE: TEST_DATABASE_URL is not set: the PostgreSQL run of the database tests is SKIPPED');
}

/**
 * Declares the suite once per database engine: `[sqlite]` always, `[postgres]` when TEST_DATABASE_URL is set
 * (otherwise a skipped suite and a printed notice, never silently).
 */
export function forEachDatabase(name: string, fn: (engine: Engine) => void): void {
  for (const engine of ['sqlite', 'postgres'] as const) {
    if (engine === 'postgres' && !PG_URL) {
      printPostgresNotice();
      describe(`${name} [postgres]`, { skip: 'TEST_DATABASE_URL is not set' }, () => undefined);
      continue;
    }
    describe(`${name} [${engine}]`, () => fn(engine));
  }
}

/** Creates a fresh PostgreSQL database and returns its URL and a function that drops it. */
export async function createPostgresDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  if (!PG_URL) throw new Error('TEST_DATABASE_URL is not set');
  const name = `chute_test_${randomString(12, 'abcdefghijklmnopqrstuvwxyz0123456789')}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

export interface TestServerOptions {
  engine: Engine;
  /** Extra environment variables (settings overrides, limits ...). */
  env?: Record<string, string>;
  clock?: Clock;
  /** Reuse a data folder / database of an earlier server (to test restarts); the caller cleans them up. */
  dataDir?: string;
  databaseUrl?: string;
}

export interface JsonResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export class TestServer {
  /** The account `setup()` made, once it has run (the factory's accounts are created by it). */
  superadmin: TestUser | undefined;

  constructor(
    readonly chute: Chute,
    readonly url: string,
    readonly dataDir: string,
    private readonly cleanup: () => Promise<void>,
  ) {}

  get ctx(): AppContext {
    return this.chute.ctx;
  }

  fetch(pathname: string, init: RequestInit = {}): Promise<Response> {
    return fetch(`${this.url}${pathname}`, { redirect: 'manual', ...init });
  }

  /** A JSON request; `auth` is an API token or a `chute_session=...` cookie string. */
  async json<T = any>(
    method: string,
    pathname: string,
    options: { body?: unknown; auth?: string; headers?: Record<string, string> } = {},
  ): Promise<JsonResponse<T>> {
    const headers: Record<string, string> = { ...options.headers, ...(options.auth ? authHeaders(options.auth) : {}) };
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const response = await this.fetch(pathname, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
    return readJsonResponse<T>(response);
  }

  /** Runs first-time setup; returns the SUPERADMIN's id, API token and session cookie. */
  async setup(username = 'admin', password = 'admin-password'): Promise<TestUser> {
    const res = await this.json('POST', '/api/setup', { body: { username, password } });
    if (res.status !== 200) throw new Error(`setup failed: ${res.status} ${JSON.stringify(res.body)}`);
    const cookie = sessionCookieOf(res.headers);
    const me = await this.json('GET', '/api/user', { auth: cookie });
    this.superadmin = { id: res.body.user.id, username, password, token: me.body.token, cookie };
    return this.superadmin;
  }

  /** Logs in over the API; returns the session cookie. */
  async login(username: string, password: string): Promise<string> {
    const res = await this.json('POST', '/api/auth/login', { body: { username, password } });
    if (res.status !== 200) throw new Error(`login failed: ${res.status} ${JSON.stringify(res.body)}`);
    return sessionCookieOf(res.headers);
  }

  async close(): Promise<void> {
    await this.chute.close();
    await this.cleanup();
  }
}

export interface TestUser {
  id: string;
  username: string;
  password: string;
  token: string;
  cookie: string;
}

/** The headers that carry `auth`: a `chute_session=...` cookie string as a cookie, anything else as authorization. */
export function authHeaders(auth: string): Record<string, string> {
  return auth.startsWith('chute_session=') ? { cookie: auth } : { authorization: auth };
}

/** Reads a whole answer: the body parsed as JSON when the answer says it is JSON, otherwise its text. */
export async function readJsonResponse<T = any>(response: Response): Promise<JsonResponse<T>> {
  const text = await response.text();
  const isJson = (response.headers.get('content-type') ?? '').includes('json') && text !== '';
  return { status: response.status, headers: response.headers, body: isJson ? JSON.parse(text) : text };
}

export function sessionCookieOf(headers: Headers): string {
  const set = headers.getSetCookie().find((c) => c.startsWith('chute_session='));
  if (!set) throw new Error('no session cookie was set');
  return set.split(';')[0]!;
}

export async function startTestServer(options: TestServerOptions): Promise<TestServer> {
  const ownsDataDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? (await mkdtemp(path.join(os.tmpdir(), 'chute-test-')));
  let databaseUrl = options.databaseUrl;
  let drop: (() => Promise<void>) | undefined;
  if (options.engine === 'postgres' && !databaseUrl) {
    const created = await createPostgresDatabase();
    databaseUrl = created.url;
    drop = created.drop;
  }
  const config = loadConfig({
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'silent',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    ...options.env,
  });
  const cleanup = async () => {
    await drop?.();
    if (ownsDataDir) await rm(dataDir, { recursive: true, force: true });
  };
  let chute: Chute;
  try {
    chute = await createChute(config, {
      startJobs: false,
      logger: process.env.TEST_LOG ? { level: process.env.TEST_LOG } : false,
      ...(options.clock ? { clock: options.clock } : {}),
    });
  } catch (err) {
    await cleanup();
    throw err;
  }
  const address = await chute.app.listen({ host: '127.0.0.1', port: 0 });
  return new TestServer(chute, address, dataDir, cleanup);
}

/** Runs `fn` on a server of its own, closed afterwards: for a test that needs a fresh one (setup mode, defaults). */
export async function withTestServer<T>(
  options: TestServerOptions,
  fn: (server: TestServer) => Promise<T>,
): Promise<T> {
  const server = await startTestServer(options);
  try {
    return await fn(server);
  } finally {
    await server.close();
  }
}

/**
 * Runs `fn` with a data folder and (on PostgreSQL) a database that outlive one server: for tests of restarts and of
 * several instances sharing them (`startTestServer({ engine, ...shared })`). Both are removed afterwards.
 */
export async function withSharedState<T>(
  engine: Engine,
  fn: (shared: { dataDir: string; databaseUrl: string | undefined }) => Promise<T>,
): Promise<T> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'chute-shared-'));
  const database = engine === 'postgres' ? await createPostgresDatabase() : undefined;
  try {
    return await fn({ dataDir, databaseUrl: database?.url });
  } finally {
    await database?.drop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** One server for the whole suite (fresh per suite, closed after it). */
export function useTestServer(options: TestServerOptions | (() => TestServerOptions)): () => TestServer {
  let server: TestServer | undefined;
  before(async () => {
    server = await startTestServer(typeof options === 'function' ? options() : options);
  });
  after(async () => {
    await server?.close();
  });
  return () => {
    if (!server) throw new Error('the test server has not started');
    return server;
  };
}
