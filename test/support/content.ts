// Test data for the content features (short URLs, folders, tags): extra users, quotas, file and folder rows written
// straight into the database (and their bytes into storage when a test needs them), for tests that do not exercise
// uploading itself. Accounts and content made through the API are in factory.ts.
import { Readable } from 'node:stream';
import { newId, randomString } from '../../src/lib/security/ids.js';
import { insertUser, revealToken } from '../../src/services/accounts/account.js';
import { setUserQuota } from '../../src/services/accounts/quotas.js';
import { currentMetricData } from '../../src/services/statistics/snapshots.js';
import type { TestServer, TestUser } from './server.js';

/** A USER account with its API token. */
export async function createTestUser(server: TestServer, username: string): Promise<TestUser> {
  const row = await insertUser(server.ctx, server.ctx.db, { username, passwordHash: null, role: 'USER' });
  return { id: row.id, username, password: '', token: revealToken(server.ctx, row), cookie: '' };
}

/** Sets a user's quota straight in the database: a file quota by bytes or by count, and/or a short-URL count. */
async function setQuota(
  server: TestServer,
  userId: string,
  quota: { maxBytes?: number; maxFiles?: number; maxUrls?: number },
): Promise<void> {
  await setUserQuota(server.ctx, server.ctx.db, userId, {
    filesQuota: quota.maxFiles !== undefined ? 'BY_FILES' : 'BY_BYTES',
    maxBytes: quota.maxBytes ?? null,
    maxFiles: quota.maxFiles ?? null,
    maxUrls: quota.maxUrls ?? null,
  });
}

export async function setUrlQuota(server: TestServer, userId: string, maxUrls: number): Promise<void> {
  await setQuota(server, userId, { maxUrls });
}

export async function setFileQuota(
  server: TestServer,
  userId: string,
  quota: { maxBytes?: number; maxFiles?: number },
): Promise<void> {
  await setQuota(server, userId, quota);
}

export interface TestFile {
  id: string;
  name: string;
  storageKey: string;
}

/** A file row owned by `userId` (optionally in a folder, with a password); `bytes` are also stored under its key. */
export async function insertTestFile(
  server: TestServer,
  userId: string,
  options: { folderId?: string; originalName?: string; bytes?: string | Buffer; password?: string; type?: string } = {},
): Promise<TestFile> {
  const now = Date.now();
  const name = `${randomString(10)}.txt`;
  const storageKey = `test/${name}`;
  const bytes = options.bytes === undefined ? undefined : Buffer.from(options.bytes);
  if (bytes !== undefined) {
    await server.ctx.storage.put(storageKey, Readable.from([bytes]), { contentType: 'text/plain' });
  }
  const id = newId();
  await server.ctx.db
    .insertInto('files')
    .values({
      id,
      name,
      original_name: options.originalName ?? name,
      type: options.type ?? 'text/plain',
      size: bytes?.length ?? 0,
      views: 0,
      max_views: null,
      favorite: 0,
      password: options.password ?? null,
      deletes_at: null,
      folder_id: options.folderId ?? null,
      user_id: userId,
      storage_key: storageKey,
      created_at: now,
      updated_at: now,
    })
    .execute();
  return { id, name, storageKey };
}

/** A folder row of `userId` (for tests that only need one to exist; the folder API has its own tests). */
export async function insertTestFolder(
  server: TestServer,
  userId: string,
  name = `folder-${newId().slice(0, 5)}`,
): Promise<string> {
  const id = newId();
  const now = Date.now();
  await server.ctx.db
    .insertInto('folders')
    .values({
      id,
      user_id: userId,
      parent_id: null,
      name,
      public: 0,
      allow_uploads: 0,
      created_at: now,
      updated_at: now,
    })
    .execute();
  return id;
}

/**
 * `count` statistics snapshots, one per `intervalMs` slot before the current one, written straight into the table
 * (services/statistics/snapshots.ts takes them one interval apart): today's figures, each earlier one a file and a view fewer.
 */
export async function insertMetricSnapshots(
  server: TestServer,
  count: number,
  intervalMs = 30 * 60_000,
): Promise<void> {
  const data = await currentMetricData(server.ctx);
  const now = Date.now();
  for (let back = count; back >= 1; back--) {
    const slot = now - (now % intervalMs) - back * intervalMs;
    const earlier = { ...data, files: Math.max(0, data.files - back), fileViews: Math.max(0, data.fileViews - back) };
    await server.ctx.db
      .insertInto('metrics')
      .values({ id: newId(), slot, created_at: slot, data: JSON.stringify(earlier) })
      .execute();
  }
}
