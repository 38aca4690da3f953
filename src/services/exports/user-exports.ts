// A user's export of their account (POST /api/user/export): a zip of all their files (`files/<name>`) and a JSON of
// their records (`records.json`: the account, files, folders, tags, short URLs), made by a job of the durable queue
// and stored in the datasource (`.chute-exports/<id>.zip`) for EXPORT_RETENTION_MS, after which the sweep (a job of
// the queue too) removes it. Memory stays flat: the zip streams from storage into storage (folder-zip.ts's
// storedZipStream), and the records are read in pages and written to a temp file, with a turn of the event loop
// between pages so that the server keeps answering (on SQLite every query runs on the main thread).
import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { AppContext } from '../../context.js';
import type { Selectable } from 'kysely';
import type { Database, ExportRow, FileRow, UserRow } from '../../db/schema/tables.js';
import { toIso } from '../../lib/clock.js';
import { ApiError } from '../../lib/errors.js';
import { newId } from '../../lib/security/ids.js';
import { storageTempDir } from '../../storage/index.js';
import { storedZipStream, zipSegment, type ZipEntry } from '../serving/zips.js';
import { enqueueJobs, PermanentJobError } from '../operations/jobs.js';

export const USER_EXPORT_JOB = 'user-export';
export const EXPORT_SWEEP_JOB = 'export-sweep';
/** How long an export is kept (from when it was started); the sweep removes it afterwards. */
export const EXPORT_RETENTION_MS = 7 * 24 * 3_600_000;
/** An export job may run this long (the queue's default limit is minutes; a large account takes longer). */
export const USER_EXPORT_TIMEOUT_MS = 6 * 3_600_000;
/** Rows read per query. */
const PAGE = 500;

/** Where the zip of export `id` is stored: a folder no file key can name (file keys have no '/'). */
export function exportStorageKey(id: string): string {
  return `.chute-exports/${id}.zip`;
}

/** Only the caller's files that are still served count (an expired file waiting for its sweep does not). */
function liveFiles(ctx: AppContext, userId: string) {
  const now = ctx.clock.now();
  return ctx.db
    .selectFrom('files')
    .where('user_id', '=', userId)
    .where((eb) => eb.or([eb('deletes_at', 'is', null), eb('deletes_at', '>', now)]));
}

/** POST /api/user/export: records the export and queues its job in one transaction; no files -> 1025. */
export async function startUserExport(ctx: AppContext, user: Pick<UserRow, 'id'>): Promise<ExportRow> {
  const count = await liveFiles(ctx, user.id)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  const files = Number(count.n);
  if (files === 0) throw new ApiError(1025);
  const now = ctx.clock.now();
  const id = newId();
  const row: ExportRow = {
    id,
    user_id: user.id,
    completed: 0,
    storage_key: exportStorageKey(id),
    files,
    size: 0,
    created_at: now,
    updated_at: now,
    expires_at: now + EXPORT_RETENTION_MS,
  };
  await ctx.db.transaction().execute(async (trx) => {
    await trx.insertInto('exports').values(row).execute();
    await enqueueJobs(trx, now, [{ kind: USER_EXPORT_JOB, payload: { exportId: id } }]);
  });
  return row;
}

/** GET /api/user/export: the caller's exports, newest first. */
export async function listUserExports(ctx: AppContext, userId: string): Promise<ExportRow[]> {
  return ctx.db
    .selectFrom('exports')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .execute();
}

async function ownExport(ctx: AppContext, userId: string, id: string): Promise<ExportRow> {
  const row = await ctx.db
    .selectFrom('exports')
    .selectAll()
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  if (!row) throw new ApiError(9002, 'no such export');
  return row;
}

/** GET /api/user/export?id=: the export's row and zip; another's or none -> 9002, not yet complete -> 1024. */
export async function openUserExport(
  ctx: AppContext,
  userId: string,
  id: string,
): Promise<{ row: ExportRow; stream: Readable }> {
  const row = await ownExport(ctx, userId, id);
  if (row.completed !== 1) throw new ApiError(1024);
  try {
    return { row, stream: await ctx.storage.get(row.storage_key) };
  } catch (err) {
    throw new ApiError(9002, 'the export is missing from storage', { cause: err });
  }
}

/** DELETE /api/user/export?id=: removes the row, then the zip; another's or none -> 9002. */
export async function deleteUserExport(ctx: AppContext, userId: string, id: string): Promise<void> {
  const row = await ownExport(ctx, userId, id);
  const deleted = await ctx.db
    .deleteFrom('exports')
    .where('id', '=', row.id)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  if (Number(deleted.numDeletedRows) !== 1) throw new ApiError(9002, 'no such export');
  // A job still making it finds its row gone and removes what it stored.
  await ctx.storage.delete(row.storage_key);
}

