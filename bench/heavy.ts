// Heavy work next to light requests (issue 23, item 6): `npm run bench -- heavy --files N`, on SQLite.
// Seeds through Chute's own data layer (the rows of bench/listing.ts): a user with N files, 10,000 files of the admin
// for one bulk delete, min(N, 100,000) files in a folder (with their bytes, for its zip) and min(N, 100,000) files that
// expire. Then measures one redirect (GET /go/<code>, one request after another on a kept-alive connection) at rest and
// while each heavy operation runs: the bulk delete (one DELETE /api/user/files/transaction of 10,000 files), the
// folder's zip, the full export (GET /api/server/export, every record), the expiry sweep (the periodic job, within a
// minute of the files expiring), searches of the user's files that match two in three of them (each counts every
// match), searches of min(N, 100,000) short URLs matching two in three of them, and deleting the user with their files
// (answered at once, finished in the background). The goal: p99 during each below 3x the p99 at rest and below 50 ms.
// `--only export,zip` measures only those (names: bulk, zip, export, sweep, search, urls, user). Not recorded in
// bench/RESULTS.md.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql, type Insertable } from 'kysely';
import { openDatabase } from '../src/db/index.js';
import { indexNewFiles } from '../src/db/schema/search-index.js';
import type { FilesTable, UrlsTable } from '../src/db/schema/tables.js';
import { percentile, request } from './lib/client.js';
import { startChuteWithUser } from './lib/chute.js';
import { removeAtExit, stopProcess } from './lib/procs.js';
import { fileRow } from './listing.js';

const BULK_FILES = 10_000;
const MAX_GROUP = 100_000;
const SEED_BATCH = 1_000;
const REST_MS = 5_000;
/** The heavy operations, in the order they run; `--only export,sweep` runs some of them (after the rest figure). */
const STEPS = ['bulk', 'zip', 'export', 'sweep', 'search', 'urls', 'user'];
/** How many broad searches the `search` step makes, one after another. */
const SEARCHES = 5;

const log = (message: string) => console.log(`[heavy] ${message}`);

interface Latency {
  samples: number;
  p50: number;
  p99: number;
  max: number;
  ms: number;
}

