// Thumbnails made by the job queue after each upload (single and chunked), kept in the datasource next to the file
// and deleted with it, served to the owner and publicly for files without a password; hostile files (a truncated
// MP4, a PNG decompression bomb, text named as an image) each fail their own job while the server keeps answering.
import assert from 'node:assert/strict';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import sharp from 'sharp';
import { thumbnailKeyOf } from '../../../src/services/media/thumbnail-names.js';
import { makeUser, NO_RATE_LIMIT } from '../../support/factory.js';
import { mp4Video, photo, pngBomb, truncatedMp4 } from '../../support/media.js';
import { uploadInChunks, waitForAssembly } from '../../support/chunked-uploads.js';
import { describeS3 } from '../../support/s3.js';
import { forEachDatabase, useTestServer, type TestServer, type TestUser } from '../../support/server.js';
import { filesUnder, storageKeyOf } from '../../support/stored.js';
import { uploadOne } from '../../support/uploads.js';

async function thumbnailJobs(
  server: TestServer,
): Promise<Array<{ state: string; last_error: string | null; payload: string }>> {
  return server.ctx.db
    .selectFrom('jobs')
    .select(['state', 'last_error', 'payload'])
    .where('kind', '=', 'thumbnail')
    .execute();
}

function jobOf<T extends { payload: string }>(jobs: T[], fileId: string): T {
  const job = jobs.find((j) => (JSON.parse(j.payload) as { fileId: string }).fileId === fileId);
  assert.ok(job, `a thumbnail job for ${fileId}`);
  return job;
}

