// The Chute benchmark: one command, every measurement side by side with its reference in the same run.
//   npm run bench                  1 GiB, 3 repetitions (median), appends to bench/RESULTS.md
//   npm run bench -- --quick       64 MiB, 1 repetition, 3 s of small uploads (a smoke run; not recorded)
// Options: --size-mib N, --reps N, --small-seconds N, --chunk-mib N, --chunked-reps N (row 5's pairs),
//          --only upload,download,small,chunked,hot,
//          (tus: the same file through /api/upload/tus vs one request, both with curl)
//          --profile (Chute runs with node --cpu-prof; prints where its CPU time went; not recorded),
//          --record / --no-record (append to bench/RESULTS.md or not),
//          --entry file.js (run that instead of building the working tree; for checking the harness; not recorded),
//          --env KEY=VALUE (extra environment for Chute, repeatable; for experiments; not recorded).
// See bench/README.md for what each number means.
import { execFile } from 'node:child_process';
import { createHash, randomBytes, randomFillSync } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync } from 'node:fs';
import { appendFile, link, mkdir, mkdtemp, open, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { assertCurlAvailable, curlDownload, curlTusPatch, curlUpload } from './lib/curl.js';
import { startUploadClient } from './lib/node-uploads.js';
import {
  downloadBytes,
  hashDownload,
  median,
  parseJson,
  percentile,
  request,
  mergedLoops,
  smallUploadLoop,
  type AnswerJson,
  type LoopResult,
} from './lib/client.js';
import { benchChuteEnv } from './lib/chute.js';
import { describeMachine, loadAverage } from './lib/machine.js';
import {
  cleanupAll,
  freePort,
  installSignalHandlers,
  readCpu,
  readIo,
  readMemory,
  readSchedstat,
  removeAtExit,
  type IoCounters,
  resetPeak,
  sampleMemory,
  startProcess,
  stopProcess,
  waitForHttp,
} from './lib/procs.js';
import { summariseProfile } from './lib/profile.js';
import { runExportBench } from './export.js';
import { runHeavyBench } from './heavy.js';
import { runListingBench } from './listing.js';
import { runListsBench } from './lists.js';
import { runMigrationBench } from './migrations.js';
import { runRecordCostBench } from './record-cost.js';
import { runWritesBench } from './writes.js';
import { assertWrkAvailable, exactGets, runWrk, type WrkResult } from './lib/wrk.js';
import SqliteDatabase from 'better-sqlite3';

const execFileAsync = promisify(execFile);
const MiB = 1024 * 1024;
const REPO = path.resolve(import.meta.dirname, '..');
const TRANSFER_TIMEOUT_MS = 15 * 60_000;
/** The peak RSS target: 200 MB (10^6 bytes). */
const RSS_LIMIT = 200e6;
const BENCHES = ['upload', 'download', 'small', 'chunked', 'hot', 'tus'] as const;
/** Untimed 4 KiB uploads to each server right before its timed run (row 3). */
const SMALL_WARMUP_MS = 5_000;
/** The small file of the hot-path rows. */
const SMALL_FILE_BYTES = 64 * 1024;
type Bench = (typeof BENCHES)[number];

// ---------------------------------------------------------------------------------------------------- options

interface Options {
  quick: boolean;
  sizeMiB: number;
  reps: number;
  smallSeconds: number;
  chunkMiB: number;
  /** Pairs of row 5 (the Node client's chunked and single upload), in rotating order. */
  chunkedReps: number;
  only: Set<Bench>;
  profile: boolean;
  record: boolean;
  /** A prebuilt entry point instead of building the working tree (for checking the harness itself). */
  entry: string | undefined;
  /** Extra environment for Chute (--env KEY=VALUE, repeatable; for experiments, not recorded). */
  extraEnv: Record<string, string>;
}

function parseOptions(argv: string[]): Options {
  const quick = argv.includes('--quick');
  const value = (name: string): string | undefined => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const int = (name: string, fallback: number, min: number, max: number): number => {
    const raw = value(name);
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) throw new Error(`${name} must be an integer from ${min} to ${max}`);
    return n;
  };
  const only = new Set<Bench>();
  for (const name of (value('--only') ?? BENCHES.join(',')).split(',')) {
    if (!(BENCHES as readonly string[]).includes(name)) throw new Error(`--only takes ${BENCHES.join(',')}`);
    only.add(name as Bench);
  }
  const profile = argv.includes('--profile');
  const extraEnv: Record<string, string> = {};
  argv.forEach((arg, i) => {
    if (arg !== '--env') return;
    const match = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(argv[i + 1] ?? '');
    if (!match) throw new Error('--env takes KEY=VALUE');
    extraEnv[match[1]!] = match[2]!;
  });
  return {
    quick,
    sizeMiB: int('--size-mib', quick ? 64 : 1024, 1, 8192),
    reps: int('--reps', quick ? 1 : 3, 1, 20),
    smallSeconds: int('--small-seconds', quick ? 3 : 10, 1, 120),
    chunkMiB: int('--chunk-mib', 25, 1, 1024),
    chunkedReps: int('--chunked-reps', quick ? 1 : 5, 1, 40),
    only,
    profile,
    record:
      argv.includes('--record') ||
      (!argv.includes('--no-record') && !quick && !profile && !value('--entry') && !argv.includes('--env')),
    entry: value('--entry'),
    extraEnv,
  };
}

// ---------------------------------------------------------------------------------------------------- helpers

const log = (message: string) => console.log(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}`);
const mibps = (bytes: number, seconds: number) => bytes / MiB / seconds;
const fmtRate = (v: number) => (Number.isFinite(v) ? `${v.toFixed(0)} MiB/s` : 'n/a');
const fmtMB = (bytes: number) => (Number.isFinite(bytes) ? `${(bytes / 1e6).toFixed(0)} MB` : 'n/a');

function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(`verification failed: ${message}`);
}

/** Order of the contenders in repetition `rep`: rotated, so that none always goes first (or right after another). */
function rotate<T>(items: T[], rep: number): T[] {
  const k = rep % items.length;
  return [...items.slice(k), ...items.slice(0, k)];
}

/** Writes `bytes` of random data (nothing compresses) to `file`, fsyncs it, returns its SHA-256. */
async function createSource(file: string, bytes: number): Promise<string> {
  const hash = createHash('sha256');
  const handle = await open(file, 'w');
  const block = Buffer.alloc(4 * MiB);
  try {
    for (let written = 0; written < bytes;) {
      const n = Math.min(block.length, bytes - written);
      randomFillSync(block, 0, n);
      const slice = block.subarray(0, n);
      hash.update(slice);
      await handle.write(slice);
      written += n;
    }
    await handle.sync();
  } finally {
    await handle.close();
  }
  return hash.digest('hex');
}

/** Flushes the file system holding `folder`, so that one run's dirty pages are not written during the next. */
/** Copies `source` into files of `size` bytes each (the last one shorter) in `dir`; their paths in order. */
async function splitFile(source: string, size: number, dir: string): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const total = (await stat(source)).size;
  const pieces: string[] = [];
  for (let start = 0; start < total; start += size) {
    const piece = path.join(dir, `piece-${pieces.length}`);
    await pipeline(
      createReadStream(source, { start, end: Math.min(total, start + size) - 1 }),
      createWriteStream(piece),
    );
    pieces.push(piece);
  }
  return pieces;
}

async function flushDisk(folder: string): Promise<void> {
  await execFileAsync('sync', ['-f', folder]);
}

function findNginx(): string {
  for (const candidate of ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/local/nginx/sbin/nginx']) {
    if (existsSync(candidate)) return candidate;
  }
  throw new Error('nginx is needed for the download reference: apt-get install -y nginx-light (or nginx)');
}

// ---------------------------------------------------------------------------------------------------- Chute

interface ChuteServer {
  base: string;
  pid: number;
  token: string;
  routes: { upload: boolean; raw: boolean; partial: boolean; tus: boolean; deleteFile: boolean };
  stop: () => Promise<void>;
}

async function buildChute(): Promise<string> {
  await mkdir(path.join(REPO, '.tmp'), { recursive: true });
  const outDir = await mkdtemp(path.join(REPO, '.tmp', 'bench-build-'));
  removeAtExit(outDir);
  log(`building Chute (tsc -p tsconfig.build.json) into ${path.relative(REPO, outDir)}`);
  const tsc = path.join(REPO, 'node_modules', 'typescript', 'bin', 'tsc');
  try {
    await execFileAsync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--outDir', outDir], {
      cwd: REPO,
      maxBuffer: 64 * MiB,
    });
  } catch (err) {
    // tsc still emits when other people's work-in-progress has type errors; go on if the entry point is there.
    const out = (err as { stdout?: string }).stdout ?? String(err);
    log(
      `WARNING: tsc reported errors (the build is used anyway if it emitted):\n${out.split('\n').slice(0, 10).join('\n')}`,
    );
  }
  const main = path.join(outDir, 'src', 'main.js');
  check(existsSync(main), `the build produced no ${main}`);
  return main;
}

async function startChute(mainJs: string, root: string, options: Options, name = 'chute'): Promise<ChuteServer> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const dataDir = path.join(root, `${name}-data`);
  await mkdir(dataDir);
  const env: Record<string, string> = {
    ...benchChuteEnv(port, dataDir),
    // SQLite (no DATABASE_URL), every other setting at its default, except (and no rate limits):
    FILES_MAX_FILE_SIZE: `${Math.max(4096, 2 * options.sizeMiB)}mb`,
    ...options.extraEnv,
  };
  const nodeArgs: string[] = [];
  if (options.profile) {
    const dir = path.join(REPO, '.tmp', 'bench-profiles');
    await mkdir(dir, { recursive: true });
    nodeArgs.push('--cpu-prof', `--cpu-prof-dir=${dir}`);
  }
  const child = startProcess(name, process.execPath, [...nodeArgs, mainJs], {
    env,
    cwd: root,
    logFile: path.join(root, 'logs', `${name}.log`),
  });
  await waitForHttp(`${base}/api/healthcheck`, child, 60_000, 'Chute');

  const setup = await request(`${base}/api/setup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'bench', password: randomBytes(16).toString('hex') }),
  });
  check(setup.status === 200, `POST /api/setup answered ${setup.status}: ${setup.text.slice(0, 200)}`);
  const cookie = ([] as string[])
    .concat(setup.headers['set-cookie'] ?? [])
    .map((c) => c.split(';')[0])
    .join('; ');
  const me = await request(`${base}/api/user`, { headers: { cookie } });
  const token = parseJson(me.text)?.token;
  check(me.status === 200 && typeof token === 'string', `GET /api/user gave no token (${me.status})`);

  // A route exists unless Chute answers with its "no route" error (9002).
  const exists = async (method: string, route: string) => {
    const res = await request(`${base}${route}`, { method });
    return !(res.status === 404 && parseJson(res.text)?.code === 9002);
  };
  const routes = {
    upload: await exists('POST', '/api/upload'),
    raw: await exists('GET', '/raw/no-such-file-bench'),
    partial: await exists('POST', '/api/upload/partial'),
    tus: await exists('POST', '/api/upload/tus'),
    deleteFile: await exists('DELETE', '/api/user/files/no-such-file-bench'),
  };
  log(`Chute (${name}) is up on ${base} (pid ${child.pid}); routes: ${JSON.stringify(routes)}`);
  return { base, pid: child.pid!, token, routes, stop: () => stopProcess(child, 30_000) };
}

