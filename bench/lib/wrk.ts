// Many small requests on keep-alive connections, measured with wrk (Debian's `wrk` package): what a link shared in a
// chat gets from previews, bots and readers. Node's own clients are slower than the servers measured here.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

export interface WrkResult {
  requests: number;
  seconds: number;
  rate: number;
  p50Ms: number;
  p99Ms: number;
  /** Answers that were not 2xx or 3xx, and socket errors: any makes a result unusable. */
  failures: number;
}

/** Milliseconds of a wrk duration such as 812.00us, 1.86ms or 1.02s. */
function millis(text: string): number {
  const m = /^([\d.]+)(us|ms|s)$/.exec(text);
  if (!m) return Number.NaN;
  const value = Number(m[1]);
  return m[2] === 'us' ? value / 1000 : m[2] === 's' ? value * 1000 : value;
}

export async function runWrk(url: string, seconds: number, connections = 32): Promise<WrkResult> {
  const { stdout } = await execFileAsync(
    'wrk',
    ['-t2', `-c${connections}`, `-d${seconds}s`, '--latency', '--timeout', '10s', url],
    { timeout: (seconds + 30) * 1000 },
  );
  const done = /(\d+) requests in ([\d.]+)(ms|s)/.exec(stdout);
  const requests = done ? Number(done[1]) : 0;
  const took = done ? (done[3] === 'ms' ? Number(done[2]) / 1000 : Number(done[2])) : Number.NaN;
  const latency = (p: number) => millis(new RegExp(`^\\s*${p}%\\s+(\\S+)`, 'm').exec(stdout)?.[1] ?? '');
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(stdout)?.[1] ?? 0);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(stdout);
  const socketErrors = socket ? socket.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0;
  return {
    requests,
    seconds: took,
    rate: requests / took,
    p50Ms: latency(50),
    p99Ms: latency(99),
    failures: non2xx + socketErrors,
  };
}

export async function assertWrkAvailable(): Promise<void> {
  try {
    await execFileAsync('wrk', ['--version']).catch((err: { stdout?: string }) => {
      // wrk --version exits 1 after printing its version.
      if (!String(err.stdout ?? '').includes('wrk')) throw err;
    });
  } catch {
    throw new Error('wrk is not installed (apt-get install -y wrk): it measures the small-request rows');
  }
}

/**
 * Exactly `count` GETs of `url` over `concurrency` keep-alive connections, each read to its end (wrk cannot bound the
 * number of requests). Rejects on the first answer that is not 200.
 */
export async function exactGets(url: string, count: number, concurrency = 32): Promise<number> {
  const { default: http } = await import('node:http');
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  let started = 0;
  const t0 = performance.now();
  const one = () =>
    new Promise<void>((resolve, reject) => {
      http
        .get(url, { agent }, (res) => {
          res.resume();
          res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`${url}: ${res.statusCode}`))));
          res.on('error', reject);
        })
        .on('error', reject);
    });
  try {
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (started < count) {
          started++;
          await one();
        }
      }),
    );
  } finally {
    agent.destroy();
  }
  return (performance.now() - t0) / 1000;
}
