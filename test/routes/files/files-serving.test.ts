// Serving files over real HTTP: /raw and /u with exact bytes, ranges, conditional requests, HEAD, safe headers for
// content a browser would run (on local storage and on S3), passwords, max views, expiry, the view page, and what the
// local file sender must get right (keep-alive, a client that goes away, a file that shrinks midway).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { truncate } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { before, it } from 'node:test';
import { ManualClock } from '../../../src/lib/clock.js';
import { readToEnd } from '../../support/bodies.js';
import { createTestUser } from '../../support/content.js';
import { makeUser } from '../../support/factory.js';
import { openDescriptorsOf, waitFor } from '../../support/open-files.js';
import { describeS3 } from '../../support/s3.js';
import { forEachDatabase, useTestServer, type TestServer, type TestUser } from '../../support/server.js';
import { storedFiles } from '../../support/stored.js';
import { uploadOne } from '../../support/uploads.js';

const MiB = 1024 * 1024;

/** The storage key of a file (to look at its stored bytes). */
async function storageKeyOf(server: TestServer, fileId: string): Promise<string> {
  return (
    await server.ctx.db.selectFrom('files').select('storage_key').where('id', '=', fileId).executeTakeFirstOrThrow()
  ).storage_key;
}

const BROWSER = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };

forEachDatabase('serving files', (engine) => {
  servesFiles(useTestServer({ engine }));
});

// The same on S3 (a stream from the SDK rather than the local file sender); the database engine does not matter here.
describeS3('serving files from S3 [sqlite]', (s3Env) => {
  servesFiles(useTestServer(() => ({ engine: 'sqlite', env: s3Env() })));
});