/** A file as records.json lists it. */
function fileRecord(file: FileRow, links: Array<{ file_id: string; tag_id: string }>): Record<string, unknown> {
  return {
    id: file.id,
    name: file.name,
    originalName: file.original_name,
    type: file.type,
    size: file.size,
    views: file.views,
    maxViews: file.max_views,
    favorite: file.favorite === 1,
    private: file.private === 1,
    passwordProtected: file.password !== null,
    deletesAt: file.deletes_at === null ? null : toIso(file.deletes_at),
    folderId: file.folder_id,
    tags: links.filter((l) => l.file_id === file.id).map((l) => l.tag_id),
    createdAt: toIso(file.created_at),
    updatedAt: toIso(file.updated_at),
  };
}

/** Writes to a file stream, waiting when its buffer is full (bounded memory whatever is written). */
async function write(out: WriteStream, text: string): Promise<void> {
  if (!out.write(text))
    await new Promise<void>((resolve, reject) => {
      const onError = (err: Error) => reject(err);
      out.once('error', onError);
      out.once('drain', () => {
        out.off('error', onError);
        resolve();
      });
    });
}

/** Pages of rows by id (keyset), with a turn of the event loop between pages. */
async function* pagesById<R extends { id: string }>(
  read: (after: string) => Promise<R[]>,
  signal: AbortSignal,
): AsyncGenerator<R[]> {
  let after = '';
  for (;;) {
    signal.throwIfAborted();
    const page = await read(after);
    if (page.length === 0) return;
    yield page;
    after = page[page.length - 1]!.id;
    await nextTurn();
  }
}

/** The user's rows of `table` in pages by id. */
function ownPages<T extends 'folders' | 'tags' | 'urls'>(
  ctx: AppContext,
  table: T,
  userId: string,
  signal: AbortSignal,
): AsyncGenerator<Array<Selectable<Database[T]>>> {
  type Row = Selectable<Database[T]> & { id: string };
  return pagesById<Row>(
    (after) =>
      ctx.db
        .selectFrom(table as 'folders')
        .selectAll()
        .where('user_id', '=', userId)
        .where('id', '>', after)
        .orderBy('id')
        .limit(PAGE)
        .execute() as unknown as Promise<Row[]>,
    signal,
  );
}

/** Writes `"key":[...]` of the rows `pages` yields, each mapped by `toRecord`. */
async function writeArray<R>(
  out: WriteStream,
  key: string,
  pages: AsyncIterable<R[]>,
  toRecord: (row: R) => unknown,
): Promise<void> {
  await write(out, `,${JSON.stringify(key)}:[`);
  let first = true;
  for await (const page of pages) {
    const text = page.map((r) => JSON.stringify(toRecord(r))).join(',');
    await write(out, (first ? '' : ',') + text);
    first = false;
  }
  await write(out, ']');
}

/**
 * The entries of the export's zip, produced lazily: the files page by page (their records going into records.json
 * as they pass), then records.json itself, complete by the time the zip reaches it.
 */
async function* exportEntries(
  ctx: AppContext,
  user: UserRow,
  recordsFile: string,
  signal: AbortSignal,
  counted: { files: number },
): AsyncGenerator<ZipEntry> {
  const out = createWriteStream(recordsFile, { mode: 0o600 });
  const closed = finished(out);
  try {
    await write(
      out,
      `{"chute":{"export":"user","format":1},"exportedAt":${JSON.stringify(toIso(ctx.clock.now()))},"user":${JSON.stringify(
        { id: user.id, username: user.username, role: user.role, createdAt: toIso(user.created_at) },
      )}`,
    );
    await writeArray(out, 'folders', ownPages(ctx, 'folders', user.id, signal), (f) => ({
      id: f.id,
      name: f.name,
      parentId: f.parent_id,
      public: f.public === 1,
      allowUploads: f.allow_uploads === 1,
      createdAt: toIso(f.created_at),
      updatedAt: toIso(f.updated_at),
    }));
    await writeArray(out, 'tags', ownPages(ctx, 'tags', user.id, signal), (t) => ({
      id: t.id,
      name: t.name,
      color: t.color,
      createdAt: toIso(t.created_at),
    }));
    await writeArray(out, 'urls', ownPages(ctx, 'urls', user.id, signal), (u) => ({
      id: u.id,
      code: u.code,
      vanity: u.vanity,
      destination: u.destination,
      views: u.views,
      maxViews: u.max_views,
      passwordProtected: u.password !== null,
      enabled: u.enabled === 1,
      createdAt: toIso(u.created_at),
    }));

    await write(out, ',"files":[');
    const taken = new Set<string>();
    let first = true;
    for await (const page of pagesById(
      (after) => liveFiles(ctx, user.id).selectAll().where('id', '>', after).orderBy('id').limit(PAGE).execute(),
      signal,
    )) {
      const links = await ctx.db
        .selectFrom('file_tags')
        .select(['file_id', 'tag_id'])
        .where(
          'file_id',
          'in',
          page.map((f) => f.id),
        )
        .execute();
      const records: string[] = [];
      for (const file of page) {
        // A record whose bytes are gone (lost from the bucket, say) is listed without them rather than failing the
        // whole export: the zip could not be finished otherwise.
        if ((await ctx.storage.stat(file.storage_key)) === null) {
          records.push(JSON.stringify({ ...fileRecord(file, links), path: null, missing: true }));
          continue;
        }
        // Names are unique, but two may become one zip name (characters an unzipper refuses, case on Windows).
        let entryName = zipSegment(file.name);
        for (let n = 2; taken.has(entryName.toLowerCase()); n++) entryName = `${n}-${zipSegment(file.name)}`;
        taken.add(entryName.toLowerCase());
        const zipPath = `files/${entryName}`;
        records.push(JSON.stringify({ ...fileRecord(file, links), path: zipPath }));
        counted.files++;
        yield { path: zipPath, storageKey: file.storage_key, mtime: new Date(file.created_at) };
      }
      await write(out, (first ? '' : ',') + records.join(','));
      first = false;
    }
    await write(out, ']}\n');
    out.end();
    await closed;
    yield { path: 'records.json', localFile: recordsFile, mtime: new Date(ctx.clock.now()) };
  } finally {
    if (!out.closed) out.destroy();
  }
}

