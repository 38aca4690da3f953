// The quota service the upload and short-URL services call: validation of what admins write, usage, and the checks
// that run inside the transaction recording new content (atomic under concurrency on both engines).
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { isApiError } from '../../src/lib/errors.js';
import { newId } from '../../src/lib/security/ids.js';
import {
  assertFileQuota,
  assertUrlQuota,
  fileQuotaRoom,
  quotaUsage,
  resolveQuotaInput,
} from '../../src/services/accounts/quotas.js';
import { insertTestFile } from '../support/content.js';
import { forEachDatabase, useTestServer, type TestServer, type TestUser } from '../support/server.js';
import { makeUser, NO_RATE_LIMIT } from '../support/factory.js';

const rejectsWith = (promise: Promise<unknown>, code: number) =>
  assert.rejects(promise, (err: unknown) => isApiError(err) && err.code === code);

describe('resolveQuotaInput', () => {
  it('needs maxBytes for BY_BYTES (1056) and maxFiles for BY_FILES (1057)', () => {
    assert.throws(
      () => resolveQuotaInput({ filesQuota: 'BY_BYTES' }),
      (e: unknown) => isApiError(e, 1056),
    );
    assert.throws(
      () => resolveQuotaInput({ filesQuota: 'BY_BYTES', maxBytes: '' }),
      (e: unknown) => isApiError(e, 1056),
    );
    assert.throws(
      () => resolveQuotaInput({ filesQuota: 'BY_FILES', maxFiles: null }),
      (e: unknown) => isApiError(e, 1057),
    );
    assert.throws(
      () => resolveQuotaInput({ filesQuota: 'BY_BYTES', maxBytes: '12 parsecs' }),
      (e: unknown) => isApiError(e, 1000),
    );
  });

  it('reads sizes, keeps only the limit of the chosen kind, and turns "nothing limited" into no quota', () => {
    assert.deepEqual(resolveQuotaInput({ filesQuota: 'BY_BYTES', maxBytes: '10gb', maxFiles: 4 }), {
      filesQuota: 'BY_BYTES',
      maxBytes: 10 * 1024 ** 3,
      maxFiles: null,
      maxUrls: null,
    });
    assert.deepEqual(resolveQuotaInput({ filesQuota: 'BY_FILES', maxFiles: 0, maxBytes: 9, maxUrls: 2 }), {
      filesQuota: 'BY_FILES',
      maxBytes: null,
      maxFiles: 0,
      maxUrls: 2,
    });
    assert.deepEqual(resolveQuotaInput({ filesQuota: 'NONE', maxUrls: 3 }), {
      filesQuota: 'BY_BYTES',
      maxBytes: null,
      maxFiles: null,
      maxUrls: 3,
    });
    assert.equal(resolveQuotaInput({ filesQuota: 'NONE' }), null);
    assert.equal(resolveQuotaInput(null), null);
  });
});

/** Records a file row of `size` bytes in `trx`, as an upload would after its quota check. */
function insertFileRow(trx: TestServer['ctx']['db'], userId: string, size: number) {
  const id = newId();
  return trx
    .insertInto('files')
    .values({
      id,
      name: `${id}.bin`,
      original_name: null,
      type: 'application/octet-stream',
      size,
      views: 0,
      max_views: null,
      favorite: 0,
      password: null,
      deletes_at: null,
      folder_id: null,
      user_id: userId,
      storage_key: `quota-test/${id}`,
      created_at: Date.now(),
      updated_at: Date.now(),
    })
    .execute();
}

forEachDatabase('quota checks', (engine) => {
  const server = useTestServer({ engine, env: NO_RATE_LIMIT });
  let root: TestUser;

  before(async () => {
    root = await server().setup('root', 'root-password');
  });

  async function userWithQuota(name: string, quota: Record<string, unknown> | null): Promise<TestUser> {
    return makeUser(server(), { by: root.token, username: name, role: 'USER', extra: { quota } });
  }

  it('without a quota, nothing is limited', async () => {
    const free = await userWithQuota('free', null);
    assert.deepEqual(await fileQuotaRoom(server().ctx.db, free.id), { bytes: null, files: null });
    await assertFileQuota(server().ctx, server().ctx.db, free.id, { bytes: 10 ** 12, files: 10 ** 6 });
    await assertUrlQuota(server().ctx, server().ctx.db, free.id, 10 ** 6);
  });

  it("BY_BYTES: counts the bytes of the user's files; going over -> 5002", async () => {
    const { ctx } = server();
    const u = await userWithQuota('bytes', { filesQuota: 'BY_BYTES', maxBytes: '1kb' });
    await insertTestFile(server(), u.id, { bytes: Buffer.alloc(600) });
    assert.deepEqual(await quotaUsage(ctx.db, u.id), { bytes: 600, files: 1, urls: 0 });
    assert.deepEqual(await fileQuotaRoom(ctx.db, u.id), { bytes: 424, files: null });
    await assertFileQuota(ctx, ctx.db, u.id, { bytes: 424, files: 50 });
    await rejectsWith(assertFileQuota(ctx, ctx.db, u.id, { bytes: 425, files: 1 }), 5002);
  });

  it("BY_FILES: counts the user's files; going over -> 5002", async () => {
    const { ctx } = server();
    const u = await userWithQuota('files', { filesQuota: 'BY_FILES', maxFiles: 2 });
    await insertTestFile(server(), u.id, { bytes: 'x' });
    await assertFileQuota(ctx, ctx.db, u.id, { bytes: 10 ** 9, files: 1 });
    await rejectsWith(assertFileQuota(ctx, ctx.db, u.id, { bytes: 1, files: 2 }), 5002);
    assert.deepEqual(await fileQuotaRoom(ctx.db, u.id), { bytes: null, files: 1 });
  });

  it("maxUrls: counts the user's short URLs; going over -> 3012", async () => {
    const { ctx } = server();
    const u = await userWithQuota('urls', { filesQuota: 'NONE', maxUrls: 1 });
    await assertUrlQuota(ctx, ctx.db, u.id);
    const made = await server().json('POST', '/api/user/urls', {
      auth: u.token,
      body: { destination: 'https://example.com' },
    });
    assert.equal(made.status, 200);
    await rejectsWith(assertUrlQuota(ctx, ctx.db, u.id), 3012);
    assert.equal((await quotaUsage(ctx.db, u.id)).urls, 1);
  });

  /** Ten transactions at once, each checking the quota for one file of `size` bytes and then recording it. */
  async function race(userId: string, size: number): Promise<number> {
    const { ctx } = server();
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, () =>
        ctx.db.transaction().execute(async (trx) => {
          await assertFileQuota(ctx, trx, userId, { bytes: size, files: 1 });
          await insertFileRow(trx, userId, size);
        }),
      ),
    );
    for (const r of results) if (r.status === 'rejected') assert.ok(isApiError(r.reason, 5002), String(r.reason));
    return results.filter((r) => r.status === 'fulfilled').length;
  }

  it('checks inside concurrent transactions let exactly maxFiles files in', async () => {
    const u = await userWithQuota('racing', { filesQuota: 'BY_FILES', maxFiles: 3 });
    assert.equal(await race(u.id, 1), 3);
    assert.equal((await quotaUsage(server().ctx.db, u.id)).files, 3);
  });

  it('checks inside concurrent transactions keep the bytes within maxBytes', async () => {
    const u = await userWithQuota('racing-bytes', { filesQuota: 'BY_BYTES', maxBytes: 1000 });
    assert.equal(await race(u.id, 300), 3);
    assert.equal((await quotaUsage(server().ctx.db, u.id)).bytes, 900);
  });
});
