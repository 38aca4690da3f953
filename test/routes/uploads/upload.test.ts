// POST /api/upload over real HTTP on SQLite and PostgreSQL: bytes, several files, every option header and its
// errors, names, types, rate limiting.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { before, it } from 'node:test';
import { ManualClock } from '../../../src/lib/clock.js';
import { createTestUser, insertTestFolder } from '../../support/content.js';
import { forEachDatabase, useTestServer, type TestUser } from '../../support/server.js';
import { fileRowCount, storedFiles } from '../../support/stored.js';
import { upload, uploadOne } from '../../support/uploads.js';

function pathOf(url: string): string {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
}

forEachDatabase('POST /api/upload', (engine) => {
  const server = useTestServer({ engine, env: { FILES_DISABLED_EXTENSIONS: 'exe,bat' } });
  let admin: TestUser;
  let user: TestUser;
  before(async () => {
    admin = await server().setup();
    user = await createTestUser(server(), 'uploader');
  });

  it('stores a file and serves back exactly its bytes', async () => {
    const bytes = randomBytes(300_000);
    const res = await upload(server(), user.token, [{ name: 'photo.png', content: bytes, type: 'image/png' }]);
    assert.equal(res.status, 200);
    assert.equal(res.body.files.length, 1);
    const file = res.body.files[0];
    assert.match(file.id, /^[a-z0-9]{25}$/);
    assert.match(file.name, /^[A-Za-z0-9]{8}\.png$/);
    assert.equal(file.type, 'image/png');
    assert.equal(file.size, bytes.length);
    assert.equal(file.url, `${server().url}/u/${file.name}`);
    assert.equal(file.rawUrl, `${server().url}/raw/${file.name}`);
    assert.deepEqual(res.body.assumedMimetypes, [false]);
    assert.equal(res.body.deletesAt, undefined);
    const back = await server().fetch(pathOf(file.url));
    assert.equal(back.status, 200);
    assert.ok(Buffer.from(await back.arrayBuffer()).equals(bytes));
  });

  it('takes several files in one request, skipping other fields', async () => {
    const form = new FormData();
    form.append('note', 'not a file');
    form.append('file', new Blob(['first file']), 'one.txt');
    form.append('other', new Blob(['ignored part']), 'ignored.txt');
    form.append('file', new Blob(['second file']), 'two.txt');
    const res = await server().fetch('/api/upload', {
      method: 'POST',
      headers: { authorization: user.token },
      body: form,
    });
    assert.equal(res.status, 200);
    const body = (await res.json()) as { files: Array<{ url: string }> };
    assert.equal(body.files.length, 2);
    const texts = await Promise.all(
      body.files.map(async (f: { url: string }) => (await server().fetch(pathOf(f.url))).text()),
    );
    assert.deepEqual(texts, ['first file', 'second file']);
  });

  it('answers 1061 for a request that is not multipart and 1062 when no part is a file named file', async () => {
    const rowsBefore = await fileRowCount(server());
    const json = await server().json('POST', '/api/upload', { auth: user.token, body: { file: 'x' } });
    assert.equal(json.status, 400);
    assert.equal(json.body.code, 1061);
    for (const type of ['application/octet-stream', 'text/plain']) {
      const raw = await server().fetch('/api/upload', {
        method: 'POST',
        headers: { authorization: user.token, 'content-type': type },
        body: 'bytes',
      });
      assert.equal(raw.status, 400, type);
      assert.equal(((await raw.json()) as { code: number }).code, 1061);
    }
    const empty = await server().json('POST', '/api/upload', { auth: user.token });
    assert.equal(empty.body.code, 1061);
    const form = new FormData();
    form.append('note', 'only a field');
    form.append('attachment', new Blob(['wrong field name']), 'a.txt');
    const res = await server().fetch('/api/upload', {
      method: 'POST',
      headers: { authorization: user.token },
      body: form,
    });
    assert.equal(res.status, 400);
    assert.equal(((await res.json()) as { code: number }).code, 1062);
    assert.equal(await fileRowCount(server()), rowsBefore);
  });

  it('needs a caller', async () => {
    const rowsBefore = await fileRowCount(server());
    const form = new FormData();
    form.append('file', new Blob(['x']), 'a.txt');
    const res = await server().fetch('/api/upload', { method: 'POST', body: form });
    assert.equal(res.status, 401);
    assert.equal(((await res.json()) as { code: number }).code, 2002);
    const badToken = await upload(server(), 'not-a-token', [{ name: 'a.txt', content: 'x' }]);
    assert.equal(badToken.body.code, 2001);
    assert.equal(await fileRowCount(server()), rowsBefore);
  });

  it('takes the type from the part, else from the extension (assumed)', async () => {
    const res = await upload(server(), user.token, [
      { name: 'notes.md', content: '# hi', type: 'text/markdown' },
      { name: 'clip.mp4', content: 'not really a video', type: 'application/octet-stream' },
      { name: 'noextension', content: 'data', type: '' },
    ]);
    assert.equal(res.status, 200);
    assert.deepEqual(
      res.body.files.map((f: { type: string }) => f.type),
      ['text/markdown', 'video/mp4', 'application/octet-stream'],
    );
    assert.deepEqual(res.body.assumedMimetypes, [false, true, false]);
    assert.match(res.body.files[1].name, /\.mp4$/);
  });

  it('refuses disabled extensions (1006) and stores nothing', async () => {
    const before = await storedFiles(server());
    const res = await upload(server(), user.token, [
      { name: 'ok.txt', content: 'fine' },
      { name: 'setup.EXE', content: 'MZ' },
    ]);
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 1006);
    const renamed = await upload(server(), user.token, [{ name: 'a.txt', content: 'x' }], {
      'x-service-file-extension': 'bat',
    });
    assert.equal(renamed.body.code, 1006);
    assert.deepEqual(await storedFiles(server()), before);
  });

  it('x-service-deletes-at: durations, dates, never; bad values -> 1001 naming the header', async () => {
    const started = Date.now();
    const week = await upload(server(), user.token, [{ name: 'a.txt', content: 'x' }], {
      'x-service-deletes-at': '7d',
    });
    assert.equal(week.status, 200);
    const at = Date.parse(week.body.deletesAt);
    assert.ok(at >= started + 7 * 86_400_000 && at <= Date.now() + 7 * 86_400_000);
    assert.equal(week.body.files[0].deletesAt, week.body.deletesAt);
    const date = new Date(Date.now() + 3_600_000 * 50).toISOString();
    const absolute = await upload(server(), user.token, [{ name: 'a.txt', content: 'x' }], {
      'x-service-deletes-at': `date=${date}`,
    });
    assert.equal(absolute.body.deletesAt, date);
    const never = await upload(server(), user.token, [{ name: 'a.txt', content: 'x' }], {
      'x-service-deletes-at': 'never',
    });
    assert.equal(never.body.deletesAt, undefined);
    for (const bad of ['soon', '2001-01-01T00:00:00Z', '-5m']) {
      const res = await upload(server(), user.token, [{ name: 'a.txt', content: 'x' }], {
        'x-service-deletes-at': bad,
      });
      assert.equal(res.status, 400, bad);
      assert.equal(res.body.code, 1001);
      assert.match(res.body.error, /x-service-deletes-at/);
    }
  });

  it('x-service-format picks the name format; a bad one -> 1001', async () => {
    const uuid = await uploadOne(server(), user.token, 'x', { name: 'a.txt', headers: { 'x-service-format': 'uuid' } });
    assert.match(uuid.name, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}\.txt$/);
    const date = await uploadOne(server(), user.token, 'x', { name: 'a.txt', headers: { 'x-service-format': 'date' } });
    assert.match(date.name, /^\d{4}-\d{2}-\d{2}_\d{2}-\d{2}-\d{2}(-[A-Za-z0-9]+)?\.txt$/);
    const named = await uploadOne(server(), user.token, 'x', {
      name: 'Holiday photo.jpg',
      headers: { 'x-service-format': 'name' },
    });
    assert.equal(named.name, 'Holiday photo.jpg');
    const again = await uploadOne(server(), user.token, 'x', {
      name: 'Holiday photo.jpg',
      headers: { 'x-service-format': 'name' },
    });
    assert.match(again.name, /^Holiday photo-[A-Za-z0-9]{5}\.jpg$/);
    const words = await uploadOne(server(), user.token, 'x', {
      name: 'a.txt',
      headers: { 'x-service-format': 'random-words' },
    });
    assert.match(words.name, /^[a-z]+-[a-z]+-[a-z]+\.txt$/);
    const served = await server().fetch(pathOf(named.url));
    assert.equal(await served.text(), 'x');
    // gfycat is Zipline's name for random-words (test/compat/upload-header-values.test.ts).
    const bad = await upload(server(), user.token, [{ name: 'a.txt', content: 'x' }], { 'x-service-format': 'otter' });
    assert.equal(bad.body.code, 1001);
    assert.match(bad.body.error, /x-service-format/);
  });

  it('x-service-filename sets the name; separators, control characters and dot names are refused', async () => {
    const named = await uploadOne(server(), user.token, 'x', {
      name: 'a.txt',
      headers: { 'x-service-filename': 'report-2026' },
    });
    assert.equal(named.name, 'report-2026.txt');
    const taken = await upload(server(), user.token, [{ name: 'b.txt', content: 'y' }], {
      'x-service-filename': 'report-2026',
    });
    assert.equal(taken.status, 400);
    assert.equal(taken.body.code, 1009);
    const several = await upload(
      server(),
      user.token,
      [
        { name: 'a.txt', content: '1' },
        { name: 'b.txt', content: '2' },
      ],
      {
        'x-service-filename': 'notes.v2',
      },
    );
    assert.equal(several.status, 200);
    assert.equal(several.body.files[0].name, 'notes.v2.txt');
    assert.match(several.body.files[1].name, /^notes\.v2-[A-Za-z0-9]{5}\.txt$/);
    const cases: Array<[string, number]> = [
      ['a/b', 1007],
      ['a\\b', 1007],
      ['a\tb', 1007],
      ['..', 1009],
      ['x..y', 1009],
      ['../etc', 1007],
    ];
    for (const [value, code] of cases) {
      const res = await upload(server(), user.token, [{ name: 'a.txt', content: 'x' }], {
        'x-service-filename': value,
      });
      assert.equal(res.body.code, code, value);
    }
    const utf8 = await upload(server(), user.token, [{ name: 'a.txt', content: 'x' }], {
      'x-service-filename': Buffer.from('café', 'utf8').toString('latin1'),
    });
    assert.equal(utf8.body.files[0].name, 'café.txt');
  });

  it('x-service-file-extension replaces the extension; a bad one -> 1001', async () => {
    const file = await uploadOne(server(), user.token, 'x', {
      name: 'a.txt',
      headers: { 'x-service-file-extension': '.LOG' },
    });
    assert.match(file.name, /\.log$/);
    const bad = await upload(server(), user.token, [{ name: 'a.txt', content: 'x' }], {
      'x-service-file-extension': 'ta r',
    });
    assert.equal(bad.body.code, 1001);
  });

  it('x-service-original-name keeps the client name for downloads (false: not kept)', async () => {
    const kept = await upload(
      server(),
      user.token,
      [{ name: 'Résumé final.pdf', content: '%PDF', type: 'application/pdf' }],
      {
        'x-service-original-name': 'true',
      },
    );
    assert.equal(kept.body.files[0].originalName, 'Résumé final.pdf');
    const res = await server().fetch(pathOf(kept.body.files[0].rawUrl));
    assert.equal(
      res.headers.get('content-disposition'),
      `inline; filename="R_sum_ final.pdf"; filename*=UTF-8''R%C3%A9sum%C3%A9%20final.pdf`,
    );
    const notKept = await uploadOne(server(), user.token, 'x', {
      name: 'secret-name.txt',
      headers: { 'x-service-original-name': 'false' },
    });
    const row = await server()
      .ctx.db.selectFrom('files')
      .select('original_name')
      .where('id', '=', notKept.id)
      .executeTakeFirstOrThrow();
    assert.equal(row.original_name, null);
    const bad = await upload(server(), user.token, [{ name: 'a.txt', content: 'x' }], {
      'x-service-original-name': 'maybe',
    });
    assert.equal(bad.body.code, 1001);
  });

  it('x-service-max-views and x-service-password are stored; bad max views -> 1001', async () => {
    const file = await uploadOne(server(), user.token, 'x', {
      headers: { 'x-service-max-views': '3', 'x-service-password': 'pw' },
    });
    const row = await server()
      .ctx.db.selectFrom('files')
      .selectAll()
      .where('id', '=', file.id)
      .executeTakeFirstOrThrow();
    assert.equal(row.max_views, 3);
    assert.ok(row.password?.startsWith('$argon2id$'));
    // 0 means no limit, as in Zipline (test/compat/upload-header-values.test.ts).
    for (const bad of ['-1', 'many', '1.5']) {
      const res = await upload(server(), user.token, [{ name: 'a.txt', content: 'x' }], { 'x-service-max-views': bad });
      assert.equal(res.body.code, 1001, bad);
      assert.match(res.body.error, /x-service-max-views/);
    }
  });

  it("x-service-folder: own folder; missing -> 4001; another user's -> 3011", async () => {
    const mine = await insertTestFolder(server(), user.id);
    const theirs = await insertTestFolder(server(), admin.id);
    const file = await uploadOne(server(), user.token, 'x', { headers: { 'x-service-folder': mine } });
    const row = await server()
      .ctx.db.selectFrom('files')
      .select('folder_id')
      .where('id', '=', file.id)
      .executeTakeFirstOrThrow();
    assert.equal(row.folder_id, mine);
    const missing = await upload(server(), user.token, [{ name: 'a.txt', content: 'x' }], {
      'x-service-folder': 'nosuchfolder',
    });
    assert.equal(missing.status, 404);
    assert.equal(missing.body.code, 4001);
    const other = await upload(server(), user.token, [{ name: 'a.txt', content: 'x' }], { 'x-service-folder': theirs });
    assert.equal(other.status, 403);
    assert.equal(other.body.code, 3011);
  });

  it('x-service-domain sets the host of the links; a bad one -> 1001', async () => {
    const file = await uploadOne(server(), user.token, 'x', {
      headers: { 'x-service-domain': 'https://files.example.com' },
    });
    assert.match(file.url, /^https:\/\/files\.example\.com\/u\/[A-Za-z0-9]+\.txt$/);
    const bad = await upload(server(), user.token, [{ name: 'a.txt', content: 'x' }], {
      'x-service-domain': 'exa mple/..',
    });
    assert.equal(bad.body.code, 1001);
    assert.match(bad.body.error, /x-service-domain/);
  });

  it('x-service-no-json answers the links as text, joined with ","', async () => {
    const res = await upload(
      server(),
      user.token,
      [
        { name: 'a.txt', content: 'x' },
        { name: 'b.txt', content: 'y' },
      ],
      { 'x-service-no-json': 'true' },
    );
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
    const lines = (res.body as string).split(',');
    assert.equal(lines.length, 2);
    for (const line of lines) assert.match(line, new RegExp(`^${server().url}/u/[A-Za-z0-9]{8}\\.txt$`));
  });
});

