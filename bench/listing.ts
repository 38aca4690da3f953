// The file list at scale (issue 23): `npm run bench -- listing --files N [--engine postgres --database-url URL]`.
// Seeds one user's files through Chute's own data layer (src/db, batches of 1,000 rows in transactions, the search
// index following by its triggers or GIN indexes), up to 10,000 / 100,000 / 1,000,000 (the sizes up to N, and N),
// and at each size measures over HTTP every sort and order on the first, middle and last page by number, the page
// after a cursor at the start, the middle and the end, each filter and searches on each field: p50/p95/p99 of
// `--samples` requests (default 40) one after another. Then the flatness ratios against the smallest size (p95 at N
// over p95 at the first size; the goal is <= 1.5x + 1 ms) and the database's bytes per file. `--only TEXT` measures
// only the requests whose label holds TEXT (e.g. `--only search`). Not recorded in bench/RESULTS.md.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql, type Insertable } from 'kysely';
import { openDatabase } from '../src/db/index.js';
import { indexNewFiles } from '../src/db/schema/search-index.js';
import type { FilesTable } from '../src/db/schema/tables.js';
import { FILE_SEARCH_FIELDS, FILE_SORT_FIELDS } from '../src/lib/file-list.js';
import { parseJson, request, timeRequests, type Timing } from './lib/client.js';
import { startChuteWithUser } from './lib/chute.js';
import { removeAtExit, stopProcess } from './lib/procs.js';

const STEPS = [10_000, 100_000, 1_000_000];
const BATCH = 1_000;

interface ListingOptions {
  files: number;
  engine: 'sqlite' | 'postgres';
  databaseUrl: string | undefined;
  samples: number;
  /** Only the requests whose label holds this text. */
  only: string | undefined;
}

function parseListingOptions(argv: string[]): ListingOptions {
  const value = (name: string) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const files = Number(value('--files') ?? 10_000);
  const engine = value('--engine') ?? 'sqlite';
  if (!Number.isInteger(files) || files < 1) throw new Error('--files wants a whole number of files');
  if (engine !== 'sqlite' && engine !== 'postgres') throw new Error('--engine is sqlite or postgres');
  const databaseUrl = value('--database-url') ?? process.env.BENCH_DATABASE_URL;
  if (engine === 'postgres' && !databaseUrl)
    throw new Error('--engine postgres needs --database-url (or BENCH_DATABASE_URL): an empty database it may fill');
  return { files, engine, databaseUrl, samples: Number(value('--samples') ?? 40), only: value('--only') };
}

const log = (message: string) => console.log(`[listing] ${message}`);

export async function runListingBench(argv: string[], buildChute: () => Promise<string>): Promise<void> {
  const options = parseListingOptions(argv);
  const sizes = [...new Set([...STEPS.filter((n) => n < options.files), options.files])];
  const mainJs = await buildChute();
  const root = await mkdtemp(path.join(os.tmpdir(), 'chute-bench-listing-'));
  removeAtExit(root);
  const { base, child, dataDir, userId, token } = await startChuteWithUser(mainJs, root, {
    databaseUrl: options.databaseUrl,
  });
  const me = { id: userId, token };
  const auth = { authorization: me.token, 'content-type': 'application/json' };
  const post = async (route: string, body: unknown) =>
    parseJson(
      (await request(`${base}${route}`, { method: 'POST', headers: auth, body: JSON.stringify(body) })).text,
    ) as {
      id: string;
    };
  const folderId = (await post('/api/user/folders', { name: 'bench-folder' })).id;
  const tagIds = [(await post('/api/user/tags', { name: 'bench-a' })).id];
  tagIds.push(
    (await post('/api/user/tags', { name: 'bench-b' })).id,
    (await post('/api/user/tags', { name: 'bench-c' })).id,
  );

  const database = openDatabase({ databaseUrl: options.databaseUrl, sqlitePath: path.join(dataDir, 'chute.db') });
  const results = new Map<number, Map<string, Timing>>();
  const bytesPerFile = new Map<number, number>();
  let seeded = 0;
  try {
    for (const size of sizes) {
      const started = Date.now();
      while (seeded < size) {
        const count = Math.min(BATCH, size - seeded);
        await database.db.transaction().execute(async (trx) => {
          const rows = Array.from({ length: count }, (_, i) => fileRow(me.id, folderId, seeded + i));
          await trx.insertInto('files').values(rows).execute();
          await indexNewFiles(trx);
          const links = rows.flatMap((row, i) => {
            const n = seeded + i;
            // A rare tag (1 in 1,000), a common one (1 in 10), and one in between (1 in 100).
            return tagIds.flatMap((tag, t) =>
              n % [1000, 10, 100][t]! === 7 ? [{ file_id: row.id, tag_id: tag }] : [],
            );
          });
          if (links.length > 0) await trx.insertInto('file_tags').values(links).execute();
        });
        seeded += count;
        if (seeded % 100_000 === 0) log(`seeded ${seeded.toLocaleString('en')} files`);
      }
      if (database.engine === 'postgres') await sql`vacuum analyze`.execute(database.db);
      log(`${size.toLocaleString('en')} files seeded (${((Date.now() - started) / 1000).toFixed(1)} s); measuring`);
      bytesPerFile.set(size, (await databaseBytes(database, dataDir)) / size);
      results.set(size, await measure(base, me.token, size, folderId, tagIds, options));
    }
  } finally {
    await database.close();
    await stopProcess(child, 30_000);
  }
  printResults(sizes, results, bytesPerFile, options);
}

