// Removing the bytes of deleted files. The transaction that deletes file records also notes their storage keys in
// blob_deletions (a trigger, migration 0027), so bytes are removed only once no record refers to them, and a crash
// between the commit and the removal leaves a note instead of an orphan. The notes are worked off right after the
// deletion (removeBlobs, by the request that deleted the records), and whatever is left (a crash, a failing storage)
// by drainBlobDeletions: at start-up and periodically, by one instance at a time (a lease). A note marked kept (a bulk
// delete with Zipline's delete_datasourceFiles false) is bytes left on purpose: the drain leaves them, and the admin's
// maintenance action lists them (keptBlobs) and removes them (removeKeptBlobs) once no record refers to them.
import type { Db } from '../../db/schema/tables.js';
import { randomBytes } from 'node:crypto';
import type { AppContext } from '../../context.js';
import { releaseLease, takeLease } from '../operations/leases.js';
import { thumbnailKeyOf } from '../media/thumbnail-names.js';

/** How many stored objects are removed at once, ... */
const PARALLEL_REMOVALS = 16;
/** ... and how many notes one drain reads per query. */
const DRAIN_BATCH = 500;
/** Longest a drain holds its lease before another instance may take over (it is renewed per batch). */
const DRAIN_LEASE_MS = 5 * 60_000;
const DRAIN_LEASE = 'blob-deletions';
/** This process among the instances taking the lease. */
const PROCESS = randomBytes(6).toString('hex');

/** Removes stored bytes and their thumbnail; throws when the datasource fails (a missing object is no failure). */
async function removeStoredObjects(ctx: AppContext, key: string): Promise<void> {
  ctx.smallFiles.delete(key);
  // The thumbnail lives next to the bytes under a name made from their key, so it goes wherever they go.
  await Promise.all([ctx.storage.delete(key), ctx.storage.delete(thumbnailKeyOf(key))]);
}

/**
 * Removes the bytes noted under `keys` (their records are already deleted) and then the notes. A removal that fails
 * is logged and its note kept, for the next drain. Returns how many were removed.
 */
export async function removeBlobs(ctx: AppContext, keys: readonly string[]): Promise<number> {
  let removed = 0;
  for (let i = 0; i < keys.length; i += PARALLEL_REMOVALS) {
    const chunk = keys.slice(i, i + PARALLEL_REMOVALS);
    const results = await Promise.allSettled(chunk.map((key) => removeStoredObjects(ctx, key)));
    const done = chunk.filter((key, j) => {
      const result = results[j]!;
      if (result.status === 'rejected') {
        ctx.log.error(
          { err: result.reason, key },
          'could not delete the stored bytes of a deleted file; retried later',
        );
      }
      return result.status === 'fulfilled';
    });
    // Off the main thread on SQLite, as the deletions that wrote the notes (db/sqlite/worker-connections.ts).
    if (done.length > 0)
      await ctx.batches.execute(ctx.db.deleteFrom('blob_deletions').where('storage_key', 'in', done));
    removed += done.length;
  }
  return removed;
}

const draining = new WeakMap<AppContext, Promise<number>>();

/**
 * Removes the bytes of the notes left (at start-up, and by the periodic job), noted at least `minAgeMs` ago: a
 * running process removes what it deletes itself, and the bytes of a file's last allowed view are removed only once
 * that view has been sent, so a periodic drain leaves recent notes alone. One instance of the database at a time
 * (another holding the lease: returns 0 at once); in this process, a call during a drain waits for it and then
 * drains again. Returns how many went.
 */
export async function drainBlobDeletions(
  ctx: AppContext,
  options: { minAgeMs: number; atStart?: boolean },
): Promise<number> {
  const running = draining.get(ctx);
  if (running) await running.catch(() => undefined);
  const again = draining.get(ctx);
  if (again) return again;
  const drain = drainOnce(ctx, options.minAgeMs, options.atStart === true).finally(() => draining.delete(ctx));
  draining.set(ctx, drain);
  return drain;
}