forEachDatabase('upload settings', (engine) => {
  const clock = new ManualClock(Date.UTC(2026, 0, 2, 3, 4, 5));
  const server = useTestServer({
    engine,
    clock,
    env: { FILES_DEFAULT_EXPIRATION: '1d', FILES_NAME_LENGTH: '12', FILES_DEFAULT_FORMAT: 'date', FILES_ROUTE: '/f' },
  });

  it('apply the default expiry, name format, name length and files route', async () => {
    const admin = await server().setup();
    const first = await upload(server(), admin.token, [{ name: 'a.txt', content: 'x' }]);
    assert.equal(first.body.deletesAt, new Date(clock.now() + 86_400_000).toISOString());
    assert.equal(first.body.files[0].name, '2026-01-02_03-04-05.txt');
    assert.equal(first.body.files[0].url, `${server().url}/f/2026-01-02_03-04-05.txt`);
    // Same second: the name is taken, so the retry gets a random suffix.
    const second = await upload(server(), admin.token, [{ name: 'a.txt', content: 'y' }]);
    assert.match(second.body.files[0].name, /^2026-01-02_03-04-05-[A-Za-z0-9]{5}\.txt$/);
    const random = await upload(server(), admin.token, [{ name: 'a.txt', content: 'z' }], {
      'x-service-format': 'random',
    });
    assert.match(random.body.files[0].name, /^[A-Za-z0-9]{12}\.txt$/);
    const served = await server().fetch(`/f/${encodeURIComponent(second.body.files[0].name)}`);
    assert.equal(await served.text(), 'y');
  });
});

forEachDatabase('upload rate limit', (engine) => {
  const server = useTestServer({ engine, env: { RATELIMIT_MAX: '2', RATELIMIT_WINDOW: '3600' } });

  it('limits each user by id after authentication; admins bypass it', async () => {
    const admin = await server().setup();
    const alice = await createTestUser(server(), 'alice');
    const bob = await createTestUser(server(), 'bob');
    for (let i = 0; i < 2; i++)
      assert.equal((await upload(server(), alice.token, [{ name: 'a.txt', content: 'x' }])).status, 200);
    const limited = await upload(server(), alice.token, [{ name: 'a.txt', content: 'x' }]);
    assert.equal(limited.status, 429);
    assert.equal(limited.body.code, 9000);
    // Same address, another user: their own budget (the key is the user, so authentication ran first).
    assert.equal((await upload(server(), bob.token, [{ name: 'a.txt', content: 'x' }])).status, 200);
    // The admin is known to the limiter (authentication ran first) and bypasses it.
    for (let i = 0; i < 4; i++)
      assert.equal((await upload(server(), admin.token, [{ name: 'a.txt', content: 'x' }])).status, 200);
  });
});