/**
 * File n of the seed: dates in order, sizes and views spread, 10% favourites, 20% expiring, 1 in 50 in a folder. Also
 * the rows of bench/heavy.ts.
 */
export function fileRow(userId: string, folderId: string, n: number): Insertable<FilesTable> {
  const id = `b${n.toString(36).padStart(8, '0')}${randomBytes(4).toString('hex')}`;
  const created = 1_600_000_000_000 + n * 1000;
  return {
    id,
    name: `${['Screenshot', 'photo', 'clip', 'report'][n % 4]}_${n.toString(36)}_${id.slice(-8)}.png`,
    original_name: n % 3 === 0 ? null : `Bildschirmfoto ${n}.png`,
    type: ['image/png', 'image/jpeg', 'video/mp4', 'application/pdf'][n % 4]!,
    size: (n * 7919) % 5_000_000,
    views: n % 97,
    max_views: null,
    favorite: n % 10 === 0 ? 1 : 0,
    password: null,
    deletes_at: n % 5 === 0 ? 2_000_000_000_000 + (n % 1000) * 60_000 : null,
    folder_id: n % 50 === 0 ? folderId : null,
    user_id: userId,
    storage_key: `bench/${id}`,
    created_at: created,
    updated_at: created,
  };
}

async function databaseBytes(database: ReturnType<typeof openDatabase>, dataDir: string): Promise<number> {
  if (database.engine === 'postgres') {
    const size = await sql<{ bytes: string | number }>`select pg_database_size(current_database()) as bytes`.execute(
      database.db,
    );
    return Number(size.rows[0]!.bytes);
  }
  let total = 0;
  for (const name of await readdir(dataDir))
    if (name.startsWith('chute.db')) total += (await stat(path.join(dataDir, name))).size;
  return total;
}

