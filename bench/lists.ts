// The other lists at scale (issue 23, item 5): `npm run bench -- lists [--scale 1] [--engine postgres --database-url
// URL] [--samples 40]`. Seeds through Chute's own data layer (src/db, batches of 1,000 rows in transactions) a small
// and then a big instance: short URLs of one user (1,000 / 100,000), users (1,000 / 10,000), folders of one user (100 /
// 10,000: a tenth at the top, the rest inside them), and one public folder holding files that also carry a tag (1,000
// / 100,000), all sizes times --scale. At each size it times over HTTP `--samples` requests each, one after another:
// the paged lists (first, middle and last page by number, the page after a cursor in the middle), the folder and tag
// lists with their file counts, recent files, the public folder's page (first and after a cursor), and downloads the
// folder's zip once (time, entries per second, the Chute process's peak RSS). Prints p50/p95/p99, the flatness ratio
// (p95 big / p95 small; the goal is <= 1.5x + 1 ms and <= 20 ms) and the zip's figures. Not recorded in RESULTS.md.
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql, type Insertable } from 'kysely';
import { openDatabase } from '../src/db/index.js';
import { indexNewFiles } from '../src/db/schema/search-index.js';
import type { UrlsTable, UsersTable } from '../src/db/schema/tables.js';
import { parseJson, request, timeRequests, type Timing } from './lib/client.js';
import { startChuteWithUser } from './lib/chute.js';
import { fileRow } from './listing.js';
import { removeAtExit, stopProcess } from './lib/procs.js';

const BATCH = 1_000;

interface Sizes {
  urls: number;
  users: number;
  folders: number;
  folderFiles: number;
}

const SMALL: Sizes = { urls: 1_000, users: 1_000, folders: 100, folderFiles: 1_000 };
const BIG: Sizes = { urls: 100_000, users: 10_000, folders: 10_000, folderFiles: 100_000 };

interface ListsOptions {
  scale: number;
  engine: 'sqlite' | 'postgres';
  databaseUrl: string | undefined;
  samples: number;
  /** Only the folder's zip, at 1,000, 10,000 and 100,000 files (times --scale): whether its memory grows with them. */
  zipOnly: boolean;
}

function parseListsOptions(argv: string[]): ListsOptions {
  const value = (name: string) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const scale = Number(value('--scale') ?? 1);
  const engine = value('--engine') ?? 'sqlite';
  if (!(scale > 0)) throw new Error('--scale wants a positive number');
  if (engine !== 'sqlite' && engine !== 'postgres') throw new Error('--engine is sqlite or postgres');
  const databaseUrl = value('--database-url') ?? process.env.BENCH_DATABASE_URL;
  if (engine === 'postgres' && !databaseUrl)
    throw new Error('--engine postgres needs --database-url (or BENCH_DATABASE_URL): an empty database it may fill');
  return {
    scale,
    engine,
    databaseUrl,
    samples: Number(value('--samples') ?? 40),
    zipOnly: argv.includes('--zip-only'),
  };
}

const log = (message: string) => console.log(`[lists] ${message}`);

interface ZipFigures {
  entries: number;
  seconds: number;
  bytes: number;
  /** The Chute process's peak RSS during the download, and its RSS just before, in MB (10^6 bytes). */
  peakRssMb: number;
  rssBeforeMb: number;
}

