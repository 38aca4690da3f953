// Webhooks on upload (single and chunked) and on shortening, delivered through the job queue to real local HTTP
// receivers: the signature verifies with node:crypto as a receiver would do it, a receiver that fails first gets a
// retry after the backoff, one that keeps failing shows in GET /api/server/jobs, a Discord-shaped receiver gets an
// embed with the link and the thumbnail, and the settings refuse what is not an http(s) URL.
import assert from 'node:assert/strict';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, it } from 'node:test';
import { ManualClock } from '../../../src/lib/clock.js';
import { JobWorker } from '../../../src/services/operations/job-worker.js';
import { BACKOFF_BASE_MS, backoffMs } from '../../../src/services/operations/jobs.js';
import { SECRET_MASK } from '../../../src/services/operations/settings.js';
import { makeThumbnail, THUMBNAIL_JOB } from '../../../src/services/media/thumbnails.js';
import {
  deliverDiscordWebhook,
  DISCORD_WEBHOOK_JOB,
  WEBHOOK_JOB,
  WEBHOOK_MAX_ATTEMPTS,
} from '../../../src/services/operations/webhooks.js';
import { assertError } from '../../support/api-errors.js';
import { makeUser, NO_RATE_LIMIT } from '../../support/factory.js';
import { photo } from '../../support/media.js';
import { uploadInChunks, waitForAssembly } from '../../support/chunked-uploads.js';
import {
  forEachDatabase,
  useTestServer,
  withTestServer,
  type TestServer,
  type TestUser,
} from '../../support/server.js';
import { uploadOne } from '../../support/uploads.js';

const SECRET = 'a-webhook-secret-of-some-length';

/** What a receiver verifies, in a few lines (docs/api.md shows the same). */
function verifySignature(secret: string, header: string, body: string, nowSeconds: number): boolean {
  const parts = Object.fromEntries(header.split(',').map((p) => p.split('=') as [string, string]));
  const expected = createHmac('sha256', secret).update(`${parts.t}.${body}`).digest();
  const given = Buffer.from(parts.v1 ?? '', 'hex');
  return (
    given.length === expected.length &&
    timingSafeEqual(given, expected) &&
    Math.abs(nowSeconds - Number(parts.t)) <= 300
  );
}

