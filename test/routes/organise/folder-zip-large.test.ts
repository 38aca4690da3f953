// A folder's zip with thousands of files (services/serving/zips.ts, services/serving/zip-entry-list.ts): the files are read from
// the database in batches as the zip goes and yazl's list of written entries is compacted into blocks of central
// directory records; the zip stays whole and in order: every entry, checked by Debian's unzip, in the folder's order
// (oldest first, ties by id), a subfolder's entries after its parent's, the last entry's bytes intact.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { before, it } from 'node:test';
import { createTestUser, insertTestFile } from '../../support/content.js';
import { makeFolder } from '../../support/factory.js';
import { insertFileRows } from '../../support/file-rows.js';
import { forEachDatabase, useTestServer, type TestUser } from '../../support/server.js';

forEachDatabase('a folder zip of thousands of files', (engine) => {
  const server = useTestServer({ engine });
  let user: TestUser;
  before(async () => {
    await server().setup();
    user = await createTestUser(server(), 'zipper');
  });

  it('holds every file once, in order, with its bytes', async () => {
    const ctx = server().ctx;
    const folder = await makeFolder(server(), user, { name: 'big' });
    const inner = await makeFolder(server(), user, { name: 'inner', parentId: folder.id });
    const stored = await insertTestFile(server(), user.id, { bytes: 'the same bytes' });
    // 2,600 files sharing 7 dates (the id breaks the ties), and a few in the subfolder.
    const rows = await insertFileRows(
      ctx,
      Array.from({ length: 2600 }, (_, i) => ({
        user_id: user.id,
        folder_id: folder.id,
        original_name: `file-${i}.txt`,
        storage_key: stored.storageKey,
        created_at: 1_700_000_000_000 + (i % 7),
      })),
    );
    await insertFileRows(
      ctx,
      Array.from({ length: 3 }, (_, i) => ({
        user_id: user.id,
        folder_id: inner.id,
        original_name: `inner-${i}.txt`,
        storage_key: stored.storageKey,
        created_at: 1_700_000_000_000 + i,
      })),
    );
    const expected = [
      ...[...rows]
        .sort((a, b) => a.created_at - b.created_at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
        .map((r) => r.original_name!),
      ...['inner-0.txt', 'inner-1.txt', 'inner-2.txt'].map((n) => `inner/${n}`),
    ];
    const res = await server().fetch(`/api/user/folders/${folder.id}/zip`, { headers: { authorization: user.token } });
    assert.equal(res.status, 200);
    const dir = await mkdtemp(path.join(os.tmpdir(), 'chute-zip-'));
    try {
      const file = path.join(dir, 'big.zip');
      await writeFile(file, Buffer.from(await res.arrayBuffer()));
      execFileSync('unzip', ['-tq', file]);
      const names = execFileSync('unzip', ['-Z1', file], { encoding: 'utf8' }).split('\n').filter(Boolean);
      // The subfolder's own entry comes first (as a folder name taken in the parent), then the files.
      assert.deepEqual(
        names.filter((n) => !n.endsWith('/')),
        expected,
      );
      assert.equal(execFileSync('unzip', ['-p', file, expected.at(-4)!], { encoding: 'utf8' }), 'the same bytes');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
