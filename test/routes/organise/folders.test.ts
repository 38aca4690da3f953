import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, readlink, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { before, it } from 'node:test';
import { createTestUser, insertTestFile } from '../../support/content.js';
import { forEachDatabase, useTestServer, type TestServer, type TestUser } from '../../support/server.js';

/** Downloads a zip and reads it with Debian's unzip: the entry names, and a function giving an entry's bytes. */
async function fetchZip(server: TestServer, pathname: string, auth?: string) {
  const res = await server.fetch(pathname, { headers: auth ? { authorization: auth } : {} });
  assert.equal(res.status, 200, `${pathname}: ${res.status}`);
  assert.equal(res.headers.get('content-type'), 'application/zip');
  const dir = await mkdtemp(path.join(os.tmpdir(), 'chute-zip-'));
  const file = path.join(dir, 'download.zip');
  await writeFile(file, Buffer.from(await res.arrayBuffer()));
  try {
    execFileSync('unzip', ['-tq', file]); // CRC and structure check of every entry
    const names = execFileSync('unzip', ['-Z1', file], { encoding: 'utf8' }).split('\n').filter(Boolean).sort();
    const contents = new Map(
      names
        .filter((n) => !n.endsWith('/'))
        .map((n) => [n, execFileSync('unzip', ['-p', file, n], { maxBuffer: 64 << 20 }).toString('utf8')]),
    );
    return { names, contents, disposition: res.headers.get('content-disposition') };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** How many files under `dir` this process holds open (Linux /proc). */
async function openFilesUnder(dir: string): Promise<number> {
  let count = 0;
  for (const fd of await readdir('/proc/self/fd')) {
    const target = await readlink(`/proc/self/fd/${fd}`).catch(() => '');
    if (target.startsWith(dir)) count++;
  }
  return count;
}

forEachDatabase('folders', (engine) => {
  const server = useTestServer({ engine });
  let ann: TestUser;
  let bob: TestUser;
  before(async () => {
    ann = await server().setup('ann', 'ann-password');
    bob = await createTestUser(server(), 'bob');
  });

  const create = (auth: string, body: Record<string, unknown>) =>
    server().json('POST', '/api/user/folders', { auth, body });

  it("builds a nested tree; lists all, the top level or one folder's children; shows a folder with its path", async () => {
    const top = await create(ann.token, { name: 'Photos' });
    assert.equal(top.status, 200);
    assert.equal(top.body.name, 'Photos');
    assert.equal(top.body.public, false);
    assert.equal(top.body.allowUploads, false);
    assert.equal(top.body.parentId, null);
    assert.equal(top.body.userId, ann.id);
    const mid = await create(ann.token, { name: '2024', parentId: top.body.id });
    assert.equal(mid.body.parentId, top.body.id);
    const leaf = await create(ann.token, { name: 'Summer', parentId: mid.body.id, public: true });
    const file = await insertTestFile(server(), ann.id, { folderId: mid.body.id });

    let res = await server().json('GET', '/api/user/folders', { auth: ann.token });
    assert.deepEqual(res.body.map((f: { name: string }) => f.name).sort(), ['2024', 'Photos', 'Summer']);
    res = await server().json('GET', '/api/user/folders?parentId=root', { auth: ann.token });
    assert.deepEqual(
      res.body.map((f: { name: string }) => f.name),
      ['Photos'],
    );
    assert.equal(res.body[0].childCount, 1);
    res = await server().json('GET', `/api/user/folders?parentId=${mid.body.id}`, { auth: ann.token });
    assert.deepEqual(
      res.body.map((f: { name: string }) => f.name),
      ['Summer'],
    );

    res = await server().json('GET', `/api/user/folders/${mid.body.id}`, { auth: ann.token });
    assert.equal(res.status, 200);
    assert.equal(res.body.fileCount, 1);
    assert.deepEqual(
      res.body.files.map((f: { id: string }) => f.id),
      [file.id],
    );
    assert.equal(res.body.files[0].url, `${server().url}/u/${file.name}`);
    assert.deepEqual(
      res.body.children.map((f: { id: string }) => f.id),
      [leaf.body.id],
    );
    assert.deepEqual(res.body.parents, [{ id: top.body.id, name: 'Photos' }]);
    // Bob sees none of it.
    res = await server().json('GET', '/api/user/folders', { auth: bob.token });
    assert.deepEqual(res.body, []);
  });

  it("refuses a bad parent: 4007 missing, 3003 another user's; 1015 own parent; 1016 into a descendant", async () => {
    let res = await create(ann.token, { name: 'x', parentId: 'nosuchfolder' });
    assert.equal(res.status, 404);
    assert.equal(res.body.code, 4007);
    const bobs = await create(bob.token, { name: 'bob-only' });
    res = await create(ann.token, { name: 'x', parentId: bobs.body.id });
    assert.equal(res.status, 403);
    assert.equal(res.body.code, 3003);

    const a = await create(ann.token, { name: 'A' });
    const b = await create(ann.token, { name: 'B', parentId: a.body.id });
    const c = await create(ann.token, { name: 'C', parentId: b.body.id });
    res = await server().json('PATCH', `/api/user/folders/${a.body.id}`, {
      auth: ann.token,
      body: { parentId: a.body.id },
    });
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 1015);
    for (const target of [b.body.id, c.body.id]) {
      res = await server().json('PATCH', `/api/user/folders/${a.body.id}`, {
        auth: ann.token,
        body: { parentId: target },
      });
      assert.equal(res.status, 400);
      assert.equal(res.body.code, 1016);
    }
    res = await server().json('PATCH', `/api/user/folders/${a.body.id}`, {
      auth: ann.token,
      body: { parentId: bobs.body.id },
    });
    assert.equal(res.body.code, 3003);
    res = await server().json('PATCH', `/api/user/folders/${a.body.id}`, {
      auth: ann.token,
      body: { parentId: 'nosuchfolder' },
    });
    assert.equal(res.body.code, 4007);

    // Moving C to the top and renaming/opening works; the tree stays acyclic.
    res = await server().json('PATCH', `/api/user/folders/${c.body.id}`, {
      auth: ann.token,
      body: { parentId: null, name: 'C2', public: true, allowUploads: true },
    });
    assert.equal(res.status, 200);
    assert.equal(res.body.parentId, null);
    assert.equal(res.body.name, 'C2');
    assert.equal(res.body.public, true);
    assert.equal(res.body.allowUploads, true);
  });

  it('concurrent moves of two folders into each other leave no cycle', async () => {
    const x = await create(ann.token, { name: 'X' });
    const y = await create(ann.token, { name: 'Y' });
    const [one, two] = await Promise.all([
      server().json('PATCH', `/api/user/folders/${x.body.id}`, { auth: ann.token, body: { parentId: y.body.id } }),
      server().json('PATCH', `/api/user/folders/${y.body.id}`, { auth: ann.token, body: { parentId: x.body.id } }),
    ]);
    assert.deepEqual([one.status, two.status].sort(), [200, 400]);
    assert.equal([one, two].find((r) => r.status === 400)!.body.code, 1016);
  });

  it("adds and removes files: 1011 already in, 1012 not in, 4000 another user's file", async () => {
    const folder = await create(ann.token, { name: 'Inbox' });
    const other = await create(ann.token, { name: 'Elsewhere' });
    const file = await insertTestFile(server(), ann.id, { folderId: other.body.id });
    let res = await server().json('POST', `/api/user/folders/${folder.body.id}/files`, {
      auth: ann.token,
      body: { id: file.id },
    });
    assert.equal(res.status, 200);
    assert.equal(res.body.fileCount, 1);
    res = await server().json('GET', `/api/user/folders/${other.body.id}`, { auth: ann.token });
    assert.equal(res.body.fileCount, 0, 'a file is in one folder at a time');

    res = await server().json('POST', `/api/user/folders/${folder.body.id}/files`, {
      auth: ann.token,
      body: { id: file.id },
    });
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 1011);

    res = await server().json('DELETE', `/api/user/folders/${folder.body.id}/files/${file.id}`, { auth: ann.token });
    assert.equal(res.status, 200);
    assert.equal(res.body.fileCount, 0);
    res = await server().json('DELETE', `/api/user/folders/${folder.body.id}/files/${file.id}`, { auth: ann.token });
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 1012);

    const bobsFile = await insertTestFile(server(), bob.id);
    res = await server().json('POST', `/api/user/folders/${folder.body.id}/files`, {
      auth: ann.token,
      body: { id: bobsFile.id },
    });
    assert.equal(res.status, 404);
    assert.equal(res.body.code, 4000);
    res = await server().json('DELETE', `/api/user/folders/${folder.body.id}/files/${bobsFile.id}`, {
      auth: ann.token,
    });
    assert.equal(res.body.code, 4000);
    // Without the file's id: 1013 ("file ID required"), as Zipline.
    res = await server().json('POST', `/api/user/folders/${folder.body.id}/files`, { auth: ann.token, body: {} });
    assert.equal(res.body.code, 1013);
  });

  it("another user's folder is 404 / 4001 everywhere and is left as it was", async () => {
    const bobs = await create(bob.token, { name: 'Secret' });
    const annsFile = await insertTestFile(server(), ann.id);
    const id = bobs.body.id;
    for (const [method, pathname, body] of [
      ['GET', `/api/user/folders/${id}`, undefined],
      ['PATCH', `/api/user/folders/${id}`, { name: 'mine' }],
      ['DELETE', `/api/user/folders/${id}`, undefined],
      ['POST', `/api/user/folders/${id}/files`, { id: annsFile.id }],
      ['DELETE', `/api/user/folders/${id}/files/${annsFile.id}`, undefined],
      ['GET', `/api/user/folders/${id}/zip`, undefined],
    ] as const) {
      const res = await server().json(method, pathname, { auth: ann.token, body });
      assert.equal(res.status, 404, `${method} ${pathname}`);
      assert.equal(res.body.code, 4001, `${method} ${pathname}`);
    }
    const res = await server().json('GET', `/api/user/folders/${id}`, { auth: bob.token });
    assert.equal(res.body.name, 'Secret');
    assert.equal((await server().json('GET', '/api/user/folders')).status, 401);
  });

  it('delete keeping files (default): the tree goes, its files stay unfiled', async () => {
    const top = await create(ann.token, { name: 'Keep' });
    const sub = await create(ann.token, { name: 'Sub', parentId: top.body.id });
    const f1 = await insertTestFile(server(), ann.id, { folderId: top.body.id, bytes: 'one' });
    const f2 = await insertTestFile(server(), ann.id, { folderId: sub.body.id, bytes: 'two' });
    const res = await server().json('DELETE', `/api/user/folders/${top.body.id}`, { auth: ann.token });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { folders: 2, deletedFiles: 0, keptFiles: 2 });
    assert.equal((await server().json('GET', `/api/user/folders/${sub.body.id}`, { auth: ann.token })).status, 404);
    for (const f of [f1, f2]) {
      const row = await server()
        .ctx.db.selectFrom('files')
        .select('folder_id')
        .where('id', '=', f.id)
        .executeTakeFirst();
      assert.equal(row?.folder_id, null);
      assert.notEqual(await server().ctx.storage.stat(f.storageKey), null);
    }
  });

  it('files moved into a folder while it is deleted: each move is done before the delete or refused, never a 500', async () => {
    for (const files of ['keep', 'delete']) {
      const folder = await create(ann.token, { name: `Racing ${files}` });
      const moved = [];
      for (let i = 0; i < 12; i++) moved.push(await insertTestFile(server(), ann.id, { bytes: `r${i}` }));
      const moves = moved.map((f) =>
        server().json('POST', `/api/user/folders/${folder.body.id}/files`, { auth: ann.token, body: { id: f.id } }),
      );
      const del = server().json('DELETE', `/api/user/folders/${folder.body.id}?files=${files}`, { auth: ann.token });
      const answers = await Promise.all([...moves, del]);
      assert.equal(answers.at(-1)!.status, 200, JSON.stringify(answers.at(-1)!.body));
      for (const res of answers.slice(0, -1))
        assert.ok(res.status === 200 || (res.status === 404 && res.body.code === 4001), JSON.stringify(res.body));
      const left = await server()
        .ctx.db.selectFrom('files')
        .select(['id', 'folder_id'])
        .where(
          'id',
          'in',
          moved.map((f) => f.id),
        )
        .execute();
      // Nothing points at the deleted folder; with files=delete, the files moved in before it went with it.
      assert.ok(left.every((r) => r.folder_id === null));
      if (files === 'keep') assert.equal(left.length, moved.length);
    }
  });

  it('delete with files=delete removes the files and their bytes; children=lift keeps child folders', async () => {
    const parent = await create(ann.token, { name: 'Parent' });
    const doomed = await create(ann.token, { name: 'Doomed', parentId: parent.body.id });
    const child = await create(ann.token, { name: 'Child', parentId: doomed.body.id });
    const gone = await insertTestFile(server(), ann.id, { folderId: doomed.body.id, bytes: 'bye' });
    const stays = await insertTestFile(server(), ann.id, { folderId: child.body.id, bytes: 'hi' });
    const res = await server().json('DELETE', `/api/user/folders/${doomed.body.id}?files=delete&children=lift`, {
      auth: ann.token,
    });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { folders: 1, deletedFiles: 1, keptFiles: 0 });
    const row = await server().ctx.db.selectFrom('files').select('id').where('id', '=', gone.id).executeTakeFirst();
    assert.equal(row, undefined);
    assert.equal(await server().ctx.storage.stat(gone.storageKey), null);
    const lifted = await server().json('GET', `/api/user/folders/${child.body.id}`, { auth: ann.token });
    assert.equal(lifted.body.parentId, parent.body.id);
    assert.deepEqual(
      lifted.body.files.map((f: { id: string }) => f.id),
      [stays.id],
    );
  });

  it("delete with files=delete and children=delete removes the whole tree's files and bytes", async () => {
    const top = await create(ann.token, { name: 'All' });
    const sub = await create(ann.token, { name: 'Sub', parentId: top.body.id });
    const deep = await create(ann.token, { name: 'Deep', parentId: sub.body.id });
    const files = await Promise.all(
      [top, sub, deep].map((f) => insertTestFile(server(), ann.id, { folderId: f.body.id, bytes: 'x' })),
    );
    const unrelated = await insertTestFile(server(), ann.id, { bytes: 'keep me' });
    const res = await server().json('DELETE', `/api/user/folders/${top.body.id}?files=delete`, { auth: ann.token });
    assert.deepEqual(res.body, { folders: 3, deletedFiles: 3, keptFiles: 0 });
    for (const f of files) assert.equal(await server().ctx.storage.stat(f.storageKey), null);
    assert.notEqual(await server().ctx.storage.stat(unrelated.storageKey), null);
    const bad = await server().json('DELETE', `/api/user/folders/${top.body.id}?files=shred`, { auth: ann.token });
    assert.equal(bad.status, 400);
  });

  it('public folders: 3002 when not public, 4001 when missing; anonymous visitors see files and public children', async () => {
    const folder = await create(ann.token, { name: '<script>alert(1)</script> & co' });
    const hidden = await create(ann.token, { name: 'Hidden', parentId: folder.body.id });
    const shown = await create(ann.token, { name: 'Shown', parentId: folder.body.id, public: true });
    const file = await insertTestFile(server(), ann.id, {
      folderId: folder.body.id,
      originalName: '"><img src=x onerror=alert(1)>.txt',
    });

    let res = await server().json('GET', `/api/folders/${folder.body.id}`);
    assert.equal(res.status, 403);
    assert.equal(res.body.code, 3002);
    let page = await server().fetch(`/folder/${folder.body.id}`);
    assert.equal(page.status, 403);
    assert.equal((await server().json('GET', `/api/folders/${folder.body.id}/zip`)).body.code, 3002);
    res = await server().json('GET', '/api/folders/nosuchfolder');
    assert.equal(res.status, 404);
    assert.equal(res.body.code, 4001);

    await server().json('PATCH', `/api/user/folders/${folder.body.id}`, { auth: ann.token, body: { public: true } });
    res = await server().json('GET', `/api/folders/${folder.body.id}`);
    assert.equal(res.status, 200);
    assert.equal(res.body.name, '<script>alert(1)</script> & co');
    assert.deepEqual(
      res.body.files.map((f: { id: string; url: string }) => [f.id, f.url]),
      [[file.id, `${server().url}/u/${file.name}`]],
    );
    assert.deepEqual(res.body.children, [{ id: shown.body.id, name: 'Shown' }]);
    assert.ok(!JSON.stringify(res.body).includes(ann.id), 'the owner is not revealed');
    assert.equal((await server().json('GET', `/api/folders/${hidden.body.id}`)).body.code, 3002);

    page = await server().fetch(`/folder/${folder.body.id}`);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    const html = await page.text();
    assert.ok(!html.includes('<script>alert(1)</script>'));
    assert.ok(html.includes('&lt;script&gt;alert(1)&lt;/script&gt; &amp; co'));
    assert.ok(!html.includes('<img src=x'));
    assert.ok(html.includes(`/view/${file.name}`));
    assert.ok(html.includes(`/folder/${shown.body.id}`));
    assert.ok(!html.includes(hidden.body.id));
  });

  it('downloads a nested folder as a zip with the real bytes (owner: everything; public: public parts only)', async () => {
    const top = await create(ann.token, { name: 'Trip', public: true });
    const day1 = await create(ann.token, { name: 'Day 1', parentId: top.body.id, public: true });
    const priv = await create(ann.token, { name: 'Private', parentId: top.body.id });
    await create(ann.token, { name: 'Empty', parentId: top.body.id, public: true });
    await insertTestFile(server(), ann.id, { folderId: top.body.id, originalName: 'notes.txt', bytes: 'top notes' });
    await insertTestFile(server(), ann.id, { folderId: top.body.id, originalName: 'notes.txt', bytes: 'second notes' });
    await insertTestFile(server(), ann.id, {
      folderId: top.body.id,
      originalName: '../../evil.txt',
      bytes: 'no escape',
    });
    await insertTestFile(server(), ann.id, {
      folderId: top.body.id,
      originalName: 'locked.txt',
      bytes: 'pw',
      password: 'hash',
    });
    const big = Buffer.alloc(3 * 1024 * 1024 + 7, 'abcdefghij');
    await insertTestFile(server(), ann.id, { folderId: day1.body.id, originalName: 'big.bin', bytes: big });
    await insertTestFile(server(), ann.id, { folderId: priv.body.id, originalName: 'diary.txt', bytes: 'dear diary' });

    const owner = await fetchZip(server(), `/api/user/folders/${top.body.id}/zip`, ann.token);
    assert.deepEqual(
      owner.names,
      [
        'Day 1/big.bin',
        'Empty/',
        'Private/diary.txt',
        '.._.._evil.txt',
        'locked.txt',
        'notes (2).txt',
        'notes.txt',
      ].sort(),
    );
    assert.equal(owner.contents.get('notes.txt'), 'top notes');
    assert.equal(owner.contents.get('notes (2).txt'), 'second notes');
    assert.equal(owner.contents.get('.._.._evil.txt'), 'no escape');
    assert.equal(owner.contents.get('Private/diary.txt'), 'dear diary');
    assert.equal(owner.contents.get('Day 1/big.bin'), big.toString('utf8'));
    assert.match(owner.disposition ?? '', /^attachment; filename="Trip\.zip"/);

    const visitor = await fetchZip(server(), `/api/folders/${top.body.id}/zip`);
    assert.deepEqual(visitor.names, ['Day 1/big.bin', 'Empty/', '.._.._evil.txt', 'notes (2).txt', 'notes.txt'].sort());
  });

  it('files uploaded with x-service-folder land in the folder and come back out of its zip byte for byte', async () => {
    const folder = await create(ann.token, { name: 'Uploads' });
    const bytes = Buffer.alloc(512 * 1024 + 3, 'xyz0123456789');
    const form = new FormData();
    form.append('file', new Blob([bytes], { type: 'application/octet-stream' }), 'data.bin');
    const up = await server().fetch('/api/upload', {
      method: 'POST',
      headers: { authorization: ann.token, 'x-service-folder': folder.body.id, 'x-service-original-name': 'true' },
      body: form,
    });
    assert.equal(up.status, 200, await up.clone().text());
    const detail = await server().json('GET', `/api/user/folders/${folder.body.id}`, { auth: ann.token });
    assert.equal(detail.body.fileCount, 1);
    const zip = await fetchZip(server(), `/api/user/folders/${folder.body.id}/zip`, ann.token);
    assert.deepEqual(zip.names, ['data.bin']);
    assert.equal(zip.contents.get('data.bin'), bytes.toString('utf8'));
  });

  it('an upload into a folder deleted while its bytes arrive is refused with 4001 and leaves nothing behind', async () => {
    const folder = await create(ann.token, { name: 'Vanishing' });
    const boundary = 'vanishing-boundary';
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        const head = `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="late.bin"\r\n`;
        controller.enqueue(Buffer.from(`${head}content-type: application/octet-stream\r\n\r\n`));
        controller.enqueue(Buffer.alloc(64 * 1024, 'a'));
        await held;
        controller.enqueue(Buffer.from(`\r\n--${boundary}--\r\n`));
        controller.close();
      },
    });
    const before = await server().ctx.db.selectFrom('files').select('id').where('user_id', '=', ann.id).execute();
    const up = server().fetch('/api/upload', {
      method: 'POST',
      headers: {
        authorization: ann.token,
        'x-service-folder': folder.body.id,
        'content-type': `multipart/form-data; boundary=${boundary}`,
      },
      body,
      duplex: 'half',
    } as RequestInit);
    await new Promise((resolve) => setTimeout(resolve, 300)); // the folder check at the start has passed
    const del = await server().json('DELETE', `/api/user/folders/${folder.body.id}`, { auth: ann.token });
    assert.equal(del.status, 200);
    release();
    const res = await up;
    const answer = (await res.json()) as { code: number };
    assert.equal(res.status, 404, JSON.stringify(answer));
    assert.equal(answer.code, 4001);
    const after = await server().ctx.db.selectFrom('files').select('id').where('user_id', '=', ann.id).execute();
    assert.equal(after.length, before.length);
    assert.deepEqual(
      await server().ctx.db.selectFrom('pending_objects').selectAll().execute(),
      [],
      'no stored bytes left waiting for a record',
    );
  });

  it('a client leaving mid-download releases the stored file being zipped', async () => {
    const folder = await create(ann.token, { name: 'Large' });
    for (let i = 0; i < 2; i++) {
      await insertTestFile(server(), ann.id, {
        folderId: folder.body.id,
        originalName: `large-${i}.bin`,
        bytes: Buffer.alloc(16 * 1024 * 1024, i),
      });
    }
    const uploads = path.join(server().dataDir, 'uploads');
    assert.equal(await openFilesUnder(uploads), 0);
    const abort = new AbortController();
    const res = await server().fetch(`/api/user/folders/${folder.body.id}/zip`, {
      headers: { authorization: ann.token },
      signal: abort.signal,
    });
    const reader = res.body!.getReader();
    // The first bytes may be the entry's header, sent before its file is opened, and the zip opens the file only once
    // the client has taken what was written before it: read on, a chunk at a time (at most about 4 MiB of the first
    // file's 16 MiB), until the file is open.
    // The count seen is the one asserted: counting again could fall between the two files (with large socket buffers
    // the first one can be read to its end before the client takes anything).
    let received = 0;
    let open = await openFilesUnder(uploads);
    for (let i = 0; i < 64 && open === 0; i++) {
      const { value, done } = await reader.read();
      assert.equal(done, false, 'the zip ended before its first file was opened');
      received += value!.length;
      await new Promise((r) => setTimeout(r, 20));
      open = await openFilesUnder(uploads);
    }
    assert.equal(open, 1, `a stored file is being read (${received} bytes received)`);
    abort.abort();
    // The server notices the closed connection asynchronously; wait for it (bounded), then check.
    for (let i = 0; i < 100 && (await openFilesUnder(uploads)) > 0; i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(await openFilesUnder(uploads), 0);
  });
});