/** The serving suite, on a fresh server of whichever database and storage. */
function servesFiles(server: () => TestServer): void {
  let user: TestUser;
  const bytes = randomBytes(100_000);
  let name: string;

  before(async () => {
    await server().setup();
    user = await createTestUser(server(), 'server');
    name = (await uploadOne(server(), user.token, bytes, { name: 'pic.png', type: 'image/png' })).name;
  });

  it('GET /raw and /u answer the exact bytes with length, type, validators and safe headers', async () => {
    for (const path of [`/raw/${name}`, `/u/${name}`]) {
      const res = await server().fetch(path);
      assert.equal(res.status, 200);
      assert.ok(Buffer.from(await res.arrayBuffer()).equals(bytes));
      assert.equal(res.headers.get('content-length'), String(bytes.length));
      assert.equal(res.headers.get('content-type'), 'image/png');
      assert.equal(res.headers.get('accept-ranges'), 'bytes');
      assert.match(res.headers.get('etag') ?? '', /^"[a-z0-9-]+"$/);
      assert.ok(!Number.isNaN(Date.parse(res.headers.get('last-modified') ?? '')));
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
      assert.match(res.headers.get('content-security-policy') ?? '', /^sandbox;/);
      // The name the file was uploaded with (kept by default: filesKeepOriginalName), not its link name.
      assert.equal(res.headers.get('content-disposition'), 'inline; filename="pic.png"');
    }
    const download = await server().fetch(`/raw/${name}?download`);
    assert.equal(download.headers.get('content-disposition'), 'attachment; filename="pic.png"');
    await download.arrayBuffer();
  });

  it('answers single byte ranges with 206 and the exact slice', async () => {
    const cases: Array<[string, number, number]> = [
      ['bytes=0-9', 0, 9],
      ['bytes=99990-', 99_990, 99_999],
      ['bytes=-16', 99_984, 99_999],
      ['bytes=50000-999999', 50_000, 99_999],
      ['bytes=7-7', 7, 7],
    ];
    for (const [range, start, end] of cases) {
      const res = await server().fetch(`/raw/${name}`, { headers: { range } });
      assert.equal(res.status, 206, range);
      assert.equal(res.headers.get('content-range'), `bytes ${start}-${end}/${bytes.length}`);
      assert.equal(res.headers.get('content-length'), String(end - start + 1));
      assert.ok(Buffer.from(await res.arrayBuffer()).equals(bytes.subarray(start, end + 1)), range);
    }
  });

  it('answers an unsatisfiable range with 416, Content-Range bytes */size and no body', async () => {
    for (const range of ['bytes=100000-', 'bytes=200000-300000', 'bytes=-0']) {
      const res = await server().fetch(`/raw/${name}`, { headers: { range } });
      assert.equal(res.status, 416, range);
      assert.equal(res.headers.get('content-range'), `bytes */${bytes.length}`);
      assert.equal((await res.arrayBuffer()).byteLength, 0);
    }
  });

  it('ignores several ranges, other units and malformed ranges (200 with everything)', async () => {
    for (const range of ['bytes=0-1,5-6', 'items=0-1', 'bytes=9-3', 'bytes=abc']) {
      const res = await server().fetch(`/raw/${name}`, { headers: { range } });
      assert.equal(res.status, 200, range);
      assert.equal((await res.arrayBuffer()).byteLength, bytes.length);
    }
  });

  it('answers 304 to If-None-Match and If-Modified-Since, and honours If-Range', async () => {
    const first = await server().fetch(`/raw/${name}`);
    await first.arrayBuffer();
    const etag = first.headers.get('etag')!;
    const lastModified = first.headers.get('last-modified')!;
    const conditions: Array<Record<string, string>> = [
      { 'if-none-match': etag },
      { 'if-none-match': `"other", W/${etag}` },
      { 'if-none-match': '*' },
      { 'if-modified-since': lastModified },
    ];
    for (const headers of conditions) {
      const res = await server().fetch(`/raw/${name}`, { headers });
      assert.equal(res.status, 304, JSON.stringify(headers));
      assert.equal((await res.arrayBuffer()).byteLength, 0);
      assert.equal(res.headers.get('etag'), etag);
    }
    const changed = await server().fetch(`/raw/${name}`, { headers: { 'if-none-match': '"something-else"' } });
    assert.equal(changed.status, 200);
    await changed.arrayBuffer();
    const old = await server().fetch(`/raw/${name}`, {
      headers: { 'if-modified-since': 'Thu, 01 Jan 2015 00:00:00 GMT' },
    });
    assert.equal(old.status, 200);
    await old.arrayBuffer();
    const sameTag = await server().fetch(`/raw/${name}`, { headers: { range: 'bytes=0-3', 'if-range': etag } });
    assert.equal(sameTag.status, 206);
    await sameTag.arrayBuffer();
    const sameDate = await server().fetch(`/raw/${name}`, {
      headers: { range: 'bytes=0-3', 'if-range': lastModified },
    });
    assert.equal(sameDate.status, 206);
    await sameDate.arrayBuffer();
    const otherTag = await server().fetch(`/raw/${name}`, { headers: { range: 'bytes=0-3', 'if-range': '"stale"' } });
    assert.equal(otherTag.status, 200);
    assert.equal((await otherTag.arrayBuffer()).byteLength, bytes.length);
  });

  it('answers HEAD with the headers and no body, without counting a view', async () => {
    const before = await viewsOf(server(), name);
    const res = await server().fetch(`/raw/${name}`, { method: 'HEAD' });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-length'), String(bytes.length));
    assert.equal(res.headers.get('content-type'), 'image/png');
    assert.equal((await res.arrayBuffer()).byteLength, 0);
    const ranged = await server().fetch(`/u/${name}`, { method: 'HEAD', headers: { range: 'bytes=0-9' } });
    assert.equal(ranged.status, 206);
    assert.equal(ranged.headers.get('content-length'), '10');
    assert.equal(await viewsOf(server(), name), before);
  });

  it('counts a view per GET from the start, not for ranged continuations or 304s', async () => {
    const file = await uploadOne(server(), user.token, 'count me', { name: 'c.txt' });
    const views = () => viewsOf(server(), file.name);
    await (await server().fetch(`/raw/${file.name}`)).arrayBuffer();
    await (await server().fetch(`/raw/${file.name}`, { headers: { range: 'bytes=0-2' } })).arrayBuffer();
    await (await server().fetch(`/raw/${file.name}`, { headers: { range: 'bytes=3-' } })).arrayBuffer();
    const etag = (await server().fetch(`/raw/${file.name}`, { method: 'HEAD' })).headers.get('etag')!;
    await (await server().fetch(`/raw/${file.name}`, { headers: { 'if-none-match': etag } })).arrayBuffer();
    assert.equal(await views(), 2);
  });

  it('serves an empty file', async () => {
    const file = await uploadOne(server(), user.token, '', { name: 'empty.txt' });
    const res = await server().fetch(`/raw/${file.name}`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-length'), '0');
    assert.equal((await res.arrayBuffer()).byteLength, 0);
    const range = await server().fetch(`/raw/${file.name}`, { headers: { range: 'bytes=0-' } });
    assert.equal(range.status, 416);
  });

  it('never serves HTML, SVG, XML or JavaScript as active content', async () => {
    const payload = '<script>alert(document.domain)</script>';
    const cases: Array<[string, string]> = [
      ['page.html', 'text/html'],
      ['image.svg', 'image/svg+xml'],
      ['doc.xml', 'application/xml'],
      ['doc.xhtml', 'application/xhtml+xml'],
      ['app.js', 'text/javascript'],
      ['unknown.bin', 'application/x-anything'],
    ];
    for (const [fileName, type] of cases) {
      const file = await uploadOne(server(), user.token, payload, { name: fileName, type });
      for (const path of [`/raw/${file.name}`, `/u/${file.name}`]) {
        const res = await server().fetch(path, { headers: BROWSER });
        assert.equal(res.status, 200, `${fileName} ${path}`);
        assert.match(res.headers.get('content-disposition') ?? '', /^attachment;/, fileName);
        assert.match(res.headers.get('content-security-policy') ?? '', /^sandbox;/);
        assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
        await res.arrayBuffer();
      }
    }
    // HTML that claims to be an image is served as the image it claims to be (nosniff: never rendered as HTML).
    const disguised = await uploadOne(server(), user.token, payload, { name: 'fake.png', type: 'image/png' });
    const res = await server().fetch(`/raw/${disguised.name}`);
    assert.equal(res.headers.get('content-type'), 'image/png');
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    await res.arrayBuffer();
    // Text formats are shown as plain text.
    const md = await uploadOne(server(), user.token, '# title', { name: 'r.md', type: 'text/markdown' });
    const text = await server().fetch(`/raw/${md.name}`);
    assert.equal(text.headers.get('content-type'), 'text/plain; charset=utf-8');
    assert.match(text.headers.get('content-disposition') ?? '', /^inline;/);
    await text.arrayBuffer();
  });

  it('answers 4000 for a name that does not exist', async () => {
    for (const path of ['/raw/nope.txt', '/u/nope.txt', '/view/nope.txt']) {
      const res = await server().json('GET', path);
      assert.equal(res.status, 404);
      assert.equal(res.body.code, 4000);
    }
  });

  it('serves a file of several MiB exact, whole and in ranges across the 1 MiB chunks it is copied in', async () => {
    const big = randomBytes(3 * MiB + 3);
    const file = await uploadOne(server(), user.token, big, { name: 'big.bin', type: 'application/octet-stream' });
    const whole = await server().fetch(`/raw/${file.name}`);
    assert.equal(whole.headers.get('content-length'), String(big.length));
    assert.ok(Buffer.from(await whole.arrayBuffer()).equals(big));
    for (const [start, end] of [
      [MiB - 1, MiB],
      [1, 3 * MiB + 1],
      [2 * MiB, 3 * MiB + 2],
      [3 * MiB, 3 * MiB + 2],
    ] as const) {
      const res = await server().fetch(`/u/${file.name}`, { headers: { range: `bytes=${start}-${end}` } });
      assert.equal(res.status, 206);
      assert.equal(res.headers.get('content-range'), `bytes ${start}-${end}/${big.length}`);
      assert.ok(Buffer.from(await res.arrayBuffer()).equals(big.subarray(start, end + 1)), `${start}-${end}`);
    }
  });

  it('sends the last allowed view of a large file whole, then its bytes are gone', async () => {
    const big = randomBytes(2 * MiB + 1);
    const file = await uploadOne(server(), user.token, big, {
      name: 'once.bin',
      headers: { 'x-service-max-views': '1' },
    });
    const key = await storageKeyOf(server(), file.id);
    const res = await server().fetch(`/raw/${file.name}`);
    assert.equal(res.status, 200);
    assert.ok(Buffer.from(await res.arrayBuffer()).equals(big));
    assert.equal(await server().ctx.storage.stat(key), null);
    assert.equal((await server().fetch(`/raw/${file.name}`)).status, 404);
  });
}

forEachDatabase('serving local files through the file sender', (engine) => {
  const server = useTestServer({ engine });
  let owner: TestUser;
  /** Large enough that the socket buffers cannot take it all while the client waits. */
  const big = randomBytes(32 * MiB);
  let name: string;
  let stored: string;

  before(async () => {
    owner = await server().setup();
    const file = await uploadOne(server(), owner.token, big, { name: 'large.bin', type: 'application/octet-stream' });
    name = file.name;
    stored = path.join(server().dataDir, 'uploads', ...(await storageKeyOf(server(), file.id)).split('/'));
  });

  it('keeps a connection alive across downloads, each body exact', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const get = (range?: string) =>
        new Promise<{ status: number; body: Buffer; reused: boolean }>((resolve, reject) => {
          const req = http.get(`${server().url}/raw/${name}`, { agent, headers: range ? { range } : {} }, (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () =>
              resolve({ status: res.statusCode!, body: Buffer.concat(chunks), reused: req.reusedSocket }),
            );
            res.on('error', reject);
          });
          req.on('error', reject);
        });
      const first = await get();
      const second = await get('bytes=100-2000000');
      const third = await get();
      assert.ok(first.body.equals(big));
      assert.equal(second.status, 206);
      assert.ok(second.body.equals(big.subarray(100, 2_000_001)));
      assert.ok(third.body.equals(big));
      assert.ok(second.reused && third.reused, 'one connection');
    } finally {
      agent.destroy();
    }
  });

  it('closes the file when the client goes away midway, and goes on serving', async () => {
    const controller = new AbortController();
    const res = await server().fetch(`/raw/${name}`, { signal: controller.signal });
    await res.body!.getReader().read();
    assert.equal(await openDescriptorsOf(stored), 1);
    controller.abort();
    await waitFor(async () => (await openDescriptorsOf(stored)) === 0, 'the file is closed');
    const again = await server().fetch(`/raw/${name}`, { headers: { range: 'bytes=0-9' } });
    assert.ok(Buffer.from(await again.arrayBuffer()).equals(big.subarray(0, 10)));
  });

  it('deletes the bytes of a last view whose client goes away midway', async () => {
    const file = await uploadOne(server(), owner.token, big, {
      name: 'once.bin',
      headers: { 'x-service-max-views': '1' },
    });
    const key = await storageKeyOf(server(), file.id);
    const controller = new AbortController();
    const res = await server().fetch(`/raw/${file.name}`, { signal: controller.signal });
    await res.body!.getReader().read();
    controller.abort();
    await waitFor(async () => (await server().ctx.storage.stat(key)) === null, 'the bytes are deleted');
    assert.equal((await server().fetch(`/raw/${file.name}`)).status, 404);
  });

  it('cuts the body off when the file shrinks while it is sent: never a short body that looks complete', async () => {
    const file = await uploadOne(server(), owner.token, big, { name: 'shrinks.bin' });
    const storedPath = path.join(server().dataDir, 'uploads', ...(await storageKeyOf(server(), file.id)).split('/'));
    const res = await server().fetch(`/raw/${file.name}`);
    assert.equal(res.headers.get('content-length'), String(big.length));
    const reader = res.body!.getReader();
    await reader.read();
    await truncate(storedPath, 16 * MiB);
    let received = 0;
    await assert.rejects(readToEnd(reader, (n) => (received = n)));
    assert.ok(received < big.length);
    await waitFor(async () => (await openDescriptorsOf(storedPath)) === 0, 'the file is closed');
  });
});