/** The suite both datasources pass. */
function thumbnailSuite(server: () => TestServer): void {
  let admin: TestUser;
  let user: TestUser;
  before(async () => {
    admin = await server().setup();
    user = await makeUser(server());
  });

  it('makes a WebP thumbnail of an uploaded image in the background, served to the owner and publicly', async () => {
    const file = await uploadOne(server(), user.token, await photo(1200, 900), { name: 'photo.jpg' });
    const before = await server().json('GET', `/api/user/files/${file.id}/thumbnail`, { auth: user.token });
    assert.equal(before.status, 404, 'no thumbnail before the job ran');
    assert.equal(before.body.code, 4000);

    assert.ok((await server().chute.worker.runUntilIdle()) >= 1);
    const listed = await server().json('GET', `/api/user/files/${file.id}`, { auth: user.token });
    assert.deepEqual(listed.body.thumbnail, { path: `.thumbnail.${file.id}.webp` });

    const owner = await server().fetch(`/api/user/files/${file.id}/thumbnail`, {
      headers: { authorization: user.token },
    });
    assert.equal(owner.status, 200);
    assert.equal(owner.headers.get('content-type'), 'image/webp');
    const bytes = Buffer.from(await owner.arrayBuffer());
    const meta = await sharp(bytes).metadata();
    assert.equal(meta.format, 'webp');
    assert.equal(meta.width, 320);
    assert.equal(meta.height, 240);

    const pub = await server().fetch(`/raw/.thumbnail.${file.id}.webp`);
    assert.equal(pub.status, 200);
    assert.deepEqual(Buffer.from(await pub.arrayBuffer()), bytes);
    const head = await server().fetch(`/raw/.thumbnail.${file.id}.webp`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('content-type'), 'image/webp');

    const stranger = await makeUser(server());
    const other = await server().json('GET', `/api/user/files/${file.id}/thumbnail`, { auth: stranger.token });
    assert.equal(other.status, 404, "another user's thumbnail is not theirs to see");
  });

  it('makes a thumbnail of a video (a frame about a second in)', async () => {
    const file = await uploadOne(server(), user.token, await mp4Video(3), { name: 'clip.mp4', type: 'video/mp4' });
    await server().chute.worker.runUntilIdle();
    const res = await server().fetch(`/api/user/files/${file.id}/thumbnail`, {
      headers: { authorization: user.token },
    });
    assert.equal(res.status, 200);
    const meta = await sharp(Buffer.from(await res.arrayBuffer())).metadata();
    assert.equal(meta.format, 'webp');
    assert.equal(meta.width, 320);
  });

  it("shows the made thumbnails on a public folder's page, also of videos and of files with a view limit", async () => {
    const folder = await server().json('POST', '/api/user/folders', {
      auth: user.token,
      body: { name: 'Holiday', public: true },
    });
    const inFolder = { 'x-service-folder': folder.body.id };
    const video = await uploadOne(server(), user.token, await mp4Video(2), {
      name: 'sea.mp4',
      type: 'video/mp4',
      headers: inFolder,
    });
    const limited = await uploadOne(server(), user.token, await photo(300, 200), {
      name: 'once.jpg',
      headers: { ...inFolder, 'x-service-max-views': '1' },
    });
    const locked = await uploadOne(server(), user.token, await photo(300, 200), {
      name: 'locked.jpg',
      headers: { ...inFolder, 'x-service-password': 'pw' },
    });
    await server().chute.worker.runUntilIdle();
    const page = await (await server().fetch(`/folder/${folder.body.id}`, { headers: { accept: 'text/html' } })).text();
    assert.ok(page.includes(`<img src="/raw/.thumbnail.${video.id}.webp"`), 'the video tile shows its thumbnail');
    assert.ok(page.includes(`<img src="/raw/.thumbnail.${limited.id}.webp"`), 'a thumbnail spends no view');
    assert.ok(!page.includes(`.thumbnail.${locked.id}.webp`), 'no thumbnail of a password-protected file');
    assert.equal((await server().fetch(`/raw/.thumbnail.${limited.id}.webp`)).status, 200);
    assert.equal((await server().fetch(`/raw/${limited.name}`)).status, 200, 'its one view is still there');
  });

  it('keeps the thumbnail of a password-protected file from the public, not from its owner', async () => {
    const file = await uploadOne(server(), user.token, await photo(300, 200), {
      name: 'secret.jpg',
      headers: { 'x-service-password': 'hunter22' },
    });
    await server().chute.worker.runUntilIdle();
    assert.equal((await server().fetch(`/raw/.thumbnail.${file.id}.webp`)).status, 404);
    const owner = await server().fetch(`/api/user/files/${file.id}/thumbnail`, {
      headers: { authorization: user.token },
    });
    assert.equal(owner.status, 200);
  });

  it('keeps the thumbnail of a private file from the public, not from its owner', async () => {
    const file = await uploadOne(server(), user.token, await photo(300, 200), {
      name: 'private.jpg',
      headers: { 'x-service-private': 'true' },
    });
    await server().chute.worker.runUntilIdle();
    assert.equal((await server().fetch(`/raw/.thumbnail.${file.id}.webp`)).status, 404);
    const owner = await server().fetch(`/api/user/files/${file.id}/thumbnail`, {
      headers: { authorization: user.token },
    });
    assert.equal(owner.status, 200);
  });

  it('stores the thumbnail next to the file and deletes it with the file', async () => {
    const file = await uploadOne(server(), user.token, await photo(400, 300), { name: 'gone.jpg' });
    await server().chute.worker.runUntilIdle();
    const key = await storageKeyOf(server(), file.id);
    assert.ok(await server().ctx.storage.stat(thumbnailKeyOf(key)), 'the thumbnail is in the datasource');
    const deleted = await server().json('DELETE', `/api/user/files/${file.id}`, { auth: user.token });
    assert.equal(deleted.status, 200);
    assert.equal(await server().ctx.storage.stat(key), null);
    assert.equal(await server().ctx.storage.stat(thumbnailKeyOf(key)), null, 'the thumbnail went with the file');
    assert.equal((await server().fetch(`/raw/.thumbnail.${file.id}.webp`)).status, 404);
  });

  it('queues a thumbnail after a chunked upload too', async () => {
    const image = await photo(1600, 1200, { format: 'png' });
    const final = await uploadInChunks(server(), user.token, image, [image.length >> 1], {
      fileName: 'big.png',
      type: 'image/png',
    });
    assert.equal(final.status, 200, JSON.stringify(final.body));
    const record = await waitForAssembly(server(), user.token, final.body.incompleteFileId);
    assert.equal(record.status, 'COMPLETE');
    const row = await server()
      .ctx.db.selectFrom('files')
      .select('id')
      .where('name', '=', final.body.files[0].name)
      .executeTakeFirstOrThrow();
    await server().chute.worker.runUntilIdle();
    const res = await server().fetch(`/api/user/files/${row.id}/thumbnail`, { headers: { authorization: user.token } });
    assert.equal(res.status, 200);
  });

  it('fails the job of each hostile file on its own while the others succeed and the server keeps answering', async () => {
    const good = await uploadOne(server(), user.token, await photo(640, 480), { name: 'good.jpg' });
    const truncated = await uploadOne(server(), user.token, await truncatedMp4(), {
      name: 'broken.mp4',
      type: 'video/mp4',
    });
    const bomb = await uploadOne(server(), user.token, await pngBomb(), { name: 'bomb.png', type: 'image/png' });
    const liar = await uploadOne(server(), user.token, Buffer.from('this is plain text, not a picture\n'.repeat(50)), {
      name: 'liar.png',
      type: 'image/png',
    });
    await server().chute.worker.runUntilIdle();

    const jobs = await thumbnailJobs(server());
    assert.equal(jobOf(jobs, good.id).state, 'done');
    for (const [file, pattern] of [
      [truncated, /moov atom not found|Invalid data/],
      [bomb, /pixel limit/],
      [liar, /unsupported image format/],
    ] as const) {
      const job = jobOf(jobs, file.id);
      assert.equal(job.state, 'failed', `${file.name} failed`);
      assert.match(job.last_error ?? '', pattern);
    }
    assert.equal((await server().json('GET', '/api/healthcheck')).body.pass, true);
    assert.deepEqual(await filesUnder(path.join(server().dataDir, 'tmp')), [], 'no temp file left behind');
    const res = await server().fetch(`/api/user/files/${good.id}/thumbnail`, {
      headers: { authorization: user.token },
    });
    assert.equal(res.status, 200);

    const overview = await server().json('GET', '/api/server/jobs', { auth: admin.token });
    assert.equal(overview.status, 200);
    const failedIds = overview.body.failed.map((j: { payload: { fileId: string } }) => j.payload.fileId);
    for (const file of [truncated, bomb, liar]) assert.ok(failedIds.includes(file.id));
    const failedCount = overview.body.counts.find(
      (c: { kind: string; state: string }) => c.kind === 'thumbnail' && c.state === 'failed',
    );
    assert.ok(failedCount.count >= 3);
  });
}

