// Many instances behave as one (issue 16): three Chute processes behind HAProxy (round robin, no stickiness) on one
// PostgreSQL, one Redis and one storage (Ceph RGW, and once a shared local folder). Chunked uploads hop to another
// instance with every chunk and end byte-exact; a mixed load runs with zero errors; one instance is killed with
// kill -9 in the middle of a load: only requests in flight at that moment may fail, every acknowledged upload is
// there afterwards, and the queue jobs the dead instance held are taken over by the others.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { Redis } from 'ioredis';
import pg from 'pg';
import sharp from 'sharp';
import { randomString } from '../../src/lib/security/ids.js';
import { startCluster, type Cluster } from '../support/cluster.js';
import { httpClientOf } from '../support/chute-process.js';
import { sendChunk } from '../support/chunked-uploads.js';
import { s3TestEnv } from '../support/s3.js';
import { createPostgresDatabase, readJsonResponse, type TestServer } from '../support/server.js';

const LOAD_SECONDS = Number(process.env.CLUSTER_LOAD_SECONDS ?? 60);
const CLIENTS = 8;
const hasHaproxy = spawnSync('haproxy', ['-v'], { stdio: 'ignore' }).status === 0;
const skip = !process.env.TEST_DATABASE_URL
  ? 'the cluster shares PostgreSQL: set TEST_DATABASE_URL'
  : !hasHaproxy && process.env.CI !== 'true'
    ? 'HAProxy is not installed (apt-get install haproxy)'
    : false;

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Uploads acknowledged by the cluster: served name -> hash of the bytes. */
type Acknowledged = Map<string, string>;

interface Failure {
  op: string;
  startedAt: number;
  error: string;
}

/** Waits until the chunked upload's file is COMPLETE. */
async function waitComplete(client: TestServer, token: string, incompleteId: string): Promise<void> {
  for (let i = 0; i < 3000; i++) {
    const res = await client.json('GET', '/api/user/files/incomplete', { auth: token });
    if (res.status !== 200) throw new Error(`incomplete files: ${res.status}`);
    const record = (res.body as Array<{ id: string; status: string }>).find((r) => r.id === incompleteId);
    if (record?.status === 'COMPLETE') return;
    if (record?.status === 'FAILED') throw new Error(`assembly of ${incompleteId} failed`);
    await sleep(20);
  }
  throw new Error(`assembly of ${incompleteId} never finished`);
}

/** A chunked upload in `chunks` chunks; returns the served name and which instance took each chunk. */
async function chunkedUpload(
  client: TestServer,
  token: string,
  file: Buffer,
  chunks: number,
  db?: pg.Client,
): Promise<{ name: string; takenBy: string[] }> {
  const size = Math.ceil(file.length / chunks);
  let partialToken: string | undefined;
  const takenBy: string[] = [];
  for (let start = 0; start < file.length; start += size) {
    const end = Math.min(file.length, start + size) - 1;
    const res = await sendChunk(client, token, { file, start, end, token: partialToken, fileName: 'hop.bin' });
    if (res.status !== 200) throw new Error(`chunk ${start}-${end}: ${res.status} ${JSON.stringify(res.body)}`);
    if (db) {
      const row = await db.query<{ instance_id: string }>(
        'select instance_id from upload_sessions order by updated_at desc limit 1',
      );
      takenBy.push(row.rows[0]?.instance_id ?? 'gone');
    }
    if (end === file.length - 1) {
      await waitComplete(client, token, res.body.incompleteFileId);
      return { name: res.body.files[0].name, takenBy };
    }
    partialToken = res.body.partialToken;
  }
  throw new Error('empty file');
}

/**
 * `CLIENTS` clients doing what users do (small uploads, reads of what was uploaded, short links followed, listings,
 * chunked uploads) until `until`. Every acknowledged upload goes into `acknowledged`; every failure into `failures`.
 */
