// Deleting many rows without stalling the server (issue 23, item 6). better-sqlite3 runs one statement at a time for
// the whole process, so a statement deleting 10,000 files (each with its indexes, search trigrams and counters) would
// hold up every request for its duration. Here every statement is short: rows go in batches sized as they go to take
// about the batch writer's target (db/sqlite/worker-connections.ts: on SQLite a worker thread's own connection, so that readers on
// the main thread are not held up at all), with a turn of the event loop between two batches.
//
// Each batch is one statement, so each file goes at once: its record, its search trigrams, its counters and the note
// of its bytes to remove (blob_deletions, services/files/blob-deletions.ts) in one commit. What a batch cannot make atomic
// (a whole bulk request, a whole user) is made durable and resumable instead:
// - a bulk delete of more files than one batch notes their ids first (file_deletions); a crash mid-way leaves the note,
//   and the instance's next start (or any instance, after a while) deletes the rest;
// - a user is deleted by one short transaction that notes the deletion (user_deletions): from then on the user is
//   gone for every look-up (signing in, the user list, their links: services that read users, files and short URLs
//   skip owners being deleted) while their rows go in batches, resumed after a crash the same way.
import { randomBytes } from 'node:crypto';
import { sql, type Compilable, type ExpressionBuilder, type SelectQueryBuilder } from 'kysely';
import type { AppContext } from '../../context.js';
import type { Database, Db } from '../../db/schema/tables.js';
import { newId } from '../../lib/security/ids.js';
import { releasePartialUploadData } from '../uploads/assembly.js';
import { drainBlobDeletions, removeBlobs } from './blob-deletions.js';
import { releaseLease, takeLease } from '../operations/leases.js';

const FIRST_BATCH = 100;
const MIN_BATCH = 50;
const MAX_BATCH = 2000;
/** A bulk delete of an other instance's request is taken over when its note is this old (the request died). */
const ORPHANED_TASK_MS = 10 * 60_000;
const RESUME_LEASE = 'deletions';
/** The periodic drain leaves the bytes noted more recently than this to the process that deleted their records. */
const BLOB_NOTE_MIN_AGE_MS = 60_000;
const RESUME_LEASE_MS = 2 * 60_000;
/** This process among the instances taking the lease: `deletions:<instance>:<process>` (see resumeOnce). */
const PROCESS = randomBytes(6).toString('hex');

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
      const { rows } = await ctx.batches.execute(
        ctx.db.deleteFrom('files').where('id', 'in', slice).returning('storage_key'),
      );
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
    const rows = await ctx.db.deleteFrom('files').where('id', 'in', ids).returning('storage_key').execute();
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
    async (size) =>
      keys.add(
        (await ctx.batches.execute(ctx.db.deleteFrom('files').where('id', 'in', select(size)).returning('storage_key')))
          .rows,
      ),
    async () => {
      await keys.remove();
      await between?.();
    },
  );
}

/** A selection of file ids (limited to a batch). */
export type FileIdQuery = SelectQueryBuilder<Database, 'files', { id: string }>;

// --- Users -----------------------------------------------------------------------------------------------------------

/**
 * Notes the deletion of a user, inside the caller's transaction (with the checks that allow it). From its commit on,
 * the user cannot sign in (their sessions go here; every look-up of a user skips those being deleted) and, with their
 * content, their files and short URLs are no longer served or listed.
 */
export async function beginUserDeletion(ctx: AppContext, trx: Db, userId: string, withContent: boolean): Promise<void> {
  await trx
    .insertInto('user_deletions')
    .values({ user_id: userId, with_content: withContent ? 1 : 0, created_at: ctx.clock.now() })
    .onConflict((oc) => oc.column('user_id').doNothing())
    .execute();
  await trx.deleteFrom('sessions').where('user_id', '=', userId).execute();
}

/** SQL: the owner of this row (`column`, e.g. files.user_id) is not being deleted with their content. */
export function ownerNotDeleted(column: 'files.user_id' | 'urls.user_id' | 'folders.user_id') {
  return sql<boolean>`not exists (select 1 from user_deletions d where d.user_id = ${sql.ref(column)} and d.with_content = 1)`;
}

/** SQL: this user (`column`, e.g. users.id) is not being deleted. */
export function userNotDeleted(column: 'users.id') {
  return sql<boolean>`not exists (select 1 from user_deletions d where d.user_id = ${sql.ref(column)})`;
}

/** Runs `statement(size)`, a write of at most `size` rows, on the batch writer until it changes none. */
function writeInBatches(
  ctx: Pick<AppContext, 'batches'>,
  statement: (size: number) => Compilable<unknown>,
  between?: () => Promise<void>,
): Promise<number> {
  return inBatches(ctx, async (size) => (await ctx.batches.execute(statement(size))).numAffectedRows, between);
}

/** The ids of at most `size` of the user's rows of `table`, as a subquery. */
function ofUser(table: 'files' | 'urls', userId: string, size: number) {
  return (eb: ExpressionBuilder<Database, typeof table>) =>
    eb.selectFrom(table).select('id').where('user_id', '=', userId).limit(size);
}

/** Whether `userId` is being deleted. */
export async function isBeingDeleted(db: Db, userId: string): Promise<boolean> {
  return (
    (await db.selectFrom('user_deletions').select('user_id').where('user_id', '=', userId).executeTakeFirst()) !==
    undefined
  );
}

