// A chunked-upload client written from the spec, for the tests of POST /api/upload/partial.
import assert from 'node:assert/strict';
import type { FinalChunkResponse, IncompleteFileDto } from '../../src/schemas/chunked-upload.js';
import { authHeaders, readJsonResponse, type JsonResponse, type TestServer } from './server.js';

export interface ChunkRequest {
  /** The whole file (the chunk is bytes[start..end]) unless `body` overrides what is sent. */
  file: Buffer;
  start: number;
  end: number;
  token?: string;
  /** Overrides the computed x-service-p-lastchunk. */
  last?: string;
  /** Bytes sent in the part instead of file[start..end]. */
  body?: Buffer;
  headers?: Record<string, string | undefined>;
  fileName?: string;
  type?: string;
  partName?: string;
  /** Extra file parts after the first. */
  extraFileParts?: number;
}

/** The partial-upload headers of one chunk, as the spec describes them. */
export function chunkHeaders(
  req: Pick<ChunkRequest, 'file' | 'start' | 'end' | 'token' | 'last' | 'fileName' | 'type'>,
): Record<string, string> {
  const total = req.file.length;
  return {
    'content-range': `bytes ${req.start}-${req.end}/${total}`,
    'x-service-p-content-length': String(total),
    'x-service-p-content-type': req.type ?? 'application/octet-stream',
    'x-service-p-filename': req.fileName ?? 'data.bin',
    'x-service-p-lastchunk': req.last ?? String(req.end === total - 1),
    ...(req.token ? { 'x-service-p-token': req.token } : {}),
  };
}

/** Sends one chunk as multipart/form-data with a file part (`auth` empty: no credentials at all). */
export async function sendChunk(server: TestServer, auth: string, req: ChunkRequest): Promise<JsonResponse> {
  const form = new FormData();
  const bytes = req.body ?? req.file.subarray(req.start, req.end + 1);
  form.append(req.partName ?? 'file', new Blob([bytes]), req.fileName ?? 'data.bin');
  for (let i = 0; i < (req.extraFileParts ?? 0); i++)
    form.append('file', new Blob([Buffer.from('extra')]), 'extra.bin');
  const headers: Record<string, string> = { ...(auth ? authHeaders(auth) : {}), ...chunkHeaders(req) };
  for (const [name, value] of Object.entries(req.headers ?? {})) {
    if (value === undefined) delete headers[name];
    else headers[name] = value;
  }
  const response = await server.fetch('/api/upload/partial', { method: 'POST', headers, body: form });
  return readJsonResponse(response);
}

/** Cuts `size` bytes into chunks of the given sizes (the last one takes the rest). */
export function chunkRanges(size: number, sizes: number[]): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  let start = 0;
  for (const s of sizes) {
    if (start >= size) break;
    const end = Math.min(size, start + s) - 1;
    ranges.push([start, end]);
    start = end + 1;
  }
  if (start < size) ranges.push([start, size - 1]);
  return ranges;
}

/** Uploads `file` in the given chunks; asserts every non-final answer; returns the final answer. */
export async function uploadInChunks(
  server: TestServer,
  auth: string,
  file: Buffer,
  sizes: number[],
  options: { headers?: Record<string, string>; fileName?: string; type?: string } = {},
): Promise<JsonResponse> {
  let token: string | undefined;
  const ranges = chunkRanges(file.length, sizes);
  for (const [i, [start, end]] of ranges.entries()) {
    const res = await sendChunk(server, auth, {
      file,
      start,
      end,
      token,
      headers: options.headers,
      fileName: options.fileName,
      type: options.type,
    });
    if (i === ranges.length - 1) return res;
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body.files, []);
    assert.equal(res.body.partialSuccess, true);
    assert.equal(typeof res.body.partialToken, 'string');
    assert.notEqual(res.body.partialToken, token);
    token = res.body.partialToken;
  }
  throw new Error('no chunks');
}

/** Polls GET /api/user/files/incomplete until the record is COMPLETE or FAILED; returns it. */
export async function waitForAssembly(
  server: TestServer,
  auth: string,
  incompleteId: string,
): Promise<IncompleteFileDto> {
  for (let i = 0; i < 2000; i++) {
    const res = await server.json<IncompleteFileDto[]>('GET', '/api/user/files/incomplete', { auth });
    assert.equal(res.status, 200);
    const record = res.body.find((r) => r.id === incompleteId);
    assert.ok(record, `incomplete file ${incompleteId} is listed`);
    if (record.status === 'COMPLETE' || record.status === 'FAILED') {
      // The assembly marks the record, then removes its chunk session: wait for that too, so that a test sees the
      // state after the whole assembly.
      for (let j = 0; j < 500; j++) {
        const session = await server.ctx.db
          .selectFrom('upload_sessions')
          .select('id')
          .where('incomplete_file_id', '=', incompleteId)
          .executeTakeFirst();
        if (!session) return record;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      throw new Error(`the chunk session of ${incompleteId} outlived its assembly`);
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`incomplete file ${incompleteId} never finished`);
}

/** Polls until none of the caller's incomplete files is PENDING or PROCESSING. */
export async function waitForAllAssemblies(server: TestServer, auth: string): Promise<void> {
  for (let i = 0; i < 2000; i++) {
    const res = await server.json<IncompleteFileDto[]>('GET', '/api/user/files/incomplete', { auth });
    if (res.body.every((r) => r.status === 'COMPLETE' || r.status === 'FAILED')) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('assemblies never finished');
}

/** The answer to the last chunk: exactly one (pending) file. */
export type FinalAnswer = FinalChunkResponse & { files: [FinalChunkResponse['files'][number]] };

/** Uploads in chunks, waits for COMPLETE, and checks the served bytes; returns the final answer and the record. */
export async function uploadAndVerify(
  server: TestServer,
  auth: string,
  file: Buffer,
  sizes: number[],
): Promise<{ answer: FinalAnswer; record: IncompleteFileDto }> {
  const res: JsonResponse<FinalAnswer> = await uploadInChunks(server, auth, file, sizes);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.partialSuccess, false);
  const record = await waitForAssembly(server, auth, res.body.incompleteFileId);
  assert.equal(record.status, 'COMPLETE', JSON.stringify(record));
  const served = await fetch(res.body.files[0].rawUrl);
  assert.equal(served.status, 200);
  const bytes = Buffer.from(await served.arrayBuffer());
  assert.equal(bytes.length, file.length);
  assert.ok(bytes.equals(file), 'the served bytes are the uploaded bytes');
  return { answer: res.body, record };
}
