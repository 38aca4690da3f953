// Child processes the benchmark starts (Chute, the sink, nginx), their clean-up on every way out (normal end, error,
// Ctrl-C), free loopback ports, and memory samples from /proc.
import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, closeSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

interface Tracked {
  name: string;
  child: ChildProcess;
  exited: Promise<void>;
}

const children = new Set<Tracked>();
const pathsToRemove: string[] = [];
let cleaning: Promise<void> | null = null;

/** Remove this file or folder (recursively) when the benchmark ends, however it ends. */
export function removeAtExit(path: string): void {
  pathsToRemove.push(path);
}

export interface StartOptions {
  env: Record<string, string>;
  cwd?: string;
  /** stdout and stderr of the child go here (kept for diagnosis while the run lasts). */
  logFile: string;
}

export function startProcess(name: string, command: string, args: string[], options: StartOptions): ChildProcess {
  const log = openSync(options.logFile, 'a');
  const child = spawn(command, args, { env: options.env, cwd: options.cwd, stdio: ['ignore', log, log] });
  closeSync(log);
  return trackProcess(name, child);
}

/** Stops `child` with the others when the benchmark ends (for a child started by other means than startProcess). */
export function trackProcess(name: string, child: ChildProcess): ChildProcess {
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', () => resolve());
  });
  const tracked: Tracked = { name, child, exited };
  children.add(tracked);
  void exited.then(() => children.delete(tracked));
  return child;
}

export function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

/** SIGTERM, then SIGKILL if the process is still there after `graceMs`. */
export async function stopProcess(child: ChildProcess, graceMs = 10_000): Promise<void> {
  const tracked = [...children].find((t) => t.child === child);
  if (!tracked || hasExited(child)) return;
  child.kill('SIGTERM');
  const timedOut = await Promise.race([tracked.exited.then(() => false), sleep(graceMs).then(() => true)]);
  if (timedOut && !hasExited(child)) {
    child.kill('SIGKILL');
    await Promise.race([tracked.exited, sleep(2_000)]);
  }
}

/** Stops every child still running and removes every registered temp path. Safe to call more than once. */
export function cleanupAll(): Promise<void> {
  cleaning ??= (async () => {
    await Promise.all([...children].map((t) => stopProcess(t.child)));
    for (const path of pathsToRemove.reverse()) await rm(path, { recursive: true, force: true }).catch(() => undefined);
  })();
  return cleaning;
}

/** Ctrl-C / SIGTERM: clean up, then leave with the conventional status. */
export function installSignalHandlers(): void {
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      console.error(`\n${signal}: stopping everything the benchmark started and removing its temp files ...`);
      void cleanupAll().finally(() => process.exit(130));
    });
  }
}

/** A port that was free on 127.0.0.1 a moment ago. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Waits until `url` answers with `okStatus` (bounded by `timeoutMs`); fails early if the child died. */
export async function waitForHttp(url: string, child: ChildProcess, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    if (hasExited(child))
      throw new Error(`${what} exited during start-up (code ${child.exitCode}, signal ${child.signalCode})`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      await res.arrayBuffer();
      if (res.ok) return;
      last = `HTTP ${res.status}`;
    } catch (err) {
      last = err instanceof Error ? err.message : String(err);
    }
    await sleep(100);
  }
  throw new Error(`${what} did not answer ${url} within ${timeoutMs} ms (last: ${last})`);
}

export interface MemoryStatus {
  /** Resident set size now, bytes. */
  rss: number;
  /** Peak resident set size ("high water mark") since start or since the last resetPeak, bytes. */
  hwm: number;
}

export function readMemory(pid: number): MemoryStatus | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
    return { rss: kib('VmRSS'), hwm: kib('VmHWM') };
  } catch {
    return null;
  }
}

export interface IoCounters {
  /** read()/recv-like and write()/send-like system calls (all descriptors: socket and disk). */
  syscr: number;
  syscw: number;
  /** Bytes passed to those calls. */
  rchar: number;
  wchar: number;
  /** CPU seconds used by the process (all threads, user + system), from /proc/<pid>/stat. */
  cpuSeconds: number;
}

/** USER_HZ: 100 on every Linux platform Node runs on. */
const CLOCK_TICKS = 100;

export function readIo(pid: number): IoCounters | null {
  try {
    const text = readFileSync(`/proc/${pid}/io`, 'utf8');
    const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? NaN);
    // /proc/<pid>/stat: fields 14 and 15 (utime, stime) in clock ticks, counted after the ")" that ends the name.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const cpuSeconds = (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
    return { syscr: field('syscr'), syscw: field('syscw'), rchar: field('rchar'), wchar: field('wchar'), cpuSeconds };
  } catch {
    return null;
  }
}

/**
 * CPU seconds (user + system, from /proc/<pid>/stat) of the whole process and of its main thread alone (its task
 * whose id is the pid), or null when the process is gone.
 */
export function readCpu(pid: number): { process: number; mainThread: number } | null {
  const ticks = (file: string) => {
    const stat = readFileSync(file, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  };
  try {
    return { process: ticks(`/proc/${pid}/stat`), mainThread: ticks(`/proc/${pid}/task/${pid}/stat`) };
  } catch {
    return null;
  }
}

/**
 * What the scheduler counted for a process, summed over its threads (/proc/<pid>/task/<tid>/schedstat): seconds on a
 * CPU, seconds runnable but waiting for one (on a busy machine, the price of every wake-up), and how many times a
 * thread was put on a CPU. Null when the process is gone or the kernel keeps no schedstat.
 */
export function readSchedstat(pid: number): { cpuSeconds: number; waitSeconds: number; runs: number } | null {
  try {
    const total = { cpuSeconds: 0, waitSeconds: 0, runs: 0 };
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const text = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').trim().split(' ');
      total.cpuSeconds += Number(text[0]) / 1e9;
      total.waitSeconds += Number(text[1]) / 1e9;
      total.runs += Number(text[2]);
    }
    return Number.isFinite(total.waitSeconds) ? total : null;
  } catch {
    return null;
  }
}

/** Resets VmHWM to the current RSS (Linux: "5" into clear_refs), so the next peak belongs to the next measurement. */
export function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** Samples VmRSS every `intervalMs` until stopped; the result carries the largest sample and the kernel's VmHWM. */
export function sampleMemory(pid: number, intervalMs = 25): { stop: () => { maxSampledRss: number; hwm: number } } {
  let maxSampledRss = 0;
  const timer = setInterval(() => {
    const m = readMemory(pid);
    if (m && m.rss > maxSampledRss) maxSampledRss = m.rss;
  }, intervalMs);
  return {
    stop: () => {
      clearInterval(timer);
      const m = readMemory(pid);
      if (m && m.rss > maxSampledRss) maxSampledRss = m.rss;
      return { maxSampledRss, hwm: m?.hwm ?? NaN };
    },
  };
}