forEachDatabase('password-protected files', (engine) => {
  const server = useTestServer({ engine });

  it('answer 403 / 3004 until unlocked; a token from the right password opens /raw and /u', async () => {
    const owner = await makeUser(server());
    const visitorUser = await createTestUser(server(), 'visitor');
    const file = await uploadOne(server(), owner.token, 'secret bytes', {
      headers: { 'x-service-password': 'open sesame' },
    });
    const locked = await server().json('GET', `/raw/${file.name}`);
    assert.equal(locked.status, 403);
    assert.equal(locked.body.code, 3004);
    assert.equal((await server().json('GET', `/u/${file.name}`)).body.code, 3004);

    const wrong = await server().json('POST', `/api/user/files/${file.id}/password`, { body: { password: 'nope' } });
    assert.equal(wrong.status, 403);
    assert.equal(wrong.body.code, 3005);
    const byOtherUser = await server().json('POST', `/api/user/files/${file.id}/password`, {
      auth: visitorUser.token,
      body: {},
    });
    assert.equal(byOtherUser.body.code, 3005);

    const right = await server().json('POST', `/api/user/files/${file.name}/password`, {
      body: { password: 'open sesame' },
    });
    assert.equal(right.status, 200);
    assert.ok(Date.parse(right.body.expiresAt) > Date.now());
    const opened = await server().fetch(`/raw/${file.name}?token=${encodeURIComponent(right.body.token)}`);
    assert.equal(opened.status, 200);
    assert.equal(await opened.text(), 'secret bytes');
    assert.equal(opened.headers.get('cache-control'), 'private, no-store');
    assert.equal(await (await fetch(right.body.url)).text(), 'secret bytes');
    const share = await server().fetch(`/u/${file.name}?token=${encodeURIComponent(right.body.token)}`);
    assert.equal(await share.text(), 'secret bytes');

    const owners = await server().json('POST', `/api/user/files/${file.id}/password`, { auth: owner.token, body: {} });
    assert.equal(owners.status, 200);
  });

  it('answer 403 / 3018 for a forged token or one of another file', async () => {
    const owner = (await makeUser(server())).cookie;
    const a = await uploadOne(server(), owner, 'a', { headers: { 'x-service-password': 'pw' } });
    const b = await uploadOne(server(), owner, 'b', { headers: { 'x-service-password': 'pw' } });
    const tokenOfA = (await server().json('POST', `/api/user/files/${a.id}/password`, { body: { password: 'pw' } }))
      .body.token;
    for (const token of ['garbage', `${tokenOfA}x`]) {
      const res = await server().json('GET', `/raw/${a.name}?token=${encodeURIComponent(token)}`);
      assert.equal(res.status, 403);
      assert.equal(res.body.code, 3018);
    }
    const crossed = await server().json('GET', `/raw/${b.name}?token=${encodeURIComponent(tokenOfA)}`);
    assert.equal(crossed.body.code, 3018);
    const missing = await server().json('POST', '/api/user/files/nosuchfile/password', { body: { password: 'pw' } });
    assert.equal(missing.body.code, 4000);
  });

  it('show browsers a password form instead of the bytes', async () => {
    const owner = (await makeUser(server())).cookie;
    const file = await uploadOne(server(), owner, 'locked page', { headers: { 'x-service-password': 'pw' } });
    for (const path of [`/u/${file.name}`, `/view/${file.name}`]) {
      const res = await server().fetch(path, { headers: BROWSER });
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
      const page = await res.text();
      assert.match(page, /type="password"/);
      assert.doesNotMatch(page, /locked page/);
    }
  });
});

