// Helpers of the upload and file-serving tests: multipart uploads over real HTTP, quotas, and what is on disk.
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { newId } from '../../src/lib/ids.js';
import { setUserQuota } from '../../src/services/quotas.js';
import type { JsonResponse, TestServer } from '../support/server.js';

export interface UploadPart {
  name: string;
  content: string | Buffer;
  type?: string;
  /** Multipart field name (default `file`). */
  field?: string;
}

function authHeaders(auth: string): Record<string, string> {
  return auth.startsWith('chute_session=') ? { cookie: auth } : { authorization: auth };
}

/** POST /api/upload with FormData (Node's fetch builds the multipart body). */
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
    headers: { ...authHeaders(auth), ...headers },
    body: form,
  });
  const text = await res.text();
  const body = (res.headers.get('content-type') ?? '').includes('json') && text ? JSON.parse(text) : text;
  return { status: res.status, headers: res.headers, body };
}

/** Uploads one file and returns its entry of the answer (fails the test when the upload fails). */
export async function uploadOne(
  server: TestServer,
  auth: string,
  content: string | Buffer,
  options: { name?: string; type?: string; headers?: Record<string, string> } = {},
): Promise<{ id: string; name: string; url: string; rawUrl: string; type: string; size: number }> {
  const res = await upload(
    server,
    auth,
    [{ name: options.name ?? 'hello.txt', content, ...(options.type ? { type: options.type } : {}) }],
    options.headers,
  );
  if (res.status !== 200) throw new Error(`upload failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.files[0];
}

export async function setFileQuota(
  server: TestServer,
  userId: string,
  quota: { maxBytes?: number; maxFiles?: number },
): Promise<void> {
  await setUserQuota(server.ctx, server.ctx.db, userId, {
    filesQuota: quota.maxFiles !== undefined ? 'BY_FILES' : 'BY_BYTES',
    maxBytes: quota.maxBytes ?? null,
    maxFiles: quota.maxFiles ?? null,
    maxUrls: null,
  });
}

/** Every regular file under `dir` (relative paths), [] when it does not exist. */
export async function filesUnder(dir: string): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true, recursive: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  return entries.filter((e) => e.isFile()).map((e) => path.relative(dir, path.join(e.parentPath, e.name)));
}

/** The stored bytes and temp files of a server: DATA_DIR/uploads and DATA_DIR/tmp. */
export async function storedFiles(server: TestServer): Promise<string[]> {
  const [uploads, tmp] = await Promise.all([
    filesUnder(path.join(server.dataDir, 'uploads')),
    filesUnder(path.join(server.dataDir, 'tmp')),
  ]);
  return [...uploads.map((f) => `uploads/${f}`), ...tmp.map((f) => `tmp/${f}`)];
}

export async function fileRowCount(server: TestServer): Promise<number> {
  const row = await server.ctx.db
    .selectFrom('files')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** A folder row of `userId` (folders have their own API; these tests only need one to exist). */
export async function insertFolder(
  server: TestServer,
  userId: string,
  name = `folder-${newId().slice(0, 5)}`,
): Promise<string> {
  const id = newId();
  const now = Date.now();
  await server.ctx.db
    .insertInto('folders')
    .values({
      id,
      user_id: userId,
      parent_id: null,
      name,
      public: 0,
      allow_uploads: 0,
      created_at: now,
      updated_at: now,
    })
    .execute();
  return id;
}
