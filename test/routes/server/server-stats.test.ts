// Server statistics for the administration overview: admins only, totals aggregated over every user's content,
// the most common types and the users storing the most, and the usage of a page of users.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { createTestUser, insertTestFile } from '../../support/content.js';
import { forEachDatabase, useTestServer, type TestUser } from '../../support/server.js';
import { assertError } from '../../support/api-errors.js';
import { makeUser, NO_RATE_LIMIT } from '../../support/factory.js';
import { rebuildUsageCounters } from '../../../src/services/statistics/usage.js';

forEachDatabase('server statistics', (engine) => {
  const server = useTestServer({ engine, env: { ...NO_RATE_LIMIT, INVITES_ENABLED: 'true' } });
  let root: TestUser;
  let admin: TestUser;
  let alice: TestUser;
  let bob: TestUser;
  let leaver: TestUser;

  before(async () => {
    root = await server().setup('root', 'root-password');
    admin = await makeUser(server(), { by: root.token, username: 'admin', role: 'ADMIN' });
    alice = await createTestUser(server(), 'alice');
    bob = await createTestUser(server(), 'bob');
    leaver = await createTestUser(server(), 'leaver');
    // alice: 3 texts (30 bytes) and an image (100 bytes); bob: one image (5 bytes); leaver: one PDF, kept without owner.
    for (let i = 0; i < 3; i++) await insertTestFile(server(), alice.id, { bytes: 'x'.repeat(10) });
    await insertTestFile(server(), alice.id, { bytes: 'p'.repeat(100), type: 'image/png' });
    await insertTestFile(server(), bob.id, { bytes: 'b'.repeat(5), type: 'image/png' });
    await insertTestFile(server(), leaver.id, { bytes: 'l'.repeat(7), type: 'application/pdf' });
    await server().ctx.db.updateTable('files').set({ views: 4 }).where('user_id', '=', alice.id).execute();
    for (const destination of ['https://example.com/a', 'https://example.com/b']) {
      const res = await server().json('POST', '/api/user/urls', { auth: alice.token, body: { destination } });
      assert.equal(res.status, 200, JSON.stringify(res.body));
    }
    await server().ctx.db.updateTable('urls').set({ views: 3 }).execute();
    // Views written by hand, past the batched view writes that move the stored totals: recount them.
    await rebuildUsageCounters(server().ctx.db);
    assert.equal((await server().json('POST', '/api/auth/invites', { auth: admin.token, body: {} })).status, 200);
    const gone = await server().json('DELETE', `/api/users/${leaver.id}`, {
      auth: root.token,
      body: { delete: false },
    });
    assert.equal(gone.status, 200);
  });

  it('are for admins only (2002 without credentials, 3000 for a USER)', async () => {
    for (const path of ['/api/server/stats', `/api/server/stats/users?ids=${alice.id}`]) {
      assertError(await server().json('GET', path), 401, 2002);
      assertError(await server().json('GET', path, { auth: alice.token }), 403, 3000);
      assert.equal((await server().json('GET', path, { auth: admin.token })).status, 200);
    }
  });

  it('GET /api/server/stats totals users, files, bytes, views, short URLs and invites of everyone', async () => {
    const res = await server().json('GET', '/api/server/stats', { auth: admin.token });
    assert.equal(res.status, 200);
    const { filesByType, topUsers, snapshots, ...totals } = res.body;
    assert.equal(snapshots.enabled, true);
    assert.deepEqual(totals, {
      users: 4,
      usersByRole: { USER: 2, ADMIN: 1, SUPERADMIN: 1 },
      files: 6,
      storageUsed: 30 + 100 + 5 + 7,
      fileViews: 16,
      ownerlessFiles: 1,
      urls: 2,
      urlViews: 6,
      invites: 1,
    });
    assert.deepEqual(filesByType, [
      { type: 'text/plain', files: 3, bytes: 30 },
      { type: 'image/png', files: 2, bytes: 105 },
      { type: 'application/pdf', files: 1, bytes: 7 },
    ]);
    // Owner-less files belong to nobody's total; users without files are not listed.
    assert.deepEqual(topUsers, [
      { id: alice.id, username: 'alice', files: 4, storageUsed: 130 },
      { id: bob.id, username: 'bob', files: 1, storageUsed: 5 },
    ]);
  });

  it('GET /api/server/stats on an empty server answers zeros', async () => {
    await server().ctx.db.deleteFrom('files').execute();
    try {
      const res = await server().json('GET', '/api/server/stats', { auth: admin.token });
      assert.equal(res.body.files, 0);
      assert.equal(res.body.storageUsed, 0);
      assert.equal(res.body.fileViews, 0);
      assert.deepEqual(res.body.filesByType, []);
      assert.deepEqual(res.body.topUsers, []);
    } finally {
      // Put back what the other tests count on.
      for (let i = 0; i < 3; i++) await insertTestFile(server(), alice.id, { bytes: 'x'.repeat(10) });
      await insertTestFile(server(), alice.id, { bytes: 'p'.repeat(100), type: 'image/png' });
      await insertTestFile(server(), bob.id, { bytes: 'b'.repeat(5), type: 'image/png' });
    }
  });

  it('GET /api/server/stats/users answers the files, bytes and short URLs of each given user, in order', async () => {
    const ids = [bob.id, alice.id, root.id, 'no-such-user'].join(',');
    const res = await server().json('GET', `/api/server/stats/users?ids=${encodeURIComponent(ids)}`, {
      auth: admin.token,
    });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.usage, [
      { userId: bob.id, files: 1, storageUsed: 5, urls: 0 },
      { userId: alice.id, files: 4, storageUsed: 130, urls: 2 },
      { userId: root.id, files: 0, storageUsed: 0, urls: 0 },
      { userId: 'no-such-user', files: 0, storageUsed: 0, urls: 0 },
    ]);
  });

  it('GET /api/server/stats/users refuses more than 100 ids or a missing list (1000)', async () => {
    const many = Array.from({ length: 101 }, (_, i) => `id${i}`).join(',');
    assertError(await server().json('GET', `/api/server/stats/users?ids=${many}`, { auth: admin.token }), 400, 1000);
    assertError(await server().json('GET', '/api/server/stats/users', { auth: admin.token }), 400, 1000);
    const empty = await server().json('GET', '/api/server/stats/users?ids=', { auth: admin.token });
    assert.deepEqual(empty.body, { usage: [] });
  });
});
