// curl as the transfer client for the 1 GiB upload and download runs: it streams from the file on disk (-F @path)
// and to /dev/null in C, so the client is not what limits the numbers. Always --noproxy: traffic stays on 127.0.0.1.
import { spawn } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';

export interface CurlResult {
  httpCode: number;
  sizeUpload: number;
  sizeDownload: number;
  /** curl's own time_total, seconds. */
  seconds: number;
  /** Response body (uploads only; downloads go to /dev/null). */
  body: string;
}

const WRITE_OUT = '\n%{http_code} %{size_upload} %{size_download} %{time_total}';

async function runCurl(args: string[], timeoutMs: number): Promise<CurlResult> {
  const fullArgs = ['-sS', '--noproxy', '*', '--max-time', String(Math.ceil(timeoutMs / 1000)), '-w', WRITE_OUT, ...args];
  const child = spawn('curl', fullArgs, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const code = await new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (c) => resolve(c ?? -1));
  });
  if (code !== 0) throw new Error(`curl failed (exit ${code}): ${stderr.trim() || stdout.trim()}`);
  const lastLine = stdout.trim().split('\n').pop() ?? '';
  const [http, up, down, total] = lastLine.split(' ').map(Number);
  if (http === undefined || up === undefined || down === undefined || total === undefined || Number.isNaN(total)) {
    throw new Error(`could not read curl's summary line: ${JSON.stringify(lastLine)}`);
  }
  return { httpCode: http, sizeUpload: up, sizeDownload: down, seconds: total, body: '' };
}

/** One multipart/form-data request with the file streamed from disk as the part named `file`. */
export async function curlUpload(
  url: string,
  filePath: string,
  options: { headers?: Record<string, string>; bodyFile: string; timeoutMs: number },
): Promise<CurlResult> {
  const headerArgs = Object.entries(options.headers ?? {}).flatMap(([k, v]) => ['-H', `${k}: ${v}`]);
  try {
    const result = await runCurl(
      [
        // No "Expect: 100-continue" round trip: the same for every server.
        '-H', 'Expect:',
        ...headerArgs,
        '-F', `file=@${filePath};type=application/octet-stream;filename=bench.bin`,
        '-o', options.bodyFile,
        url,
      ],
      options.timeoutMs,
    );
    result.body = await readFile(options.bodyFile, 'utf8').catch(() => '');
    return result;
  } finally {
    await rm(options.bodyFile, { force: true });
  }
}

/** A GET whose body is thrown away (-o /dev/null). */
export async function curlDownload(url: string, options: { timeoutMs: number }): Promise<CurlResult> {
  return runCurl(['-o', '/dev/null', url], options.timeoutMs);
}

export async function assertCurlAvailable(): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const child = spawn('curl', ['--version'], { stdio: 'ignore' });
    child.once('error', () => reject(new Error('curl is needed on PATH (apt-get install -y curl)')));
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error('curl --version failed'))));
  });
}
