// The Node upload client of row 5: a process of its own (started once, before the timed runs, so that neither its
// start nor the benchmark's grown heap is counted) that uploads a file the way the dashboard and scripts do, with
// Node's fetch (undici) on one kept-alive connection: in chunks through POST /api/upload/partial, one request per
// chunk in order, each a multipart body holding a slice of the file-backed Blob (fs.openAsBlob; read from disk as it
// is sent), or the whole file in one multipart request to POST /api/upload. Both are timed until GET /raw/:name
// serves the whole file.
//   node --import tsx bench/lib/upload-client.ts   (one JSON command per line on stdin, one JSON answer per line out)
import { subscribe } from 'node:diagnostics_channel';
import { openAsBlob } from 'node:fs';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';

export interface UploadCommand {
  id: number;
  how: 'chunked' | 'single';
  /** Chute's base URL. */
  base: string;
  /** An API token (the authorization header). */
  token: string;
  source: string;
  chunkBytes: number;
  timeoutMs: number;
}

export interface UploadReport {
  id: number;
  /** Set when the upload failed; nothing else is then meaningful. */
  error?: string;
  name?: string;
  id_?: string;
  /** Milliseconds from the first request until the last answer was read. */
  ackMs: number;
  /** Milliseconds from the first request until GET /raw/:name answered for the whole file (see waitUntilServed). */
  servedMs: number;
  /** Each request's milliseconds, from fetch() until its answer was read (one for a single upload). */
  requestMs: number[];
  /**
   * Each request's milliseconds from the last byte of its body handed to the socket until its answer's headers came:
   * what the server did after the body (for a chunk, its end-of-chunk work), with a wake-up of each side.
   */
  afterBodyMs: number[];
  /** TCP connections undici opened during this upload (0 when it reused the kept-alive one). */
  connections: number;
}

let connections = 0;
/** When the request in flight had its body sent and its answer's headers (one request at a time). */
let phase = { bodySent: NaN, headers: NaN };
subscribe('undici:client:connected', () => {
  connections++;
});
subscribe('undici:request:bodySent', () => {
  if (Number.isNaN(phase.bodySent)) phase.bodySent = performance.now();
});
subscribe('undici:request:headers', () => {
  if (Number.isNaN(phase.headers)) phase.headers = performance.now();
});

interface Answer {
  files?: Array<{ id?: string; name?: string; url?: string }>;
  partialToken?: string;
}

async function post(url: string, headers: Record<string, string>, file: Blob, timeoutMs: number): Promise<Answer> {
  phase = { bodySent: NaN, headers: NaN };
  const form = new FormData();
  form.append('file', file, 'bench.bin');
  const res = await fetch(url, { method: 'POST', headers, body: form, signal: AbortSignal.timeout(timeoutMs) });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as Answer;
}

/**
 * The last request's time from its body sent to its answer's headers; 0 when the answer came first (undici counts the
 * body sent once its writer has ended, which may be after a quick answer).
 */
function afterBody(): number {
  return Math.max(0, phase.headers - phase.bodySent);
}

function nameOf(answer: Answer): { name: string; id?: string } {
  const file = answer.files?.[0];
  const name = file?.name ?? file?.url?.split('/').pop();
  if (!name) throw new Error(`the answer names no file: ${JSON.stringify(answer).slice(0, 300)}`);
  return { name, ...(file?.id ? { id: file.id } : {}) };
}

/**
 * Polls GET /raw/:name for its first byte until the answer says the file is whole (Content-Range `bytes 0-0/<size>`).
 * Not HEAD: undici closes the connection after every HEAD (it guards against servers that send a body with one).
 */
async function waitUntilServed(base: string, name: string, size: number, deadline: number): Promise<void> {
  for (;;) {
    const res = await fetch(`${base}/raw/${encodeURIComponent(name)}`, { headers: { range: 'bytes=0-0' } });
    await res.arrayBuffer();
    if (res.status === 206 && res.headers.get('content-range') === `bytes 0-0/${size}`) return;
    if (Date.now() > deadline) throw new Error(`/raw/${name} did not serve ${size} bytes in time (${res.status})`);
    await sleep(10);
  }
}

async function upload(command: UploadCommand): Promise<UploadReport> {
  const blob = await openAsBlob(command.source, { type: 'application/octet-stream' });
  const size = blob.size;
  const auth = { authorization: command.token };
  const requestMs: number[] = [];
  const afterBodyMs: number[] = [];
  const connectionsBefore = connections;
  const deadline = Date.now() + command.timeoutMs;
  const t0 = performance.now();
  let answer: Answer;
  if (command.how === 'single') {
    answer = await post(`${command.base}/api/upload`, auth, blob, command.timeoutMs);
    requestMs.push(performance.now() - t0);
    afterBodyMs.push(afterBody());
  } else {
    let token: string | undefined;
    answer = {};
    for (let start = 0; start < size; start += command.chunkBytes) {
      const end = Math.min(size, start + command.chunkBytes) - 1;
      const isLast = end === size - 1;
      const headers: Record<string, string> = {
        ...auth,
        'content-range': `bytes ${start}-${end}/${size}`,
        'x-service-p-content-length': String(size),
        'x-service-p-content-type': 'application/octet-stream',
        'x-service-p-filename': 'bench.bin',
        'x-service-p-lastchunk': String(isLast),
        ...(token ? { 'x-service-p-token': token } : {}),
      };
      const r0 = performance.now();
      answer = await post(`${command.base}/api/upload/partial`, headers, blob.slice(start, end + 1), command.timeoutMs);
      requestMs.push(performance.now() - r0);
      afterBodyMs.push(afterBody());
      if (!isLast) {
        token = answer.partialToken;
        if (!token) throw new Error(`chunk ${start}-${end}: no partialToken in ${JSON.stringify(answer)}`);
      }
    }
  }
  const ackMs = performance.now() - t0;
  const file = nameOf(answer);
  await waitUntilServed(command.base, file.name, size, deadline);
  const servedMs = performance.now() - t0;
  return {
    id: command.id,
    name: file.name,
    ...(file.id ? { id_: file.id } : {}),
    ackMs,
    servedMs,
    requestMs,
    afterBodyMs,
    connections: connections - connectionsBefore,
  };
}

// One upload at a time, in the order the commands came.
let queue = Promise.resolve();
createInterface({ input: process.stdin }).on('line', (line) => {
  const command = JSON.parse(line) as UploadCommand;
  queue = queue.then(async () => {
    const report = await upload(command).catch((err: unknown): UploadReport => ({
      id: command.id,
      error: String((err as Error)?.stack ?? err),
      ackMs: NaN,
      servedMs: NaN,
      requestMs: [],
      afterBodyMs: [],
      connections: NaN,
    }));
    process.stdout.write(`${JSON.stringify(report)}\n`);
  });
});