export async function runListsBench(argv: string[], buildChute: () => Promise<string>): Promise<void> {
  const options = parseListsOptions(argv);
  const scaled = (s: Sizes): Sizes => ({
    urls: Math.round(s.urls * options.scale),
    users: Math.round(s.users * options.scale),
    folders: Math.max(10, Math.round(s.folders * options.scale)),
    folderFiles: Math.round(s.folderFiles * options.scale),
  });
  const zipSteps = [1_000, 10_000, 100_000].map((n) => ({ urls: 0, users: 0, folders: 0, folderFiles: n }));
  const steps = (options.zipOnly ? zipSteps : [SMALL, BIG]).map(scaled);
  const mainJs = await buildChute();
  const root = await mkdtemp(path.join(os.tmpdir(), 'chute-bench-lists-'));
  removeAtExit(root);
  const { base, child, dataDir, userId, token } = await startChuteWithUser(mainJs, root, {
    databaseUrl: options.databaseUrl,
  });
  const auth = { authorization: token, 'content-type': 'application/json' };
  const post = async (route: string, body: unknown) =>
    parseJson(
      (await request(`${base}${route}`, { method: 'POST', headers: auth, body: JSON.stringify(body) })).text,
    ) as {
      id: string;
    };
  const folderId = (await post('/api/user/folders', { name: 'bench-public', public: true })).id;
  const tagId = (await post('/api/user/tags', { name: 'bench-tag' })).id;
  // One stored object that every seeded file of the folder names, so that the zip has bytes to read.
  const blob = await request(`${base}/api/upload`, {
    method: 'POST',
    headers: { authorization: token, 'content-type': 'multipart/form-data; boundary=b' },
    body: `--b\r\nContent-Disposition: form-data; name="file"; filename="blob.txt"\r\nContent-Type: text/plain\r\n\r\n${'x'.repeat(200)}\r\n--b--\r\n`,
  });
  if (blob.status !== 200) throw new Error(`upload answered ${blob.status}: ${blob.text.slice(0, 200)}`);

  const database = openDatabase({ databaseUrl: options.databaseUrl, sqlitePath: path.join(dataDir, 'chute.db') });
  const blobName = (parseJson(blob.text) as { files: Array<{ id: string }> }).files[0]!.id;
  const { storage_key: storageKey } = await database.db
    .selectFrom('files')
    .select('storage_key')
    .where('id', '=', blobName)
    .executeTakeFirstOrThrow();
  const results: Array<Map<string, Timing>> = [];
  const zips: ZipFigures[] = [];
  const seeded: Sizes = { urls: 0, users: 1, folders: 1, folderFiles: 0 };
  const topFolders: string[] = [];
  try {
    for (const size of steps) {
      const started = Date.now();
      await seed(database.db, size, seeded, { userId, folderId, tagId, storageKey, topFolders });
      if (database.engine === 'postgres') await sql`vacuum analyze`.execute(database.db);
      log(`seeded ${JSON.stringify(size)} in ${((Date.now() - started) / 1000).toFixed(1)} s; measuring`);
      if (!options.zipOnly)
        results.push(await measure(base, token, options.samples, { folderId, parent: topFolders[0]! }));
      log('downloading the folder zip');
      zips.push(await zipDownload(`${base}/api/user/folders/${folderId}/zip`, token, child.pid!));
    }
  } catch (err) {
    const chuteLog = readFileSync(path.join(root, 'logs', 'chute.log'), 'utf8')
      .trim()
      .split('\n')
      .slice(-15);
    console.error(`--- last lines of Chute's log:\n${chuteLog.join('\n')}`);
    throw err;
  } finally {
    await database.close();
    await stopProcess(child, 30_000);
  }
  printResults(steps, results, zips, options);
}

interface SeedTargets {
  userId: string;
  folderId: string;
  tagId: string;
  storageKey: string;
  topFolders: string[];
}

type Db = ReturnType<typeof openDatabase>['db'];

async function inBatches(total: number, done: number, write: (from: number, count: number) => Promise<void>) {
  for (let n = done; n < total; n += BATCH) await write(n, Math.min(BATCH, total - n));
}

/** Adds rows up to `size` (what `seeded` says is there already), and notes the new totals in `seeded`. */
async function seed(db: Db, size: Sizes, seeded: Sizes, targets: SeedTargets): Promise<void> {
  const day = 1_600_000_000_000;
  await inBatches(size.urls, seeded.urls, async (from, count) => {
    const rows: Array<Insertable<UrlsTable>> = Array.from({ length: count }, (_, i) => {
      const n = from + i;
      const id = `u${n.toString(36).padStart(8, '0')}${randomBytes(4).toString('hex')}`;
      // Ten URLs per second of the seed: many share their date.
      return {
        id,
        user_id: targets.userId,
        code: id,
        vanity: null,
        destination: `https://example.com/${n}`,
        views: 0,
        max_views: null,
        password: null,
        enabled: 1,
        created_at: day + Math.floor(n / 10) * 1000,
        updated_at: day,
      };
    });
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('urls').values(rows).execute();
      await trx
        .insertInto('url_slugs')
        .values(rows.map((r) => ({ slug: r.code, url_id: r.id, kind: 'code' as const })))
        .execute();
    });
  });
  await inBatches(size.users, seeded.users, async (from, count) => {
    const rows: Array<Insertable<UsersTable>> = Array.from({ length: count }, (_, i) => {
      const n = from + i;
      return {
        id: `p${n.toString(36).padStart(8, '0')}${randomBytes(4).toString('hex')}`,
        username: `person-${n}`,
        username_key: `person-${n}`,
        password: null,
        avatar: null,
        role: 'USER',
        view: '{}',
        token_hash: randomBytes(16).toString('hex'),
        token_enc: randomBytes(16).toString('hex'),
        totp_secret: null,
        totp_last_step: null,
        created_at: day + n * 1000,
        updated_at: day,
      };
    });
    await db.insertInto('users').values(rows).execute();
  });
  await inBatches(size.folders, seeded.folders, async (from, count) => {
    const rows = Array.from({ length: count }, (_, i) => {
      const n = from + i;
      const id = `d${n.toString(36).padStart(8, '0')}${randomBytes(4).toString('hex')}`;
      // A tenth at the top (the first ten of each batch), the rest inside the ones above.
      const top = n % 10 === 0 || targets.topFolders.length === 0;
      if (top) targets.topFolders.push(id);
      return {
        id,
        user_id: targets.userId,
        parent_id: top ? null : targets.topFolders[n % targets.topFolders.length]!,
        name: `Folder ${(n * 7919) % 100_003}`,
        public: 0,
        allow_uploads: 0,
        created_at: day + n,
        updated_at: day + n,
      };
    });
    // Parents first: a batch's top folders are inserted before the folders inside them.
    rows.sort((a, b) => Number(a.parent_id !== null) - Number(b.parent_id !== null));
    await db.insertInto('folders').values(rows).execute();
  });
  await inBatches(size.folderFiles, seeded.folderFiles, async (from, count) => {
    const rows = Array.from({ length: count }, (_, i) => ({
      ...fileRow(targets.userId, targets.folderId, 10_000_000 + from + i),
      folder_id: targets.folderId,
      storage_key: targets.storageKey,
      size: 200,
      deletes_at: null,
    }));
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('files').values(rows).execute();
      await indexNewFiles(trx);
      await trx
        .insertInto('file_tags')
        .values(rows.map((r) => ({ file_id: r.id!, tag_id: targets.tagId })))
        .execute();
    });
  });
  Object.assign(seeded, size);
}

