// Writes at scale (issue 23, item 7): `npm run bench -- writes --files N [--engine postgres --database-url URL]
// [--seconds S]`. One Chute process (built like the main benchmark) and one user: 4 KiB uploads over HTTP, 32
// concurrent clients on keep-alive connections for S seconds (default 10, after 1 s of warm-up), as row 3 of the main
// benchmark, first into the empty account of an empty instance, then again after N files (default 1,000,000) were
// added to that account through Chute's own data layer (bench/lib/seed.ts, the indexes, search index and counters
// following by their triggers). Prints both rates, their ratio (issue 23's goal: >= 0.9) and the latencies. Not
// recorded in bench/RESULTS.md.
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { openDatabase } from '../src/db/index.js';
import { parseJson, percentile, request, smallUploadLoop, type LoopResult } from './lib/client.js';
import { freePort, removeAtExit, startProcess, stopProcess, waitForHttp } from './lib/procs.js';
import { seedFiles } from './lib/seed.js';

interface WritesOptions {
  files: number;
  engine: 'sqlite' | 'postgres';
  databaseUrl: string | undefined;
  seconds: number;
}

function parseOptions(argv: string[]): WritesOptions {
  const value = (name: string) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const files = Number(value('--files') ?? 1_000_000);
  const seconds = Number(value('--seconds') ?? 10);
  const engine = value('--engine') ?? 'sqlite';
  if (!Number.isInteger(files) || files < 1) throw new Error('--files wants a whole number of files');
  if (!(seconds > 0)) throw new Error('--seconds wants a positive number');
  if (engine !== 'sqlite' && engine !== 'postgres') throw new Error('--engine is sqlite or postgres');
  const databaseUrl = value('--database-url') ?? process.env.BENCH_DATABASE_URL;
  if (engine === 'postgres' && !databaseUrl)
    throw new Error('--engine postgres needs --database-url (or BENCH_DATABASE_URL): an empty database it may fill');
  return { files, engine, databaseUrl, seconds };
}

const log = (message: string) => console.log(`[writes] ${message}`);

export async function runWritesBench(argv: string[], buildChute: () => Promise<string>): Promise<void> {
  const options = parseOptions(argv);
  const mainJs = await buildChute();
  const root = await mkdtemp(path.join(os.tmpdir(), 'chute-bench-writes-'));
  removeAtExit(root);
  const dataDir = path.join(root, 'data');
  await mkdir(path.join(root, 'logs'), { recursive: true });
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const child = startProcess('chute', process.execPath, [mainJs], {
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      PORT: String(port),
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      SECRET: randomBytes(32).toString('hex'),
      RATELIMIT_ENABLED: 'false',
      ...(options.databaseUrl ? { DATABASE_URL: options.databaseUrl } : {}),
    },
    cwd: root,
    logFile: path.join(root, 'logs', 'chute.log'),
  });
  const database = openDatabase({ databaseUrl: options.databaseUrl, sqlitePath: path.join(dataDir, 'chute.db') });
  try {
    await waitForHttp(`${base}/api/healthcheck`, child, 120_000, 'Chute');
    const { userId, token } = await setupUser(base);
    const folder = parseJson(
      (
        await request(`${base}/api/user/folders`, {
          method: 'POST',
          headers: { authorization: token, 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'bench-folder' }),
        })
      ).text,
    ) as { id?: string } | null;
    if (!folder?.id) throw new Error('POST /api/user/folders gave no folder');

    const empty = await uploads(base, token, options.seconds);
    log(`empty account: ${rate(empty)}`);
    const started = performance.now();
    await seedFiles(database.db, {
      owners: [userId],
      folderId: folder.id,
      from: 0,
      to: options.files,
      progress: (n) => log(`seeded ${n.toLocaleString('en')} files`),
    });
    if (database.engine === 'postgres') await sql`vacuum analyze`.execute(database.db);
    log(`seeded in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    const full = await uploads(base, token, options.seconds);
    log(`account with ${options.files.toLocaleString('en')} files: ${rate(full)}`);

    const ratio = full.ok / full.seconds / (empty.ok / empty.seconds);
    const row = (label: string, r: LoopResult) =>
      `| ${label} | ${(r.ok / r.seconds).toFixed(0)} | ${percentile(r.latenciesMs, 50).toFixed(1)} | ` +
      `${percentile(r.latenciesMs, 99).toFixed(1)} | ${r.failed} |`;
    console.log(
      `\n4 KiB uploads on ${options.engine}, 32 clients, ${options.seconds} s each:\n\n` +
        `| account | uploads/s | p50 ms | p99 ms | failed |\n|---|---|---|---|---|\n` +
        `${row('empty', empty)}\n${row(`${options.files.toLocaleString('en')} files`, full)}\n\n` +
        `ratio (full / empty): ${ratio.toFixed(2)}x; goal (issue 23): >= 0.90x: ${ratio >= 0.9 ? 'yes' : 'NO'}`,
    );
  } finally {
    await database.close();
    await stopProcess(child, 30_000);
  }
}

async function setupUser(base: string): Promise<{ userId: string; token: string }> {
  const setup = await request(`${base}/api/setup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'bench', password: randomBytes(16).toString('hex') }),
  });
  if (setup.status !== 200) throw new Error(`POST /api/setup answered ${setup.status}: ${setup.text.slice(0, 200)}`);
  const cookie = ([] as string[])
    .concat(setup.headers['set-cookie'] ?? [])
    .map((c) => c.split(';')[0])
    .join('; ');
  const userId = (JSON.parse(setup.text) as { user: { id: string } }).user.id;
  const token = parseJson((await request(`${base}/api/user`, { headers: { cookie } })).text)?.token;
  if (!token) throw new Error('GET /api/user gave no token');
  return { userId, token };
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
