// Links without the file's extension (issue 43, item 5): an upload asks with x-service-extensionless (or its Zipline
// name), or the filesExtensionlessUrls setting decides; the answer's links leave the extension out, the file keeps
// its name and type, and every serving route finds it under the short name (GET, HEAD, ranges, the view page, the
// password form, the fast path). A short name means one file: uploads and renames that would make it mean two are
// refused or named otherwise, and deleting a file frees its short name.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../../support/api-errors.js';
import { planOf } from '../../support/query-plans.js';
import { uploadInChunks, waitForAssembly } from '../../support/chunked-uploads.js';
import { makeUser, NO_RATE_LIMIT, uniqueName } from '../../support/factory.js';
import {
  forEachDatabase,
  startTestServer,
  useTestServer,
  type TestServer,
  type TestUser,
} from '../../support/server.js';
import { tusUpload } from '../../support/tus.js';
import { upload } from '../../support/uploads.js';

const BROWSER = { accept: 'text/html,application/xhtml+xml' };
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4, 5, 6, 7, 8]);
const ON = { 'x-service-extensionless': 'true' };

/** The path of a link the server handed out (/u/abc of http://host/u/abc). */
const pathOf = (link: string) => new URL(link).pathname;

async function bytesOf(server: TestServer, path: string, init: RequestInit = {}) {
  const res = await server.fetch(path, init);
  return { res, bytes: Buffer.from(await res.arrayBuffer()) };
}

