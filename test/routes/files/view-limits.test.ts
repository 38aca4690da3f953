// A file's or short URL's view limit cannot be read around: a ranged GET of a limited file counts a view, a public
// folder's zip leaves limited (and password-protected) files out, and HEAD of a limited short URL hides where it goes.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { before, it } from 'node:test';
import { makeFolder, makeUser } from '../../support/factory.js';
import { forEachDatabase, useTestServer, type TestServer, type TestUser } from '../../support/server.js';
import { uploadOne } from '../../support/uploads.js';

/** The entry names of a zip download, read with Debian's unzip. */
async function zipNames(server: TestServer, pathname: string): Promise<string[]> {
  const res = await server.fetch(pathname);
  assert.equal(res.status, 200);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'chute-zip-'));
  try {
    const file = path.join(dir, 'download.zip');
    await writeFile(file, Buffer.from(await res.arrayBuffer()));
    execFileSync('unzip', ['-tq', file]);
    return execFileSync('unzip', ['-Z1', file], { encoding: 'utf8' }).split('\n').filter(Boolean).sort();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

forEachDatabase('view limits', (engine) => {
  const server = useTestServer({ engine });
  let owner: TestUser;
  before(async () => {
    await server().setup();
    owner = await makeUser(server());
  });

  it('a ranged read of a file with max views counts a view', async () => {
    const file = await uploadOne(server(), owner.token, 'limited bytes', { headers: { 'x-service-max-views': '2' } });
    const raw = `/raw/${encodeURIComponent(file.name)}`;
    for (let i = 0; i < 2; i++) {
      const res = await server().fetch(raw, { headers: { range: 'bytes=1-' } });
      assert.equal(res.status, 206);
      assert.equal(await res.text(), 'imited bytes');
    }
    assert.equal((await server().fetch(raw, { headers: { range: 'bytes=1-' } })).status, 404);
    assert.equal((await server().fetch(raw)).status, 404);
  });

  it("a public folder's zip leaves out files with max views and password-protected files", async () => {
    const folder = await makeFolder(server(), owner, { public: true });
    const into = { 'x-service-folder': folder.id };
    await uploadOne(server(), owner.token, 'open', { name: 'open.txt', headers: into });
    const limited = await uploadOne(server(), owner.token, 'once', {
      name: 'limited.txt',
      headers: { ...into, 'x-service-max-views': '1' },
    });
    await uploadOne(server(), owner.token, 'secret', {
      name: 'locked.txt',
      headers: { ...into, 'x-service-password': 'pw' },
    });
    const names = await zipNames(server(), `/api/folders/${folder.id}/zip`);
    // Zip entries take the files' original names (kept by default).
    assert.deepEqual(names, ['open.txt']);
    // The limited file still has its one view.
    const res = await server().fetch(`/raw/${encodeURIComponent(limited.name)}`);
    assert.equal(await res.text(), 'once');
  });
});
