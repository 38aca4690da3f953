// Thumbnails per second: `npx tsx bench/thumbnails.ts [--images 1000] [--concurrency 2] [--width 1920 --height 1080]`.
// Starts Chute in this process (SQLite, local storage, a temp DATA_DIR; the worker not started), uploads N distinct
// JPEG photos over HTTP (each upload queues its thumbnail job), then runs the job worker with the given concurrency
// until the queue is empty and reports thumbnails per second, the worker's wall time and the process's peak RSS.
// Every job is checked to have ended done with a stored thumbnail, so that a failing job cannot look fast.
// Then upload throughput while the queue is busy: `--clients` clients upload `--upload-kib` files (not images) for
// `--seconds`, once with the worker idle and once while it makes all the thumbnails again (`rerun`), and the ratio of
// the two rates is printed (the target: busy >= 0.8x idle).
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { loadConfig } from '../src/config.js';
import { JobWorker } from '../src/services/operations/job-worker.js';
import { makeThumbnail, queueMissingThumbnails, THUMBNAIL_JOB } from '../src/services/media/thumbnails.js';
import { createChute } from '../src/server.js';

function option(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  const value = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} wants a whole number`);
  return value;
}

const images = option('--images', 1000);
const concurrency = option('--concurrency', 2);
const width = option('--width', 1920);
const height = option('--height', 1080);
const clients = option('--clients', 8);
const uploadKib = option('--upload-kib', 1024);
const loadSeconds = option('--seconds', 10);

/** Photo-like noise over a gradient, made once (compositing noise for every image took longer than the benchmark). */
const base = await sharp({
  create: { width, height, channels: 3, background: { r: 90, g: 120, b: 150 } },
})
  .composite([
    {
      input: {
        create: { width, height, channels: 3, background: '#000', noise: { type: 'gaussian', mean: 128, sigma: 40 } },
      },
      blend: 'overlay',
    },
  ])
  .raw()
  .toBuffer();

/** A distinct photo-like JPEG: the shared noise with a band of rows that only this seed has, so no two encode alike. */
async function photo(seed: number): Promise<Buffer> {
  const pixels = Buffer.from(base);
  const band = width * 3 * 32;
  const start = (seed * 7919 * 3) % (pixels.length - band);
  for (let i = 0; i < band; i++) pixels[start + i] = (pixels[start + i]! + seed + i) & 0xff;
  return sharp(pixels, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 85 })
    .toBuffer();
}

const dataDir = await mkdtemp(path.join(os.tmpdir(), 'chute-bench-thumbnails-'));
const chute = await createChute(
  loadConfig({ DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'warn', RATELIMIT_ENABLED: 'false' }),
  { startJobs: false },
);
try {
  const base = await chute.app.listen({ host: '127.0.0.1', port: 0 });
  const setup = await fetch(`${base}/api/setup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'bench', password: 'bench-password' }),
  });
  const cookie = setup.headers.getSetCookie()[0]!.split(';')[0]!;
  const token = ((await (await fetch(`${base}/api/user`, { headers: { cookie } })).json()) as { token: string }).token;

  console.log(`[thumbnails] uploading ${images} JPEG photos of ${width}x${height} ...`);
  let uploadedBytes = 0;
  for (let i = 0; i < images; i++) {
    const bytes = await photo(i);
    uploadedBytes += bytes.length;
    const form = new FormData();
    form.append('file', new Blob([bytes], { type: 'image/jpeg' }), `photo-${i}.jpg`);
    const res = await fetch(`${base}/api/upload`, { method: 'POST', headers: { authorization: token }, body: form });
    if (res.status !== 200) throw new Error(`upload ${i} failed: ${res.status} ${await res.text()}`);
  }

  const worker = new JobWorker(chute.ctx, { [THUMBNAIL_JOB]: makeThumbnail }, { concurrency });
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }, 50);
  const started = process.hrtime.bigint();
  const ran = await worker.runUntilIdle();
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  clearInterval(sampler);

  const jobs = await chute.ctx.db.selectFrom('jobs').select(['state']).execute();
  const done = jobs.filter((j) => j.state === 'done').length;
  const withThumbnail = await chute.ctx.db
    .selectFrom('files')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('thumbnail_key', 'is not', null)
    .executeTakeFirstOrThrow();
  if (ran !== images || done !== images || Number(withThumbnail.n) !== images) {
    throw new Error(
      `expected ${images} done jobs and thumbnails; ran ${ran}, done ${done}, thumbnails ${withThumbnail.n}`,
    );
  }
  // Upload throughput, idle queue vs busy queue (the same worker options, all thumbnails queued again).
  const payload = new Uint8Array(uploadKib * 1024);
  for (let i = 0; i < payload.length; i += 65_536) crypto.getRandomValues(payload.subarray(i, i + 65_536));
  async function uploadLoad(): Promise<{ perSecond: number; mibPerSecond: number }> {
    const until = Date.now() + loadSeconds * 1000;
    let count = 0;
    const started = process.hrtime.bigint();
    await Promise.all(
      Array.from({ length: clients }, async (_, c) => {
        while (Date.now() < until) {
          const form = new FormData();
          form.append('file', new Blob([payload], { type: 'application/octet-stream' }), `load-${c}-${count}.bin`);
          const res = await fetch(`${base}/api/upload`, {
            method: 'POST',
            headers: { authorization: token },
            body: form,
          });
          if (res.status !== 200) throw new Error(`load upload failed: ${res.status} ${await res.text()}`);
          await res.arrayBuffer();
          count++;
        }
      }),
    );
    const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
    return { perSecond: count / elapsed, mibPerSecond: (count * uploadKib) / 1024 / elapsed };
  }
  const idle = await uploadLoad();
  const requeued = await queueMissingThumbnails(chute.ctx, true);
  const busyWorker = new JobWorker(chute.ctx, { [THUMBNAIL_JOB]: makeThumbnail }, { concurrency });
  const busyRun = busyWorker.runUntilIdle();
  const busy = await uploadLoad();
  const queuedAtEnd = await chute.ctx.db
    .selectFrom('jobs')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('state', 'in', ['queued', 'running'])
    .executeTakeFirstOrThrow();
  await busyRun;
  if (Number(queuedAtEnd.n) === 0) {
    console.log('[thumbnails] warning: the queue ran empty before the busy load ended; use more --images');
  }

  console.log(
    [
      `[thumbnails] uploads of ${uploadKib} KiB, ${clients} clients, ${loadSeconds} s: idle queue ${idle.perSecond.toFixed(1)}/s (${idle.mibPerSecond.toFixed(0)} MiB/s), busy queue (${requeued} jobs, ${queuedAtEnd.n} left at the end) ${busy.perSecond.toFixed(1)}/s (${busy.mibPerSecond.toFixed(0)} MiB/s): ${(busy.perSecond / idle.perSecond).toFixed(2)}x`,
      `[thumbnails] ${images} images (${(uploadedBytes / images / 1024).toFixed(0)} KiB average), concurrency ${concurrency}, ${os.cpus().length} CPUs, load ${os.loadavg()[0]!.toFixed(1)}`,
      `[thumbnails] ${seconds.toFixed(1)} s: ${(images / seconds).toFixed(1)} thumbnails/s; peak RSS ${(peakRss / 1024 ** 2).toFixed(0)} MiB`,
    ].join('\n'),
  );
} finally {
  await chute.close();
  await rm(dataDir, { recursive: true, force: true });
}
