// `npm start` prints one line in words when Chute is ready, on standard error, besides its JSON log on standard output
// (which stays JSON, line for line): where to open it, and that the administrator is still to be created until it is.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { it } from 'node:test';
import { forEachDatabase, withSharedState } from './support/server.js';

/** src/main.ts until it prints the ready line; returns the line and what it logged, then stops it. */
async function startAndReadLine(shared: { dataDir: string; databaseUrl: string | undefined }) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: {
      ...process.env,
      DATA_DIR: shared.dataDir,
      DATABASE_URL: shared.databaseUrl ?? '',
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  try {
    // The two pipes are read apart: the ready line on standard error may come in before the log line saying where
    // the server listens, so wait for both.
    const { line, url } = await new Promise<{ line: string; url: string }>((resolve, reject) => {
      const check = () => {
        const ready = /^Chute is running at .*$/m.exec(stderr);
        const listening = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout);
        if (ready && listening) resolve({ line: ready[0], url: listening[1]! });
      };
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString('utf8');
        check();
      });
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString('utf8');
        check();
      });
      child.once('exit', (code) => reject(new Error(`chute exited with ${code}: ${stdout}${stderr}`)));
    });
    return { line, url, port: new URL(url).port, stdout };
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
}

forEachDatabase('the ready line', (engine) => {
  it('says where to open Chute and, until setup, that the administrator is to be created', async () => {
    await withSharedState(engine, async (shared) => {
      const first = await startAndReadLine(shared);
      assert.equal(
        first.line,
        `Chute is running at http://localhost:${first.port} - open it to create the administrator`,
      );
      for (const line of first.stdout.trim().split('\n')) JSON.parse(line); // standard output stays JSON lines

      // Set up: the next start only says where.
      const second = await startAndSetUp(shared);
      assert.equal(second.line, `Chute is running at http://localhost:${second.port}`);
    });
  });
});

/** Starts, runs first-time setup, stops; then starts again and reads that start's line. */
async function startAndSetUp(shared: { dataDir: string; databaseUrl: string | undefined }) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: {
      ...process.env,
      DATA_DIR: shared.dataDir,
      DATABASE_URL: shared.databaseUrl ?? '',
      PORT: '0',
      HOST: '127.0.0.1',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  try {
    const port = await new Promise<string>((resolve, reject) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString('utf8');
        const match = /^Chute is running at http:\/\/localhost:(\d+)/m.exec(stderr);
        if (match) resolve(match[1]!);
      });
      child.once('exit', (code) => reject(new Error(`chute exited with ${code}: ${stderr}`)));
    });
    const setup = await fetch(`http://127.0.0.1:${port}/api/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'root', password: 'root-password-long' }),
    });
    assert.equal(setup.status, 200, await setup.text());
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  return startAndReadLine(shared);
}
