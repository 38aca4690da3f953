// Throughput of 1, 2 and 3 instances behind HAProxy (round robin) on one PostgreSQL, one Redis and one storage:
// `TEST_DATABASE_URL=postgres://... npx tsx bench/cluster.ts [--instances 1,2,3] [--seconds 10] [--s3]` (each run
// makes its own database there; Redis from TEST_REDIS_URL; --s3 uses the Ceph gateway of
// scripts/ceph-rgw.sh, otherwise a shared local folder). For each count: redirects/s and 64 KiB reads/s with wrk
// (-c32), 4 KiB uploads/s from 32 Node clients, each through the balancer, with p50/p99 and the CPU time the Chute
// processes, HAProxy and the whole machine used meanwhile. On a machine with few cores it cannot scale linearly:
// the instances, the balancer, PostgreSQL and the load generators share the same cores.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describeCommit, describeMachine } from './lib/machine.js';
import { percentile, smallUploadLoop } from './lib/client.js';
import { runWrk } from './lib/wrk.js';
import { startCluster } from '../test/support/cluster.js';
import { s3TestEnv } from '../test/support/s3.js';
import { createPostgresDatabase, readJsonResponse } from '../test/support/server.js';
import { httpClientOf } from '../test/support/chute-process.js';

function option(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1]! : fallback;
}

const counts = option('--instances', '1,2,3').split(',').map(Number);
const seconds = Number(option('--seconds', '10'));
const useS3 = process.argv.includes('--s3');

/** CPU seconds (user + system) a process has used, from /proc. */
async function cpuSeconds(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return Number.isFinite(ticks) ? ticks / 100 : 0;
}

/** Busy CPU seconds of the whole machine (all cores), from /proc/stat. */
async function machineBusySeconds(): Promise<number> {
  const line = (await readFile('/proc/stat', 'utf8')).split('\n')[0]!;
  const [user, nice, system, , , irq, softirq, steal] = line.split(/\s+/).slice(1).map(Number);
  return (user! + nice! + system! + irq! + softirq! + steal!) / 100;
}

async function measure<T>(
  pids: { chute: number[]; haproxy: number },
  fn: () => Promise<T>,
): Promise<{ result: T; chuteCpu: number; haproxyCpu: number; machineCpu: number; wall: number }> {
  const before = await Promise.all([...pids.chute.map(cpuSeconds), cpuSeconds(pids.haproxy), machineBusySeconds()]);
  const started = performance.now();
  const result = await fn();
  const wall = (performance.now() - started) / 1000;
  const after = await Promise.all([...pids.chute.map(cpuSeconds), cpuSeconds(pids.haproxy), machineBusySeconds()]);
  const n = pids.chute.length;
  const chuteCpu = after.slice(0, n).reduce((s, v, i) => s + v - before[i]!, 0);
  return { result, chuteCpu, haproxyCpu: after[n]! - before[n]!, machineCpu: after[n + 1]! - before[n + 1]!, wall };
}

const machine = describeMachine(os.tmpdir());
console.log(`# cluster benchmark, ${new Date().toISOString()}, commit ${describeCommit()}`);
const cpus = os.cpus().length;
console.log(`# ${cpus} CPUs (${machine.cpuModel}), ${machine.memoryGiB} GiB; storage: ${useS3 ? 'Ceph RGW' : 'local'}`);
const rows: string[] = [];
for (const count of counts) {
  const root = await mkdtemp(path.join(os.tmpdir(), 'chute-bench-cluster-'));
  const database = await createPostgresDatabase();
  const s3 = useS3 ? await s3TestEnv() : undefined;
  if (useS3 && !s3) throw new Error('no S3 gateway: run scripts/ceph-rgw.sh start');
  const cluster = await startCluster({
    count,
    databaseUrl: database.url,
    root,
    env: {
      ...(process.env.TEST_REDIS_URL ? { REDIS_URL: process.env.TEST_REDIS_URL } : {}),
      RATELIMIT_ENABLED: 'false',
      ...(s3 ? s3.env : { UPLOADS_DIR: path.join(root, 'uploads') }),
    },
  });
  try {
    const client = httpClientOf(cluster.url);
    const admin = await client.setup();
    const short = await client.json('POST', '/api/user/urls', {
      auth: admin.token,
      body: { destination: 'https://example.com/' },
    });
    const form = new FormData();
    form.append('file', new Blob([randomBytes(64 * 1024)]), 'read.bin');
    const uploaded = await readJsonResponse(
      await client.fetch('/api/upload', { method: 'POST', headers: { authorization: admin.token }, body: form }),
    );
    const pids = { chute: cluster.instances.map((i) => i.child.pid!), haproxy: cluster.haproxyPid };
    const redirects = await measure(pids, () => runWrk(`${cluster.url}${new URL(short.body.url).pathname}`, seconds));
    const reads = await measure(pids, () => runWrk(`${cluster.url}/raw/${uploaded.body.files[0].name}`, seconds));
    const uploads = await measure(pids, () =>
      smallUploadLoop({
        url: `${cluster.url}/api/upload`,
        headers: { authorization: admin.token },
        payload: randomBytes(4096),
        concurrency: 32,
        durationMs: seconds * 1000,
        maxRequests: 1e9,
        isSuccess: (status) => status === 200,
      }),
    );
    const cpu = (m: { chuteCpu: number; haproxyCpu: number; machineCpu: number; wall: number }) =>
      `Chute ${((m.chuteCpu / m.wall) * 100).toFixed(0)}%, HAProxy ${((m.haproxyCpu / m.wall) * 100).toFixed(0)}%, machine ${((m.machineCpu / m.wall / cpus) * 100).toFixed(0)}%`;
    const failures = redirects.result.failures + reads.result.failures + uploads.result.failed;
    rows.push(
      `| ${count} | ${redirects.result.rate.toFixed(0)} (p50 ${redirects.result.p50Ms.toFixed(1)} / p99 ${redirects.result.p99Ms.toFixed(1)} ms; ${cpu(redirects)}) ` +
        `| ${reads.result.rate.toFixed(0)} (p50 ${reads.result.p50Ms.toFixed(1)} / p99 ${reads.result.p99Ms.toFixed(1)} ms; ${cpu(reads)}) ` +
        `| ${(uploads.result.ok / uploads.result.seconds).toFixed(0)} (p50 ${percentile(uploads.result.latenciesMs, 50).toFixed(1)} / p99 ${percentile(uploads.result.latenciesMs, 99).toFixed(1)} ms; ${cpu(uploads)}) ` +
        `| ${failures} |`,
    );
    console.log(rows[rows.length - 1]);
    if (uploads.result.firstFailure) console.log(`# first upload failure: ${uploads.result.firstFailure}`);
  } finally {
    await cluster.close();
    await database.drop();
    await s3?.drop();
    await rm(root, { recursive: true, force: true });
  }
}
console.log('\n| Instances | redirects/s | 64 KiB /raw/s | 4 KiB uploads/s | failures |\n|---|---|---|---|---|');
for (const row of rows) console.log(row);
