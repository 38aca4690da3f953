// Writes at scale (issue 23, item 7): `npm run bench -- writes --files N [--engine postgres --database-url URL]
// [--seconds S] [--rounds R]`. Two Chute processes (built like the main benchmark), each with one user: one on an empty
// database, one whose user holds N files (default 1,000,000), added through Chute's own data layer (bench/lib/seed.ts;
// the indexes, search index and counters following by their triggers). Then R rounds (default 3), each measuring 4 KiB
// uploads over HTTP into both, in turn (which goes first alternates): 32 concurrent clients on keep-alive connections
// for S seconds (default 10, after 1 s of warm-up), as row 3 of the main benchmark. Taking turns in the same rounds
// keeps a shared machine's changing load out of the ratio. Prints the rates, their ratio (issue 23's goal: the full
// account at >= 0.9x the empty one) and the latencies. PostgreSQL: the full instance fills the given empty database,
// the empty instance gets a database of its own made beside it (and dropped after). Not recorded in bench/RESULTS.md.
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { openDatabase } from '../src/db/index.js';
import { percentile, request, smallUploadLoop, type LoopResult } from './lib/client.js';
import { startChuteWithUser } from './lib/chute.js';
import { removeAtExit, stopProcess } from './lib/procs.js';
import { seedFiles } from './lib/seed.js';

interface WritesOptions {
  files: number;
  engine: 'sqlite' | 'postgres';
  databaseUrl: string | undefined;
  seconds: number;
  rounds: number;
}

function parseOptions(argv: string[]): WritesOptions {
  const value = (name: string) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const files = Number(value('--files') ?? 1_000_000);
  const seconds = Number(value('--seconds') ?? 10);
  const rounds = Number(value('--rounds') ?? 3);
  const engine = value('--engine') ?? 'sqlite';
  if (!Number.isInteger(files) || files < 1) throw new Error('--files wants a whole number of files');
  if (!(seconds > 0)) throw new Error('--seconds wants a positive number');
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error('--rounds wants a whole number');
  if (engine !== 'sqlite' && engine !== 'postgres') throw new Error('--engine is sqlite or postgres');
  const databaseUrl = value('--database-url') ?? process.env.BENCH_DATABASE_URL;
  if (engine === 'postgres' && !databaseUrl)
    throw new Error('--engine postgres needs --database-url (or BENCH_DATABASE_URL): an empty database it may fill');
  return { files, engine, databaseUrl, seconds, rounds };
}

const log = (message: string) => console.log(`[writes] ${message}`);

interface BenchChute {
  base: string;
  token: string;
  userId: string;
  folderId: string;
  dataDir: string;
  stop(): Promise<void>;
}

export async function runWritesBench(argv: string[], buildChute: () => Promise<string>): Promise<void> {
  const options = parseOptions(argv);
  const mainJs = await buildChute();
  const root = await mkdtemp(path.join(os.tmpdir(), 'chute-bench-writes-'));
  removeAtExit(root);
  await mkdir(path.join(root, 'logs'), { recursive: true });
  const emptyDatabase = options.databaseUrl ? await siblingDatabase(options.databaseUrl) : undefined;
  const started: BenchChute[] = [];
  try {
    const empty = await startChute(mainJs, root, 'empty', emptyDatabase?.url);
    started.push(empty);
    const full = await startChute(mainJs, root, 'full', options.databaseUrl);
    started.push(full);
    const database = openDatabase({
      databaseUrl: options.databaseUrl,
      sqlitePath: path.join(full.dataDir, 'chute.db'),
    });
    try {
      const seedStarted = performance.now();
      await seedFiles(database.db, {
        owners: [full.userId],
        folderId: full.folderId,
        from: 0,
        to: options.files,
        progress: (n) => log(`seeded ${n.toLocaleString('en')} files`),
      });
      if (database.engine === 'postgres') await sql`vacuum analyze`.execute(database.db);
      log(`seeded in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s`);
    } finally {
      await database.close();
    }

    const results = { empty: [] as LoopResult[], full: [] as LoopResult[] };
    for (let round = 0; round < options.rounds; round++) {
      const order = round % 2 === 0 ? (['empty', 'full'] as const) : (['full', 'empty'] as const);
      for (const which of order) {
        const chute = which === 'empty' ? empty : full;
        const result = await uploads(chute.base, chute.token, options.seconds);
        results[which].push(result);
        log(`round ${round + 1}, ${which === 'empty' ? 'empty account' : `${options.files} files`}: ${rate(result)}`);
      }
    }
    printResults(options, results);
  } finally {
    for (const chute of started) await chute.stop();
    await emptyDatabase?.drop();
  }
}

