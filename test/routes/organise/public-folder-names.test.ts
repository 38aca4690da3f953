// What a public folder shows and zips of its files' names: the served name of a password-protected file (its original
// name may give away what the password guards), and zip entry names that are safe whatever a visitor named a file.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { zipSegment } from '../../../src/services/serving/zips.js';
import { makeFolder, makeUser } from '../../support/factory.js';
import { forEachDatabase, useTestServer, type TestUser } from '../../support/server.js';
import { uploadOne } from '../../support/uploads.js';

describe('zipSegment', () => {
  it('makes every name a safe, relative, single segment', () => {
    assert.equal(zipSegment('C:x.txt'), 'C_x.txt');
    assert.equal(zipSegment('C:'), 'C_');
    assert.equal(zipSegment('..'), '_');
    assert.equal(zipSegment('a\\b/c'), 'a_b_c');
    assert.equal(zipSegment('tab\there\u0000'), 'tab_here_');
    assert.equal(zipSegment('zero\u200bwidth\u202e'), 'zero_width_');
    assert.equal(zipSegment('lone\ud800'), 'lone_');
    assert.equal(zipSegment('  '), '_');
    assert.equal(Array.from(zipSegment('😀'.repeat(300))).length, 255);
  });
});

forEachDatabase('public folder names', (engine) => {
  const server = useTestServer({ engine });
  let owner: TestUser;
  before(async () => {
    await server().setup();
    owner = await makeUser(server());
  });

  it('the page and the JSON show the served name of a password-protected file, not its original name', async () => {
    const folder = await makeFolder(server(), owner, { public: true });
    const headers = { 'x-service-folder': folder.id, 'x-service-original-name': 'true' };
    const locked = await uploadOne(server(), owner.token, 'secret', {
      name: 'layoffs-2026.txt',
      headers: { ...headers, 'x-service-password': 'pw' },
    });
    await uploadOne(server(), owner.token, 'open', { name: 'menu.txt', headers });
    const json = await server().json('GET', `/api/folders/${folder.id}`);
    const byName = new Map(json.body.files.map((f: { name: string; originalName: string | null }) => [f.name, f]));
    assert.equal((byName.get(locked.name) as { originalName: string | null }).originalName, null);
    assert.ok(json.body.files.some((f: { originalName: string | null }) => f.originalName === 'menu.txt'));
    const page = await (await server().fetch(`/folder/${folder.id}`)).text();
    assert.ok(!page.includes('layoffs-2026'), 'the original name of the locked file is not on the page');
    assert.ok(page.includes(locked.name));
    assert.ok(page.includes('menu.txt'));
  });

  it("zips a folder whose anonymous uploads and subfolders have names like 'C:x.txt' and 'C:'", async () => {
    const folder = await makeFolder(server(), owner, { public: true, allowUploads: true });
    await makeFolder(server(), owner, { name: 'C:', parentId: folder.id, public: true });
    const form = new FormData();
    for (const name of ['C:x.txt', '..', 'back\\slash.txt'])
      form.append('file', new Blob([name], { type: 'text/plain' }), name);
    const uploaded = await server().fetch(`/api/folders/${folder.id}/upload`, { method: 'POST', body: form });
    assert.equal(uploaded.status, 200, await uploaded.clone().text());
    const res = await server().fetch(`/api/folders/${folder.id}/zip`);
    assert.equal(res.status, 200);
    const dir = await mkdtemp(path.join(os.tmpdir(), 'chute-zip-'));
    try {
      const file = path.join(dir, 'download.zip');
      await writeFile(file, Buffer.from(await res.arrayBuffer()));
      execFileSync('unzip', ['-tq', file]);
      const names = execFileSync('unzip', ['-Z1', file], { encoding: 'utf8' }).split('\n').filter(Boolean).sort();
      assert.ok(names.includes('C_/'), names.join(', '));
      assert.ok(names.includes('C_x.txt'), names.join(', '));
      for (const name of names) assert.doesNotMatch(name, /(^|\/)\.\.(\/|$)|\\|:/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