forEachDatabase('thumbnails', (engine) => {
  describe('local datasource', () => {
    thumbnailSuite(useTestServer({ engine, env: NO_RATE_LIMIT }));
  });
});

describeS3('thumbnails', (s3Env) => {
  thumbnailSuite(useTestServer(() => ({ engine: 'sqlite', env: { ...NO_RATE_LIMIT, ...s3Env() } })));
});

forEachDatabase('the thumbnail task and the queue routes', (engine) => {
  const server = useTestServer({ engine, env: NO_RATE_LIMIT });
  let admin: TestUser;
  let user: TestUser;
  before(async () => {
    admin = await server().setup();
    user = await makeUser(server());
  });

  it('POST /api/server/thumbnails queues the missing ones (rerun: all), 4011 while thumbnails are off', async () => {
    const off = await server().json('PATCH', '/api/server/settings', {
      auth: admin.token,
      body: { thumbnailsEnabled: false },
    });
    assert.equal(off.status, 200, JSON.stringify(off.body));
    const file = await uploadOne(server(), user.token, await photo(200, 100), { name: 'later.jpg' });
    assert.equal((await thumbnailJobs(server())).length, 0, 'no job while thumbnails are off');
    const refused = await server().json('POST', '/api/server/thumbnails', { auth: admin.token, body: {} });
    assert.equal(refused.status, 404);
    assert.equal(refused.body.code, 4011);

    await server().json('PATCH', '/api/server/settings', { auth: admin.token, body: { thumbnailsEnabled: true } });
    const notAdmin = await server().json('POST', '/api/server/thumbnails', { auth: user.token, body: {} });
    assert.equal(notAdmin.status, 403);
    const queued = await server().json('POST', '/api/server/thumbnails', { auth: admin.token, body: {} });
    assert.equal(queued.status, 200);
    assert.equal(queued.body.queued, 1);
    const again = await server().json('POST', '/api/server/thumbnails', { auth: admin.token, body: {} });
    assert.equal(again.body.queued, 0, 'a file whose job is waiting is not queued twice');
    await server().chute.worker.runUntilIdle();
    const bodiless = await server().json('POST', '/api/server/thumbnails', { auth: admin.token });
    assert.equal(bodiless.status, 200, JSON.stringify(bodiless.body));
    assert.equal(bodiless.body.queued, 0);
    const rerun = await server().json('POST', '/api/server/thumbnails', { auth: admin.token, body: { rerun: true } });
    assert.equal(rerun.body.queued, 1);
    await server().chute.worker.runUntilIdle();
    const res = await server().fetch(`/api/user/files/${file.id}/thumbnail`, {
      headers: { authorization: user.token },
    });
    assert.equal(res.status, 200);
  });

  it('retries and deletes failed jobs (admins only)', async () => {
    const liar = await uploadOne(server(), user.token, Buffer.from('not an image'), {
      name: 'x.png',
      type: 'image/png',
    });
    await server().chute.worker.runUntilIdle();
    const overview = await server().json('GET', '/api/server/jobs', { auth: admin.token });
    const failed = overview.body.failed.find((j: { payload: { fileId: string } }) => j.payload.fileId === liar.id);
    assert.ok(failed);
    assert.equal(failed.attempts, 1, 'a file that cannot be decoded is not tried again');
    assert.equal((await server().json('GET', '/api/server/jobs', { auth: user.token })).status, 403);

    const retried = await server().json('POST', `/api/server/jobs/${failed.id}/retry`, { auth: admin.token });
    assert.equal(retried.status, 200);
    assert.equal(retried.body.state, 'queued');
    assert.equal(retried.body.attempts, 0);
    const twice = await server().json('POST', `/api/server/jobs/${failed.id}/retry`, { auth: admin.token });
    assert.equal(twice.status, 400, 'a queued job is not retried');
    await server().chute.worker.runUntilIdle();

    const deleted = await server().json('DELETE', `/api/server/jobs/${failed.id}`, { auth: admin.token });
    assert.equal(deleted.status, 200);
    assert.equal((await server().json('DELETE', `/api/server/jobs/${failed.id}`, { auth: admin.token })).status, 404);
    const after = await server().json('GET', '/api/server/jobs', { auth: admin.token });
    assert.ok(!after.body.failed.some((j: { id: string }) => j.id === failed.id));
  });

  it('refuses the thumbnail names as file names', async () => {
    const res = await server().json('POST', '/api/upload', {
      auth: user.token,
      headers: { 'x-service-filename': '.thumbnail.abc' },
    });
    // Not multipart, so ask the header parser through a real upload instead.
    assert.ok(res.status >= 400);
    const form = new FormData();
    form.append('file', new Blob(['x']), 'a.webp');
    const upload = await server().fetch('/api/upload', {
      method: 'POST',
      headers: { authorization: user.token, 'x-service-filename': '.thumbnail.abc' },
      body: form,
    });
    assert.equal(upload.status, 400);
    assert.equal(((await upload.json()) as { code: number }).code, 1009);
  });
});

forEachDatabase('thumbnails without ffmpeg', (engine) => {
  const server = useTestServer({ engine, env: { ...NO_RATE_LIMIT, FFMPEG_PATH: '/nonexistent/ffmpeg' } });
  it('skips video thumbnails without failing their jobs; images still get theirs', async () => {
    await server().setup();
    const user = await makeUser(server());
    const video = await uploadOne(server(), user.token, await mp4Video(2), { name: 'v.mp4', type: 'video/mp4' });
    const image = await uploadOne(server(), user.token, await photo(300, 200), { name: 'i.jpg' });
    await server().chute.worker.runUntilIdle();
    const jobs = await thumbnailJobs(server());
    assert.equal(jobOf(jobs, video.id).state, 'done');
    const res = await server().json('GET', `/api/user/files/${video.id}/thumbnail`, { auth: user.token });
    assert.equal(res.status, 404);
    const ok = await server().fetch(`/api/user/files/${image.id}/thumbnail`, {
      headers: { authorization: user.token },
    });
    assert.equal(ok.status, 200);
  });
});
