// What a durable record costs a small upload (issue 14, row 3): `npm run bench -- record-cost [--seconds S]
// [--rounds R]`. Six servers side by side on this machine, each taking 4 KiB uploads from 32 clients as row 3 of the
// main benchmark: Chute (built like the main benchmark), the reference sink (bench/sink.ts POST /fsync), and the sink
// with one record per upload committed through Chute's database layer (bench/record-sink.ts): Chute's files row in a
// database Chute made (on the main thread, or on a worker thread with a connection of its own, or with the upload's bytes
// in the same commit instead of a file), or a bare row of a table with a primary key alone. Each gets 5 s of the load untimed first; then
// R rounds (default 3) of S seconds (default 10) each, the servers in rotating order. Prints each one's median rate,
// its ratio to the sink's, and its CPU per upload (all threads, and the main thread alone). Not recorded in
// bench/RESULTS.md.
import { randomBytes } from 'node:crypto';
import { copyFile, mkdir, mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { median, percentile, smallUploadLoop, type LoopResult } from './lib/client.js';
import { startChuteWithUser } from './lib/chute.js';
import { freePort, readCpu, removeAtExit, startProcess, stopProcess, waitForHttp } from './lib/procs.js';

const log = (message: string) => console.log(`[record-cost] ${message}`);

interface Contender {
  name: string;
  url: string;
  headers: Record<string, string>;
  pid: number;
  stop(): Promise<void>;
}

function parseOptions(argv: string[]): { seconds: number; rounds: number } {
  const value = (name: string) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const seconds = Number(value('--seconds') ?? 10);
  const rounds = Number(value('--rounds') ?? 3);
  if (!(seconds > 0)) throw new Error('--seconds wants a positive number');
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error('--rounds wants a whole number');
  return { seconds, rounds };
}

export async function runRecordCostBench(argv: string[], buildChute: () => Promise<string>): Promise<void> {
  const options = parseOptions(argv);
  const mainJs = await buildChute();
  const root = await mkdtemp(path.join(os.tmpdir(), 'chute-bench-record-'));
  removeAtExit(root);
  await mkdir(path.join(root, 'logs'), { recursive: true });
  log(`temp folder ${root}`);
  const started: Contender[] = [];
  try {
    const chute = await startChuteWithUser(mainJs, root, { name: 'chute' });
    started.push({
      name: 'Chute',
      url: `${chute.base}/api/upload`,
      headers: { authorization: chute.token },
      pid: chute.child.pid!,
      stop: () => stopProcess(chute.child),
    });
    // A database with Chute's schema and a user, made by a Chute started for that alone.
    const maker = await startChuteWithUser(mainJs, root, { name: 'records' });
    await stopProcess(maker.child);
    const sinkScript = path.join(import.meta.dirname, 'sink.ts');
    const recordScript = path.join(import.meta.dirname, 'record-sink.ts');
    const chuteDatabase = path.join(maker.dataDir, 'chute.db');
    const bareDatabase = path.join(root, 'bare.db');
    // The same database again for the worker's server (the maker stopped: its log is checkpointed into the file).
    const workerDatabase = path.join(root, 'records-worker.db');
    await copyFile(chuteDatabase, workerDatabase);
    const blobDatabase = path.join(root, 'records-blob.db');
    await copyFile(chuteDatabase, blobDatabase);
    const servers: Array<[string, string, string[], string]> = [
      ['sink', sinkScript, [], '/fsync'],
      ["sink + Chute's files row", recordScript, [chuteDatabase, maker.userId, 'record'], '/'],
      [
        "sink + Chute's files row on a worker thread",
        recordScript,
        [workerDatabase, maker.userId, 'record-worker'],
        '/',
      ],
      [
        "Chute's files row with the bytes in it (no file)",
        recordScript,
        [blobDatabase, maker.userId, 'record-blob'],
        '/',
      ],
      ['sink + a bare row', recordScript, [bareDatabase, maker.userId, 'bare'], '/'],
    ];
    for (const [i, [name, script, args, route]] of servers.entries()) {
      const port = await freePort();
      const folder = path.join(root, `files-${i}`);
      await mkdir(folder);
      const child = startProcess(name, process.execPath, ['--import', 'tsx', script, String(port), folder, ...args], {
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', NODE_ENV: 'production' },
        logFile: path.join(root, 'logs', `server-${i}.log`),
      });
      await waitForHttp(`http://127.0.0.1:${port}/`, child, 60_000, name);
      started.push({
        name,
        url: `http://127.0.0.1:${port}${route}`,
        headers: {},
        pid: child.pid!,
        stop: () => stopProcess(child),
      });
    }

    const payload = randomBytes(4096);
    const load = (c: Contender, seconds: number) =>
      smallUploadLoop({
        url: c.url,
        headers: c.headers,
        payload,
        concurrency: 32,
        durationMs: seconds * 1000,
        maxRequests: 1_000_000,
        isSuccess: (status) => status === 200,
      });
    for (const c of started) await load(c, 5);
    const results = new Map<Contender, { runs: LoopResult[]; cpu: number; main: number; uploads: number }>(
      started.map((c) => [c, { runs: [], cpu: 0, main: 0, uploads: 0 }]),
    );
    for (let round = 0; round < options.rounds; round++) {
      const k = round % started.length;
      for (const c of [...started.slice(k), ...started.slice(0, k)]) {
        const before = readCpu(c.pid);
        const r = await load(c, options.seconds);
        const after = readCpu(c.pid);
        const entry = results.get(c)!;
        entry.runs.push(r);
        if (before && after) {
          entry.cpu += after.process - before.process;
          entry.main += after.mainThread - before.mainThread;
          entry.uploads += r.ok + r.failed;
        }
        log(
          `round ${round + 1}, ${c.name}: ${(r.ok / r.seconds).toFixed(0)}/s${r.failed ? `, ${r.failed} failed: ${r.firstFailure}` : ''}`,
        );
      }
    }
    const rateOf = (c: Contender) => median(results.get(c)!.runs.map((r) => r.ok / r.seconds));
    const sinkRate = rateOf(started[1]!);
    console.log(
      `\n| server | 4 KiB uploads/s (median of ${options.rounds}) | p50 / p99 ms | vs the sink | CPU per upload, all threads / main thread |`,
    );
    console.log('|---|---|---|---|---|');
    for (const c of started) {
      const { runs, cpu, main, uploads } = results.get(c)!;
      const latencies = runs.flatMap((r) => r.latenciesMs);
      const us = (seconds: number) => ((seconds / uploads) * 1e6).toFixed(0);
      console.log(
        `| ${c.name} | ${rateOf(c).toFixed(0)} (${runs.map((r) => (r.ok / r.seconds).toFixed(0)).join(', ')}) | ` +
          `${percentile(latencies, 50).toFixed(1)} / ${percentile(latencies, 99).toFixed(1)} | ` +
          `${(rateOf(c) / sinkRate).toFixed(2)}x | ${us(cpu)} / ${us(main)} us |`,
      );
    }
  } finally {
    for (const c of started) await c.stop();
  }
}