/** Waits until GET /raw/:name serves the whole file (chunked uploads are assembled in the background). */
async function waitUntilServed(chute: ChuteServer, name: string, size: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    const res = await request(`${chute.base}/raw/${encodeURIComponent(name)}`, { method: 'HEAD' });
    if (res.status === 200 && Number(res.headers['content-length']) === size) return;
    last = `HTTP ${res.status}, content-length ${res.headers['content-length']}`;
    await sleep(10);
  }
  throw new Error(`/raw/${name} did not serve ${size} bytes within ${timeoutMs} ms (last: ${last})`);
}

/**
 * Untimed, after a timed upload: GET /raw/:name gives back the source's bytes, or the run stops.
 *
 * FRESH_SPACE: the rows that compare two ways of uploading the same 1 GiB (5, 9) check each upload of the one way this
 * way and then delete it, like each single request's. Keeping one of them until the next of its kind (as until
 * 2026-11-29) put that next upload into fresh disk space while every other followed a deletion, and on this machine's
 * virtual disk a write into space just freed by a 1 GiB file ran at 1.4-1.5 GB/s, into fresh space at 210-370 MB/s
 * (dd with fdatasync, same minute; bench/RESULTS.md, 2026-11-29): the repetition that ran its chunked upload after
 * the previous chunked one read 150-175 MiB/s against 230-300 in the others.
 */
async function assertServedExactly(
  chute: ChuteServer,
  name: string,
  size: number,
  sha256: string,
  what: string,
): Promise<void> {
  const h = await hashDownload(`${chute.base}/raw/${encodeURIComponent(name)}`, TRANSFER_TIMEOUT_MS);
  check(
    h.status === 200 && h.bytes === size && h.sha256 === sha256,
    `the ${what} upload came back as ${h.bytes} bytes with another SHA-256`,
  );
}

/** Deletes a file by its id or served name (when the build has the route); the run stops when that fails. */
async function deleteChuteFile(chute: ChuteServer, idOrName: string | undefined): Promise<void> {
  if (!idOrName || !chute.routes.deleteFile) return;
  const res = await request(`${chute.base}/api/user/files/${encodeURIComponent(idOrName)}`, {
    method: 'DELETE',
    headers: { authorization: chute.token },
  });
  check(res.status === 200, `DELETE /api/user/files/${idOrName} answered ${res.status}: ${res.text.slice(0, 200)}`);
}

function fileOf(json: AnswerJson | null): { id?: string; name: string } {
  const file = json?.files?.[0];
  const name =
    typeof file?.name === 'string' ? file.name : typeof file?.url === 'string' ? file.url.split('/').pop() : undefined;
  check(
    typeof name === 'string' && name.length > 0,
    `the upload answer names no file: ${JSON.stringify(json).slice(0, 300)}`,
  );
  return { id: typeof file?.id === 'string' ? file.id : undefined, name };
}

// ---------------------------------------------------------------------------------------------------- row 5

interface SchedDelta {
  waitSeconds: number;
  runs: number;
}

function schedDelta(
  before: { waitSeconds: number; runs: number } | null,
  after: { waitSeconds: number; runs: number } | null,
): SchedDelta {
  if (!before || !after) return { waitSeconds: NaN, runs: NaN };
  return { waitSeconds: after.waitSeconds - before.waitSeconds, runs: after.runs - before.runs };
}

interface NodeChunkedPairs {
  rates: { chunked: number[]; single: number[] };
  /** Per pair (repetition): the chunked upload's rate over the single one's, both taken in that repetition. */
  pairRatios: number[];
  /**
   * Per upload: the milliseconds of its requests (fetch until the answer was read) and of each request's wait after its
   * body (see UploadReport.afterBodyMs), until the last answer and until /raw served it.
   */
  requests: {
    chunked: Array<{ requestMs: number[]; afterBodyMs: number[]; ackMs: number; servedMs: number }>;
    single: Array<{ requestMs: number[]; afterBodyMs: number[]; ackMs: number; servedMs: number }>;
  };
  /** Per upload, Chute's and the client's threads: seconds runnable but waiting for a CPU, and times put on one. */
  sched: {
    chunked: Array<{ chute: SchedDelta; client: SchedDelta }>;
    single: Array<{ chute: SchedDelta; client: SchedDelta }>;
  };
  /** Chute's CPU seconds (all threads) per upload, until /raw served it, and the connections the client opened. */
  cpu: { chunked: number[]; single: number[] };
  connections: { chunked: number[]; single: number[] };
  /** VmRSS right before each chunked upload and its peak during it. */
  chunkedRss: Array<{ before: number; peak: number }>;
}

/**
 * Row 5: the Node client (bench/lib/upload-client.ts, a process of its own with one kept-alive connection) sends the
 * file in chunks and in one request, `reps` pairs in rotating order; each chunked upload is hashed (untimed) and every
 * upload deleted right after it (see FRESH_SPACE).
 */