export async function runHeavyBench(argv: string[], buildChute: () => Promise<string>): Promise<void> {
  const i = argv.indexOf('--files');
  const files = Number(i >= 0 ? argv[i + 1] : 100_000);
  if (!Number.isInteger(files) || files < 1) throw new Error('--files wants a whole number of files');
  const o = argv.indexOf('--only');
  const only = new Set(o >= 0 ? (argv[o + 1] ?? '').split(',') : STEPS);
  for (const step of only) if (!STEPS.includes(step)) throw new Error(`--only takes some of ${STEPS.join(',')}`);
  const group = Math.min(files, MAX_GROUP);
  const mainJs = await buildChute();
  const root = await mkdtemp(path.join(os.tmpdir(), 'chute-bench-heavy-'));
  removeAtExit(root);
  const { base, child, dataDir, userId, token } = await startChuteWithUser(mainJs, root);
  const database = openDatabase({ sqlitePath: path.join(dataDir, 'chute.db') });
  try {
    const api = apiOf(base, userId, token);
    const victimId = (
      await api.send('POST', '/api/users', { username: 'victim', password: randomBytes(12).toString('hex') })
    ).id as string;
    const folderId = (await api.send('POST', '/api/user/folders', { name: 'zip-me' })).id as string;
    const code = (await api.send('POST', '/api/user/urls', { destination: 'https://example.com/' })).code as string;

    // The seed: n counts across the groups, so that every name is different.
    let n = 0;
    const seed = async (
      count: number,
      row: (n: number) => Insertable<FilesTable>,
      onBatch?: (rows: Array<Insertable<FilesTable>>) => Promise<void>,
    ) => {
      const ids: string[] = [];
      for (let done = 0; done < count;) {
        const rows = Array.from({ length: Math.min(SEED_BATCH, count - done) }, () => row(n++));
        await database.db.transaction().execute(async (trx) => {
          await trx.insertInto('files').values(rows).execute();
          await indexNewFiles(trx);
        });
        await onBatch?.(rows);
        ids.push(...rows.map((r) => r.id!));
        done += rows.length;
        if (done % 100_000 === 0) log(`  ${done.toLocaleString('en')} of ${count.toLocaleString('en')}`);
      }
      return ids;
    };
    const plain = (owner: string) => (k: number) => ({
      ...fileRow(owner, folderId, k),
      folder_id: null,
      deletes_at: null,
    });
    const started = Date.now();
    log(`seeding: the user's ${files.toLocaleString('en')} files`);
    await seed(files, plain(victimId));
    log(`seeding: ${BULK_FILES.toLocaleString('en')} files for the bulk delete`);
    const bulkIds = await seed(BULK_FILES, plain(api.userId));
    log(`seeding: ${group.toLocaleString('en')} files in a folder, with their bytes`);
    await mkdir(path.join(dataDir, 'uploads', 'bench'), { recursive: true });
    await seed(
      group,
      (k) => ({ ...plain(api.userId)(k), folder_id: folderId }),
      async (rows) => {
        await Promise.all(rows.map((r) => writeFile(path.join(dataDir, 'uploads', r.storage_key!), 'x')));
      },
    );
    log(`seeding: ${group.toLocaleString('en')} files that will expire`);
    // Far in the future for now: the sweep is started below, by moving their expiry into the past.
    const expiring = 4_000_000_000_000;
    await seed(group, (k) => ({ ...plain(api.userId)(k), deletes_at: expiring }));
    if (only.has('urls')) {
      log(`seeding: ${group.toLocaleString('en')} short URLs`);
      for (let done = 0; done < group; done += SEED_BATCH) {
        const rows = Array.from({ length: Math.min(SEED_BATCH, group - done) }, (_, k): Insertable<UrlsTable> => ({
          id: `bu${done + k}`,
          user_id: api.userId,
          code: `bc${done + k}`,
          vanity: null,
          destination: `https://${(done + k) % 3 === 0 ? 'other' : 'bildschirm'}.example/${done + k}`,
          views: 0,
          max_views: null,
          password: null,
          enabled: 1,
          created_at: 1_700_000_000_000 + done + k,
          updated_at: 1_700_000_000_000,
        }));
        await database.db.transaction().execute((trx) => trx.insertInto('urls').values(rows).execute());
      }
    }
    log(`seeded in ${((Date.now() - started) / 1000).toFixed(0)} s`);

    const results: Array<[string, Latency]> = [];
    // Each result as soon as it is there (a later failure keeps the earlier ones).
    const push = results.push.bind(results);
    results.push = (...entries) => {
      for (const [label, t] of entries) log(`  ${label}: p50 ${t.p50.toFixed(2)} ms, p99 ${t.p99.toFixed(2)} ms`);
      return push(...entries);
    };
    const redirect = `${base}/go/${code}`;
    log('at rest');
    results.push(['at rest', await measureWhile(redirect, sleep(REST_MS))]);

    if (only.has('bulk')) {
      log(`bulk delete of ${BULK_FILES.toLocaleString('en')} files`);
      results.push([
        `DELETE /api/user/files/transaction (${BULK_FILES.toLocaleString('en')} files)`,
        await measureWhile(
          redirect,
          api.send('DELETE', '/api/user/files/transaction', { files: bulkIds }).then((body) => {
            if (body.count !== BULK_FILES)
              throw new Error(`the bulk delete answered ${JSON.stringify(body).slice(0, 200)}`);
          }),
        ),
      ]);
    }
    if (only.has('zip')) {
      log(`zip of a folder of ${group.toLocaleString('en')} files`);
      results.push([
        `folder zip (${group.toLocaleString('en')} files)`,
        await measureWhile(redirect, download(`${base}/api/user/folders/${folderId}/zip`, api.token)),
      ]);
    }
    if (only.has('export')) {
      log('full export');
      results.push([
        `GET /api/server/export (${(files + 2 * group).toLocaleString('en')} files)`,
        await measureWhile(redirect, download(`${base}/api/server/export`, api.token)),
      ]);
    }
    if (only.has('sweep')) {
      log(`expiry sweep of ${group.toLocaleString('en')} files (the job runs within a minute)`);
      const expired = () =>
        database.db
          .selectFrom('files')
          .select('id')
          .where('deletes_at', '<=', Date.now())
          .limit(1)
          .executeTakeFirst()
          .then((row) => row !== undefined);
      // One statement of the benchmark (not of Chute); the sweep's own time is measured from its first deletion on.
      await sql`update files set deletes_at = ${Date.now() - 1000} where deletes_at = ${expiring}`.execute(database.db);
      const total = group;
      const remaining = async () =>
        Number(
          (
            await sql<{ n: number }>`select count(*) as n from files where deletes_at <= ${Date.now()}`.execute(
              database.db,
            )
          ).rows[0]!.n,
        );
      for (let waited = 0; (await remaining()) === total; waited += 20) {
        if (waited > 120_000) throw new Error('the expiry sweep did not start within two minutes');
        await sleep(20);
      }
      results.push([
        `expiry sweep (${group.toLocaleString('en')} files)`,
        await measureWhile(
          redirect,
          waitUntil(async () => !(await expired())),
        ),
      ]);
    }
    if (only.has('search')) {
      log(`${SEARCHES} searches matching ${Math.round((files * 2) / 3).toLocaleString('en')} files, one after another`);
      const route = `/api/user/files?id=${victimId}&searchField=originalName&searchQuery=bildschirm&perpage=24`;
      results.push([
        `${SEARCHES} searches matching 2 in 3 of ${files.toLocaleString('en')} files`,
        await measureWhile(redirect, searchesOf(base, route, api.token)),
      ]);
    }
    if (only.has('urls')) {
      log(`${SEARCHES} searches matching ${Math.round((group * 2) / 3).toLocaleString('en')} short URLs`);
      const route = `/api/user/urls?searchField=destination&searchQuery=bildschirm&page=1&perPage=24`;
      results.push([
        `${SEARCHES} searches matching 2 in 3 of ${group.toLocaleString('en')} short URLs`,
        await measureWhile(redirect, searchesOf(base, route, api.token)),
      ]);
    }
    if (only.has('user')) {
      log(`deleting the user with ${files.toLocaleString('en')} files`);
      const ofVictim = () =>
        database.db
          .selectFrom('files')
          .select('id')
          .where('user_id', '=', victimId)
          .limit(1)
          .executeTakeFirst()
          .then((row) => row !== undefined);
      const deletionStarted = Date.now();
      results.push([
        `deleting a user with ${files.toLocaleString('en')} files`,
        await measureWhile(
          redirect,
          api
            .send('DELETE', `/api/users/${victimId}`, { delete: true })
            .then(() => waitUntil(async () => !(await ofVictim()))),
        ),
      ]);
      log(`the user's rows went in ${((Date.now() - deletionStarted) / 1000).toFixed(1)} s`);
    }
    printResults(files, results);
  } finally {
    await database.close();
    await stopProcess(child, 30_000);
  }
}