/** Every request, `samples` times each, one after another. */
async function measure(
  base: string,
  token: string,
  samples: number,
  ids: { folderId: string; parent: string },
): Promise<Map<string, Timing>> {
  const timings = new Map<string, Timing>();
  // A fresh keep-alive pool per size: a connection left idle while seeding has been closed by the server.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const get = async (route: string, authorised = true) => {
    const res = await request(`${base}${route}`, { headers: authorised ? { authorization: token } : {}, agent });
    if (res.status !== 200) throw new Error(`GET ${route} answered ${res.status}: ${res.text.slice(0, 200)}`);
    return res.text;
  };
  const json = async (route: string) => JSON.parse(await get(route)) as Record<string, unknown>;
  const time = async (label: string, route: string, authorised = true) => {
    log(`timing ${label}`);
    timings.set(label, await timeRequests(() => get(route, authorised), samples));
  };
  /** First, middle and last page by number, and the page after the middle one by cursor. */
  const paged = async (label: string, route: string, size: string) => {
    const sep = route.includes('?') ? '&' : '?';
    const pages = Number((await json(`${route}${sep}page=1&${size}`)).pages);
    const middle = Math.max(1, Math.ceil(pages / 2));
    await time(`${label} page 1`, `${route}${sep}page=1&${size}`);
    await time(`${label} page middle`, `${route}${sep}page=${middle}&${size}`);
    await time(`${label} page last`, `${route}${sep}page=${pages}&${size}`);
    const cursor = (await json(`${route}${sep}page=${middle}&${size}`)).nextCursor;
    if (typeof cursor === 'string')
      await time(`${label} cursor middle`, `${route}${sep}cursor=${encodeURIComponent(cursor)}&${size}`);
  };
  try {
    await measureAll(paged, time, get, ids);
  } finally {
    agent.destroy();
  }
  return timings;
}

async function measureAll(
  paged: (label: string, route: string, size: string) => Promise<void>,
  time: (label: string, route: string, authorised?: boolean) => Promise<void>,
  get: (route: string, authorised?: boolean) => Promise<string>,
  ids: { folderId: string; parent: string },
): Promise<void> {
  await paged('urls', '/api/user/urls', 'perPage=50');
  await paged('users', '/api/users', 'perpage=20');
  await paged('folders', '/api/user/folders', 'perpage=50');
  await paged('folder children', `/api/user/folders?parentId=${ids.parent}`, 'perpage=50');
  await time('folders top level page 1', '/api/user/folders?parentId=root&perpage=50&page=1');
  await time('tags with file counts', '/api/user/tags');
  await time('recent (take 10)', '/api/user/recent?take=10');
  await time('public folder page', `/folder/${ids.folderId}`, false);
  const older = /href="\/folder\/[^"?]+\?after=([^"]+)">Older files/.exec(await get(`/folder/${ids.folderId}`, false));
  if (older) await time('public folder page, older', `/folder/${ids.folderId}?after=${older[1]}`, false);
}

/** The process's RSS and peak RSS (VmHWM) in MB. */
function memoryOf(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rss: (kb('VmRSS') * 1024) / 1e6, hwm: (kb('VmHWM') * 1024) / 1e6 };
}