/** A Chute process on its own data folder (and the given database, or SQLite there), with a user and a folder. */
async function startChute(
  mainJs: string,
  root: string,
  name: string,
  databaseUrl: string | undefined,
): Promise<BenchChute> {
  const { base, child, dataDir, userId, token } = await startChuteWithUser(mainJs, root, { name, databaseUrl });
  const stop = () => stopProcess(child, 30_000);
  try {
    const folder = await request(`${base}/api/user/folders`, {
      method: 'POST',
      headers: { authorization: token, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'bench-folder' }),
    });
    const folderId = (JSON.parse(folder.text) as { id?: string }).id;
    if (!folderId) throw new Error(`POST /api/user/folders answered ${folder.status}: ${folder.text.slice(0, 200)}`);
    return { base, token, userId, folderId, dataDir, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** An empty PostgreSQL database beside the one at `url` (same server), for the empty instance. */
async function siblingDatabase(url: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `${new URL(url).pathname.slice(1)}_empty_${randomBytes(4).toString('hex')}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await admin(`create database ${name}`);
  const sibling = new URL(url);
  sibling.pathname = `/${name}`;
  return { url: sibling.toString(), drop: () => admin(`drop database if exists ${name} with (force)`) };
}

/** 1 s of warm-up, then `seconds` of 4 KiB uploads by 32 clients; every failure is counted. */
async function uploads(base: string, token: string, seconds: number): Promise<LoopResult> {
  const common = {
    url: `${base}/api/upload`,
    headers: { authorization: token },
    payload: randomBytes(4096),
    concurrency: 32,
    maxRequests: 500_000,
    isSuccess: (status: number, json: { files?: Array<{ url?: string }> } | null) =>
      status === 200 && typeof json?.files?.[0]?.url === 'string',
  };
  await smallUploadLoop({ ...common, durationMs: 1_000 });
  const result = await smallUploadLoop({ ...common, durationMs: seconds * 1000 });
  if (result.ok === 0) throw new Error(`no 4 KiB upload succeeded: ${result.firstFailure}`);
  return result;
}

const rate = (r: LoopResult) =>
  `${(r.ok / r.seconds).toFixed(0)} uploads/s, p50 ${percentile(r.latenciesMs, 50).toFixed(1)} ms, ` +
  `p99 ${percentile(r.latenciesMs, 99).toFixed(1)} ms${r.failed ? `, ${r.failed} failed: ${r.firstFailure}` : ''}`;

function printResults(options: WritesOptions, results: { empty: LoopResult[]; full: LoopResult[] }): void {
  const total = (rs: LoopResult[]) => {
    const ok = rs.reduce((n, r) => n + r.ok, 0);
    const seconds = rs.reduce((n, r) => n + r.seconds, 0);
    return {
      rate: ok / seconds,
      latencies: rs.flatMap((r) => r.latenciesMs),
      failed: rs.reduce((n, r) => n + r.failed, 0),
    };
  };
  const empty = total(results.empty);
  const full = total(results.full);
  const ratio = full.rate / empty.rate;
  const perRound = results.full.map((r, i) =>
    (r.ok / r.seconds / (results.empty[i]!.ok / results.empty[i]!.seconds)).toFixed(2),
  );
  const row = (label: string, t: typeof empty) =>
    `| ${label} | ${t.rate.toFixed(0)} | ${percentile(t.latencies, 50).toFixed(1)} | ` +
    `${percentile(t.latencies, 99).toFixed(1)} | ${t.failed} |`;
  console.log(
    `\n4 KiB uploads on ${options.engine}, 32 clients, ${options.rounds} rounds of ${options.seconds} s each:\n\n` +
      `| account | uploads/s | p50 ms | p99 ms | failed |\n|---|---|---|---|---|\n` +
      `${row('empty', empty)}\n${row(`${options.files.toLocaleString('en')} files`, full)}\n\n` +
      `ratio (full / empty): ${ratio.toFixed(2)}x (rounds: ${perRound.join(', ')}); ` +
      `goal (issue 23): >= 0.90x: ${ratio >= 0.9 ? 'yes' : 'NO'}`,
  );
}
