// curl as the transfer client for the 1 GiB upload and download runs: it streams from the file on disk (-F @path)
// and to /dev/null in C, so the client is not what limits the numbers. Always --noproxy: traffic stays on 127.0.0.1.
import { spawn } from 'node:child_process';
import { launch } from './launcher.js';
import { readFile, rm } from 'node:fs/promises';

export interface CurlResult {
  httpCode: number;
  sizeUpload: number;
  sizeDownload: number;
  /** curl's own time_total, seconds. */
  seconds: number;
  /** Response body (uploads only; downloads go to /dev/null). */
  body: string;
  /** CPU seconds curl used (user + system), to tell whether the client limits a transfer. */
  clientCpuSeconds: number;
}

const WRITE_OUT = '\n%{http_code} %{size_upload} %{size_download} %{time_total}';

/**
 * curl runs as the child of a shell that, once curl has exited, prints its own /proc/<pid>/stat to stderr: the
 * cutime/cstime fields there are the CPU time of its waited-for children, that is of curl.
 */
const CURL_WITH_CPU = 'curl "$@"; rc=$?; cat /proc/$$/stat >&2; exit $rc';

/** USER_HZ: 100 on every Linux platform Node runs on. */
const CLOCK_TICKS = 100;

/** Takes the stat line off the end of stderr: curl's CPU seconds and the rest of stderr. */
function splitClientCpu(stderr: string): { cpuSeconds: number; rest: string } {
  const lines = stderr.trimEnd().split('\n');
  const stat = lines.pop() ?? '';
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 16 and 17 (cutime, cstime), counted as in procs.ts after the ")" that ends the name.
  const cpuSeconds = (Number(fields[13]) + Number(fields[14])) / CLOCK_TICKS;
  return { cpuSeconds, rest: lines.join('\n') };
}

async function runCurl(args: string[], timeoutMs: number): Promise<CurlResult> {
  const fullArgs = [
    '-sS',
    '--noproxy',
    '*',
    '--max-time',
    String(Math.ceil(timeoutMs / 1000)),
    '-w',
    WRITE_OUT,
    ...args,
  ];
  // Started from a small helper process (lib/launcher.ts): what starting it costs is a script's, not this process's.
  const { code, stdout, stderr } = await launch('sh', ['-c', CURL_WITH_CPU, 'sh', ...fullArgs]);
  const client = splitClientCpu(stderr);
  if (code !== 0) throw new Error(`curl failed (exit ${code}): ${client.rest.trim() || stdout.trim()}`);
  const lastLine = stdout.trim().split('\n').pop() ?? '';
  const [http, up, down, total] = lastLine.split(' ').map(Number);
  if (http === undefined || up === undefined || down === undefined || total === undefined || Number.isNaN(total)) {
    throw new Error(`could not read curl's summary line: ${JSON.stringify(lastLine)}`);
  }
  return {
    httpCode: http,
    sizeUpload: up,
    sizeDownload: down,
    seconds: total,
    body: '',
    clientCpuSeconds: client.cpuSeconds,
  };
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
        '-H',
        'Expect:',
        ...headerArgs,
        '-F',
        `file=@${filePath};type=application/octet-stream;filename=bench.bin`,
        '-o',
        options.bodyFile,
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

/**
 * A tus PATCH with the whole file streamed from disk (-T, with the method changed), from offset 0 of an upload made
 * with POST /api/upload/tus. The answer's headers (which name the finished file) are returned as the body.
 */
export async function curlTusPatch(
  url: string,
  filePath: string,
  options: { headers?: Record<string, string>; headerFile: string; timeoutMs: number },
): Promise<CurlResult> {
  const headerArgs = Object.entries(options.headers ?? {}).flatMap(([k, v]) => ['-H', `${k}: ${v}`]);
  try {
    const result = await runCurl(
      [
        '-H',
        'Expect:',
        '-H',
        'Tus-Resumable: 1.0.0',
        '-H',
        'Upload-Offset: 0',
        '-H',
        'Content-Type: application/offset+octet-stream',
        ...headerArgs,
        '-X',
        'PATCH',
        '-T',
        filePath,
        '-D',
        options.headerFile,
        '-o',
        '/dev/null',
        url,
      ],
      options.timeoutMs,
    );
    result.body = await readFile(options.headerFile, 'utf8').catch(() => '');
    return result;
  } finally {
    await rm(options.headerFile, { force: true });
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
