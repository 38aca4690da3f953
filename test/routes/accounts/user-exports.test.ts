// A user's export (POST/GET/DELETE /api/user/export): made by a job of the queue, stored in the datasource (local
// and S3), its zip unpacks to byte-identical files (a multi-megabyte one among them) and a records.json of the
// account; 1025 without files, 1024 while not complete, 9002 for another's; the sweep removes expired exports.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { ManualClock } from '../../../src/lib/clock.js';
import { exportStorageKey, EXPORT_RETENTION_MS } from '../../../src/services/exports/user-exports.js';
import { makeFolder, makeTag, makeUrl, makeUser, NO_RATE_LIMIT } from '../../support/factory.js';
import { describeS3 } from '../../support/s3.js';
import { forEachDatabase, useTestServer, type TestServer, type TestUser } from '../../support/server.js';
import { uploadOne } from '../../support/uploads.js';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** Downloads an export and unpacks it with Debian's unzip: each entry's sha256, and records.json. */
async function downloadExport(server: TestServer, user: TestUser, id: string) {
  const res = await server.fetch(`/api/user/export?id=${id}`, { headers: { authorization: user.token } });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'application/zip');
  // Named for the user and the day it was made (not Zipline's zexport_<user id>_<epoch>.zip).
  assert.match(
    res.headers.get('content-disposition') ?? '',
    new RegExp(`attachment; filename="chute-export-${user.username}-\\d{4}-\\d{2}-\\d{2}\\.zip"`),
  );
  const dir = await mkdtemp(path.join(os.tmpdir(), 'chute-export-'));
  try {
    const file = path.join(dir, 'export.zip');
    await writeFile(file, Buffer.from(await res.arrayBuffer()));
    execFileSync('unzip', ['-tq', file]); // CRC and structure of every entry
    const names = execFileSync('unzip', ['-Z1', file], { encoding: 'utf8' }).split('\n').filter(Boolean).sort();
    execFileSync('unzip', ['-q', file, '-d', path.join(dir, 'out')]);
    const hashes = new Map<string, string>();
    for (const name of names) hashes.set(name, sha256(await readFile(path.join(dir, 'out', name))));
    const records = JSON.parse(await readFile(path.join(dir, 'out', 'records.json'), 'utf8'));
    return { names, hashes, records };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function exportSuite(server: () => TestServer, clock: ManualClock): void {
  let user: TestUser;
  before(async () => {
    await server().setup();
    user = await makeUser(server());
  });

  it('answers 1025 to a user without files', async () => {
    const empty = await makeUser(server());
    const res = await server().json('POST', '/api/user/export', { auth: empty.token });
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 1025);
  });

  it('zips every file byte for byte with records.json, in the background; 1024 until done; 9002 for others', async () => {
    const big = randomBytes(6 * 1024 * 1024 + 123);
    const small = Buffer.from('hello export\n');
    const folder = await makeFolder(server(), user, { name: 'Holidays' });
    const tag = await makeTag(server(), user, { name: 'keep', color: '#112233' });
    await makeUrl(server(), user, { destination: 'https://example.com/exported' });
    const files = [
      { bytes: big, up: await uploadOne(server(), user.token, big, { name: 'big.bin' }) },
      { bytes: small, up: await uploadOne(server(), user.token, small, { name: 'note.txt' }) },
      {
        bytes: Buffer.from('in a folder'),
        up: await uploadOne(server(), user.token, 'in a folder', {
          name: 'inside.txt',
          headers: { 'x-zipline-folder': folder.id },
        }),
      },
    ];
    const tagged = await server().json('PUT', `/api/user/files/${files[1]!.up.id}/tags`, {
      auth: user.token,
      body: { tags: [tag.id] },
    });
    assert.equal(tagged.status, 200);

    const started = await server().json('POST', '/api/user/export', { auth: user.token });
    assert.equal(started.status, 200);
    assert.equal(started.body.running, true);
    const id = started.body.export.id as string;
    assert.equal(started.body.export.completed, false);
    assert.equal(started.body.export.files, 3);

    const early = await server().json('GET', `/api/user/export?id=${id}`, { auth: user.token });
    assert.equal(early.status, 400);
    assert.equal(early.body.code, 1024);

    assert.ok((await server().chute.worker.runUntilIdle()) >= 1);

    const list = await server().json('GET', '/api/user/export', { auth: user.token });
    assert.equal(list.status, 200);
    const listed = list.body.find((e: { id: string }) => e.id === id);
    assert.equal(listed.completed, true);
    assert.equal(listed.files, 3);
    assert.ok(Number(listed.size) > big.length);
    assert.equal(Date.parse(listed.expiresAt), Date.parse(listed.createdAt) + EXPORT_RETENTION_MS);
    assert.equal(listed.path, `chute-export-${user.username}-${listed.createdAt.slice(0, 10)}.zip`);
    const stored = await server().ctx.storage.stat(exportStorageKey(id));
    assert.equal(stored?.size, Number(listed.size), 'the zip is kept in the datasource');

    const { names, hashes, records } = await downloadExport(server(), user, id);
    assert.deepEqual(
      names,
      ['files/' + files[0]!.up.name, 'files/' + files[1]!.up.name, 'files/' + files[2]!.up.name, 'records.json'].sort(),
    );
    for (const { bytes, up } of files) assert.equal(hashes.get(`files/${up.name}`), sha256(bytes), up.name);

    assert.equal(records.user.id, user.id);
    assert.equal(records.files.length, 3);
    const note = records.files.find((f: { id: string }) => f.id === files[1]!.up.id);
    assert.deepEqual(note.tags, [tag.id]);
    assert.equal(note.path, `files/${files[1]!.up.name}`);
    assert.equal(records.files.find((f: { id: string }) => f.id === files[2]!.up.id).folderId, folder.id);
    assert.deepEqual(
      records.folders.map((f: { name: string }) => f.name),
      ['Holidays'],
    );
    assert.equal(records.tags[0].name, 'keep');
    assert.equal(records.urls[0].destination, 'https://example.com/exported');

    const stranger = await makeUser(server());
    const other = await server().json('GET', `/api/user/export?id=${id}`, { auth: stranger.token });
    assert.equal(other.status, 404);
    assert.equal(other.body.code, 9002);
    const otherDelete = await server().json('DELETE', `/api/user/export?id=${id}`, { auth: stranger.token });
    assert.equal(otherDelete.status, 404);

    const noId = await server().json('DELETE', '/api/user/export', { auth: user.token });
    assert.equal(noId.status, 400);
    assert.equal(noId.body.code, 1029);
    const deleted = await server().json('DELETE', `/api/user/export?id=${id}`, { auth: user.token });
    assert.equal(deleted.status, 200);
    assert.deepEqual(deleted.body, { deleted: true });
    assert.equal(await server().ctx.storage.stat(exportStorageKey(id)), null, 'the zip is gone with it');
    const gone = await server().json('GET', `/api/user/export?id=${id}`, { auth: user.token });
    assert.equal(gone.status, 404);
  });

  it('lists a file whose bytes are gone from storage as missing instead of failing the export', async () => {
    const owner = await makeUser(server());
    const kept = await uploadOne(server(), owner.token, 'still here');
    const lost = await uploadOne(server(), owner.token, 'lost bytes');
    const row = await server()
      .ctx.db.selectFrom('files')
      .select('storage_key')
      .where('id', '=', lost.id)
      .executeTakeFirstOrThrow();
    await server().ctx.storage.delete(row.storage_key);
    const started = await server().json('POST', '/api/user/export', { auth: owner.token });
    await server().chute.worker.runUntilIdle();
    const { names, records } = await downloadExport(server(), owner, started.body.export.id);
    assert.deepEqual(names, [`files/${kept.name}`, 'records.json'].sort());
    const missing = records.files.find((f: { id: string }) => f.id === lost.id);
    assert.equal(missing.missing, true);
    assert.equal(missing.path, null);
    const list = await server().json('GET', '/api/user/export', { auth: owner.token });
    assert.equal(list.body[0].files, 1, 'the files the zip holds');
  });

  it('removes expired exports and their zips through the sweep job', async () => {
    const started = await server().json('POST', '/api/user/export', { auth: user.token });
    const id = started.body.export.id as string;
    await server().chute.worker.runUntilIdle();
    assert.ok(await server().ctx.storage.stat(exportStorageKey(id)));

    await server().chute.jobs.runNow('queue-export-sweep');
    await server().chute.worker.runUntilIdle();
    assert.equal((await server().json('GET', '/api/user/export', { auth: user.token })).body.length, 1, 'not yet');

    clock.advance(EXPORT_RETENTION_MS + 1000);
    await server().chute.jobs.runNow('queue-export-sweep');
    await server().chute.worker.runUntilIdle();
    const list = await server().json('GET', '/api/user/export', { auth: user.token });
    assert.deepEqual(list.body, []);
    assert.equal(await server().ctx.storage.stat(exportStorageKey(id)), null);
    const sweeps = await server()
      .ctx.db.selectFrom('jobs')
      .select('state')
      .where('kind', '=', 'export-sweep')
      .execute();
    assert.ok(sweeps.length >= 2 && sweeps.every((j) => j.state === 'done'));
  });
}

forEachDatabase('user exports', (engine) => {
  describe('local datasource', () => {
    const clock = new ManualClock();
    exportSuite(useTestServer({ engine, clock, env: NO_RATE_LIMIT }), clock);
  });
});

describeS3('user exports', (s3Env) => {
  const clock = new ManualClock();
  exportSuite(
    useTestServer(() => ({ engine: 'sqlite', clock, env: { ...NO_RATE_LIMIT, ...s3Env() } })),
    clock,
  );
});