/** Downloads the zip (counting its bytes and entries), sampling Chute's RSS, with its peak reset before. */
async function zipDownload(url: string, token: string, pid: number): Promise<ZipFigures> {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
  } catch {
    // Not allowed here: the sampled RSS below still shows the peak closely.
  }
  const rssBeforeMb = memoryOf(pid).rss;
  let peak = rssBeforeMb;
  const sampler = setInterval(() => {
    peak = Math.max(peak, memoryOf(pid).rss);
  }, 25);
  const started = process.hrtime.bigint();
  try {
    const { bytes, entries } = await new Promise<{ bytes: number; entries: number }>((resolve, reject) => {
      http
        .get(url, { headers: { authorization: token }, agent: false }, (res) => {
          if (res.statusCode !== 200) return reject(new Error(`GET ${url} answered ${res.statusCode}`));
          let total = 0;
          let tail = Buffer.alloc(0);
          res.on('data', (chunk: Buffer) => {
            total += chunk.length;
            tail = Buffer.concat([tail, chunk]).subarray(-4096);
          });
          res.once('end', () => {
            // The end of central directory record (or its zip64 form) names the number of entries.
            const eocd = tail.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
            const zip64 = tail.lastIndexOf(Buffer.from([0x50, 0x4b, 0x06, 0x06]));
            const count = zip64 >= 0 ? Number(tail.readBigUInt64LE(zip64 + 32)) : tail.readUInt16LE(eocd + 10);
            resolve({ bytes: total, entries: count });
          });
          res.once('error', reject);
        })
        .once('error', reject);
    });
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    return { entries, seconds, bytes, peakRssMb: Math.max(peak, memoryOf(pid).hwm), rssBeforeMb };
  } finally {
    clearInterval(sampler);
  }
}

function printResults(steps: Sizes[], results: Array<Map<string, Timing>>, zips: ZipFigures[], options: ListsOptions) {
  if (results.length > 0) printLists(steps, results, options);
  console.log('\nFolder zip (one download each):\n');
  console.log('| files | seconds | entries/s | MB | RSS before (MB) | peak RSS (MB) | peak - before (MB) |');
  console.log('|---|---|---|---|---|---|---|');
  for (const z of zips) {
    console.log(
      `| ${z.entries} | ${z.seconds.toFixed(1)} | ${Math.round(z.entries / z.seconds)} | ${(z.bytes / 1e6).toFixed(1)} | ${z.rssBeforeMb.toFixed(0)} | ${z.peakRssMb.toFixed(0)} | ${(z.peakRssMb - z.rssBeforeMb).toFixed(0)} |`,
    );
  }
}

function printLists(steps: Sizes[], results: Array<Map<string, Timing>>, options: ListsOptions) {
  const [small, big] = steps as [Sizes, Sizes];
  const [atSmall, atBig] = results as [Map<string, Timing>, Map<string, Timing>];
  const fmt = (n: number | undefined) => (n === undefined ? '-' : n.toFixed(1));
  console.log(
    `\nThe other lists on ${options.engine}, ${options.samples} requests each (ms). Small: ${JSON.stringify(small)}; ` +
      `big: ${JSON.stringify(big)}\n`,
  );
  const header = ['request', 'p50 small', 'p95 small', 'p99 small', 'p50 big', 'p95 big', 'p99 big', 'flatness', 'ok'];
  console.log(`| ${header.join(' | ')} |`);
  console.log(`|${header.map(() => '---').join('|')}|`);
  let failing = 0;
  for (const [label, s] of atSmall) {
    const b = atBig.get(label);
    const flat = b !== undefined && b.p95 <= 1.5 * s.p95 + 1 && b.p95 <= 20;
    if (!flat) failing += 1;
    const ratio = b ? `${(b.p95 / s.p95).toFixed(2)}x` : '-';
    console.log(
      `| ${label} | ${fmt(s.p50)} | ${fmt(s.p95)} | ${fmt(s.p99)} | ${fmt(b?.p50)} | ${fmt(b?.p95)} | ${fmt(b?.p99)} | ${ratio} | ${flat ? 'yes' : 'NO'} |`,
    );
  }
  console.log(`\nflat (p95 big <= 1.5 x p95 small + 1 ms, and <= 20 ms): ${atSmall.size - failing} of ${atSmall.size}`);
}
