// Starts the Node upload client of row 5 (upload-client.ts) as its own process and sends it one upload at a time.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { trackProcess, stopProcess } from './procs.js';
import type { UploadCommand, UploadReport } from './upload-client.js';

export interface UploadClient {
  pid: number;
  upload(command: Omit<UploadCommand, 'id'>): Promise<UploadReport & { name: string }>;
  stop(): Promise<void>;
}

export function startUploadClient(repo: string): UploadClient {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(repo, 'bench', 'lib', 'upload-client.ts')], {
    cwd: repo,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', NODE_ENV: 'production' },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  trackProcess('upload-client', child);
  const waiting = new Map<number, (report: UploadReport) => void>();
  let nextId = 0;
  let buffered = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => {
    buffered += d;
    for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
      const report = JSON.parse(buffered.slice(0, end)) as UploadReport;
      buffered = buffered.slice(end + 1);
      waiting.get(report.id)?.(report);
      waiting.delete(report.id);
    }
  });
  child.once('exit', (code) => {
    for (const [id, resolve] of waiting) {
      resolve({
        id,
        error: `the upload client exited (${code})`,
        ackMs: NaN,
        servedMs: NaN,
        requestMs: [],
        afterBodyMs: [],
        connections: NaN,
      });
    }
    waiting.clear();
  });
  return {
    pid: child.pid!,
    async upload(command) {
      const id = nextId++;
      const report = await new Promise<UploadReport>((resolve) => {
        waiting.set(id, resolve);
        child.stdin!.write(`${JSON.stringify({ ...command, id })}\n`);
      });
      if (report.error || !report.name)
        throw new Error(`the Node client's ${command.how} upload failed: ${report.error}`);
      return report as UploadReport & { name: string };
    },
    stop: () => stopProcess(child, 5_000),
  };
}
