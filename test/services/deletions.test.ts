// Deletions in batches (issue 23, item 6): the bytes of deleted records are noted in the deleting transaction and
// removed from the notes when the deleting process did not get to it; a user being deleted is gone at once, with their
// links; what the batches do keeps the counters exact.
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { it } from 'node:test';
import { sql } from 'kysely';
import { counterDrift } from '../../src/db/schema/usage-counters.js';
import { resumeDeletions } from '../../src/services/operations/unfinished-deletions.js';
import { beginUserDeletion, continueUserDeletion } from '../../src/services/accounts/user-deletion.js';
import { insertFileRows } from '../support/file-rows.js';
import { forEachDatabase, useTestServer } from '../support/server.js';
import { filesUnder } from '../support/stored.js';

forEachDatabase('deletions', (engine) => {
  const server = useTestServer({ engine, env: { RATELIMIT_ENABLED: 'false' } });

  async function filesWithBytes(userId: string, count: number, prefix: string) {
    const rows = await insertFileRows(
      server().ctx,
      Array.from({ length: count }, (_, i) => ({ user_id: userId, storage_key: `del/${prefix}-${i}`, size: 2 })),
    );
    await mkdir(path.join(server().dataDir, 'uploads', 'del'), { recursive: true });
    await Promise.all(rows.map((r) => writeFile(path.join(server().dataDir, 'uploads', r.storage_key), 'ab')));
    return rows;
  }
  const stored = async (prefix: string) =>
    (await filesUnder(path.join(server().dataDir, 'uploads'))).filter((f) => f.startsWith(`del/${prefix}-`));

  it('a record deleted by any statement leaves a note of its bytes, which the next start removes', async () => {
    const admin = server().superadmin ?? (await server().setup());
    const rows = await filesWithBytes(admin.id, 3, 'noted');
    // As if the process died right after the commit: the records are gone, the bytes are not.
    await sql`delete from files where storage_key like 'del/noted-%'`.execute(server().ctx.db);
    const notes = await server().ctx.db.selectFrom('blob_deletions').select('storage_key').execute();
    assert.deepEqual(notes.map((n) => n.storage_key).sort(), rows.map((r) => r.storage_key).sort());
    assert.equal((await stored('noted')).length, 3);
    await resumeDeletions(server().ctx, { atStart: true });
    assert.deepEqual(await stored('noted'), []);
    assert.deepEqual(await server().ctx.db.selectFrom('blob_deletions').select('storage_key').execute(), []);
  });

  it('a bulk delete of many files goes in batches: every file and its bytes, counters exact, no note left', async () => {
    const admin = server().superadmin ?? (await server().setup());
    const rows = await filesWithBytes(admin.id, 450, 'bulk');
    const res = await server().json('DELETE', '/api/user/files/transaction', {
      auth: admin.token,
      body: { files: rows.map((r) => r.id) },
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.count, 450);
    assert.deepEqual(await stored('bulk'), []);
    assert.deepEqual(await server().ctx.db.selectFrom('file_deletions').select('id').execute(), []);
    assert.deepEqual(await server().ctx.db.selectFrom('blob_deletions').select('storage_key').execute(), []);
    assert.deepEqual(await counterDrift(server().ctx.db), []);
  });

  it('a user being deleted is gone at once with their links; the batches then remove every row and byte', async () => {
    const admin = server().superadmin ?? (await server().setup());
    const made = await server().json('POST', '/api/users', {
      auth: admin.token,
      body: { username: 'leaving', password: 'leaving-password' },
    });
    const userId = made.body.id as string;
    const token = await server().login('leaving', 'leaving-password');
    const rows = await filesWithBytes(userId, 300, 'user');
    const url = await server().json('POST', '/api/user/urls', {
      auth: token,
      body: { destination: 'https://example.com/' },
    });
    assert.equal(url.status, 200, JSON.stringify(url.body));
    assert.equal((await server().fetch(`/go/${url.body.code}`)).status, 302);
    // Noted only (the batches have not run yet): the user, their files and links are gone for everyone.
    await server()
      .ctx.db.transaction()
      .execute((trx) => beginUserDeletion(server().ctx, trx, userId, true));
    assert.equal((await server().fetch(`/raw/${rows[0]!.name}`)).status, 404);
    assert.equal((await server().fetch(`/go/${url.body.code}`)).status, 404);
    assert.equal((await server().json('GET', `/api/users/${userId}`, { auth: admin.token })).status, 404);
    assert.equal((await server().json('GET', '/api/user', { auth: token })).status, 401);
    const listed = await server().json('GET', '/api/users', { auth: admin.token });
    assert.ok(!JSON.stringify(listed.body).includes(userId));

    assert.equal(await continueUserDeletion(server().ctx, userId), 300);
    assert.deepEqual(await stored('user'), []);
    assert.deepEqual(await server().ctx.db.selectFrom('users').select('id').where('id', '=', userId).execute(), []);
    assert.deepEqual(await server().ctx.db.selectFrom('urls').select('id').where('user_id', '=', userId).execute(), []);
    assert.deepEqual(await server().ctx.db.selectFrom('user_deletions').select('user_id').execute(), []);
    assert.deepEqual(await counterDrift(server().ctx.db), []);
  });
});
