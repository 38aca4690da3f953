// What a test server has left behind, for tests of cleanup: files on disk (stored bytes, temp files) and rows.
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { TestServer } from './server.js';

/**
 * Every regular file under `dir` (relative paths), [] when it does not exist; without the storage marker that every
 * Chute places in its storage (`.chute-storage/<id>`, services/operations/storage-identity.ts).
 */
export async function filesUnder(dir: string): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true, recursive: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  return entries
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)))
    .filter((f) => !f.startsWith('.chute-storage/'));
}

/**
 * The stored bytes and temp files of a server: DATA_DIR/uploads, DATA_DIR/tmp, and the objects kept in the database
 * (small uploads, storage/database-objects.ts) as `database/<key>`.
 */
export async function storedFiles(server: TestServer): Promise<string[]> {
  const [uploads, tmp, inDatabase] = await Promise.all([
    filesUnder(path.join(server.dataDir, 'uploads')),
    filesUnder(path.join(server.dataDir, 'tmp')),
    databaseObjectKeys(server),
  ]);
  return [
    ...uploads.map((f) => `uploads/${f}`),
    ...tmp.map((f) => `tmp/${f}`),
    ...inDatabase.map((k) => `database/${k}`),
  ];
}

/** The keys of the objects a server keeps in its database. */
export async function databaseObjectKeys(server: TestServer): Promise<string[]> {
  const rows = await server.ctx.db
    .selectFrom('database_objects')
    .select('storage_key')
    .orderBy('storage_key')
    .execute();
  return rows.map((r) => r.storage_key);
}

/**
 * Temp files of append-style uploads left behind: local append-* (in the uploads folder's .chute-tmp, shared by the
 * instances that share the uploads) and S3 spool-* (in the data folder's tmp).
 */
export async function appendTempFiles(dataDir: string): Promise<string[]> {
  const lists = await Promise.all(
    [path.join(dataDir, 'tmp'), path.join(dataDir, 'uploads', '.chute-tmp')].map((dir) =>
      readdir(dir).catch(() => [] as string[]),
    ),
  );
  return lists.flat().filter((n) => n.startsWith('append-') || n.startsWith('spool-'));
}

/** Where a file's bytes are stored: its record's storage key. */
export async function storageKeyOf(server: TestServer, fileId: string): Promise<string> {
  const row = await server.ctx.db
    .selectFrom('files')
    .select('storage_key')
    .where('id', '=', fileId)
    .executeTakeFirstOrThrow();
  return row.storage_key;
}

export async function fileRowCount(server: TestServer): Promise<number> {
  const row = await server.ctx.db
    .selectFrom('files')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** How many chunked-upload sessions the database holds. */
export async function uploadSessionCount(server: TestServer): Promise<number> {
  const rows = await server.ctx.db.selectFrom('upload_sessions').select('id').execute();
  return rows.length;
}