async function mixedLoad(
  client: TestServer,
  token: string,
  until: () => boolean,
  acknowledged: Acknowledged,
  failures: Failure[],
): Promise<number> {
  let done = 0;
  const names = () => [...acknowledged.keys()];
  const op = async (name: string, fn: () => Promise<void>) => {
    const startedAt = Date.now();
    try {
      await fn();
      done++;
    } catch (err) {
      const cause = (err as { cause?: { code?: string } }).cause?.code;
      const message = err instanceof Error ? err.message : String(err);
      failures.push({ op: name, startedAt, error: cause ? `${message} (${cause})` : message });
    }
  };
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, c) => {
      for (let n = 0; !until(); n++) {
        const pick = (c * 7 + n) % 10;
        if (pick < 4) {
          await op('upload', async () => {
            const bytes = randomBytes(1024 + ((c * 977 + n * 131) % (64 * 1024)));
            const form = new FormData();
            form.append('file', new Blob([bytes]), `c${c}-${n}.bin`);
            const res = await readJsonResponse(
              await client.fetch('/api/upload', { method: 'POST', headers: { authorization: token }, body: form }),
            );
            if (res.status !== 200) throw new Error(`upload: ${res.status} ${JSON.stringify(res.body)}`);
            acknowledged.set(res.body.files[0].name, sha256(bytes));
          });
        } else if (pick < 7) {
          const all = names();
          if (all.length === 0) continue;
          const name = all[(c * 31 + n * 17) % all.length]!;
          await op('read', async () => {
            const res = await client.fetch(`/raw/${encodeURIComponent(name)}`);
            const bytes = Buffer.from(await res.arrayBuffer());
            if (res.status !== 200) throw new Error(`read ${name}: ${res.status}`);
            if (sha256(bytes) !== acknowledged.get(name)) throw new Error(`read ${name}: other bytes`);
          });
        } else if (pick === 7) {
          await op('shorten+follow', async () => {
            const made = await client.json('POST', '/api/user/urls', {
              auth: token,
              body: { destination: `https://example.com/${c}/${n}` },
            });
            if (made.status !== 200) throw new Error(`shorten: ${made.status} ${JSON.stringify(made.body)}`);
            const res = await client.fetch(new URL(made.body.url).pathname);
            await res.arrayBuffer();
            if (res.status !== 302 || res.headers.get('location') !== `https://example.com/${c}/${n}`) {
              throw new Error(`follow: ${res.status} ${res.headers.get('location')}`);
            }
          });
        } else if (pick === 8) {
          await op('list', async () => {
            const res = await client.json('GET', '/api/user/files?page=1&perpage=20', { auth: token });
            if (res.status !== 200) throw new Error(`list: ${res.status}`);
          });
        } else {
          await op('chunked', async () => {
            const bytes = randomBytes(96 * 1024 + ((c * 313 + n) % 4096));
            const { name } = await chunkedUpload(client, token, bytes, 3);
            acknowledged.set(name, sha256(bytes));
          });
        }
      }
    }),
  );
  return done;
}

/** Every acknowledged upload is served byte-exact through the balancer. */
async function assertAllServed(client: TestServer, acknowledged: Acknowledged): Promise<void> {
  const missing: string[] = [];
  for (const [name, hash] of acknowledged) {
    const res = await client.fetch(`/raw/${encodeURIComponent(name)}`);
    const bytes = Buffer.from(await res.arrayBuffer());
    if (res.status !== 200 || sha256(bytes) !== hash) missing.push(`${name}: ${res.status}`);
  }
  assert.deepEqual(missing, [], 'every acknowledged upload is there, byte-exact');
}

/** A PNG big enough that its thumbnail takes a moment to make. */
async function photo(seed: number): Promise<Buffer> {
  return sharp({
    create: { width: 2400, height: 1800, channels: 3, background: { r: seed % 256, g: 80, b: 160 } },
  })
    .png({ compressionLevel: 1 })
    .toBuffer();
}