async function runNodeChunkedPairs(
  chute: ChuteServer,
  root: string,
  source: string,
  sourceSha: string,
  size: number,
  chunkBytes: number,
  reps: number,
): Promise<NodeChunkedPairs> {
  const client = startUploadClient(REPO);
  const out: NodeChunkedPairs = {
    rates: { chunked: [], single: [] },
    pairRatios: [],
    requests: { chunked: [], single: [] },
    sched: { chunked: [], single: [] },
    cpu: { chunked: [], single: [] },
    connections: { chunked: [], single: [] },
    chunkedRss: [],
  };
  try {
    for (let rep = 0; rep < reps; rep++) {
      const pair: Partial<Record<'chunked' | 'single', number>> = {};
      for (const how of rotate(['single', 'chunked'] as const, rep)) {
        await flushDisk(root);
        resetPeak(chute.pid);
        const rssBefore = readMemory(chute.pid)?.rss ?? NaN;
        const cpuBefore = readIo(chute.pid)?.cpuSeconds ?? NaN;
        const schedBefore = { chute: readSchedstat(chute.pid), client: readSchedstat(client.pid) };
        const sampler = sampleMemory(chute.pid);
        const report = await client.upload({
          how,
          base: chute.base,
          token: chute.token,
          source,
          chunkBytes,
          timeoutMs: TRANSFER_TIMEOUT_MS,
        });
        const mem = sampler.stop();
        out.cpu[how].push((readIo(chute.pid)?.cpuSeconds ?? NaN) - cpuBefore);
        out.sched[how].push({
          chute: schedDelta(schedBefore.chute, readSchedstat(chute.pid)),
          client: schedDelta(schedBefore.client, readSchedstat(client.pid)),
        });
        out.requests[how].push({
          requestMs: report.requestMs,
          afterBodyMs: report.afterBodyMs,
          ackMs: report.ackMs,
          servedMs: report.servedMs,
        });
        out.connections[how].push(report.connections);
        const rate = mibps(size, report.servedMs / 1000);
        out.rates[how].push(rate);
        pair[how] = rate;
        if (how === 'chunked') {
          check(
            report.requestMs.length === Math.ceil(size / chunkBytes),
            `the Node client sent ${report.requestMs.length} chunks`,
          );
          out.chunkedRss.push({ before: rssBefore, peak: Math.max(mem.hwm, mem.maxSampledRss) });
          await assertServedExactly(chute, report.name, size, sourceSha, 'chunked (Node client)');
        }
        await deleteChuteFile(chute, report.id_ ?? report.name);
      }
      out.pairRatios.push(pair.chunked! / pair.single!);
    }
  } finally {
    await client.stop();
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------- references

async function startSink(root: string, smallFile: string): Promise<{ base: string; dir: string; pid: number }> {
  const port = await freePort();
  const dir = path.join(root, 'sink');
  await mkdir(dir);
  const child = startProcess(
    'sink',
    process.execPath,
    ['--import', 'tsx', path.join(REPO, 'bench', 'sink.ts'), String(port), dir, smallFile],
    {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', NODE_ENV: 'production' },
      cwd: REPO,
      logFile: path.join(root, 'logs', 'sink.log'),
    },
  );
  const base = `http://127.0.0.1:${port}`;
  await waitForHttp(`${base}/`, child, 30_000, 'the sink');
  return { base, dir, pid: child.pid! };
}

async function emptyFolder(dir: string): Promise<void> {
  for (const entry of await readdir(dir)) await rm(path.join(dir, entry), { force: true });
}

async function startNginx(root: string, sourceFile: string, smallFile: string): Promise<{ base: string; pid: number }> {
  const nginx = findNginx();
  const port = await freePort();
  const prefix = path.join(root, 'nginx');
  const www = path.join(prefix, 'www');
  await mkdir(www, { recursive: true });
  await link(sourceFile, path.join(www, 'bench.bin'));
  await link(smallFile, path.join(www, 'small.bin'));
  await writeFile(path.join(www, 'ping.txt'), 'ok\n');
  const temp = (name: string) => `${name}_temp_path ${path.join(prefix, name)};`;
  // Debian's stock http settings for static files (sendfile on, tcp_nopush on); one process, like Chute.
  const conf = `daemon off;
master_process off;
worker_processes 1;
pid ${path.join(prefix, 'nginx.pid')};
error_log ${path.join(root, 'logs', 'nginx-error.log')} warn;
events { worker_connections 256; }
http {
  access_log off;
  ${temp('client_body')} ${temp('proxy')} ${temp('fastcgi')} ${temp('uwsgi')} ${temp('scgi')}
  default_type application/octet-stream;
  sendfile on;
  tcp_nopush on;
  keepalive_timeout 65;
  server {
    listen 127.0.0.1:${port};
    root ${www};
    location / { }
    # The same file without sendfile (read + write through user space, as a Node server must): explains the gap.
    location /copy/ { alias ${www}/; sendfile off; output_buffers 2 256k; }
  }
}
`;
  const confFile = path.join(prefix, 'nginx.conf');
  await writeFile(confFile, conf);
  const child = startProcess(
    'nginx',
    nginx,
    ['-p', prefix, '-c', confFile, '-e', path.join(root, 'logs', 'nginx-error.log')],
    {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      cwd: prefix,
      logFile: path.join(root, 'logs', 'nginx.log'),
    },
  );
  const base = `http://127.0.0.1:${port}`;
  await waitForHttp(`${base}/ping.txt`, child, 30_000, 'nginx');
  return { base, pid: child.pid! };
}

// ---------------------------------------------------------------------------------------------------- results

interface Row {
  id: string;
  what: string;
  chute: string;
  reference: string;
  ratio: string;
  target: string;
  verdict: string;
}

const notes: string[] = [];
let logsDir: string | null = null;

/** The end of each server's log, printed when the run fails (the temp folder is removed afterwards). */
async function printLogTails(): Promise<void> {
  if (!logsDir) return;
  for (const name of await readdir(logsDir).catch(() => [] as string[])) {
    const text = await readFile(path.join(logsDir, name), 'utf8').catch(() => '');
    if (text.trim()) console.error(`--- last lines of ${name}:\n${text.trim().split('\n').slice(-15).join('\n')}`);
  }
}

function verdict(ok: boolean, detail: string): string {
  return ok ? 'PASS' : `MISS (${detail})`;
}

/** Rates of the repetitions, for the lines under the table. */
const listRates = (values: number[]) => values.map((v) => v.toFixed(0)).join(', ');

/** A throughput row: Chute's rate against a reference's, with the minimum ratio (null: shown for reference only). */
function ratioRow(
  id: string,
  what: string,
  chute: { rate: number; label?: string; hidden?: boolean },
  reference: { label: string; rate: number },
  minRatio: number | null,
  /** The ratio shown and judged, when it is not the rates' (e.g. the median of paired repetitions' ratios). */
  pairedRatio?: number,
): Row {
  const ratio = pairedRatio ?? chute.rate / reference.rate;
  return {
    id,
    what,
    chute: chute.hidden ? '' : `${chute.label ?? ''}${fmtRate(chute.rate)}`,
    reference: `${reference.label}${fmtRate(reference.rate)}`,
    ratio: `${ratio.toFixed(2)}x`,
    target: minRatio === null ? '(none)' : `>= ${minRatio.toFixed(2)}x`,
    verdict:
      minRatio === null
        ? ''
        : verdict(ratio >= minRatio, `${((minRatio - ratio) * reference.rate).toFixed(0)} MiB/s short`),
  };
}

/** A peak-memory row (limitBytes null: shown without a target). */
function memoryRow(id: string, what: string, peak: number, reference: string, limitBytes: number | null): Row {
  return {
    id,
    what,
    chute: fmtMB(peak),
    reference,
    ratio: '',
    target: limitBytes === null ? '(none)' : `< ${fmtMB(limitBytes)}`,
    verdict: limitBytes === null ? '' : verdict(peak < limitBytes, `${fmtMB(peak - limitBytes)} over`),
  };
}

// ---------------------------------------------------------------------------------------------------- main

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  installSignalHandlers();
  const startedAt = new Date();
  const loadAtStart = loadAverage();
  await assertCurlAvailable();
  findNginx();

  const root = await mkdtemp(path.join(os.tmpdir(), 'chute-bench-'));
  removeAtExit(root);
  await mkdir(path.join(root, 'logs'));
  logsDir = path.join(root, 'logs');
  const machine = describeMachine(root);
  const size = options.sizeMiB * MiB;
  const sizeLabel = size % (1024 * MiB) === 0 ? `${size / (1024 * MiB)} GiB` : `${options.sizeMiB} MiB`;
  log(`temp folder ${root}; load average at start ${loadAtStart}`);

  const source = path.join(root, 'source.bin');
  log(`writing a ${sizeLabel} random source file`);
  const sourceSha = await createSource(source, size);

  const mainJs = options.entry ? path.resolve(options.entry) : await buildChute();
  const chute = await startChute(mainJs, root, options);
  check(chute.routes.upload, 'POST /api/upload is not in this build yet');
  check(chute.routes.raw, 'GET /raw/:name is not in this build yet');
  const smallSource = path.join(root, 'small.bin');
  const smallBytes = randomBytes(SMALL_FILE_BYTES);
  await writeFile(smallSource, smallBytes);
  const sink = await startSink(root, smallSource);
  const nginx = await startNginx(root, source, smallSource);
  const nginxBase = nginx.base;
  const auth = { authorization: chute.token };
  const bodyFile = path.join(root, 'curl-body.json');
  const rows: Row[] = [];
  const perRep: string[] = [];
  const idleRss = readMemory(chute.pid)?.rss ?? NaN;
  /** The Chute that row 3 ran on (its own), for --profile. */
  let smallServerPid: number | undefined;
  let keptFile: { id?: string; name: string } | null = null;

  // 1 + 4. One-request upload: Chute vs the fsyncing sink vs the non-fsyncing sink; Chute's peak RSS.
  const uploadPeak: number[] = [];
  if (options.only.has('upload') || options.only.has('download')) {
    const rates: Record<'chute' | 'fsync' | 'nofsync', number[]> = { chute: [], fsync: [], nofsync: [] };
    const io: Record<'chute' | 'fsync' | 'nofsync', IoCounters[]> = { chute: [], fsync: [], nofsync: [] };
    const reps = options.only.has('upload') ? options.reps : 1;
    for (let rep = 0; rep < reps; rep++) {
      for (const who of rotate(['chute', 'fsync', 'nofsync'] as const, rep)) {
        await flushDisk(root);
        const ioPid = who === 'chute' ? chute.pid : sink.pid;
        const ioBefore = readIo(ioPid);
        if (who === 'chute') {
          const peakReset = resetPeak(chute.pid);
          if (!peakReset) notes.push('VmHWM could not be reset: the peak shown is the largest sampled VmRSS.');
          const sampler = sampleMemory(chute.pid);
          const r = await curlUpload(`${chute.base}/api/upload`, source, {
            headers: auth,
            bodyFile,
            timeoutMs: TRANSFER_TIMEOUT_MS,
          });
          const mem = sampler.stop();
          check(r.httpCode === 200, `Chute upload answered ${r.httpCode}: ${r.body.slice(0, 300)}`);
          check(r.sizeUpload > size, `curl sent ${r.sizeUpload} bytes for a ${size}-byte file`);
          const file = fileOf(parseJson(r.body));
          const head = await request(`${chute.base}/raw/${encodeURIComponent(file.name)}`, { method: 'HEAD' });
          check(
            head.status === 200 && Number(head.headers['content-length']) === size,
            `/raw/${file.name} after upload: ${head.status}, length ${head.headers['content-length']}`,
          );
          rates.chute.push(mibps(size, r.seconds));
          uploadPeak.push(peakReset ? Math.max(mem.hwm, mem.maxSampledRss) : mem.maxSampledRss);
          if (keptFile) await deleteChuteFile(chute, keptFile.id);
          keptFile = file;
        } else {
          const r = await curlUpload(`${sink.base}/${who}`, source, { bodyFile, timeoutMs: TRANSFER_TIMEOUT_MS });
          const bytes = parseJson(r.body)?.bytes;
          check(
            r.httpCode === 200 && bytes === r.sizeUpload && bytes > size,
            `sink /${who}: HTTP ${r.httpCode}, wrote ${bytes} of ${r.sizeUpload} bytes`,
          );
          rates[who].push(mibps(size, r.seconds));
          await emptyFolder(sink.dir);
        }
        const ioAfter = readIo(ioPid);
        if (ioBefore && ioAfter) {
          io[who].push({
            syscr: ioAfter.syscr - ioBefore.syscr,
            syscw: ioAfter.syscw - ioBefore.syscw,
            rchar: ioAfter.rchar - ioBefore.rchar,
            wchar: ioAfter.wchar - ioBefore.wchar,
            cpuSeconds: ioAfter.cpuSeconds - ioBefore.cpuSeconds,
          });
        }
      }
    }
    const calls = (list: IoCounters[]) => {
      const c = list[list.length - 1];
      if (!c) return 'n/a';
      const cpu = median(list.map((x) => x.cpuSeconds));
      return (
        `${cpu.toFixed(2)} CPU s (median), ${c.syscr} reads (${(c.rchar / c.syscr / 1024).toFixed(0)} KiB avg), ` +
        `${c.syscw} writes (${(c.wchar / c.syscw / 1024).toFixed(0)} KiB avg)`
      );
    };
    notes.push(
      `Server work for one ${sizeLabel} upload (/proc/<pid>/stat and /io; system calls on socket and disk together): ` +
        `Chute ${calls(io.chute)}; sink + fsync ${calls(io.fsync)}.`,
    );
    if (options.only.has('upload')) {
      const c = median(rates.chute);
      const f = median(rates.fsync);
      const n = median(rates.nofsync);
      perRep.push(
        `upload MiB/s per repetition: Chute ${listRates(rates.chute)}; sink+fsync ${listRates(rates.fsync)}; ` +
          `sink without fsync ${listRates(rates.nofsync)}`,
      );
      rows.push(
        ratioRow(
          '1',
          `${sizeLabel} upload, one request (curl -F)`,
          { rate: c },
          { label: 'sink + fsync ', rate: f },
          0.9,
        ),
      );
      rows.push(
        ratioRow(
          '1r',
          '(reference) same, sink without fsync',
          { rate: c, hidden: true },
          { label: 'sink ', rate: n },
          null,
        ),
      );
      rows.push(
        memoryRow(
          '4',
          `Chute peak RSS during the ${sizeLabel} upload`,
          Math.max(...uploadPeak),
          `idle before: ${fmtMB(idleRss)}`,
          RSS_LIMIT,
        ),
      );
    }
  }

  // 2. /raw download: Chute vs nginx serving the same bytes.
  if (options.only.has('download')) {
    check(keptFile, 'no uploaded file to download');
    const rawUrl = `${chute.base}/raw/${encodeURIComponent(keptFile.name)}`;
    const nginxUrl = `${nginxBase}/bench.bin`;
    // Untimed: the bytes are the source's bytes (both servers); this also warms the page cache for both.
    for (const [who, url] of [
      ['Chute', rawUrl],
      ['nginx', nginxUrl],
      ['nginx without sendfile', `${nginxBase}/copy/bench.bin`],
    ] as const) {
      const h = await hashDownload(url, TRANSFER_TIMEOUT_MS);
      check(
        h.status === 200 && h.bytes === size && h.sha256 === sourceSha,
        `${who} served ${h.bytes} bytes with SHA-256 ${h.sha256.slice(0, 16)}..., expected ${size} bytes ${sourceSha.slice(0, 16)}...`,
      );
    }
    log('downloads from Chute and nginx are byte-exact (SHA-256 of the source)');
    const rates: Record<'chute' | 'nginx' | 'nginxCopy', number[]> = { chute: [], nginx: [], nginxCopy: [] };
    const cpu: Record<'chute' | 'nginx' | 'nginxCopy', number[]> = { chute: [], nginx: [], nginxCopy: [] };
    const clientCpu: Record<'chute' | 'nginx' | 'nginxCopy', number[]> = { chute: [], nginx: [], nginxCopy: [] };
    let downloadPeak = 0;
    for (let rep = 0; rep < options.reps; rep++) {
      for (const who of rotate(['chute', 'nginx', 'nginxCopy'] as const, rep)) {
        const url = who === 'chute' ? rawUrl : who === 'nginx' ? nginxUrl : `${nginxBase}/copy/bench.bin`;
        const cpuPid = who === 'chute' ? chute.pid : nginx.pid;
        const cpuBefore = readIo(cpuPid)?.cpuSeconds ?? NaN;
        resetPeak(chute.pid);
        const sampler = who === 'chute' ? sampleMemory(chute.pid) : null;
        const r = await curlDownload(url, { timeoutMs: TRANSFER_TIMEOUT_MS });
        const mem = sampler?.stop();
        if (mem) downloadPeak = Math.max(downloadPeak, mem.hwm, mem.maxSampledRss);
        check(
          r.httpCode === 200 && r.sizeDownload === size,
          `${who} download: HTTP ${r.httpCode}, ${r.sizeDownload} of ${size} bytes`,
        );
        rates[who].push(mibps(size, r.seconds));
        cpu[who].push((readIo(cpuPid)?.cpuSeconds ?? NaN) - cpuBefore);
        clientCpu[who].push(r.clientCpuSeconds);
      }
    }
    const c = median(rates.chute);
    const n = median(rates.nginx);
    const nc = median(rates.nginxCopy);
    notes.push(
      `Server CPU seconds for one ${sizeLabel} download (median, /proc/<pid>/stat): Chute ${median(cpu.chute).toFixed(2)}; ` +
        `nginx ${median(cpu.nginx).toFixed(2)}; nginx without sendfile ${median(cpu.nginxCopy).toFixed(2)}. ` +
        `The client's (curl's) CPU seconds for the same downloads: from Chute ${median(clientCpu.chute).toFixed(2)}; ` +
        `from nginx ${median(clientCpu.nginx).toFixed(2)}; from nginx without sendfile ${median(clientCpu.nginxCopy).toFixed(2)}.`,
    );
    perRep.push(
      `download MiB/s per repetition: Chute ${listRates(rates.chute)}; nginx ${listRates(rates.nginx)}; ` +
        `nginx without sendfile ${listRates(rates.nginxCopy)}`,
    );
    rows.push(
      ratioRow('2', `${sizeLabel} GET /raw (curl -o /dev/null)`, { rate: c }, { label: 'nginx ', rate: n }, 0.8),
    );
    rows.push(
      ratioRow(
        '2r',
        '(reference) same, nginx with sendfile off',
        { rate: c, hidden: true },
        { label: 'nginx ', rate: nc },
        null,
      ),
    );
    rows.push(memoryRow('2m', 'Chute peak RSS during the download', downloadPeak, '', null));
  }

  // 3. 4 KiB uploads at 32 concurrent clients (and the fsyncing sink under the same load, for reference). On a Chute of
  // its own, stopped after: ~50,000 uploads leave ~100 MB in the process (SQLite's page cache of the grown database,
  // V8's heap), which the memory rows of the large transfers (4, 5m, 9m) would otherwise count as theirs. Its RSS after
  // the run is printed below the table.
  if (options.only.has('small')) {
    const chute = await startChute(mainJs, root, options, 'chute-small');
    smallServerPid = chute.pid;
    const auth = { authorization: chute.token };
    const payload = randomBytes(4096);
    const common = { payload, concurrency: 32, maxRequests: 500_000 };
    // Each server gets the same untimed warm-up under the same load right before its run: the rate of a server that has
    // been up a while, not of V8 still compiling its hot functions (after 1 s of warm-up, Chute's next 5 s ran 10-30%
    // slower than the 5 s after them in runs here, 2026-11-28).
    const warmUp = (url: string, headers: Record<string, string>) =>
      smallUploadLoop({ ...common, url, headers, durationMs: SMALL_WARMUP_MS, isSuccess: () => true });
    const contenders = {
      chute: {
        pid: chute.pid,
        url: `${chute.base}/api/upload`,
        headers: auth as Record<string, string>,
        isSuccess: (status: number, json: AnswerJson | null) =>
          status === 200 && typeof json?.files?.[0]?.url === 'string',
      },
      sink: {
        pid: sink.pid,
        url: `${sink.base}/fsync`,
        headers: {} as Record<string, string>,
        isSuccess: (status: number, json: AnswerJson | null) =>
          status === 200 && typeof json?.bytes === 'number' && json.bytes > 4096,
      },
    };
    type Who = keyof typeof contenders;
    // Per contender: each repetition's rate and result, and the CPU counted over the timed runs.
    const runs: Record<Who, LoopResult[]> = { chute: [], sink: [] };
    const cpuUsed: Record<Who, { process: number; mainThread: number; uploads: number }> = {
      chute: { process: 0, mainThread: 0, uploads: 0 },
      sink: { process: 0, mainThread: 0, uploads: 0 },
    };
    // Repetitions in rotating order, as every other row: one 10 s run each moved by as much as 20% with what the
    // shared machine did that minute (bench/RESULTS.md, 2026-11-28 19:30).
    for (let rep = 0; rep < options.reps; rep++) {
      for (const who of rotate(['chute', 'sink'] as Who[], rep)) {
        const { pid, url, headers, isSuccess } = contenders[who];
        await warmUp(url, headers);
        await flushDisk(root);
        const before = readCpu(pid);
        const r = await smallUploadLoop({
          ...common,
          url,
          headers,
          durationMs: options.smallSeconds * 1000,
          isSuccess,
        });
        const after = readCpu(pid);
        if (before && after) {
          cpuUsed[who].process += after.process - before.process;
          cpuUsed[who].mainThread += after.mainThread - before.mainThread;
          cpuUsed[who].uploads += r.ok + r.failed;
        } else {
          cpuUsed[who].uploads = NaN;
        }
        runs[who].push(r);
      }
    }
    const rssAfter = readMemory(chute.pid)?.rss ?? NaN;
    const c = mergedLoops(runs.chute);
    const s = mergedLoops(runs.sink);
    check(c.ok > 0, `no 4 KiB upload succeeded: ${c.firstFailure}`);
    for (const sample of c.samples.slice(0, 4)) {
      const name = fileOf(sample).name;
      const got = await downloadBytes(`${chute.base}/raw/${encodeURIComponent(name)}`);
      check(
        got.status === 200 && got.body.equals(payload),
        `4 KiB upload ${name} does not come back byte-exact (${got.status})`,
      );
    }
    // The sink's small files stay until the run ends, as Chute's do: deleting tens of thousands of files would slow
    // every file creation near them for minutes on ext4 without a journal (bench/README.md), in the next repetitions.
    check(s.ok > 0, `no 4 KiB upload to the sink succeeded: ${s.firstFailure}`);
    // CPU per upload is steadier than uploads/s on a shared machine: the rate follows how fast the core is that minute.
    const perUpload = (used: { process: number; mainThread: number; uploads: number }): string =>
      Number.isFinite(used.uploads) && used.uploads > 0
        ? `${((used.process / used.uploads) * 1e6).toFixed(0)} us (main thread ` +
          `${((used.mainThread / used.uploads) * 1e6).toFixed(0)} us)`
        : 'not read';
    const rateOf = (r: LoopResult) => r.ok / r.seconds;
    perRep.push(
      `4 KiB uploads/s per repetition: Chute ${runs.chute.map((r) => rateOf(r).toFixed(0)).join(', ')}; ` +
        `sink ${runs.sink.map((r) => rateOf(r).toFixed(0)).join(', ')}`,
    );
    notes.push(
      `Server CPU per 4 KiB upload (/proc/<pid>/stat, all threads, user + system; counted over the ${options.smallSeconds} s ` +
        `of each timed run, divided by the uploads answered): Chute ${perUpload(cpuUsed.chute)}; ` +
        `sink ${perUpload(cpuUsed.sink)}.`,
    );
    notes.push(
      `Row 3 ran on a Chute of its own (stopped after it): its VmRSS after ${c.ok.toLocaleString('en')} timed uploads ` +
        `(and the warm-ups') was ${fmtMB(rssAfter)}.`,
    );
    await chute.stop();
    const cRate = median(runs.chute.map(rateOf));
    const sRate = median(runs.sink.map(rateOf));
    const lat = (r: typeof c) =>
      `p50 ${percentile(r.latenciesMs, 50).toFixed(1)} ms, p99 ${percentile(r.latenciesMs, 99).toFixed(1)} ms`;
    rows.push({
      id: '3',
      what: `4 KiB uploads/s, 32 clients, ${options.smallSeconds} s${options.reps > 1 ? ` (median of ${options.reps})` : ''}`,
      chute: `${cRate.toFixed(0)}/s (${lat(c)}${c.failed ? `; ${c.failed} FAILED: ${c.firstFailure}` : ''})`,
      reference: `sink + fsync ${sRate.toFixed(0)}/s (${lat(s)}${s.failed ? `; ${s.failed} failed` : ''})`,
      ratio: `${(cRate / sRate).toFixed(2)}x`,
      // Issue 14: at least 0.7x the fsyncing sink under the same load.
      target: '>= 0.70x',
      verdict: `${c.failed === 0 ? '' : 'ERRORS; '}${verdict(cRate >= 0.7 * sRate, `${(0.7 * sRate - cRate).toFixed(0)}/s short`)}`,
    });
  }

  // 5. The same file in 25 MiB chunks through /api/upload/partial vs in one request: the Node client (row 5), then curl
  // (5-curl, 5s, 5c: a curl process per chunk, the pieces split into files beforehand).
  if (options.only.has('chunked')) {
    if (!chute.routes.partial) {
      rows.push({
        id: '5',
        what: `${sizeLabel} in ${options.chunkMiB} MiB chunks vs one request`,
        chute: 'not run',
        reference: '',
        ratio: '',
        target: '>= 0.90x',
        verdict: 'NOT RUN: POST /api/upload/partial is not in this build',
      });
    } else {
      const chunk = options.chunkMiB * MiB;
      // 5: the Node client on one kept-alive connection, chunked against one request (issue 50).
      const node = await runNodeChunkedPairs(chute, root, source, sourceSha, size, chunk, options.chunkedReps);
      log(`the ${node.requests.chunked.length} chunked uploads of the Node client came back byte-exact`);
      const nodeChunked = median(node.rates.chunked);
      const nodeSingle = median(node.rates.single);
      const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
      perRep.push(
        `Node client, MiB/s per pair in rotating order (until /raw serves the file): chunked ` +
          `${listRates(node.rates.chunked)}; single ${listRates(node.rates.single)}; chunked / single ` +
          node.pairRatios.map((r) => r.toFixed(2)).join(', '),
      );
      perRep.push(
        `Node client, seconds inside the requests / until the last answer / until /raw served it, per repetition: ` +
          `chunked ${node.requests.chunked
            .map(
              (c) =>
                `${(sum(c.requestMs) / 1000).toFixed(2)} / ${(c.ackMs / 1000).toFixed(2)} / ${(c.servedMs / 1000).toFixed(2)}`,
            )
            .join(', ')}; single ${node.requests.single
            .map((c) => `${(c.ackMs / 1000).toFixed(2)} / ${(c.servedMs / 1000).toFixed(2)}`)
            .join(', ')}`,
      );
      const allChunks = node.requests.chunked.flatMap((c) => c.requestMs);
      const afterChunks = node.requests.chunked.flatMap((c) => c.afterBodyMs);
      perRep.push(
        `Node client, chunked: each chunk's request, ms (median / p90 / max over every chunk of the row): ` +
          `${median(allChunks).toFixed(0)} / ${percentile(allChunks, 90).toFixed(0)} / ${Math.max(...allChunks).toFixed(0)}; ` +
          `of it after the chunk's last byte was sent until its answer: ${median(afterChunks).toFixed(1)} / ` +
          `${percentile(afterChunks, 90).toFixed(1)} / ${Math.max(...afterChunks).toFixed(1)}; summed per upload: ` +
          node.requests.chunked.map((c) => (sum(c.afterBodyMs) / 1000).toFixed(2)).join(', ') +
          ` s (the single request's, after its last byte: ` +
          node.requests.single.map((c) => (sum(c.afterBodyMs) / 1000).toFixed(2)).join(', ') +
          ' s)',
      );
      const schedLine = (list: Array<{ chute: SchedDelta; client: SchedDelta }>) =>
        list
          .map(
            (x) =>
              `${x.chute.waitSeconds.toFixed(2)} s in ${x.chute.runs} runs / ${x.client.waitSeconds.toFixed(2)} s in ` +
              `${x.client.runs}`,
          )
          .join(', ');
      notes.push(
        `Row 5 (Node client): Chute's CPU seconds per upload until /raw served it (all threads, /proc/<pid>/stat), ` +
          `chunked ${node.cpu.chunked.map((v) => v.toFixed(2)).join(', ')}; single ` +
          `${node.cpu.single.map((v) => v.toFixed(2)).join(', ')}. Time runnable but waiting for a CPU ` +
          `(/proc/<pid>/task/*/schedstat, all threads), and how many times a thread was put on one, Chute / the ` +
          `client, per upload: chunked ${schedLine(node.sched.chunked)}; single ${schedLine(node.sched.single)}. ` +
          `TCP connections the client opened per upload: chunked ${node.connections.chunked.join(', ')}; single ` +
          `${node.connections.single.join(', ')} (0: the kept-alive one was reused; undici drops a connection whose ` +
          `answer is complete before its own body writer has ended).`,
      );
      rows.push(
        ratioRow(
          '5',
          `${sizeLabel} in ${options.chunkMiB} MiB chunks vs one request, Node fetch on one kept-alive connection ` +
            `(median of ${node.pairRatios.length} pairs' ratios)`,
          { label: 'chunked ', rate: nodeChunked },
          { label: 'one request ', rate: nodeSingle },
          0.9,
          median(node.pairRatios),
        ),
      );
      // The chunks as files, as a script that splits a file and sends each piece with curl has them (untimed).
      const pieces = await splitFile(source, chunk, path.join(root, 'pieces'));
      const rates: Record<'single' | 'chunked', number[]> = { single: [], chunked: [] };
      const ackRates: number[] = [];
      /** Per chunked repetition: the seconds curl itself spent in the chunks' requests (its time_total), summed. */
      const inCurl: number[] = [];
      const chunkedSeconds: number[] = [];
      let chunkedPeak = 0;
      /** VmRSS right before each chunked upload and its peak during it: the base and what the upload added. */
      const chunkedRss: Array<{ before: number; peak: number }> = [];
      let chunkedChecked = 0;
      /**
       * Per repetition: the seconds that as many curl processes as there are chunks take for a request that costs the
       * server next to nothing (GET /api/healthcheck), started the same way: what the client alone adds to a chunked
       * upload, whatever the server does.
       */
      const clientFloor: number[] = [];
      for (let rep = 0; rep < options.reps; rep++) {
        for (const how of rotate(['single', 'chunked'] as const, rep)) {
          await flushDisk(root);
          resetPeak(chute.pid);
          const rssBefore = readMemory(chute.pid)?.rss ?? NaN;
          const sampler = sampleMemory(chute.pid);
          const t0 = performance.now();
          let file: { id?: string; name: string };
          let ackSeconds = NaN;
          if (how === 'single') {
            const r = await curlUpload(`${chute.base}/api/upload`, source, {
              headers: auth,
              bodyFile: path.join(root, 'single-answer.json'),
              timeoutMs: TRANSFER_TIMEOUT_MS,
            });
            check(r.httpCode === 200, `single upload answered ${r.httpCode}: ${r.body.slice(0, 300)}`);
            file = fileOf(parseJson(r.body));
          } else {
            let token: string | undefined;
            let last: AnswerJson | null = null;
            let curlSeconds = 0;
            for (const [i, piece] of pieces.entries()) {
              const start = i * chunk;
              const end = Math.min(size, start + chunk) - 1;
              const isLast = end === size - 1;
              const headers: Record<string, string> = {
                ...auth,
                'content-range': `bytes ${start}-${end}/${size}`,
                'x-service-p-content-length': String(size),
                'x-service-p-content-type': 'application/octet-stream',
                'x-service-p-filename': 'bench.bin',
                'x-service-p-lastchunk': String(isLast),
              };
              if (token) headers['x-service-p-token'] = token;
              const r = await curlUpload(`${chute.base}/api/upload/partial`, piece, {
                headers,
                bodyFile: path.join(root, 'chunk-answer.json'),
                timeoutMs: TRANSFER_TIMEOUT_MS,
              });
              check(r.httpCode === 200, `chunk ${start}-${end} answered ${r.httpCode}: ${r.body.slice(0, 300)}`);
              curlSeconds += r.seconds;
              last = parseJson(r.body);
              if (!isLast) {
                token = last?.partialToken;
                check(
                  typeof token === 'string' && token.length > 0,
                  `chunk ${start}-${end}: no partialToken in ${r.body.slice(0, 200)}`,
                );
              }
            }
            ackSeconds = (performance.now() - t0) / 1000;
            inCurl.push(curlSeconds);
            file = fileOf(last);
          }
          await waitUntilServed(chute, file.name, size, TRANSFER_TIMEOUT_MS);
          const seconds = (performance.now() - t0) / 1000;
          const mem = sampler.stop();
          rates[how].push(mibps(size, seconds));
          if (how === 'chunked') {
            ackRates.push(mibps(size, ackSeconds));
            chunkedSeconds.push(ackSeconds);
            chunkedPeak = Math.max(chunkedPeak, mem.hwm, mem.maxSampledRss);
            chunkedRss.push({ before: rssBefore, peak: Math.max(mem.hwm, mem.maxSampledRss) });
            await assertServedExactly(chute, file.name, size, sourceSha, 'chunked');
            chunkedChecked++;
            const f0 = performance.now();
            for (let i = 0; i < pieces.length; i++) {
              const r = await curlDownload(`${chute.base}/api/healthcheck`, { timeoutMs: 10_000 });
              check(r.httpCode === 200, `GET /api/healthcheck answered ${r.httpCode}`);
            }
            clientFloor.push((performance.now() - f0) / 1000);
          }
          // Every upload of the row is deleted right after it, whichever way it came (see FRESH_SPACE); the last
          // chunk's answer names the file that is still being assembled by its name only.
          await deleteChuteFile(chute, file.id ?? file.name);
        }
      }
      check(chunkedChecked > 0, 'no chunked upload was made');
      log(`the ${chunkedChecked} chunked uploads came back byte-exact (SHA-256 of the source)`);
      const c = median(rates.chunked);
      const s = median(rates.single);
      perRep.push(
        `curl, chunked vs single MiB/s per repetition (until /raw serves the file): chunked ${listRates(rates.chunked)} ` +
          `(until the last chunk's answer: ${listRates(ackRates)}); single ${listRates(rates.single)}`,
      );
      // What is left between the requests is the client's: a curl process started per chunk, its answer read.
      perRep.push(
        `curl, chunked: seconds inside curl's ${pieces.length} requests (their time_total) of the seconds until the last ` +
          `answer, per repetition: ${inCurl.map((t, i) => `${t.toFixed(2)} of ${chunkedSeconds[i]!.toFixed(2)}`).join(', ')}`,
      );
      // Row 5m is the process's whole RSS, which holds what earlier rows left (SQLite's page cache filled by row 3's
      // uploads, V8's heap): the base before each upload, next to the peak during it.
      perRep.push(
        `chunked: Chute's VmRSS before the upload / peak during it, per repetition: Node client ` +
          node.chunkedRss.map((r) => `${fmtMB(r.before)} / ${fmtMB(r.peak)}`).join(', ') +
          '; curl ' +
          chunkedRss.map((r) => `${fmtMB(r.before)} / ${fmtMB(r.peak)}`).join(', '),
      );
      const what = `the same with a curl process per chunk, curl for the one request too (reported)`;
      rows.push(ratioRow('5-curl', what, { label: 'chunked ', rate: c }, { label: 'one request ', rate: s }, null));
      // The server's share: the chunks' requests alone, without the client's work between them (a curl process
      // started per chunk, its answer read for the next token; the spec's tokens are single-use, so a curl client
      // cannot send the chunks as one chain). Reported, not a target.
      rows.push(
        ratioRow(
          '5s',
          "5-curl counting only the time inside the chunks' requests (curl's time_total, summed)",
          { label: 'chunked ', rate: median(inCurl.map((t) => mibps(size, t))) },
          { label: 'one request ', rate: s },
          null,
        ),
      );
      // The client's floor: with a curl process per chunk, a chunked upload takes at least the one request's time plus
      // what starting those processes costs, so it cannot read more than this share of the one request's rate even
      // if the server answered each chunk's bytes as fast as the one request's. Reported, not a target.
      const floor = median(clientFloor);
      perRep.push(
        `client floor: ${pieces.length} curl processes started as for the chunks, each a GET /api/healthcheck, took ` +
          `${clientFloor.map((t) => t.toFixed(2)).join(', ')} s per repetition`,
      );
      const singleSeconds = size / MiB / s;
      rows.push(
        ratioRow(
          '5c',
          `the most 5-curl can read with a curl process per chunk: the one request's time plus ${pieces.length} curl ` +
            `runs (${floor.toFixed(2)} s)`,
          { label: 'ceiling ', rate: size / MiB / (singleSeconds + floor) },
          { label: 'one request ', rate: s },
          null,
        ),
      );
      const nodePeak = Math.max(...node.chunkedRss.map((r) => r.peak));
      rows.push(
        memoryRow(
          '5m',
          'Chute peak RSS during the chunked uploads (both clients)',
          Math.max(chunkedPeak, nodePeak),
          '',
          RSS_LIMIT,
        ),
      );
    }
  }

  // 9. The same file through tus (POST /api/upload/tus, then one PATCH streaming it) vs one multipart request, both
  // with curl streaming from disk; the time of the tus upload includes its creation request.
  if (options.only.has('tus')) {
    if (!chute.routes.tus) {
      rows.push({
        id: '9',
        what: `${sizeLabel} through tus vs one request`,
        chute: 'not run',
        reference: '',
        ratio: '',
        target: '>= 0.90x',
        verdict: 'NOT RUN: /api/upload/tus is not in this build',
      });
    } else {
      const rates: Record<'single' | 'tus', number[]> = { single: [], tus: [] };
      let tusPeak = 0;
      let tusChecked = 0;
      for (let rep = 0; rep < options.reps; rep++) {
        for (const how of rotate(['single', 'tus'] as const, rep)) {
          await flushDisk(root);
          resetPeak(chute.pid);
          const sampler = sampleMemory(chute.pid);
          const t0 = performance.now();
          let file: { id?: string; name: string };
          if (how === 'single') {
            const up = await curlUpload(`${chute.base}/api/upload`, source, {
              headers: auth,
              bodyFile,
              timeoutMs: TRANSFER_TIMEOUT_MS,
            });
            check(up.httpCode === 200, `single upload answered ${up.httpCode}: ${up.body.slice(0, 300)}`);
            file = fileOf(parseJson(up.body));
          } else {
            const created = await request(`${chute.base}/api/upload/tus`, {
              method: 'POST',
              headers: {
                ...auth,
                'tus-resumable': '1.0.0',
                'upload-length': String(size),
                'upload-metadata': `filename ${Buffer.from('bench.bin').toString('base64')}`,
              },
            });
            const location = created.headers.location;
            check(created.status === 201 && typeof location === 'string', `tus creation answered ${created.status}`);
            const patched = await curlTusPatch(location, source, {
              headers: auth,
              headerFile: bodyFile,
              timeoutMs: TRANSFER_TIMEOUT_MS,
            });
            const name = /^chute-file-name: (.+)$/im.exec(patched.body)?.[1]?.trim();
            const id = /^chute-file-id: (.+)$/im.exec(patched.body)?.[1]?.trim();
            check(patched.httpCode === 204 && name, `tus PATCH answered ${patched.httpCode}: ${patched.body}`);
            check(patched.sizeUpload === size, `tus PATCH sent ${patched.sizeUpload} bytes of ${size}`);
            file = { name: decodeURIComponent(name), ...(id ? { id } : {}) };
          }
          await waitUntilServed(chute, file.name, size, TRANSFER_TIMEOUT_MS);
          const seconds = (performance.now() - t0) / 1000;
          const mem = sampler.stop();
          rates[how].push(mibps(size, seconds));
          if (how === 'tus') {
            tusPeak = Math.max(tusPeak, mem.hwm, mem.maxSampledRss);
            await assertServedExactly(chute, file.name, size, sourceSha, 'tus');
            tusChecked++;
          }
          // As in row 5: every upload of the row is deleted right after it (see FRESH_SPACE).
          await deleteChuteFile(chute, file.id);
        }
      }
      check(tusChecked > 0, 'no tus upload was made');
      log(`the ${tusChecked} tus uploads came back byte-exact (SHA-256 of the source)`);
      const t = median(rates.tus);
      const s = median(rates.single);
      perRep.push(`tus vs single MiB/s per repetition: tus ${listRates(rates.tus)}; single ${listRates(rates.single)}`);
      const what = `${sizeLabel} through tus (POST + one PATCH) vs one request (curl)`;
      rows.push(ratioRow('9', what, { label: 'tus ', rate: t }, { label: 'one request ', rate: s }, 0.9));
      rows.push(memoryRow('9m', 'Chute peak RSS during the tus upload', tusPeak, '', RSS_LIMIT));
    }
  }

  // 6, 7, 8. The hot path: redirects and 64 KiB GETs (wrk, 32 connections), and view counts exact after a stop.
  let viewCheck: { fileId: string; expected: number } | null = null;
  if (options.only.has('hot')) {
    await assertWrkAvailable();
    const up = await curlUpload(`${chute.base}/api/upload`, smallSource, {
      headers: auth,
      bodyFile,
      timeoutMs: 60_000,
    });
    check(up.httpCode === 200, `the 64 KiB upload answered ${up.httpCode}: ${up.body.slice(0, 200)}`);
    const small = fileOf(parseJson(up.body));
    const shortened = await request(`${chute.base}/api/user/urls`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ destination: 'https://example.com/bench' }),
    });
    const code = parseJson(shortened.text)?.code;
    check(shortened.status === 200 && typeof code === 'string', `POST /api/user/urls answered ${shortened.status}`);
    const urls = {
      chuteRaw: `${chute.base}/raw/${encodeURIComponent(small.name)}`,
      nginxRaw: `${nginxBase}/small.bin`,
      nodeRaw: `${sink.base}/small`,
      chuteGo: `${chute.base}/go/${code}`,
      nodeGo: `${sink.base}/go/bench`,
    };
    for (const url of [urls.chuteRaw, urls.nginxRaw, urls.nodeRaw]) {
      const got = await downloadBytes(url);
      check(got.status === 200 && got.body.equals(smallBytes), `${url} does not serve the 64 KiB file byte-exact`);
    }
    for (const url of [urls.chuteGo, urls.nodeGo]) {
      const res = await request(url);
      check(res.status === 302 && res.headers.location === 'https://example.com/bench', `${url}: ${res.status}`);
    }
    const runs: Record<keyof typeof urls, WrkResult[]> = {
      chuteRaw: [],
      nginxRaw: [],
      nodeRaw: [],
      chuteGo: [],
      nodeGo: [],
    };
    for (let rep = 0; rep < options.reps; rep++) {
      for (const who of rotate(Object.keys(urls) as Array<keyof typeof urls>, rep)) {
        const r = await runWrk(urls[who], options.smallSeconds);
        check(r.requests > 0 && r.failures === 0, `wrk ${urls[who]}: ${r.requests} requests, ${r.failures} failures`);
        runs[who].push(r);
      }
    }
    const med = (who: keyof typeof urls) => ({
      rate: median(runs[who].map((r) => r.rate)),
      p50: median(runs[who].map((r) => r.p50Ms)),
      p99: median(runs[who].map((r) => r.p99Ms)),
    });
    const shown = (m: ReturnType<typeof med>) =>
      `${m.rate.toFixed(0)}/s (p50 ${m.p50.toFixed(2)} ms, p99 ${m.p99.toFixed(1)} ms)`;
    const rateRow = (
      id: string,
      what: string,
      a: keyof typeof urls,
      b: keyof typeof urls,
      label: string,
      min: number | null,
    ): Row => {
      const ratio = med(a).rate / med(b).rate;
      return {
        id,
        what,
        chute: shown(med(a)),
        reference: `${label} ${shown(med(b))}`,
        ratio: `${ratio.toFixed(2)}x`,
        target: min === null ? '(report)' : `>= ${min.toFixed(2)}x`,
        verdict: min === null ? '' : verdict(ratio >= min, `${((min - ratio) * med(b).rate).toFixed(0)}/s short`),
      };
    };
    const secs = `wrk -c32, ${options.smallSeconds} s`;
    rows.push(rateRow('6', `redirects/s, GET /go/<code> (${secs})`, 'chuteGo', 'nodeGo', 'bare Node 302', 0.7));
    rows.push(rateRow('7', `64 KiB GET /raw/<name> req/s (${secs})`, 'chuteRaw', 'nginxRaw', 'nginx', 0.5));
    rows.push(
      rateRow('7n', '64 KiB GET: the same against a bare Node server', 'chuteRaw', 'nodeRaw', 'bare Node', null),
    );
    for (const who of Object.keys(urls) as Array<keyof typeof urls>) {
      perRep.push(`${who} req/s per repetition: ${runs[who].map((r) => r.rate.toFixed(0)).join(', ')}`);
    }
    // Views: exactly `count` more GETs, then (below) a graceful stop, then the stored count.
    const before = parseJson(
      (await request(`${chute.base}/api/user/files/${small.id}`, { headers: auth })).text,
    )?.views;
    check(typeof before === 'number', 'GET /api/user/files/:id gave no views');
    const count = options.quick ? 10_000 : 100_000;
    const seconds = await exactGets(urls.chuteRaw, count);
    log(`${count} GETs of the 64 KiB file in ${seconds.toFixed(1)} s (Node client)`);
    viewCheck = { fileId: small.id!, expected: before + count };
  }

  const loadAtEnd = loadAverage();
  await chute.stop();
  if (viewCheck) {
    const db = new SqliteDatabase(path.join(root, 'chute-data', 'chute.db'), { readonly: true });
    const stored = (db.prepare('select views from files where id = ?').get(viewCheck.fileId) as { views: number })
      .views;
    db.close();
    rows.push({
      id: '8',
      what: 'views of the 64 KiB file stored after a graceful stop',
      chute: String(stored),
      reference: `requests made: ${viewCheck.expected}`,
      ratio: '',
      target: 'exactly equal',
      verdict: verdict(stored === viewCheck.expected, `${viewCheck.expected - stored} views lost`),
    });
  }
  if (options.profile) {
    const dir = path.join(REPO, '.tmp', 'bench-profiles');
    // CPU.<date>.<time>.<pid>.<thread id>.<n>.cpuprofile: Chute's main thread (id 0); its worker threads write their own.
    const files = await readdir(dir);
    for (const pid of [chute.pid, smallServerPid]) {
      if (pid === undefined) continue;
      const newest = files
        .filter((f) => f.endsWith('.cpuprofile') && f.includes(`.${pid}.0.`))
        .sort()
        .pop();
      if (newest) console.log(`\n${summariseProfile(path.join(dir, newest))}\n`);
    }
  }

  // ---- report
  const header = ['#', 'Measurement', 'Chute', 'Reference', 'Ratio', 'Target', 'Result'];
  const lines = [
    `| ${header.join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${[r.id, r.what, r.chute, r.reference, r.ratio, r.target, r.verdict].join(' | ')} |`),
  ];
  const report = [
    `## ${startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC: ${options.quick ? 'quick' : 'full'} run${options.only.size < BENCHES.length ? ` (only ${[...options.only].join(', ')})` : `, ${sizeLabel}`}, ${options.reps} repetition(s)${options.reps > 1 ? ', medians' : ''}`,
    '',
    `- Machine: ${machine.nproc} CPUs (${machine.cpuModel}), ${machine.memoryGiB} GiB RAM, Node ${machine.node}`,
    `- Disk: ${machine.disk}`,
    `- Commit: ${machine.commit}`,
    `- Load average (1/5/15 min) at start: ${loadAtStart}; at end: ${loadAtEnd}. This machine is shared with other ` +
      'engineers building and testing at the same time: absolute numbers are noisy; each ratio compares runs made ' +
      'side by side in the same minute, in rotating order.',
    '- Chute: built with tsc, `node dist/src/main.js`, SQLite, local storage in a temp DATA_DIR, default settings ' +
      `except FILES_MAX_FILE_SIZE and RATELIMIT_ENABLED=false. All traffic on 127.0.0.1. Every server's files under ` +
      `${os.tmpdir()} (TMPDIR; see bench/README.md).`,
    '',
    ...lines,
    '',
    ...perRep.map((p) => `- ${p}`),
    ...[...new Set(notes)].map((n) => `- ${n}`),
    '',
  ].join('\n');
  console.log(`\n${report}`);
  if (options.record) {
    await appendFile(path.join(REPO, 'bench', 'RESULTS.md'), `\n${report}`);
    log('appended to bench/RESULTS.md');
  } else {
    log('not recorded in bench/RESULTS.md (quick/profile run or --no-record)');
  }
}
// `npm run bench -- listing ...`: the file list at scale (bench/listing.ts); `lists ...`: the other lists
// (bench/lists.ts); `writes ...`: uploads into a full account (bench/writes.ts); `migrations ...`: migrations over many
// files (bench/migrations.ts); `heavy ...`: redirects while heavy work runs (bench/heavy.ts); `export ...`: the instance
// export with many small files kept in the database (bench/export.ts).
const modes: Record<string, () => Promise<void>> = {
  listing: () => runListingBench(process.argv.slice(3), buildChute),
  lists: () => runListsBench(process.argv.slice(3), buildChute),
  writes: () => runWritesBench(process.argv.slice(3), buildChute),
  migrations: () => runMigrationBench(process.argv.slice(3)),
  heavy: () => runHeavyBench(process.argv.slice(3), buildChute),
  'record-cost': () => runRecordCostBench(process.argv.slice(3), buildChute),
  export: () => runExportBench(process.argv.slice(3), buildChute),
};
const run = modes[process.argv[2] ?? ''] ?? main;
run()
  .catch((err: unknown) => {
    console.error(`\nbenchmark failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exitCode = 1;
    return printLogTails();
  })
  .finally(() => cleanupAll());
