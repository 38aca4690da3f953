// Node HTTP client pieces: small JSON calls, a bounded concurrent loop of small uploads, and a hashing download.
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

export interface HttpResult {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/**
 * The fields of a JSON answer the benchmarks look at. Chute and the reference servers answer differently, so any of
 * them may be missing: callers check what they read.
 */
export interface AnswerJson {
  token?: string;
  partialToken?: string;
  code?: number;
  bytes?: number;
  views?: number;
  files?: Array<{ id?: string; name?: string; url?: string }>;
}

/** The answer parsed as JSON, or null when it is not JSON. */
export function parseJson(text: string): AnswerJson | null {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** A small request with an in-memory body (or none); the whole answer is read as text. */
export function request(
  url: string,
  options: {
    method?: string;
    headers?: Record<string, string>;
    body?: Buffer | string;
    agent?: http.Agent;
    timeoutMs?: number;
  } = {},
): Promise<HttpResult> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: options.method ?? 'GET', headers: options.headers, agent: options.agent },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.once('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }),
        );
        res.once('error', reject);
      },
    );
    req.setTimeout(options.timeoutMs ?? 30_000, () =>
      req.destroy(new Error(`timeout: ${options.method ?? 'GET'} ${url}`)),
    );
    req.once('error', reject);
    req.end(options.body);
  });
}

export function multipartEnvelope(filename: string, contentType = 'application/octet-stream') {
  const boundary = `----chutebench${randomBytes(12).toString('hex')}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\n` +
      `Content-Type: ${contentType}\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return { head, tail, contentType: `multipart/form-data; boundary=${boundary}` };
}

/** GETs `url` and returns the SHA-256 (hex) and length of the body, streamed. */
export function hashDownload(
  url: string,
  timeoutMs: number,
): Promise<{ status: number; bytes: number; sha256: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, (res) => {
      const hash = createHash('sha256');
      let bytes = 0;
      res.on('data', (c: Buffer) => {
        bytes += c.length;
        hash.update(c);
      });
      res.once('end', () => resolve({ status: res.statusCode ?? 0, bytes, sha256: hash.digest('hex') }));
      res.once('error', reject);
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`download timed out: ${url}`)));
    req.once('error', reject);
  });
}

/** GETs `url` into memory (for small files only). */
export function downloadBytes(url: string): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.once('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
      res.once('error', reject);
    });
    req.setTimeout(30_000, () => req.destroy(new Error(`download timed out: ${url}`)));
    req.once('error', reject);
  });
}

export interface LoopResult {
  ok: number;
  failed: number;
  seconds: number;
  latenciesMs: number[];
  firstFailure: string | null;
  /** Some answers of successful requests, for checking their content afterwards. */
  samples: Array<AnswerJson | null>;
}

/** Several loops' results as one: counts, seconds and latencies added up, the first failure and samples kept. */
export function mergedLoops(results: LoopResult[]): LoopResult {
  return {
    ok: results.reduce((n, r) => n + r.ok, 0),
    failed: results.reduce((n, r) => n + r.failed, 0),
    seconds: results.reduce((n, r) => n + r.seconds, 0),
    latenciesMs: results.flatMap((r) => r.latenciesMs),
    firstFailure: results.find((r) => r.firstFailure !== null)?.firstFailure ?? null,
    samples: results.flatMap((r) => r.samples),
  };
}

/**
 * `concurrency` clients on keep-alive connections, each sending the same small multipart upload back to back,
 * until `durationMs` has passed or `maxRequests` were started (both bounds always apply).
 */
export async function smallUploadLoop(options: {
  url: string;
  headers: Record<string, string>;
  payload: Buffer;
  concurrency: number;
  durationMs: number;
  maxRequests: number;
  isSuccess: (status: number, json: AnswerJson | null) => boolean;
}): Promise<LoopResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.concurrency });
  const { head, tail, contentType } = multipartEnvelope('small.bin');
  const body = Buffer.concat([head, options.payload, tail]);
  const headers = { ...options.headers, 'content-type': contentType, 'content-length': String(body.length) };
  const result: LoopResult = { ok: 0, failed: 0, seconds: 0, latenciesMs: [], firstFailure: null, samples: [] };
  let started = 0;
  const t0 = performance.now();
  const deadline = t0 + options.durationMs;
  const worker = async () => {
    while (performance.now() < deadline && started < options.maxRequests) {
      started++;
      const s = performance.now();
      try {
        const res = await request(options.url, { method: 'POST', headers, body, agent, timeoutMs: 30_000 });
        const json = parseJson(res.text);
        if (options.isSuccess(res.status, json)) {
          result.ok++;
          result.latenciesMs.push(performance.now() - s);
          if (result.samples.length < 16 && Math.random() < 0.01) result.samples.push(json);
          if (result.samples.length === 0) result.samples.push(json);
        } else {
          result.failed++;
          result.firstFailure ??= `HTTP ${res.status}: ${res.text.slice(0, 300)}`;
        }
      } catch (err) {
        result.failed++;
        result.firstFailure ??= err instanceof Error ? err.message : String(err);
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  result.seconds = (performance.now() - t0) / 1000;
  agent.destroy();
  return result;
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export function median(values: number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Latency percentiles of one request, in ms. */
export interface Timing {
  p50: number;
  p95: number;
  p99: number;
}

/** Requests whose warm-up answered faster than this are timed at least FAST_SAMPLES times. */
const FAST_MS = 20;
const FAST_SAMPLES = 100;

/**
 * The client's own full garbage collection, so that a pause of the measuring process (which may hold what it seeded)
 * does not land in a server's latencies: V8's gc() made reachable at run time.
 */
const collectGarbage: () => void = (() => {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
})();

/**
 * Times `send` (one request, awaited) one after another: a warm-up first, then `samples` times, or FAST_SAMPLES times
 * when the warm-up took under FAST_MS (cheap, and a p95 of 30 samples is the second slowest: one pause of the
 * machine decides it). The client collects its garbage before it starts.
 */
export async function timeRequests(send: () => Promise<unknown>, samples: number): Promise<Timing> {
  collectGarbage();
  const warm = process.hrtime.bigint();
  await send();
  const count = Number(process.hrtime.bigint() - warm) / 1e6 < FAST_MS ? Math.max(samples, FAST_SAMPLES) : samples;
  const ms: number[] = [];
  for (let i = 0; i < count; i++) {
    const t = process.hrtime.bigint();
    await send();
    ms.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return { p50: percentile(ms, 50), p95: percentile(ms, 95), p99: percentile(ms, 99) };
}