/** The job: makes the zip of one export and stores it, then marks the export complete. */
export async function runUserExport(ctx: AppContext, payload: unknown, signal: AbortSignal): Promise<void> {
  const exportId = (payload as { exportId?: unknown } | null)?.exportId;
  if (typeof exportId !== 'string') throw new PermanentJobError('the payload names no export');
  const row = await ctx.db.selectFrom('exports').selectAll().where('id', '=', exportId).executeTakeFirst();
  if (!row || row.completed === 1) return; // deleted since, or made by an earlier attempt
  const user = await ctx.db.selectFrom('users').selectAll().where('id', '=', row.user_id).executeTakeFirst();
  if (!user) return; // the sweep removes the export of a deleted user

  const tmp = storageTempDir(ctx.config);
  await mkdir(tmp, { recursive: true, mode: 0o700 });
  const dir = await mkdtemp(path.join(tmp, 'export-'));
  try {
    const counted = { files: 0 };
    const zip = storedZipStream(ctx, exportEntries(ctx, user, path.join(dir, 'records.json'), signal, counted), {
      exportId,
    });
    const abort = () => zip.destroy(signal.reason instanceof Error ? signal.reason : new Error('export aborted'));
    signal.addEventListener('abort', abort, { once: true });
    let stored;
    try {
      stored = await ctx.storage.put(row.storage_key, zip, { contentType: 'application/zip' });
    } finally {
      signal.removeEventListener('abort', abort);
    }
    const now = ctx.clock.now();
    const updated = await ctx.db
      .updateTable('exports')
      .set({ completed: 1, size: stored.size, files: counted.files, updated_at: now })
      .where('id', '=', row.id)
      .executeTakeFirst();
    // Deleted while it was made: its zip goes too.
    if (Number(updated.numUpdatedRows) === 0) await ctx.storage.delete(row.storage_key);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Queues the sweep of expired exports, unless one is already waiting (a periodic job calls this). */
export async function queueExportSweep(ctx: AppContext): Promise<boolean> {
  const waiting = await ctx.db
    .selectFrom('jobs')
    .select('id')
    .where('kind', '=', EXPORT_SWEEP_JOB)
    .where('state', 'in', ['queued', 'running'])
    .executeTakeFirst();
  if (waiting) return false;
  await enqueueJobs(ctx.db, ctx.clock.now(), [{ kind: EXPORT_SWEEP_JOB, payload: null }]);
  return true;
}

/** The sweep job: removes exports past their expiry and those of deleted users (zip first, then the row). */
export async function sweepExports(ctx: AppContext, _payload: unknown, signal: AbortSignal): Promise<void> {
  for (;;) {
    signal.throwIfAborted();
    const now = ctx.clock.now();
    const page = await ctx.db
      .selectFrom('exports')
      .leftJoin('users', 'users.id', 'exports.user_id')
      .select(['exports.id', 'exports.storage_key'])
      .where((eb) => eb.or([eb('exports.expires_at', '<=', now), eb('users.id', 'is', null)]))
      .orderBy('exports.id')
      .limit(PAGE)
      .execute();
    if (page.length === 0) return;
    for (const row of page) await ctx.storage.delete(row.storage_key);
    await ctx.db
      .deleteFrom('exports')
      .where(
        'id',
        'in',
        page.map((r) => r.id),
      )
      .execute();
    await nextTurn();
  }
}