async function drainOnce(ctx: AppContext, minAgeMs: number, atStart: boolean): Promise<number> {
  // The notes carry the database's wall-clock time (the trigger's), not the app's clock.
  const notedBefore = Date.now() - minAgeMs;
  const holder = `blobs:${ctx.instanceId}:`;
  // At start-up, a lease of this instance's previous process (killed mid-drain) is taken over at once.
  const lease = (takeOver?: string) =>
    takeLease(ctx.db, DRAIN_LEASE, holder + PROCESS, ctx.clock.now(), ctx.clock.now() + DRAIN_LEASE_MS, takeOver);
  if (!(await lease(atStart ? holder : undefined))) return 0;
  let removed = 0;
  let after = '';
  try {
    for (;;) {
      const notes = await ctx.db
        .selectFrom('blob_deletions')
        .select('storage_key')
        .where('storage_key', '>', after)
        .where('created_at', '<=', notedBefore)
        .where('kept', '=', 0)
        .orderBy('storage_key')
        .limit(DRAIN_BATCH)
        .execute();
      if (notes.length === 0) break;
      after = notes.at(-1)!.storage_key;
      removed += await removeBlobs(
        ctx,
        notes.map((n) => n.storage_key),
      );
      if (notes.length < DRAIN_BATCH || !(await lease())) break;
    }
  } finally {
    await releaseLease(ctx.db, DRAIN_LEASE, holder + PROCESS, ctx.clock.now()).catch(() => undefined);
  }
  if (removed > 0) ctx.log.info({ removed }, 'removed the stored bytes of deleted files');
  return removed;
}

/**
 * The statement, for the transaction that deletes the records of `keys`, that turns their notes (just written by the
 * trigger) into kept ones: their bytes stay.
 */
export function keepNotedBlobs(db: Db, keys: readonly string[]) {
  return db.updateTable('blob_deletions').set({ kept: 1 }).where('storage_key', 'in', keys);
}

/** Notes bytes as kept before they are written (a copy out of the database, which no record refers to yet). */
export function noteKeptBlobs(db: Db, keys: readonly string[]) {
  const createdAt = Date.now();
  return db
    .insertInto('blob_deletions')
    .values(keys.map((key) => ({ storage_key: key, created_at: createdAt, kept: 1 })))
    .onConflict((oc) => oc.column('storage_key').doUpdateSet({ kept: 1 }));
}

/** A kept note with its bytes' size (null: no bytes under it). */
export interface KeptBlob {
  key: string;
  size: number | null;
  notedAt: number;
}

/** At most this many kept notes are listed or removed per call. */
const KEPT_PAGE = 1000;

/** The kept notes that no record refers to (a record with the key may have been imported since), oldest first. */
async function unreferencedKeptNotes(ctx: AppContext): Promise<Array<{ storage_key: string; created_at: number }>> {
  return ctx.db
    .selectFrom('blob_deletions')
    .select(['storage_key', 'created_at'])
    .where('kept', '=', 1)
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('files').select('id').whereRef('files.storage_key', '=', 'blob_deletions.storage_key'))),
    )
    .orderBy('created_at')
    .orderBy('storage_key')
    .limit(KEPT_PAGE)
    .execute();
}

/** Bytes kept after their records were deleted (delete_datasourceFiles false), with their size in the datasource. */
export async function keptBlobs(ctx: AppContext): Promise<KeptBlob[]> {
  const notes = await unreferencedKeptNotes(ctx);
  const out: KeptBlob[] = [];
  for (let i = 0; i < notes.length; i += PARALLEL_REMOVALS) {
    const chunk = notes.slice(i, i + PARALLEL_REMOVALS);
    const sizes = await Promise.all(chunk.map((n) => ctx.storage.stat(n.storage_key)));
    chunk.forEach((n, j) => out.push({ key: n.storage_key, size: sizes[j]?.size ?? null, notedAt: n.created_at }));
  }
  return out;
}

/** Removes the kept bytes that no record refers to, and their notes; returns how many went. */
export async function removeKeptBlobs(ctx: AppContext): Promise<number> {
  let removed = 0;
  for (;;) {
    const notes = await unreferencedKeptNotes(ctx);
    if (notes.length === 0) return removed;
    const done = await removeBlobs(
      ctx,
      notes.map((n) => n.storage_key),
    );
    removed += done;
    // A failing datasource keeps its notes: stop rather than read them again.
    if (done < notes.length || notes.length < KEPT_PAGE) return removed;
  }
}