/**
 * Carries out a noted user deletion: their files and short URLs (deleted, or kept without an owner), in batches,
 * then the user row (with what cascades from it: folders, tags, tokens ...) and the note, in one transaction. Safe to
 * run twice at once or again after a crash. Returns the number of files deleted.
 */
export async function continueUserDeletion(ctx: AppContext, userId: string, onBatch?: () => Promise<void>) {
  const task = await ctx.db.selectFrom('user_deletions').selectAll().where('user_id', '=', userId).executeTakeFirst();
  if (!task) return 0;
  let files = 0;
  if (task.with_content === 1) {
    files = await deleteFilesWhere(
      ctx,
      (size) => ctx.db.selectFrom('files').select('id').where('user_id', '=', userId).limit(size),
      onBatch,
    );
    await writeInBatches(
      ctx,
      (size) => ctx.db.deleteFrom('urls').where('id', 'in', ofUser('urls', userId, size)),
      onBatch,
    );
  } else {
    // What the foreign keys would do to every row at once when the user row goes (owner and folder set null).
    await writeInBatches(
      ctx,
      (size) =>
        ctx.db
          .updateTable('files')
          .set({ user_id: null, folder_id: null })
          .where('id', 'in', ofUser('files', userId, size)),
      onBatch,
    );
    await writeInBatches(
      ctx,
      (size) =>
        ctx.db
          .updateTable('urls')
          .set({ user_id: null })
          .where('id', 'in', ofUser('urls', userId, size)),
      onBatch,
    );
  }
  // Their unfinished chunked uploads go with them (the rows by cascade); their bytes are released after the commit.
  const partialUploads = await ctx.db.transaction().execute(async (trx) => {
    const sessions = await trx.selectFrom('partial_uploads').selectAll().where('user_id', '=', userId).execute();
    await trx.deleteFrom('users').where('id', '=', userId).execute();
    await trx.deleteFrom('user_deletions').where('user_id', '=', userId).execute();
    return sessions;
  });
  for (const session of partialUploads) await releasePartialUploadData(ctx, session);
  ctx.log.info({ userId, files, withContent: task.with_content === 1 }, 'deleted a user');
  return files;
}

// --- Resuming --------------------------------------------------------------------------------------------------------

const resuming = new WeakMap<AppContext, Promise<void>>();

/**
 * Finishes every noted deletion: users being deleted, bulk deletes cut off by a crash (at start, this instance's;
 * any instance's once they are old), then the bytes left to remove. At start-up, periodically, and after a large user deletion's
 * answer. One instance at a time (a lease); in this process, a call during a run waits for it and runs again.
 */
export async function resumeDeletions(ctx: AppContext, options: { atStart: boolean }): Promise<void> {
  const running = resuming.get(ctx);
  if (running) await running.catch(() => undefined);
  const again = resuming.get(ctx);
  if (again) return again;
  const run = resumeOnce(ctx, options.atStart).finally(() => resuming.delete(ctx));
  resuming.set(ctx, run);
  return run;
}

async function resumeOnce(ctx: AppContext, atStart: boolean): Promise<void> {
  const holder = `deletions:${ctx.instanceId}:`;
  // At start-up, a lease of this instance's previous process (killed mid-deletion) is taken over at once.
  const lease = (takeOver?: string) =>
    takeLease(ctx.db, RESUME_LEASE, holder + PROCESS, ctx.clock.now(), ctx.clock.now() + RESUME_LEASE_MS, takeOver);
  if (!(await lease(atStart ? holder : undefined))) return;
  // Renews the lease now and then during a long run (each renewal is a write, so not after every batch).
  let renewedAt = performance.now();
  const renew = async () => {
    // The instance is stopping: the rest is for the next start (or another instance).
    if (ctx.lifecycle.draining) throw new DeletionsStopped();
    if (performance.now() - renewedAt < RESUME_LEASE_MS / 4) return;
    renewedAt = performance.now();
    if (!(await lease())) throw new Error('the lease of the deletions was lost');
  };
  try {
    for (;;) {
      const user = await ctx.db.selectFrom('user_deletions').select('user_id').orderBy('created_at').executeTakeFirst();
      if (!user) break;
      await continueUserDeletion(ctx, user.user_id, renew);
    }
    const tasks = await ctx.db
      .selectFrom('file_deletions')
      .selectAll()
      // At start, this instance's own are left from before (no request of this process runs yet); later, only
      // those nobody finished for a long while.
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
  } catch (err) {
    if (!(err instanceof DeletionsStopped)) throw err;
    ctx.log.info('deletions paused while the instance stops; the next start continues them');
    return;
  } finally {
    await releaseLease(ctx.db, RESUME_LEASE, holder + PROCESS, ctx.clock.now()).catch(() => undefined);
  }
  await drainBlobDeletions(ctx, { minAgeMs: atStart ? 0 : BLOB_NOTE_MIN_AGE_MS, atStart });
}

class DeletionsStopped extends Error {}

/** Waits for a run of resumeDeletions in progress (it stops after its current batch once the instance drains). */
export async function deletionsSettled(ctx: AppContext): Promise<void> {
  await resuming.get(ctx)?.catch(() => undefined);
}
