// Deleting many files without stalling the server (issue 23, item 6). better-sqlite3 runs one statement at a time for
// the whole process, so a statement deleting 10,000 files (each with its indexes, search trigrams and counters) would
// hold up every request for its duration. Here every statement is short: rows go in batches sized as they go to take
// about the batch writer's target (db/sqlite/worker-connections.ts: on SQLite a worker thread's own connection, so
// that readers on the main thread are not held up at all), with a turn of the event loop between two batches.
//
// Each batch is one statement, so each file goes at once: its record, its search trigrams, its counters and the note
// of its bytes to remove (blob_deletions, services/files/blob-deletions.ts) in one commit. What a batch cannot make
// atomic (a whole bulk request, a whole user) is made durable and resumable instead: a bulk delete of more files than
// one batch notes their ids first (file_deletions); a crash mid-way leaves the note, and the instance's next start (or
// any instance, after a while) deletes the rest (services/operations/unfinished-deletions.ts). A user's deletion
// (services/accounts/user-deletion.ts) uses the same batches.
import type { Compilable, SelectQueryBuilder } from 'kysely';
import type { AppContext } from '../../context.js';
import type { Database } from '../../db/schema/tables.js';
import { newId } from '../../lib/security/ids.js';
import { DATABASE_KEY_PREFIX, isDatabaseKey } from '../../storage/database-objects.js';
import { keepNotedBlobs, noteKeptBlobs, removeBlobs } from './blob-deletions.js';
import { fileRecordsDeletion } from './records.js';

const FIRST_BATCH = 100;
const MIN_BATCH = 50;
const MAX_BATCH = 2000;
/** A bulk delete of an other instance's request is taken over when its note is this old (the request died). */
const ORPHANED_TASK_MS = 10 * 60_000;

/** Lets the event loop run what waits (requests, timers) before the next batch. */
export const yieldToRequests = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * After a batch, a pause as long as the batch took (at most MAX_REST_MS): a long deletion then takes at most about
 * half of the machine's time, and on a small machine the requests served next to it keep their latency. Measured
 * (bench/heavy.ts, a DELETE of 10,000 files, 2 cores): a concurrent redirect's p99 1.4-2.3 ms with the pause, 2.4-3.2
 * ms with only a turn of the event loop between batches; the deletion takes 4.4 s instead of 2.4.
 */
const MAX_REST_MS = 50;
const restAfter = (elapsedMs: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, Math.min(elapsedMs, MAX_REST_MS)));

/**
 * Runs `step` with a batch size until it handles fewer rows than asked, and adapts the size so that each step takes
 * about `targetMs` (the batch writer's). After each step, `between` (not timed: removing bytes, renewing a lease),
 * then a pause (restAfter). Returns the number of rows handled.
 */
export async function inBatches(
  ctx: Pick<AppContext, 'batches'>,
  step: (size: number) => Promise<number>,
  between?: () => Promise<void>,
): Promise<number> {
  let size = FIRST_BATCH;
  let total = 0;
  for (;;) {
    const started = performance.now();
    const handled = await step(size);
    const elapsed = performance.now() - started;
    total += handled;
    await between?.();
    if (handled < size) return total;
    const scaled = Math.round((size * ctx.batches.batchTargetMs) / Math.max(elapsed, 0.1));
    size = Math.min(MAX_BATCH, Math.max(MIN_BATCH, Math.min(scaled, size * 2)));
    await restAfter(elapsed);
  }
}

/** Storage keys of deleted records, whose bytes `between` of inBatches removes after each batch. */
class DeletedKeys {
  private keys: string[] = [];
  constructor(private readonly ctx: AppContext) {}
  add(rows: Array<{ storage_key: string }>): number {
    for (const row of rows) this.keys.push(row.storage_key);
    return rows.length;
  }
  async remove(): Promise<void> {
    const keys = this.keys;
    this.keys = [];
    await removeBlobs(this.ctx, keys);
  }
}

/** Deletes the files of `ids` that still exist, in batches, and their bytes; returns how many this call deleted. */
async function deleteFileRowsByIds(ctx: AppContext, ids: readonly string[], between?: () => Promise<void>) {
  let offset = 0;
  const keys = new DeletedKeys(ctx);
  let deleted = 0;
  await inBatches(
    ctx,
    async (size) => {
      const slice = ids.slice(offset, offset + size);
      offset += slice.length;
      if (slice.length === 0) return 0;
      const { rows } = await ctx.batches.execute(fileRecordsDeletion(ctx.db, slice));
      deleted += keys.add(rows);
      return slice.length;
    },
    async () => {
      await keys.remove();
      await between?.();
    },
  );
  return deleted;
}

/**
 * Deletes file records by id (those that still exist), then their bytes. Up to one batch: one statement. More: the ids
 * are noted first, so that a crash mid-way is finished on the next start. Returns how many records this call deleted.
 */