/** Every request of the list, `samples` times each, one after another. */
async function measure(
  base: string,
  token: string,
  size: number,
  folderId: string,
  tagIds: string[],
  { samples, only }: Pick<ListingOptions, 'samples' | 'only'>,
): Promise<Map<string, Timing>> {
  const perPage = 24;
  const timings = new Map<string, Timing>();
  const get = async (query: string) => {
    const res = await request(`${base}/api/user/files?${query}`, { headers: { authorization: token } });
    if (res.status !== 200)
      throw new Error(`GET /api/user/files?${query} answered ${res.status}: ${res.text.slice(0, 200)}`);
    return parseJson(res.text) as unknown as { pages: number; nextCursor: string | null };
  };
  const wanted = (label: string) => only === undefined || label.includes(only);
  const time = async (label: string, query: string) => {
    if (wanted(label)) timings.set(label, await timeRequests(() => get(query), samples));
  };
  for (const sortBy of FILE_SORT_FIELDS) {
    for (const order of ['asc', 'desc']) {
      const ways = ['page 1', 'page middle', 'page last', 'cursor start', 'cursor middle', 'cursor end'];
      if (!ways.some((way) => wanted(`${sortBy} ${order} ${way}`))) continue;
      const q = `perpage=${perPage}&sortBy=${sortBy}&order=${order}`;
      const pages = (await get(q)).pages;
      const middle = Math.max(1, Math.ceil(pages / 2));
      await time(`${sortBy} ${order} page 1`, `${q}&page=1`);
      await time(`${sortBy} ${order} page middle`, `${q}&page=${middle}`);
      await time(`${sortBy} ${order} page last`, `${q}&page=${pages}`);
      for (const [where, page] of [
        ['start', 1],
        ['middle', middle],
        ['end', Math.max(1, pages - 1)],
      ] as const) {
        const cursor = (await get(`${q}&page=${page}`)).nextCursor;
        if (cursor) await time(`${sortBy} ${order} cursor ${where}`, `${q}&cursor=${encodeURIComponent(cursor)}`);
      }
    }
  }
  const q = `perpage=${perPage}`;
  await time('favourites', `${q}&favorite=true`);
  await time('favourites by size', `${q}&favorite=true&sortBy=size`);
  await time('folder', `${q}&folder=${folderId}`);
  await time('one rare tag', `${q}&tags=${tagIds[0]}`);
  await time('three tags', `${q}&tags=${tagIds.join(',')}`);
  for (const field of FILE_SEARCH_FIELDS) {
    const rare = { name: `_${(size - 3).toString(36)}_`, originalName: `foto ${size - 3}.`, type: 'pdf' }[field];
    const common = { name: 'screenshot', originalName: 'bildschirm', type: 'image' }[field];
    await time(`search ${field} rare`, `${q}&searchField=${field}&searchQuery=${encodeURIComponent(rare)}`);
    await time(`search ${field} common`, `${q}&searchField=${field}&searchQuery=${encodeURIComponent(common)}`);
  }
  await time('search short', `${q}&searchQuery=ph`);
  return timings;
}

function printResults(
  sizes: number[],
  results: Map<number, Map<string, Timing>>,
  bytesPerFile: Map<number, number>,
  options: ListingOptions,
): void {
  const first = sizes[0]!;
  const labels = [...results.get(first)!.keys()];
  const fmt = (n: number | undefined) => (n === undefined ? '-' : n.toFixed(1));
  console.log(`\nGET /api/user/files on ${options.engine}, one user, ${options.samples} requests each (ms):\n`);
  const header = ['request', ...sizes.flatMap((s) => [`p50@${s}`, `p95@${s}`, `p99@${s}`]), 'flatness', 'ok'];
  console.log(`| ${header.join(' | ')} |`);
  console.log(`|${header.map(() => '---').join('|')}|`);
  let failing = 0;
  for (const label of labels) {
    const cells = sizes.flatMap((s) => {
      const t = results.get(s)!.get(label);
      return [fmt(t?.p50), fmt(t?.p95), fmt(t?.p99)];
    });
    const small = results.get(first)!.get(label)!.p95;
    const large = results.get(sizes.at(-1)!)!.get(label)?.p95 ?? NaN;
    const ratio = large / small;
    const flat = large <= 1.5 * small + 1 && large <= 20;
    if (!flat) failing += 1;
    console.log(`| ${label} | ${cells.join(' | ')} | ${ratio.toFixed(2)}x | ${flat ? 'yes' : 'NO'} |`);
  }
  console.log(
    `\nflat (p95 at ${sizes.at(-1)} <= 1.5 x p95 at ${first} + 1 ms, and <= 20 ms): ${labels.length - failing} of ${labels.length}`,
  );
  console.log(
    `database bytes per file: ${sizes.map((s) => `${s.toLocaleString('en')}: ${Math.round(bytesPerFile.get(s)!)}`).join(', ')}`,
  );
}
