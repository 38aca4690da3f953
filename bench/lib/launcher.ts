// Starts the benchmark's client commands (curl) from a small helper process instead of from the benchmark itself.
// Starting a process forks its parent, which copies the parent's page tables: the cost grows with the parent's memory
// (curl started from a Node process holding 600 MB took 50 ms, from a small one 10 ms, 2026-11-28). A script sending
// a file in chunks starts curl per chunk at the small cost; the benchmark, grown by the rows before, paid the large
// one per chunk (row 5: about a second of 41 chunks between the requests, against one start for the single request).
import { spawn, type ChildProcess } from 'node:child_process';
import { trackProcess } from './procs.js';

export interface Launched {
  code: number;
  stdout: string;
  stderr: string;
}

// The helper: one JSON line per command on stdin ({id, command, args}), one JSON line per finished command on stdout.
const HELPER = `
const { spawn } = require('node:child_process');
const { createInterface } = require('node:readline');
createInterface({ input: process.stdin }).on('line', (line) => {
  const { id, command, args } = JSON.parse(line);
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
  const answer = (code, extra) => process.stdout.write(JSON.stringify({ id, code, stdout, stderr: stderr + extra }) + '\\n');
  child.once('error', (err) => answer(-1, String(err)));
  child.once('close', (code) => answer(code ?? -1, ''));
});
`;

let helper: ChildProcess | undefined;
let nextId = 0;
const waiting = new Map<number, (result: Launched) => void>();

function started(): ChildProcess {
  if (helper && helper.exitCode === null && helper.signalCode === null) return helper;
  const child = spawn(process.execPath, ['-e', HELPER], { stdio: ['pipe', 'pipe', 'inherit'] });
  let buffered = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => {
    buffered += d;
    for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
      const { id, ...result } = JSON.parse(buffered.slice(0, end)) as Launched & { id: number };
      buffered = buffered.slice(end + 1);
      waiting.get(id)?.(result);
      waiting.delete(id);
      if (waiting.size === 0) holdOpen(child, false);
    }
  });
  child.once('exit', () => {
    for (const resolve of waiting.values()) resolve({ code: -1, stdout: '', stderr: 'the launcher process exited' });
    waiting.clear();
  });
  // It keeps the benchmark alive only while a command runs (the benchmark's clean-up stops it with the others).
  holdOpen(child, false);
  helper = trackProcess('launcher', child);
  return helper;
}

/** Whether the helper and its pipes keep this process's event loop alive. */
function holdOpen(child: ChildProcess, hold: boolean): void {
  for (const handle of [child, child.stdin, child.stdout] as Array<{ ref?(): void; unref?(): void } | null>)
    if (hold) handle?.ref?.();
    else handle?.unref?.();
}

/** Runs `command` with `args` from the helper process; resolves with its exit code and output when it has exited. */
export function launch(command: string, args: string[]): Promise<Launched> {
  const id = nextId++;
  const child = started();
  return new Promise((resolve) => {
    waiting.set(id, resolve);
    holdOpen(child, true);
    child.stdin!.write(`${JSON.stringify({ id, command, args })}\n`);
  });
}
