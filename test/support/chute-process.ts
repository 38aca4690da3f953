// Chute as admins run it: the real entry point (src/main.ts through tsx) in a child process, for tests of signals,
// shutdown and crashes (kill -9) on a data folder and database that outlive the process.
import { spawn, type ChildProcess } from 'node:child_process';
import { TestServer } from './server.js';

export interface ChuteProcess {
  url: string;
  child: ChildProcess;
  /** Resolves with the exit code (null when killed by a signal) and the signal. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** What the process logged (stdout), so far. */
  log(): string;
}

/** The process as it starts: before it listens (during its migrations, say). */
export interface StartingChuteProcess {
  child: ChildProcess;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  log(): string;
  /** Resolves with the match once the log shows `pattern`; rejects if the process exits first. */
  waitForLog(pattern: RegExp): Promise<RegExpExecArray>;
}

/** Spawns Chute (src/main.ts) and returns at once. */
export function spawnChuteProcess(options: {
  dataDir: string;
  databaseUrl?: string | undefined;
  env?: Record<string, string>;
  /** Modules for node's --import besides tsx (hooks that observe the process). */
  imports?: string[];
}): StartingChuteProcess {
  const imports = (options.imports ?? []).flatMap((m) => ['--import', m]);
  const child = spawn(process.execPath, ['--import', 'tsx', ...imports, 'src/main.ts'], {
    env: {
      ...process.env,
      DATA_DIR: options.dataDir,
      DATABASE_URL: options.databaseUrl ?? '',
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let seen = '';
  child.stdout!.on('data', (chunk: Buffer) => (seen += chunk.toString('utf8')));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const waitForLog = (pattern: RegExp) =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const look = () => {
        const match = pattern.exec(seen);
        if (!match) return false;
        child.stdout!.off('data', look);
        resolve(match);
        return true;
      };
      if (look()) return;
      child.stdout!.on('data', look);
      void exited.then(({ code, signal }) =>
        reject(new Error(`chute exited (${code ?? signal}) before logging ${pattern}: ${seen}`)),
      );
    });
  return { child, exited, log: () => seen, waitForLog };
}

export async function startChuteProcess(options: {
  dataDir: string;
  databaseUrl?: string | undefined;
  env?: Record<string, string>;
  imports?: string[];
}): Promise<ChuteProcess> {
  const starting = spawnChuteProcess(options);
  const url = (await starting.waitForLog(/Server listening at (http:\/\/127\.0\.0\.1:\d+)/))[1]!;
  return { url, child: starting.child, exited: starting.exited, log: starting.log };
}

/** Stops the process if it still runs (SIGKILL), for test clean-up. */
export async function killChuteProcess(chute: ChuteProcess | undefined): Promise<void> {
  if (!chute || chute.child.exitCode !== null || chute.child.signalCode !== null) return;
  chute.child.kill('SIGKILL');
  await chute.exited;
}

/**
 * The HTTP side of a TestServer (fetch, json, setup, login) for a Chute in another process, so that the shared
 * clients (uploads, chunked uploads) work against it. It has no `chute` or `ctx`: those live in the other process.
 */
export function httpClientOf(url: string): TestServer {
  return Object.assign(Object.create(TestServer.prototype) as TestServer, { url });
}
