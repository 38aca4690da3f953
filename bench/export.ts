// The instance export with many small files kept in the database (issue 50, item 3.9): `npm run bench -- export
// [--sizes 10000,100000,1000000] [--bytes 256] [--engine postgres --database-url URL]`. Seeds through Chute's own data
// layer (src/db, batches of 1,000 rows, 10 to a transaction) files whose bytes are database_objects rows (`--bytes`
// each), up to each size in turn, and at each size downloads GET /api/server/export once from the running Chute,
// reading the body as it comes and throwing it away: the time, the bytes, and the Chute process's peak RSS (VmHWM reset
// through clear_refs before, VmRSS sampled every 25 ms; the larger) next to its RSS just before. The export streams when
// the peak stays flat from one size to the next. Recorded by hand in bench/RESULTS.md.
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { sql, type Kysely } from 'kysely';
import { openDatabase } from '../src/db/index.js';
import { indexNewFiles } from '../src/db/schema/search-index.js';
import type { Database } from '../src/db/schema/tables.js';
import { DATABASE_KEY_PREFIX } from '../src/storage/database-objects.js';
import { startChuteWithUser } from './lib/chute.js';
import { removeAtExit, stopProcess } from './lib/procs.js';
import { fileRow } from './listing.js';

const BATCH = 1_000;
const BATCHES_PER_TRANSACTION = 10;

interface ExportOptions {
  sizes: number[];
  bytes: number;
  engine: 'sqlite' | 'postgres';
  databaseUrl: string | undefined;
}

function parseExportOptions(argv: string[]): ExportOptions {
  const value = (name: string) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const sizes = (value('--sizes') ?? '10000,100000,1000000').split(',').map(Number);
  if (!sizes.every((n) => Number.isSafeInteger(n) && n > 0)) throw new Error('--sizes wants positive whole numbers');
  const bytes = Number(value('--bytes') ?? 256);
  if (!Number.isSafeInteger(bytes) || bytes < 1) throw new Error('--bytes wants a positive whole number');
  const engine = value('--engine') ?? 'sqlite';
  if (engine !== 'sqlite' && engine !== 'postgres') throw new Error('--engine is sqlite or postgres');
  const databaseUrl = value('--database-url') ?? process.env.BENCH_DATABASE_URL;
  if (engine === 'postgres' && !databaseUrl)
    throw new Error('--engine postgres needs --database-url (or BENCH_DATABASE_URL): an empty database it may fill');
  return { sizes: [...sizes].sort((a, b) => a - b), bytes, engine, databaseUrl };
}

const log = (message: string) => console.log(`[export] ${message}`);

interface ExportFigures {
  files: number;
  seconds: number;
  bytes: number;
  rssBeforeMb: number;
  peakRssMb: number;
}

/** Adds files numbered [from, to) of `userId`, each with `bytes` of its own kept in the database. */
async function seedInlineFiles(db: Kysely<Database>, userId: string, from: number, to: number, bytes: number) {
  let n = from;
  while (n < to) {
    await db.transaction().execute(async (trx) => {
      for (let b = 0; b < BATCHES_PER_TRANSACTION && n < to; b++) {
        const count = Math.min(BATCH, to - n);
        const rows = Array.from({ length: count }, (_, i) => {
          const row = fileRow(userId, 'none', n + i);
          return { ...row, folder_id: null, size: bytes, storage_key: `${DATABASE_KEY_PREFIX}${row.id}` };
        });
        await trx.insertInto('files').values(rows).execute();
        await trx
          .insertInto('database_objects')
          .values(
            rows.map((r) => ({ storage_key: r.storage_key, bytes: randomBytes(bytes), created_at: r.created_at })),
          )
          .execute();
        await indexNewFiles(trx);
        n += count;
      }
    });
    if (n % 100_000 === 0) log(`seeded ${n}`);
  }
}

/** The process's RSS in MB (10^6 bytes), and its peak (VmHWM). */
function memoryOf(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rss: (kb('VmRSS') * 1024) / 1e6, hwm: (kb('VmHWM') * 1024) / 1e6 };
}

/** Downloads the export once, reading and dropping its body, with Chute's peak RSS reset before. */
async function exportOnce(url: string, token: string, pid: number, files: number): Promise<ExportFigures> {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
  } catch {
    // Not allowed here: the sampled RSS still shows the peak closely.
  }
  const rssBeforeMb = memoryOf(pid).rss;
  let peak = rssBeforeMb;
  const sampler = setInterval(() => (peak = Math.max(peak, memoryOf(pid).rss)), 25);
  const started = process.hrtime.bigint();
  try {
    const bytes = await new Promise<number>((resolve, reject) => {
      http
        .get(url, { headers: { authorization: token }, agent: false }, (res) => {
          if (res.statusCode !== 200) return reject(new Error(`GET ${url} answered ${res.statusCode}`));
          let total = 0;
          let tail = '';
          res.on('data', (chunk: Buffer) => {
            total += chunk.length;
            tail = (tail + chunk.toString('latin1')).slice(-32);
          });
          res.on('end', () =>
            tail.endsWith('"metrics":[]}}') ? resolve(total) : reject(new Error(`the export ended early: ${tail}`)),
          );
          res.on('error', reject);
        })
        .on('error', reject);
    });
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    peak = Math.max(peak, memoryOf(pid).hwm);
    return { files, seconds, bytes, rssBeforeMb, peakRssMb: peak };
  } finally {
    clearInterval(sampler);
  }
}

export async function runExportBench(argv: string[], buildChute: () => Promise<string>): Promise<void> {
  const options = parseExportOptions(argv);
  const mainJs = await buildChute();
  const root = await mkdtemp(path.join(os.tmpdir(), 'chute-bench-export-'));
  removeAtExit(root);
  const { base, child, dataDir, userId, token } = await startChuteWithUser(mainJs, root, {
    databaseUrl: options.databaseUrl,
  });
  const database = openDatabase({ databaseUrl: options.databaseUrl, sqlitePath: path.join(dataDir, 'chute.db') });
  const figures: ExportFigures[] = [];
  try {
    let seeded = 0;
    for (const size of options.sizes) {
      const started = Date.now();
      await seedInlineFiles(database.db, userId, seeded, size, options.bytes);
      seeded = size;
      if (database.engine === 'postgres') await sql`vacuum analyze`.execute(database.db);
      log(`seeded ${size} files of ${options.bytes} bytes in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      const result = await exportOnce(`${base}/api/server/export`, token, child.pid!, size);
      figures.push(result);
      log(
        `${size} files: ${(result.bytes / 1e6).toFixed(1)} MB in ${result.seconds.toFixed(1)} s, ` +
          `peak RSS ${result.peakRssMb.toFixed(0)} MB (before ${result.rssBeforeMb.toFixed(0)} MB)`,
      );
    }
  } finally {
    await database.close();
    await stopProcess(child);
  }
  console.log(`\nInstance export, ${options.engine}, small files of ${options.bytes} bytes kept in the database`);
  console.log('| Files | Export | Time | Files/s | RSS before | Peak RSS |');
  console.log('|---:|---:|---:|---:|---:|---:|');
  for (const f of figures) {
    console.log(
      `| ${f.files.toLocaleString('en')} | ${(f.bytes / 1e6).toFixed(1)} MB | ${f.seconds.toFixed(1)} s | ` +
        `${Math.round(f.files / f.seconds).toLocaleString('en')} | ${f.rssBeforeMb.toFixed(0)} MB | ` +
        `${f.peakRssMb.toFixed(0)} MB |`,
    );
  }
}