export async function deleteFilesById(ctx: AppContext, ids: readonly string[]): Promise<number> {
  if (ids.length === 0) return 0;
  if (ids.length <= FIRST_BATCH) {
    const rows = await fileRecordsDeletion(ctx.db, ids).execute();
    await removeBlobs(
      ctx,
      rows.map((r) => r.storage_key),
    );
    return rows.length;
  }
  const taskId = newId();
  await ctx.db
    .insertInto('file_deletions')
    .values({ id: taskId, file_ids: JSON.stringify(ids), instance_id: ctx.instanceId, created_at: ctx.clock.now() })
    .execute();
  const deleted = await deleteFileRowsByIds(ctx, ids);
  await ctx.db.deleteFrom('file_deletions').where('id', '=', taskId).execute();
  return deleted;
}

/**
 * Deletes file records by id (those that still exist) and keeps their bytes: Zipline's bulk delete with
 * delete_datasourceFiles false. The bytes' notes stay, marked kept (blob-deletions.ts), for the admin to find and
 * remove. Bytes kept in the database (small uploads) would go with their records (a trigger), so they are first
 * copied into the datasource, under their key without the database's prefix. In slices, each one transaction (the
 * records and the marks), with a turn of the event loop between two; a failure mid-way leaves the files of the slices
 * not reached as they were, and the request can be sent again. Returns how many records this call deleted.
 */
export async function deleteFilesKeepingBytes(ctx: AppContext, ids: readonly string[]): Promise<number> {
  let deleted = 0;
  for (let i = 0; i < ids.length; i += FIRST_BATCH) {
    if (i > 0) await yieldToRequests();
    const slice = ids.slice(i, i + FIRST_BATCH);
    const inDatabase = await ctx.db
      .selectFrom('files')
      .select(['storage_key', 'type'])
      .where('id', 'in', slice)
      .where('storage_key', 'like', `${DATABASE_KEY_PREFIX}%`)
      .execute();
    const copies = inDatabase.filter((f) => isDatabaseKey(f.storage_key));
    const copyKey = (key: string) => key.slice(DATABASE_KEY_PREFIX.length);
    // Noted before they are written: a crash in between leaves a kept note, never unnoted bytes.
    if (copies.length > 0)
      await noteKeptBlobs(
        ctx.db,
        copies.map((f) => copyKey(f.storage_key)),
      ).execute();
    for (const file of copies) {
      const bytes = await ctx.storage.get(file.storage_key);
      await ctx.storage.put(copyKey(file.storage_key), bytes, { contentType: file.type });
    }
    const keys = await ctx.commits.run(async (trx) => {
      const rows = await fileRecordsDeletion(trx, slice).execute();
      const kept = rows.map((r) => r.storage_key).filter((key) => !isDatabaseKey(key));
      if (kept.length > 0) await keepNotedBlobs(trx, kept).execute();
      return rows.map((r) => r.storage_key);
    });
    deleted += keys.length;
    // What is left of a copied file under its old key: its note, and its thumbnail (derived, not kept).
    await removeBlobs(ctx, keys.filter(isDatabaseKey));
  }
  return deleted;
}

/**
 * Deletes, in batches, the files that `select` names (ids, limited to the batch size it is given), and their bytes.
 * For deletions whose condition is itself durable (expiry, a user being deleted). Returns how many went.
 */
export async function deleteFilesWhere(
  ctx: AppContext,
  select: (size: number) => FileIdQuery,
  between?: () => Promise<void>,
): Promise<number> {
  const keys = new DeletedKeys(ctx);
  return inBatches(
    ctx,
    async (size) => keys.add((await ctx.batches.execute(fileRecordsDeletion(ctx.db, select(size)))).rows),
    async () => {
      await keys.remove();
      await between?.();
    },
  );
}

/** A selection of file ids (limited to a batch). */
export type FileIdQuery = SelectQueryBuilder<Database, 'files', { id: string }>;

/** Runs `statement(size)`, a write of at most `size` rows, on the batch writer until it changes none. */
export function writeInBatches(
  ctx: Pick<AppContext, 'batches'>,
  statement: (size: number) => Compilable<unknown>,
  between?: () => Promise<void>,
): Promise<number> {
  return inBatches(ctx, async (size) => (await ctx.batches.execute(statement(size))).numAffectedRows, between);
}

/**
 * Finishes the bulk deletes that file_deletions notes as cut off: at start, this instance's (no request of this process
 * runs yet); later, only those nobody finished for a long while. `renew` runs between batches.
 */
export async function finishNotedFileDeletions(
  ctx: AppContext,
  atStart: boolean,
  renew: () => Promise<void>,
): Promise<void> {
  const tasks = await ctx.db
    .selectFrom('file_deletions')
    .selectAll()
    .where((eb) =>
      eb.or([
        eb('created_at', '<=', ctx.clock.now() - ORPHANED_TASK_MS),
        ...(atStart ? [eb('instance_id', '=', ctx.instanceId)] : []),
      ]),
    )
    .execute();
  for (const task of tasks) {
    const ids = JSON.parse(task.file_ids) as string[];
    const deleted = await deleteFileRowsByIds(ctx, ids, renew);
    await ctx.db.deleteFrom('file_deletions').where('id', '=', task.id).execute();
    ctx.log.info({ files: deleted }, 'finished a bulk delete of files that a previous process left unfinished');
  }
}