forEachDatabase('max views', (engine) => {
  const server = useTestServer({ engine });

  it('after the last allowed view the file is gone (404) and its bytes deleted', async () => {
    const owner = await makeUser(server());
    const before = await storedFiles(server());
    const file = await uploadOne(server(), owner.token, 'twice only', { headers: { 'x-service-max-views': '2' } });
    assert.equal((await storedFiles(server())).length, before.length + 1);
    assert.equal(await (await server().fetch(`/raw/${file.name}`)).text(), 'twice only');
    // A ranged read of a file with max views counts too (the limit cannot be read around with a Range).
    assert.equal(await (await server().fetch(`/u/${file.name}`, { headers: { range: 'bytes=6-' } })).text(), 'only');
    const gone = await server().json('GET', `/raw/${file.name}`);
    assert.equal(gone.status, 404);
    assert.equal(gone.body.code, 4000);
    assert.deepEqual(await storedFiles(server()), before);
    assert.equal(
      await server().ctx.db.selectFrom('files').select('id').where('id', '=', file.id).executeTakeFirst(),
      undefined,
    );
  });

  it('counts concurrent views atomically: exactly maxViews downloads succeed', async () => {
    const owner = (await makeUser(server())).cookie;
    const file = await uploadOne(server(), owner, randomBytes(50_000), {
      name: 'race.bin',
      headers: { 'x-service-max-views': '3' },
    });
    const results = await Promise.all(
      Array.from({ length: 12 }, async () => {
        const res = await server().fetch(`/raw/${file.name}`);
        return { status: res.status, size: (await res.arrayBuffer()).byteLength };
      }),
    );
    const ok = results.filter((r) => r.status === 200);
    assert.equal(ok.length, 3, JSON.stringify(results.map((r) => r.status)));
    for (const r of ok) assert.equal(r.size, 50_000);
    for (const r of results.filter((r) => r.status !== 200)) assert.equal(r.status, 404);
    assert.equal((await server().fetch(`/raw/${file.name}`)).status, 404);
  });
});