interface Delivery {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

interface Receiver {
  url: string;
  deliveries: Delivery[];
  to(path: string): Delivery[];
  close(): Promise<void>;
}

/**
 * A webhook receiver: /ok answers 200, /flaky 503 the first time and 200 after, /down 500 with a long body every
 * time, /refuse 400, /discord 204 as Discord does, /elsewhere a redirect to another host, /silent never answers.
 */
async function startReceiver(): Promise<Receiver> {
  const deliveries: Delivery[] = [];
  const open: ServerResponse[] = [];
  let elsewhere = '';
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '';
      deliveries.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const seen = deliveries.filter((d) => d.path === path).length;
      if (path === '/ok') res.writeHead(200).end('thanks');
      else if (path === '/flaky') res.writeHead(seen === 1 ? 503 : 200).end(seen === 1 ? 'busy' : 'ok');
      else if (path === '/down') res.writeHead(500).end(`broken ${'x'.repeat(1024 * 1024)}`);
      else if (path === '/refuse') res.writeHead(400).end('no');
      else if (path === '/discord') res.writeHead(204).end();
      else if (path === '/elsewhere') res.writeHead(307, { location: `${elsewhere}/ok` }).end();
      else if (path === '/silent') open.push(res);
      else res.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  // The same receiver under another host name: another origin.
  elsewhere = `http://localhost:${port}`;
  return {
    url: `http://127.0.0.1:${port}`,
    deliveries,
    to: (path) => deliveries.filter((d) => d.path === path),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

forEachDatabase('webhooks', (engine) => {
  const clock = new ManualClock();
  const server = useTestServer({ engine, clock, env: NO_RATE_LIMIT });
  let receiver: Receiver;
  let admin: TestUser;
  let user: TestUser;

  before(async () => {
    receiver = await startReceiver();
    admin = await server().setup();
    user = await makeUser(server());
  });
  after(async () => {
    await receiver.close();
  });
  beforeEach(async () => {
    await server().chute.worker.runUntilIdle();
    await server().ctx.db.deleteFrom('jobs').execute();
    receiver.deliveries.length = 0;
  });

  async function configure(settings: Record<string, unknown>): Promise<void> {
    const res = await server().json('PATCH', '/api/server/settings', {
      auth: admin.token,
      body: { webhookUrls: [], webhookSecret: SECRET, discordWebhookUrl: null, ...settings },
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
  }

  async function webhookJobs(kind = WEBHOOK_JOB) {
    return server().ctx.db.selectFrom('jobs').selectAll().where('kind', '=', kind).execute();
  }

  it('refuses webhook URLs that are not http(s) with 400/1022 naming the setting', async () => {
    const cases: Array<[string, unknown]> = [
      ['webhookUrls', ['ftp://example.com/hook']],
      ['webhookUrls', ['not a url']],
      ['webhookUrls', 'https://example.com/not-a-list'],
      ['discordWebhookUrl', 'javascript:alert(1)'],
      ['webhookSecret', 'short'],
    ];
    for (const [key, value] of cases) {
      const res = await server().json('PATCH', '/api/server/settings', { auth: admin.token, body: { [key]: value } });
      assertError(res, 400, 1022, `${key}=${JSON.stringify(value)}`);
      assert.ok(
        res.body.issues.some((i: string) => i.startsWith(`${key}:`)),
        JSON.stringify(res.body.issues),
      );
    }
    const stored = await server().json('GET', '/api/server/settings', { auth: admin.token });
    assert.deepEqual(stored.body.settings.webhookUrls, []);
  });

  it('shows the secret and the Discord URL in full to the SUPERADMIN only; a masked value sent back keeps them', async () => {
    await configure({ discordWebhookUrl: `${receiver.url}/discord` });
    const adminUser = await makeUser(server(), { role: 'ADMIN' });
    const full = await server().json('GET', '/api/server/settings', { auth: admin.token });
    assert.equal(full.body.settings.webhookSecret, SECRET);
    const masked = await server().json('GET', '/api/server/settings', { auth: adminUser.token });
    assert.equal(masked.status, 200);
    assert.equal(masked.body.settings.webhookSecret, SECRET_MASK);
    assert.equal(masked.body.settings.discordWebhookUrl, SECRET_MASK);
    const patched = await server().json('PATCH', '/api/server/settings', {
      auth: adminUser.token,
      body: {
        webhookSecret: masked.body.settings.webhookSecret,
        discordWebhookUrl: masked.body.settings.discordWebhookUrl,
        siteTitle: 'Renamed',
      },
    });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.equal(patched.body.settings.webhookSecret, SECRET_MASK);
    const after = await server().json('GET', '/api/server/settings', { auth: admin.token });
    assert.equal(after.body.settings.webhookSecret, SECRET);
    assert.equal(after.body.settings.discordWebhookUrl, `${receiver.url}/discord`);
    assert.equal(after.body.settings.siteTitle, 'Renamed');
  });

  it('POSTs a signed upload event that a receiver verifies with node:crypto', async () => {
    await configure({ webhookUrls: [`${receiver.url}/ok`] });
    const file = await uploadOne(server(), user.token, 'hello webhooks', { name: 'hello.txt', type: 'text/plain' });
    assert.equal(receiver.deliveries.length, 0, 'sent in the background, not within the upload');
    await server().chute.worker.runUntilIdle();
    const [delivery] = receiver.to('/ok');
    assert.ok(delivery);
    assert.equal(delivery.headers['content-type'], 'application/json');
    assert.equal(delivery.headers['x-chute-event'], 'upload');
    const signature = delivery.headers['x-chute-signature'] as string;
    assert.match(signature, /^t=\d+,v1=[0-9a-f]{64}$/);
    assert.equal(verifySignature(SECRET, signature, delivery.body, Math.floor(clock.now() / 1000)), true);
    assert.equal(verifySignature('another-secret-entirely', signature, delivery.body, clock.now() / 1000), false);
    assert.equal(verifySignature(SECRET, signature, `${delivery.body} `, clock.now() / 1000), false);

    const event = JSON.parse(delivery.body);
    assert.equal(event.event, 'upload');
    assert.equal(event.id, delivery.headers['x-chute-delivery']);
    assert.equal(event.timestamp, new Date(clock.now()).toISOString());
    assert.deepEqual(event.user, { id: user.id, username: user.username });
    assert.deepEqual(event.links, { url: file.url, raw: file.rawUrl });
    const listed = await server().json('GET', `/api/user/files/${file.id}`, { auth: user.token });
    assert.deepEqual(event.file, listed.body, 'the file as the API answers it');
    const [job] = await webhookJobs();
    assert.equal(job?.state, 'done');
  });

  it('sends one when a chunked upload completes', async () => {
    await configure({ webhookUrls: [`${receiver.url}/ok`] });
    const bytes = Buffer.alloc(300 * 1024, 7);
    const last = await uploadInChunks(server(), user.token, bytes, [128 * 1024, 128 * 1024], {
      fileName: 'big.bin',
      type: 'application/octet-stream',
    });
    assert.equal(last.status, 200, JSON.stringify(last.body));
    const record = await waitForAssembly(server(), user.token, last.body.incompleteFileId);
    assert.equal(record.status, 'COMPLETE');
    await server().chute.worker.runUntilIdle();
    const [delivery] = receiver.to('/ok');
    assert.ok(delivery, 'delivered');
    const event = JSON.parse(delivery.body);
    assert.equal(event.event, 'upload');
    assert.equal(event.file.id, record.fileId);
    assert.equal(event.file.size, bytes.length);
    assert.equal(event.links.url, last.body.files[0].url);
  });

  it('sends a shorten event with the URL as the API answers it, and none when webhookOnShorten is off', async () => {
    await configure({ webhookUrls: [`${receiver.url}/ok`] });
    const res = await server().json('POST', '/api/user/urls', {
      auth: user.token,
      body: { destination: 'https://example.com/a-long-path', vanity: 'hooked' },
    });
    assert.equal(res.status, 200);
    await server().chute.worker.runUntilIdle();
    const [delivery] = receiver.to('/ok');
    assert.ok(delivery);
    assert.equal(
      verifySignature(SECRET, delivery.headers['x-chute-signature'] as string, delivery.body, clock.now() / 1000),
      true,
    );
    const event = JSON.parse(delivery.body);
    assert.equal(event.event, 'shorten');
    assert.deepEqual(event.url, res.body);
    assert.deepEqual(event.links, { url: res.body.url });

    await configure({ webhookUrls: [`${receiver.url}/ok`], webhookOnShorten: false });
    await server().json('POST', '/api/user/urls', { auth: user.token, body: { destination: 'https://example.com/b' } });
    await uploadOne(server(), user.token, 'still sent', { name: 'x.txt', type: 'text/plain' });
    const jobs = await webhookJobs();
    assert.equal(jobs.filter((j) => JSON.parse(j.payload).event.event === 'shorten').length, 1, 'no new shorten job');
    assert.equal(jobs.filter((j) => JSON.parse(j.payload).event.event === 'upload').length, 1);
    await configure({ webhookUrls: [`${receiver.url}/ok`], webhookOnShorten: true });
  });

  it('retries a receiver that failed after the backoff, signing the retry anew', async () => {
    await configure({ webhookUrls: [`${receiver.url}/flaky`, `${receiver.url}/ok`] });
    await uploadOne(server(), user.token, 'retry me', { name: 'r.txt', type: 'text/plain' });
    await server().chute.worker.runUntilIdle();
    assert.equal(receiver.to('/flaky').length, 1);
    assert.equal(receiver.to('/ok').length, 1, 'the other receiver is not held up');
    const [queued] = (await webhookJobs()).filter((j) => j.state !== 'done');
    assert.equal(queued?.state, 'queued');
    assert.equal(queued.attempts, 1);
    assert.match(queued.last_error ?? '', /answered 503: busy/);

    await server().chute.worker.runUntilIdle();
    assert.equal(receiver.to('/flaky').length, 1, 'not before the backoff');
    clock.advance(BACKOFF_BASE_MS);
    await server().chute.worker.runUntilIdle();
    const [first, second] = receiver.to('/flaky');
    assert.ok(first && second);
    assert.equal(second.body, first.body, 'the same event');
    assert.notEqual(second.headers['x-chute-signature'], first.headers['x-chute-signature']);
    assert.equal(
      verifySignature(SECRET, second.headers['x-chute-signature'] as string, second.body, clock.now() / 1000),
      true,
    );
    assert.ok((await webhookJobs()).every((j) => j.state === 'done'));
  });

  it('shows a receiver that keeps failing as a failed job in GET /api/server/jobs, with a bounded error', async () => {
    await configure({ webhookUrls: [`${receiver.url}/down`] });
    await uploadOne(server(), user.token, 'never arrives', { name: 'd.txt', type: 'text/plain' });
    for (let attempt = 1; attempt <= WEBHOOK_MAX_ATTEMPTS; attempt++) {
      await server().chute.worker.runUntilIdle();
      clock.advance(backoffMs(attempt));
    }
    assert.equal(receiver.to('/down').length, WEBHOOK_MAX_ATTEMPTS);
    const res = await server().json('GET', '/api/server/jobs', { auth: admin.token });
    assert.equal(res.status, 200);
    const failed = res.body.failed.filter((j: { kind: string }) => j.kind === WEBHOOK_JOB);
    assert.equal(failed.length, 1);
    assert.equal(failed[0].attempts, WEBHOOK_MAX_ATTEMPTS);
    assert.equal(failed[0].payload.url, `${receiver.url}/down`);
    assert.match(failed[0].lastError, /^the receiver answered 500: broken x+$/);
    assert.ok(failed[0].lastError.length < 400, 'only the start of the answer is kept');
    const counts = res.body.counts.find(
      (c: { kind: string; state: string }) => c.kind === WEBHOOK_JOB && c.state === 'failed',
    );
    assert.equal(counts.count, 1);
  });

  it('fails a refused delivery at once, and never follows a redirect to another host', async () => {
    await configure({ webhookUrls: [`${receiver.url}/refuse`, `${receiver.url}/elsewhere`] });
    await uploadOne(server(), user.token, 'refused', { name: 'f.txt', type: 'text/plain' });
    await server().chute.worker.runUntilIdle();
    const jobs = await webhookJobs();
    const byUrl = (path: string) => jobs.find((j) => JSON.parse(j.payload).url === `${receiver.url}${path}`)!;
    assert.equal(byUrl('/refuse').state, 'failed', 'a 400 is not retried');
    assert.equal(byUrl('/refuse').attempts, 1);
    assert.match(byUrl('/elsewhere').last_error ?? '', /redirects to another host are not followed/);
    assert.equal(receiver.to('/ok').length, 0, 'the other host got nothing');
  });

  it('sends nothing to a URL removed from webhookUrls since the event', async () => {
    await configure({ webhookUrls: [`${receiver.url}/ok`] });
    await uploadOne(server(), user.token, 'late', { name: 'l.txt', type: 'text/plain' });
    await configure({ webhookUrls: [] });
    await server().chute.worker.runUntilIdle();
    assert.equal(receiver.deliveries.length, 0);
    assert.ok((await webhookJobs()).every((j) => j.state === 'done'));
  });

  it('posts a Discord embed with the link and the thumbnail (none for a file with a password)', async () => {
    await configure({ discordWebhookUrl: `${receiver.url}/discord` });
    const image = await uploadOne(server(), user.token, await photo(640, 480), { name: 'p.jpg', type: 'image/jpeg' });
    const secret = await uploadOne(server(), user.token, await photo(64, 48), {
      name: 's.jpg',
      type: 'image/jpeg',
      headers: { 'x-service-password': 'a-password' },
    });
    // The thumbnails first (they run in the background after the upload), then the messages.
    await new JobWorker(server().ctx, { [THUMBNAIL_JOB]: makeThumbnail }).runUntilIdle();
    await new JobWorker(server().ctx, { [DISCORD_WEBHOOK_JOB]: deliverDiscordWebhook }).runUntilIdle();
    const messages = receiver.to('/discord').map((d) => JSON.parse(d.body));
    assert.equal(messages.length, 2);
    const forImage = messages.find((m) => m.embeds[0].url === image.url);
    assert.ok(forImage, JSON.stringify(messages));
    assert.equal(forImage.embeds.length, 1);
    assert.equal(forImage.embeds[0].title, image.name);
    assert.match(forImage.embeds[0].description, /^image\/jpeg, .+ uploaded by /);
    assert.deepEqual(forImage.embeds[0].thumbnail, { url: `${server().url}/raw/.thumbnail.${image.id}.webp` });
    assert.deepEqual(forImage.allowed_mentions, { parse: [] });
    const thumb = await server().fetch(new URL(forImage.embeds[0].thumbnail.url).pathname);
    assert.equal(thumb.status, 200, 'the thumbnail is served publicly');
    const forSecret = messages.find((m) => m.embeds[0].url === secret.url);
    assert.ok(forSecret);
    assert.equal(forSecret.embeds[0].thumbnail, undefined);
    assert.equal((await webhookJobs()).length, 0, 'no signed webhooks without webhookUrls');

    const short = await server().json('POST', '/api/user/urls', {
      auth: user.token,
      body: { destination: 'https://example.com/discord' },
    });
    await server().chute.worker.runUntilIdle();
    const last = JSON.parse(receiver.to('/discord').at(-1)!.body);
    assert.equal(last.embeds[0].url, short.body.url);
    assert.match(last.embeds[0].description, /https:\/\/example\.com\/discord/);
  });
});

forEachDatabase('webhook time limit', (engine) => {
  it('ends a delivery the receiver does not answer after WEBHOOK_TIMEOUT, and the server keeps serving', async () => {
    const receiver = await startReceiver();
    try {
      await withTestServer({ engine, env: { WEBHOOK_TIMEOUT: '1' } }, async (server: TestServer) => {
        const admin = await server.setup();
        const patch = await server.json('PATCH', '/api/server/settings', {
          auth: admin.token,
          body: { webhookUrls: [`${receiver.url}/silent`] },
        });
        assert.equal(patch.status, 200);
        await uploadOne(server, admin.token, 'waiting', { name: 'w.txt', type: 'text/plain' });
        await server.chute.worker.runUntilIdle();
        const job = await server.ctx.db
          .selectFrom('jobs')
          .selectAll()
          .where('kind', '=', WEBHOOK_JOB)
          .executeTakeFirstOrThrow();
        assert.equal(job.state, 'queued', 'to be tried again');
        assert.match(job.last_error ?? '', /no answer within 1000 ms/);
        assert.equal((await server.json('GET', '/api/user', { auth: admin.token })).status, 200);
      });
    } finally {
      await receiver.close();
    }
  });
});
