// A built Chute started for a benchmark of the data at scale (bench/listing.ts, lists.ts, heavy.ts, writes.ts): its
// own data folder, SQLite there or the given PostgreSQL database, a free 127.0.0.1 port, its log in `root`/logs, and
// the first user made through the API.
import { randomBytes } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { parseJson, request } from './client.js';
import { freePort, startProcess, waitForHttp } from './procs.js';

export interface StartedChute {
  base: string;
  child: ChildProcess;
  dataDir: string;
  /** The first user: its id and API token. */
  userId: string;
  token: string;
}

/**
 * The environment every benchmark starts Chute with: production, its own port and data folder, a fresh secret, only
 * warnings logged, no rate limits (SQLite unless DATABASE_URL is added).
 */
export function benchChuteEnv(port: number, dataDir: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: String(port),
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    SECRET: randomBytes(32).toString('hex'),
    RATELIMIT_ENABLED: 'false',
  };
}

export async function startChuteWithUser(
  mainJs: string,
  root: string,
  options: { name?: string; databaseUrl?: string | undefined } = {},
): Promise<StartedChute> {
  const name = options.name ?? 'data';
  const dataDir = path.join(root, name);
  await mkdir(path.join(root, 'logs'), { recursive: true });
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const child = startProcess(
    name === 'data' ? 'chute' : `chute (${name})`,
    process.execPath,
    [...(process.env.BENCH_CHUTE_NODE_ARGS?.split(' ').filter(Boolean) ?? []), mainJs],
    {
      env: {
        ...benchChuteEnv(port, dataDir),
        ...(options.databaseUrl ? { DATABASE_URL: options.databaseUrl } : {}),
      },
      cwd: root,
      logFile: path.join(root, 'logs', name === 'data' ? 'chute.log' : `chute-${name}.log`),
    },
  );
  await waitForHttp(`${base}/api/healthcheck`, child, 120_000, 'Chute');
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
  if (typeof token !== 'string') throw new Error('GET /api/user gave no token');
  return { base, child, dataDir, userId, token };
}