forEachDatabase('links without the extension', (engine) => {
  const server = useTestServer({ engine, env: NO_RATE_LIMIT });
  let admin: TestUser;
  let user: TestUser;
  before(async () => {
    admin = await server().setup();
    user = await makeUser(server());
  });

  /** Uploads PNG under an explicit name (`base`.png) with these headers. */
  const uploadPng = (base: string, headers: Record<string, string> = {}) =>
    upload(server(), user.token, [{ name: 'picture.png', content: PNG, type: 'image/png' }], {
      'x-service-filename': base,
      ...headers,
    });

  it('x-service-extensionless: true hands out /u/abc and /raw/abc for abc.png, which keeps its name and type', async () => {
    const base = uniqueName('short');
    const res = await uploadPng(base, ON);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const file = res.body.files[0];
    assert.equal(file.name, `${base}.png`);
    assert.equal(file.type, 'image/png');
    assert.equal(pathOf(file.url), `/u/${base}`);
    assert.equal(pathOf(file.rawUrl), `/raw/${base}`);

    for (const path of [`/u/${base}`, `/raw/${base}`, `/u/${base}.png`, `/raw/${base}.png`]) {
      const { res: got, bytes } = await bytesOf(server(), path);
      assert.equal(got.status, 200, path);
      assert.equal(got.headers.get('content-type'), 'image/png', path);
      assert.ok(bytes.equals(PNG), path);
    }
    const head = await server().fetch(`/raw/${base}`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('content-length'), String(PNG.length));
    const headU = await server().fetch(`/u/${base}`, { method: 'HEAD' });
    assert.equal(headU.status, 200);
    for (const path of [`/u/${base}`, `/raw/${base}`]) {
      const { res: part, bytes } = await bytesOf(server(), path, { headers: { range: 'bytes=2-5' } });
      assert.equal(part.status, 206, path);
      assert.equal(part.headers.get('content-range'), `bytes 2-5/${PNG.length}`);
      assert.ok(bytes.equals(PNG.subarray(2, 6)));
    }
    // A download is named for the file, with its extension: by its original name, kept by default.
    const download = await server().fetch(`/raw/${base}?download`);
    assert.equal(download.headers.get('content-disposition'), 'attachment; filename="picture.png"');
    // Without it, by the file's name, which keeps its extension though the link has none.
    const unnamed = uniqueName('short');
    const bare = await uploadPng(unnamed, { ...ON, 'x-service-original-name': 'false' });
    assert.equal(pathOf(bare.body.files[0].url), `/u/${unnamed}`);
    const bareDownload = await server().fetch(`/u/${unnamed}?download`);
    assert.equal(bareDownload.headers.get('content-disposition'), `attachment; filename="${unnamed}.png"`);

    const view = await server().fetch(`/view/${base}`, { headers: BROWSER });
    assert.equal(view.status, 200);
    assert.match(await view.text(), new RegExp(`/raw/${base}\\.png`), 'the page shows the file by its name');

    // The file's own record says the link it was handed.
    const listed = await server().json('GET', `/api/user/files/${file.id}`, { auth: user.token });
    assert.equal(listed.body.name, `${base}.png`);
    assert.equal(pathOf(listed.body.url), `/u/${base}`);
  });

  it('the fast path serves a small public file under its short name too', async () => {
    const base = uniqueName('fast');
    assert.equal((await uploadPng(base, ON)).status, 200);
    const fastAnswers = () => server().ctx.metrics.fastPathAnswers.value;
    // The first read goes to the route, which keeps the bytes in memory; then the fast path answers.
    assert.equal((await server().fetch(`/raw/${base}`)).status, 200);
    const before = fastAnswers();
    const { res, bytes } = await bytesOf(server(), `/raw/${base}`);
    assert.equal(res.status, 200);
    assert.ok(bytes.equals(PNG));
    assert.equal(fastAnswers(), before + 1, 'answered by the fast path');
  });

  it('accepts the Zipline name x-zipline-extensionless', async () => {
    const base = uniqueName('zipline');
    const res = await uploadPng(base, { 'x-zipline-extensionless': 'true' });
    assert.equal(pathOf(res.body.files[0].url), `/u/${base}`);
    assert.equal((await server().fetch(`/raw/${base}`)).status, 200);
  });

  it('without the header (and the setting off) or with false, the links keep the extension and /u/abc is missing', async () => {
    for (const headers of [{}, { 'x-service-extensionless': 'false' }] as Array<Record<string, string>>) {
      const base = uniqueName('kept');
      const file = (await uploadPng(base, headers)).body.files[0];
      assert.equal(pathOf(file.url), `/u/${base}.png`);
      assert.equal(pathOf(file.rawUrl), `/raw/${base}.png`);
      for (const path of [`/u/${base}`, `/raw/${base}`]) {
        assertError(await server().json('GET', path), 404, 4000, path);
        const head = await server().fetch(path, { method: 'HEAD' });
        assert.equal(head.status, 404, `HEAD ${path}`);
      }
      const view = await server().fetch(`/view/${base}`, { headers: BROWSER });
      assert.equal(view.status, 404);
    }
  });

  it('a bad value of the header is refused with 1001 naming it', async () => {
    const res = await uploadPng(uniqueName('bad'), { 'x-service-extensionless': 'maybe' });
    assertError(res, 400, 1001);
    assert.match(res.body.error, /x-service-extensionless/);
  });

  describe('the setting filesExtensionlessUrls', () => {
    before(async () => {
      const on = await server().json('PATCH', '/api/server/settings', {
        auth: admin.token,
        body: { filesExtensionlessUrls: true },
      });
      assert.equal(on.status, 200, JSON.stringify(on.body));
    });
    after(async () => {
      await server().json('PATCH', '/api/server/settings', {
        auth: admin.token,
        body: { filesExtensionlessUrls: false },
      });
    });

    it('decides for uploads without the header; false opts out; GET /api/server/public says it', async () => {
      const pub = await server().json('GET', '/api/server/public');
      assert.equal(pub.body.filesExtensionlessUrls, true);
      const base = uniqueName('setting');
      const file = (await uploadPng(base)).body.files[0];
      assert.equal(pathOf(file.url), `/u/${base}`);
      assert.ok((await bytesOf(server(), `/u/${base}`)).bytes.equals(PNG));
      const optOut = uniqueName('optout');
      const kept = (await uploadPng(optOut, { 'x-service-extensionless': 'false' })).body.files[0];
      assert.equal(pathOf(kept.url), `/u/${optOut}.png`);
      assert.equal((await server().fetch(`/raw/${optOut}`)).status, 404);
    });

    it('x-service-no-json answers the short links', async () => {
      const base = uniqueName('text');
      const res = await server().fetch('/api/upload', {
        method: 'POST',
        headers: { authorization: user.token, 'x-service-no-json': 'true', 'x-service-filename': base },
        body: (() => {
          const form = new FormData();
          form.append('file', new Blob([PNG], { type: 'image/png' }), 'p.png');
          return form;
        })(),
      });
      assert.equal(res.status, 200);
      assert.equal(pathOf(await res.text()), `/u/${base}`);
    });
  });

  it('FILES_EXTENSIONLESS_URLS=true turns the setting on and locks it', async () => {
    const locked = await startTestServer({ engine, env: { ...NO_RATE_LIMIT, FILES_EXTENSIONLESS_URLS: 'true' } });
    try {
      const owner = await locked.setup();
      const file = (
        await upload(locked, owner.token, [{ name: 'env.png', content: PNG, type: 'image/png' }], {
          'x-service-filename': 'env',
        })
      ).body.files[0];
      assert.equal(pathOf(file.url), '/u/env');
      assert.equal((await locked.fetch('/raw/env')).status, 200);
      const change = await locked.json('PATCH', '/api/server/settings', {
        auth: owner.token,
        body: { filesExtensionlessUrls: false },
      });
      assertError(change, 400, 1022);
      assert.match(change.body.error, /FILES_EXTENSIONLESS_URLS/);
    } finally {
      await locked.close();
    }
  });

  it('a short name is looked up, and a new name checked, through the indexes (no scan of the files)', async () => {
    const { ctx } = server();
    const names = ['abc.png', 'abc'];
    const queries = {
      'the look-up after a miss': ctx.db.selectFrom('files').select('id').where('extensionless_name', '=', 'abc'),
      'the check of a new name': ctx.db
        .selectFrom('files')
        .select('id')
        .where((eb) => eb.or([eb('name', 'in', names), eb('extensionless_name', 'in', names)]))
        .limit(1),
    };
    for (const [what, query] of Object.entries(queries)) {
      const plan = await planOf(ctx, query.compile(), true);
      assert.match(plan, /files_extensionless_name/, `${what}: ${plan}`);
      assert.doesNotMatch(plan, /\bSCAN files\b|Seq Scan on files/, `${what}: ${plan}`);
    }
  });

  describe('one short name, one file', () => {
    it('an explicit name whose short name is taken is refused (1009); name-format uploads get a suffix', async () => {
      const base = uniqueName('taken');
      assert.equal((await uploadPng(base, ON)).status, 200);
      const jpeg = await upload(server(), user.token, [{ name: 'p.jpg', content: PNG, type: 'image/jpeg' }], {
        'x-service-filename': base,
        ...ON,
      });
      assertError(jpeg, 400, 1009);

      const original = uniqueName('holiday');
      const first = await upload(server(), user.token, [{ name: `${original}.png`, content: PNG }], {
        'x-service-format': 'name',
        ...ON,
      });
      const second = await upload(server(), user.token, [{ name: `${original}.jpg`, content: PNG }], {
        'x-service-format': 'name',
        ...ON,
      });
      assert.equal(pathOf(first.body.files[0].url), `/u/${original}`);
      const other = second.body.files[0];
      assert.match(other.name, new RegExp(`^${original}-[A-Za-z0-9]+\\.jpg$`));
      assert.equal(pathOf(other.url), `/u/${other.name.slice(0, -4)}`);
      assert.equal((await server().fetch(`/raw/${original}`)).headers.get('content-type'), 'image/png');
    });

    it('a file named like an existing short name, or a short name like an existing file, is refused', async () => {
      const base = uniqueName('shadow');
      assert.equal((await uploadPng(base, ON)).status, 200);
      // No known extension for this type and none in the client's name: the file would be named `base` exactly.
      const plain = (name: string, headers: Record<string, string>) =>
        upload(server(), user.token, [{ name: 'blob', content: 'x', type: 'application/x-chute-test' }], {
          'x-service-filename': name,
          ...headers,
        });
      assertError(await plain(base, {}), 400, 1009);

      const exact = uniqueName('exact');
      const made = await plain(exact, {});
      assert.equal(made.body.files[0].name, exact);
      assertError(await uploadPng(exact, ON), 400, 1009);
      // The file named exactly so is what the name serves.
      assert.equal((await server().fetch(`/raw/${exact}`)).headers.get('content-type'), 'application/x-chute-test');
    });

    it('a rename moves the short link to the new name; a rename onto a short name is 1014', async () => {
      const base = uniqueName('rename');
      const file = (await uploadPng(base, ON)).body.files[0];
      const moved = uniqueName('moved');
      const renamed = await server().json('PATCH', `/api/user/files/${file.id}`, {
        auth: user.token,
        body: { name: `${moved}.png` },
      });
      assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
      assert.equal(pathOf(renamed.body.url), `/u/${moved}`);
      assert.equal((await server().fetch(`/raw/${moved}`)).status, 200);
      assertError(await server().json('GET', `/raw/${base}`), 404, 4000);

      const another = (await uploadPng(uniqueName('another'))).body.files[0];
      const onto = await server().json('PATCH', `/api/user/files/${another.id}`, {
        auth: user.token,
        body: { name: moved },
      });
      assertError(onto, 400, 1014);
      // Renamed to its own short name (no extension left): the name itself is the link.
      const own = await server().json('PATCH', `/api/user/files/${file.id}`, {
        auth: user.token,
        body: { name: moved },
      });
      assert.equal(own.status, 200, JSON.stringify(own.body));
      assert.equal(pathOf(own.body.url), `/u/${moved}`);
      assert.equal((await server().fetch(`/raw/${moved}`)).status, 200);
    });

    it('deleting a file frees its short name', async () => {
      const base = uniqueName('freed');
      const file = (await uploadPng(base, ON)).body.files[0];
      const deleted = await server().json('DELETE', `/api/user/files/${file.id}`, { auth: user.token });
      assert.equal(deleted.status, 200);
      assertError(await server().json('GET', `/u/${base}`), 404, 4000);
      const again = await upload(server(), user.token, [{ name: 'p.jpg', content: PNG, type: 'image/jpeg' }], {
        'x-service-filename': base,
        ...ON,
      });
      assert.equal(again.status, 200, JSON.stringify(again.body));
      assert.equal((await server().fetch(`/raw/${base}`)).headers.get('content-type'), 'image/jpeg');
    });
  });

  it('a password-protected file: the form under the short link, which sends back to it with the token', async () => {
    const base = uniqueName('locked');
    const file = (await uploadPng(base, { ...ON, 'x-service-password': 'open sesame' })).body.files[0];
    assert.equal(pathOf(file.url), `/u/${base}`);
    assertError(await server().json('GET', `/raw/${base}`), 403, 3004);
    const form = await server().fetch(`/u/${base}`, { headers: BROWSER });
    assert.equal(form.status, 200);
    assert.match(await form.text(), /password/i);
    const posted = await server().fetch(`/u/${base}`, {
      method: 'POST',
      headers: { ...BROWSER, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ password: 'open sesame' }),
    });
    assert.equal(posted.status, 303);
    const location = posted.headers.get('location') ?? '';
    assert.match(location, new RegExp(`^/u/${base}\\?token=`));
    const token = new URL(location, server().url).searchParams.get('token')!;
    const { res, bytes } = await bytesOf(server(), `/raw/${base}?token=${encodeURIComponent(token)}`);
    assert.equal(res.status, 200);
    assert.ok(bytes.equals(PNG));
  });

  it('a private file is missing under its short link for anyone but its owner', async () => {
    const base = uniqueName('private');
    assert.equal((await uploadPng(base, { ...ON, 'x-service-private': 'true' })).status, 200);
    assertError(await server().json('GET', `/raw/${base}`), 404, 4000);
    assert.equal((await server().json('GET', `/raw/${base}`, { auth: user.token })).status, 200);
  });

  it('a chunked upload: the last answer hands out the short link, which serves the assembled file', async () => {
    const data = randomBytes(300 * 1024);
    const final = await uploadInChunks(server(), user.token, data, [128 * 1024, 128 * 1024], {
      headers: ON,
      fileName: 'movie.mp4',
      type: 'video/mp4',
    });
    assert.equal(final.status, 200, JSON.stringify(final.body));
    const pending = final.body.files[0];
    assert.match(pending.name, /\.mp4$/);
    const short = pending.name.slice(0, -4);
    assert.equal(pathOf(pending.url), `/u/${short}`);
    assert.equal(pathOf(pending.rawUrl), `/raw/${short}`);
    const record = await waitForAssembly(server(), user.token, final.body.incompleteFileId);
    assert.equal(record.status, 'COMPLETE');
    const { res, bytes } = await bytesOf(server(), `/raw/${short}`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'video/mp4');
    assert.ok(bytes.equals(data));
    const part = await server().fetch(`/u/${short}`, { headers: { range: 'bytes=10-19' } });
    assert.equal(part.status, 206);
  });

  it('a tus upload: the short link in Chute-File-Url serves the file', async () => {
    const data = randomBytes(64 * 1024);
    const run = await tusUpload(server(), user.token, data, {
      metadata: { filename: 'notes.txt', filetype: 'text/plain', 'x-service-extensionless': 'true' },
    });
    assert.ok(run.fileUrl && run.fileId);
    const path = pathOf(run.fileUrl);
    assert.match(path, /^\/u\/[A-Za-z0-9]+$/, 'no extension in the link');
    const { res, bytes } = await bytesOf(server(), path);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
    assert.ok(bytes.equals(data));
    const file = await server().json('GET', `/api/user/files/${run.fileId}`, { auth: user.token });
    assert.equal(file.body.name, `${path.slice('/u/'.length)}.txt`);
  });
});