forEachDatabase('expiry', (engine) => {
  const clock = new ManualClock();
  const server = useTestServer({ engine, clock });

  it('an expired file answers 404 and is removed on access', async () => {
    const owner = await makeUser(server());
    const before = await storedFiles(server());
    const file = await uploadOne(server(), owner.token, 'short-lived', { headers: { 'x-service-deletes-at': '1h' } });
    assert.equal(await (await server().fetch(`/raw/${file.name}`)).text(), 'short-lived');
    clock.advance(3_600_000 + 1);
    const res = await server().json('GET', `/raw/${file.name}`);
    assert.equal(res.status, 404);
    assert.equal(res.body.code, 4000);
    assert.deepEqual(await storedFiles(server()), before);
    assert.equal(
      await server().ctx.db.selectFrom('files').select('id').where('id', '=', file.id).executeTakeFirst(),
      undefined,
    );
  });

  it('the sweep job removes expired files nobody asks for, and keeps the others', async () => {
    const owner = (await makeUser(server())).cookie;
    const before = await storedFiles(server());
    const expiring = await uploadOne(server(), owner, 'soon gone', { headers: { 'x-service-deletes-at': '30m' } });
    const keeping = await uploadOne(server(), owner, 'stays', { headers: { 'x-service-deletes-at': '7d' } });
    const forever = await uploadOne(server(), owner, 'forever');
    clock.advance(31 * 60_000);
    await server().chute.jobs.runNow('delete-expired-files');
    const left = await server().ctx.db.selectFrom('files').select('id').execute();
    const ids = left.map((r) => r.id);
    assert.ok(!ids.includes(expiring.id));
    assert.ok(ids.includes(keeping.id) && ids.includes(forever.id));
    assert.equal((await storedFiles(server())).length, before.length + 2);
  });
});

