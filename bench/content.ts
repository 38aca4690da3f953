// Measures the content features where speed and memory matter: the short-URL redirect (requests per second and
// latency under concurrent keep-alive clients) and the folder zip download (throughput and memory while streaming).
//   npx tsx bench/content.ts [--engine sqlite|postgres] [--requests N] [--concurrency N] [--zip-mib N]
// postgres needs TEST_DATABASE_URL (a fresh database is created and dropped). Chute runs in this process, so the
// memory figures include the client, which only counts the bytes it receives.
import { Readable } from 'node:stream';
import http from 'node:http';
import { startTestServer } from '../test/support/server.js';
import { insertTestFile } from '../test/support/content.js';

const MiB = 1024 * 1024;

function option(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : fallback;
}

const engine = option('engine', 'sqlite') as 'sqlite' | 'postgres';
const requests = Number(option('requests', '20000'));
const concurrency = Number(option('concurrency', '32'));
const zipMiB = Number(option('zip-mib', '1024'));

/** A GET over a keep-alive agent: the status and the number of body bytes (the body is read and dropped). */
function get(
  url: string,
  agent: http.Agent,
  headers: Record<string, string> = {},
): Promise<{ status: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent, headers }, (res) => {
        let bytes = 0;
        res.on('data', (chunk: Buffer) => (bytes += chunk.length));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

async function benchRedirects(baseUrl: string, code: string): Promise<void> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < requests) {
        next++;
        const t0 = performance.now();
        const res = await get(`${baseUrl}/go/${code}`, agent);
        if (res.status !== 302) throw new Error(`redirect answered ${res.status}`);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  console.log(
    `redirect [${engine}]: ${requests} requests, ${concurrency} clients: ${(requests / seconds).toFixed(0)} req/s, ` +
      `p50 ${percentile(latencies, 50).toFixed(2)} ms, p99 ${percentile(latencies, 99).toFixed(2)} ms`,
  );
  agent.destroy();
}

async function benchZip(
  server: Awaited<ReturnType<typeof startTestServer>>,
  token: string,
  userId: string,
): Promise<void> {
  const folder = await server.json('POST', '/api/user/folders', { auth: token, body: { name: 'bench' } });
  const files = 8;
  const perFile = Math.ceil((zipMiB * MiB) / files);
  const chunk = Buffer.alloc(MiB, 'chute bench data ');
  for (let i = 0; i < files; i++) {
    const file = await insertTestFile(server, userId, { folderId: folder.body.id, originalName: `part-${i}.bin` });
    const chunks = Math.ceil(perFile / MiB);
    await server.ctx.storage.put(
      file.storageKey,
      Readable.from(
        (function* () {
          for (let c = 0; c < chunks; c++) yield chunk;
        })(),
      ),
      {
        contentType: 'application/octet-stream',
      },
    );
  }
  global.gc?.();
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  const started = performance.now();
  const agent = new http.Agent();
  const { bytes } = await get(`${server.url}/api/user/folders/${folder.body.id}/zip`, agent, { authorization: token });
  agent.destroy();
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  console.log(
    `folder zip [${engine}]: ${(bytes / MiB).toFixed(0)} MiB in ${seconds.toFixed(2)} s = ${(bytes / MiB / seconds).toFixed(0)} MiB/s; ` +
      `RSS ${(baseline / MiB).toFixed(0)} MiB before, peak ${(peak / MiB).toFixed(0)} MiB (+${((peak - baseline) / MiB).toFixed(0)} MiB)`,
  );
}

const server = await startTestServer({ engine, env: { RATELIMIT_ENABLED: 'false' } });
try {
  const admin = await server.setup();
  const url = await server.json('POST', '/api/user/urls', {
    auth: admin.token,
    body: { destination: 'https://example.com/bench' },
  });
  await benchRedirects(server.url, url.body.code);
  await benchZip(server, admin.token, admin.id);
} finally {
  await server.close();
}
