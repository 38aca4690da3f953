// What the numbers were measured on: CPU, memory, disk, Node, git commit, and how busy the machine was.
import { execFileSync } from 'node:child_process';
import { readFileSync, statfsSync } from 'node:fs';
import os from 'node:os';

export interface Machine {
  nproc: number;
  memoryGiB: string;
  cpuModel: string;
  node: string;
  disk: string;
  commit: string;
  loadAverage: string;
}

function diskOf(folder: string): string {
  try {
    const mounts = readFileSync('/proc/self/mounts', 'utf8')
      .trim()
      .split('\n')
      .map((line) => line.split(' '))
      .filter((f) => f.length >= 3 && (folder === f[1] || folder.startsWith(f[1] === '/' ? '/' : `${f[1]}/`)))
      .sort((a, b) => b[1]!.length - a[1]!.length);
    const [device, mountPoint, fsType] = mounts[0] ?? ['?', '?', '?'];
    const dev = (device ?? '').replace(/^\/dev\//, '');
    let kind = '';
    try {
      kind = `rotational=${readFileSync(`/sys/block/${dev}/queue/rotational`, 'utf8').trim()} per the kernel`;
    } catch {
      kind = 'kind unknown';
    }
    const fs = statfsSync(folder);
    const sizeGiB = ((fs.blocks * fs.bsize) / 1024 ** 3).toFixed(0);
    return `${device} (${fsType} on ${mountPoint}, ${sizeGiB} GiB, ${kind}${dev.startsWith('vd') ? ', virtio' : ''})`;
  } catch (err) {
    return `unknown (${String(err)})`;
  }
}

function git(args: string[]): string {
  try {
    return execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return '';
  }
}

export function describeCommit(): string {
  const head = git(['rev-parse', '--short', 'HEAD']) || 'unknown';
  const changed = git(['status', '--porcelain', '--', 'src']).split('\n').filter(Boolean).length;
  return changed > 0 ? `${head} + ${changed} uncommitted change(s) in src/ (the working tree was built)` : head;
}

export function describeMachine(dataFolder: string): Machine {
  const cpuModel =
    /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? os.cpus()[0]?.model ?? '?';
  return {
    nproc: os.availableParallelism(),
    memoryGiB: (os.totalmem() / 1024 ** 3).toFixed(1),
    cpuModel,
    node: process.version,
    disk: diskOf(dataFolder),
    commit: describeCommit(),
    loadAverage: loadAverage(),
  };
}

export function loadAverage(): string {
  return os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' / ');
}