/** JSON calls to the API as the first user. */
function apiOf(base: string, userId: string, token: string) {
  const send = async (method: string, route: string, body: unknown): Promise<Record<string, unknown>> => {
    const text = JSON.stringify(body);
    const res = await request(`${base}${route}`, {
      method,
      headers: {
        authorization: token,
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(text)),
      },
      body: text,
      timeoutMs: 600_000,
    });
    if (res.status !== 200) throw new Error(`${method} ${route} answered ${res.status}: ${res.text.slice(0, 200)}`);
    return JSON.parse(res.text) as Record<string, unknown>;
  };
  return { userId, token, send };
}

/**
 * Reads a (large) answer to its end without keeping it, in a process of its own (curl to /dev/null): receiving 100 MB
 * in this process would take CPU from the loop that measures the redirects, and its small stalls would count as
 * Chute's.
 */
function download(url: string, token: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      'curl',
      ['-sS', '--noproxy', '*', '--fail', '-o', '/dev/null', '-H', `authorization: ${token}`, url],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`GET ${url}: curl exited with ${code}: ${stderr.trim()}`)),
    );
  });
}

/** SEARCHES requests of `route`, one after another. */
async function searchesOf(base: string, route: string, token: string): Promise<void> {
  for (let k = 0; k < SEARCHES; k++) {
    const res = await request(`${base}${route}`, { headers: { authorization: token }, timeoutMs: 600_000 });
    if (res.status !== 200) throw new Error(`GET ${route} answered ${res.status}: ${res.text.slice(0, 200)}`);
  }
}

async function waitUntil(done: () => Promise<boolean>): Promise<void> {
  while (!(await done())) await sleep(100);
}

/**
 * Redirects one after another until `work` settles: their latencies. A sample that overlaps one of the benchmark's own
 * database reads (synchronous in this process) is left out, since that time is the benchmark's, not Chute's.
 */
async function measureWhile(url: string, work: Promise<unknown>): Promise<Latency> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  let settled = false;
  let failure: unknown;
  const started = performance.now();
  void work.then(
    () => (settled = true),
    (err: unknown) => {
      failure = err;
      settled = true;
    },
  );
  const ms: number[] = [];
  // Event-loop delay of this process: a sample during which the loop stalled (a read of ours) is dropped.
  let lastTick = performance.now();
  let stalledAt = -1;
  const ticker = setInterval(() => {
    const now = performance.now();
    if (now - lastTick > 8) stalledAt = now;
    lastTick = now;
  }, 2);
  try {
    while (!settled) {
      const t = performance.now();
      const res = await request(url, { agent });
      const end = performance.now();
      if (res.status !== 302) throw new Error(`the redirect answered ${res.status}`);
      if (stalledAt < t) ms.push(end - t);
    }
  } finally {
    clearInterval(ticker);
    agent.destroy();
  }
  if (failure) throw failure;
  return {
    samples: ms.length,
    p50: percentile(ms, 50),
    p99: percentile(ms, 99),
    max: ms.reduce((a, b) => Math.max(a, b), 0),
    ms: performance.now() - started,
  };
}

function printResults(files: number, results: Array<[string, Latency]>): void {
  const rest = results[0]![1];
  console.log(`\nA redirect (GET /go/<code>) at rest and during heavy work, SQLite, --files ${files} (ms):\n`);
  console.log('| during | took (s) | redirects | p50 | p99 | max | p99 / rest | ok (< 3x rest and < 50 ms) |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const [label, t] of results) {
    const ratio = t.p99 / rest.p99;
    const ok = label === 'at rest' ? '' : ratio < 3 && t.p99 < 50 ? 'yes' : 'NO';
    console.log(
      `| ${label} | ${(t.ms / 1000).toFixed(1)} | ${t.samples} | ${t.p50.toFixed(2)} | ${t.p99.toFixed(2)} | ` +
        `${t.max.toFixed(1)} | ${label === 'at rest' ? '' : `${ratio.toFixed(2)}x`} | ${ok} |`,
    );
  }
}
