// Uploads over real HTTP for the tests: multipart POST /api/upload as a browser or client would send it.
import type { UploadedFileDto } from '../../src/schemas/file.js';
import { authHeaders, readJsonResponse, type JsonResponse, type TestServer } from './server.js';

export interface UploadPart {
  name: string;
  content: string | Buffer;
  type?: string;
  /** Multipart field name (default `file`). */
  field?: string;
}

/** POST /api/upload with FormData (Node's fetch builds the multipart body); `auth` empty: no credentials at all. */
export async function upload(
  server: TestServer,
  auth: string,
  parts: UploadPart[],
  headers: Record<string, string> = {},
): Promise<JsonResponse> {
  const form = new FormData();
  for (const part of parts) {
    const blob = new Blob([part.content], part.type === undefined ? {} : { type: part.type });
    form.append(part.field ?? 'file', blob, part.name);
  }
  const res = await server.fetch('/api/upload', {
    method: 'POST',
    headers: { ...(auth ? authHeaders(auth) : {}), ...headers },
    body: form,
  });
  return readJsonResponse(res);
}

/** Uploads one file and returns its entry of the answer (fails the test when the upload fails). */
export async function uploadOne(
  server: TestServer,
  auth: string,
  content: string | Buffer,
  options: { name?: string; type?: string; headers?: Record<string, string> } = {},
): Promise<UploadedFileDto> {
  const res = await upload(
    server,
    auth,
    [{ name: options.name ?? 'hello.txt', content, ...(options.type ? { type: options.type } : {}) }],
    options.headers,
  );
  if (res.status !== 200) throw new Error(`upload failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.files[0];
}