forEachDatabase('view page', (engine) => {
  const server = useTestServer({ engine, env: { SITE_TITLE: 'My Chute' } });

  it('shows images, video, audio and text inline; everything escaped', async () => {
    const owner = await makeUser(server());
    const image = await uploadOne(server(), owner.token, 'png', { name: 'x.png', type: 'image/png' });
    const video = await uploadOne(server(), owner.token, 'mp4', { name: 'x.mp4', type: 'video/mp4' });
    const audio = await uploadOne(server(), owner.token, 'mp3', { name: 'x.mp3', type: 'audio/mpeg' });
    const text = await uploadOne(server(), owner.token, 'hello <script>alert(1)</script> & bye', {
      name: 'x.txt',
      type: 'text/plain',
    });
    const page = async (name: string) => {
      const res = await server().fetch(`/view/${name}`);
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
      assert.match(res.headers.get('content-security-policy') ?? '', /default-src 'none'/);
      return res.text();
    };
    assert.match(await page(image.name), new RegExp(`<img src="/raw/${image.name}"`));
    assert.match(await page(video.name), new RegExp(`<video src="/raw/${video.name}"`));
    assert.match(await page(audio.name), new RegExp(`<audio src="/raw/${audio.name}"`));
    const textPage = await page(text.name);
    assert.match(textPage, /<pre>hello &lt;script&gt;alert\(1\)&lt;\/script&gt; &amp; bye<\/pre>/);
    assert.doesNotMatch(textPage, /<script>alert/);
  });

  it("carries embed tags as the owner's view settings say, escaped", async () => {
    const owner = (await makeUser(server())).cookie;
    const image = await uploadOne(server(), owner, 'png', { name: 'pic.png', type: 'image/png' });
    const doc = await uploadOne(server(), owner, 'zip', { name: 'a.zip', type: 'application/zip' });
    const plain = await (await server().fetch(`/view/${image.name}`)).text();
    assert.doesNotMatch(plain, /og:image/);
    const patched = await server().json('PATCH', '/api/user', {
      auth: owner,
      body: {
        view: {
          embed: true,
          embedTitle: '"><script>x</script> {file.name}',
          embedDescription: 'size {file.size}',
          embedColor: '#ff0000',
          embedSiteName: 'Site & Co',
        },
      },
    });
    assert.equal(patched.status, 200);
    const html = await (await server().fetch(`/view/${image.name}`)).text();
    assert.ok(
      html.includes(`<meta property="og:title" content="&quot;&gt;&lt;script&gt;x&lt;/script&gt; ${image.name}">`),
      html,
    );
    assert.ok(html.includes('<meta property="og:description" content="size 3 B">'));
    assert.ok(html.includes('<meta property="og:site_name" content="Site &amp; Co">'));
    assert.ok(html.includes('<meta name="theme-color" content="#ff0000">'));
    assert.ok(html.includes(`<meta property="og:image" content="${server().url}/raw/${image.name}">`));
    assert.ok(html.includes('<meta name="twitter:card" content="summary_large_image">'));
    assert.doesNotMatch(html, /<script>x/);
    assert.match(await (await server().fetch(`/view/${doc.name}`)).text(), /og:title/);
    await server().json('PATCH', '/api/user', { auth: owner, body: { view: { embedMediaOnly: true } } });
    assert.doesNotMatch(await (await server().fetch(`/view/${doc.name}`)).text(), /og:title/);
    assert.match(await (await server().fetch(`/view/${image.name}`)).text(), /og:image/);
  });

  it('/u/<name> gives browsers the view page only when the owner enabled it', async () => {
    const owner = (await makeUser(server())).cookie;
    const image = await uploadOne(server(), owner, 'png', { name: 'pic.png', type: 'image/png' });
    // Embeds on, so that a crawler's answer shows them (below).
    await server().json('PATCH', '/api/user', { auth: owner, body: { view: { embed: true } } });
    await server().json('PATCH', '/api/user', { auth: owner, body: { view: { enabled: false } } });
    const raw = await server().fetch(`/u/${image.name}`, { headers: BROWSER });
    assert.equal(raw.headers.get('content-type'), 'image/png');
    assert.equal(await raw.text(), 'png');
    await server().json('PATCH', '/api/user', { auth: owner, body: { view: { enabled: true } } });
    const page = await server().fetch(`/u/${image.name}`, { headers: BROWSER });
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(await page.text(), /<img src=/);
    // Non-browsers, ranges and ?download still get the bytes.
    assert.equal(await (await server().fetch(`/u/${image.name}`)).text(), 'png');
    assert.equal(await (await server().fetch(`/u/${image.name}?download`, { headers: BROWSER })).text(), 'png');
    const crawler = await server().fetch(`/u/${image.name}`, {
      headers: { 'user-agent': 'Mozilla/5.0 (compatible; Discordbot/2.0)' },
    });
    assert.match(await crawler.text(), /og:image/);
    // One address, two answers: every answer of /u says what it depends on, so that a shared cache keeps the
    // cacheable bytes and the page apart. /raw always answers the bytes and does not vary.
    const bytes = await server().fetch(`/u/${image.name}`);
    assert.match(bytes.headers.get('cache-control') ?? '', /public/);
    for (const res of [bytes, page, crawler]) assert.equal(res.headers.get('vary'), 'Accept, User-Agent');
    assert.equal((await server().fetch(`/raw/${image.name}`, { headers: BROWSER })).headers.get('vary'), null);
  });
});

/** A file's views: those stored and those counted in memory but not yet written (services/serving/view-counts.ts). */
async function viewsOf(server: TestServer, name: string): Promise<number> {
  const row = await server.ctx.db
    .selectFrom('files')
    .select(['id', 'views'])
    .where('name', '=', name)
    .executeTakeFirstOrThrow();
  return row.views + server.ctx.views.of('files', row.id);
}