async function scenario(t: { diagnostic: (message: string) => void }, storageEnv: Record<string, string>) {
  const root = await mkdtemp(path.join(os.tmpdir(), 'chute-cluster-'));
  const database = await createPostgresDatabase();
  const db = new pg.Client({ connectionString: database.url });
  // The three instances share one prefix of their own, so that two runs of the suite at once (CI runs it on two Node
  // versions side by side) never count each other's requests.
  const redisPrefix = `chute-test-${randomString(10)}:`;
  let cluster: Cluster | undefined;
  try {
    cluster = await startCluster({
      count: 3,
      databaseUrl: database.url,
      root,
      env: {
        ...(process.env.TEST_REDIS_URL ? { REDIS_URL: process.env.TEST_REDIS_URL, REDIS_PREFIX: redisPrefix } : {}),
        RATELIMIT_MAX: '1000000',
        JOBS_CONCURRENCY: '1',
        JOBS_LEASE_SECONDS: '5',
        ...storageEnv,
      },
    });
    await db.connect();
    const client = httpClientOf(cluster.url);
    const admin = await client.setup();
    if (process.env.TEST_REDIS_URL) {
      // The setup request is rate-limited: the instance that took it counted it under this test's prefix.
      const redis = new Redis(process.env.TEST_REDIS_URL);
      try {
        const keys = await redis.keys(`${redisPrefix}ratelimit:*`);
        assert.ok(keys.length > 0, 'the setup request was counted in Redis under the test prefix');
      } finally {
        await redis.quit();
      }
    }
    const acknowledged: Acknowledged = new Map();

    // 1. Every chunk of an upload on another instance than the one before (round robin), byte-exact at the end.
    const file = randomBytes(6 * 1024 * 1024 + 12_345);
    const hop = await chunkedUpload(client, admin.token, file, 6, db);
    acknowledged.set(hop.name, sha256(file));
    t.diagnostic(`chunks taken by ${hop.takenBy.join(' ')}`);
    assert.equal(new Set(hop.takenBy.slice(0, 5)).size, 3, 'the chunks went to all three instances');
    for (let i = 1; i < 5; i++) assert.notEqual(hop.takenBy[i], hop.takenBy[i - 1], 'each chunk on another instance');
    await assertAllServed(client, acknowledged);

    // 2. A mixed load with zero errors.
    const failures: Failure[] = [];
    const loadEnds = Date.now() + LOAD_SECONDS * 1000;
    const requests = await mixedLoad(client, admin.token, () => Date.now() > loadEnds, acknowledged, failures);
    t.diagnostic(`mixed load: ${requests} operations in ${LOAD_SECONDS} s, ${failures.length} failed`);
    assert.deepEqual(failures, [], 'no request failed');

    // 3. kill -9 of one instance while it holds a queue job and the load runs.
    const victim = 1;
    const victimName = cluster.names[victim]!;
    const killFailures: Failure[] = [];
    let stopLoad = false;
    const load = mixedLoad(client, admin.token, () => stopLoad, acknowledged, killFailures);
    let killedAt = 0;
    let heldJobs: string[] = [];
    for (let i = 0; i < 200 && killedAt === 0; i++) {
      const form = new FormData();
      form.append('file', new Blob([await photo(i)], { type: 'image/png' }), `photo-${i}.png`);
      const res = await readJsonResponse(
        await client.fetch('/api/upload', { method: 'POST', headers: { authorization: admin.token }, body: form }),
      );
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const running = await db.query<{ id: string }>(
        `select id from jobs where state = 'running' and lease_owner like $1`,
        [`${victimName}:%`],
      );
      if (running.rows.length > 0) {
        heldJobs = running.rows.map((r) => r.id);
        await cluster.kill(victim);
        // The process is gone: what started before this moment may have been in flight on it.
        killedAt = Date.now();
      }
    }
    assert.ok(killedAt > 0, `${victimName} never ran a thumbnail job`);
    await sleep(5_000);
    stopLoad = true;
    const requestsDuringKill = await load;
    t.diagnostic(
      `kill -9 of ${victimName} holding jobs ${heldJobs.join(', ')}: ${requestsDuringKill} operations, ` +
        `${killFailures.length} failed (${killFailures.map((f) => `${f.op}: ${f.error}`).join('; ')})`,
    );
    assert.deepEqual(
      killFailures.filter((f) => f.startedAt > killedAt),
      [],
      'only requests in flight when the instance died may fail',
    );
    assert.ok(killFailures.length <= CLIENTS, 'at most one request in flight per client');

    // Every acknowledged upload is there, and the jobs the dead instance held are done by the others.
    await assertAllServed(client, acknowledged);
    for (let i = 0; ; i++) {
      const open = await db.query(`select id from jobs where state in ('queued', 'running')`);
      if (open.rows.length === 0) break;
      assert.ok(i < 600, 'the queue never emptied');
      await sleep(100);
    }
    const held = await db.query<{ state: string; attempts: number; updated_at: string }>(
      'select state, attempts, updated_at from jobs where id = any($1)',
      [heldJobs],
    );
    for (const job of held.rows) {
      assert.equal(job.state, 'done');
      // A job may have been finished by the victim between the look-up above and the kill: then once is right.
      const finishedBeforeTheKill = job.attempts === 1 && Number(job.updated_at) < killedAt;
      assert.ok(job.attempts >= 2 || finishedBeforeTheKill, 'taken again after the lease of the dead instance ran out');
    }
    const failed = await db.query(`select id, last_error from jobs where state = 'failed'`);
    assert.deepEqual(failed.rows, [], 'no job failed');
  } finally {
    await cluster?.close();
    await db.end().catch(() => undefined);
    await database.drop();
    await rm(root, { recursive: true, force: true });
    if (process.env.TEST_REDIS_URL) {
      const redis = new Redis(process.env.TEST_REDIS_URL);
      const keys = await redis.keys(`${redisPrefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      await redis.quit();
    }
  }
}

describe('three instances behind a load balancer', { skip, timeout: 15 * 60_000 }, () => {
  it('on S3 (Ceph RGW): chunks hop, a mixed load has no errors, kill -9 loses nothing', async (t) => {
    const s3 = await s3TestEnv();
    if (!s3) return t.skip('no S3 gateway');
    try {
      await scenario(t, s3.env);
    } finally {
      await s3.drop();
    }
  });

  it('on a shared local folder: the same', async (t) => {
    const uploads = await mkdtemp(path.join(os.tmpdir(), 'chute-cluster-uploads-'));
    try {
      await scenario(t, { UPLOADS_DIR: uploads });
    } finally {
      await rm(uploads, { recursive: true, force: true });
    }
  });
});
