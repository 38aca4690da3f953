// Moving the bytes of small files between the database and the datasource (`chute storage inline`): out of the
// database when an admin turns inline storage off (UPLOADS_INLINE_MAX=0) or moves to S3 and wants the bytes there,
// back in for the files at or under UPLOADS_INLINE_MAX kept in the datasource.
//
// In batches of files: the new bytes are written first (a datasource put, durable like an upload's, or nothing yet for
// the database), marked pending before they are (services/uploads/pending-objects.ts); then one transaction points
// each record at its new key, stores or deletes the database's copy and clears the marks, so that a record names
// either its old bytes or its new ones, never none; what the switch leaves behind in the datasource (the old object,
// the old thumbnail) is marked in that same transaction and removed after the commit. A crash at any point leaves
// marks, which the next run removes first (removeUnrecordedObjects of the command's own instance id), and records
// that still match what the next run looks for: it goes on where the last one stopped, and a second run finds nothing.
// One run at a time (a lease); a short pause between batches for the server running next to it.
import { hostname } from 'node:os';
import { buffer } from 'node:stream/consumers';
import { setTimeout as sleep } from 'node:timers/promises';
import { Readable } from 'node:stream';
import { sql } from 'kysely';
import type { AppContext } from '../../context.js';
import type { Db } from '../../db/schema/tables.js';
import { StorageNotFoundError } from '../../storage/datasource.js';
import {
  DATABASE_KEY_PREFIX,
  deleteDatabaseObjects,
  isDatabaseKey,
  newDatabaseKey,
  storeDatabaseObjects,
} from '../../storage/database-objects.js';
import { thumbnailKeyOf } from '../media/thumbnail-names.js';
import { releaseLease, takeLease } from '../operations/leases.js';
import { clearPendingObjects, markPendingObjectsIn, removeUnrecordedObjects } from '../uploads/pending-objects.js';
import { newStorageKey } from '../uploads/store-files.js';
import { switchFileLocation, type StoredLocation } from './records.js';

export type InlineDirection = 'out' | 'in';

/** Files per batch: one transaction switches them all. */
export const INLINE_BATCH = 500;
/** Objects read or written at once within a batch. */
const PARALLEL = 16;
/** The pause between two batches, in which the server next to the command has the database to itself. */
const PAUSE_MS = 20;
const LEASE = 'storage-inline';
const LEASE_MS = 5 * 60_000;

export interface InlineMoveOptions {
  direction: InlineDirection;
  batchSize?: number;
  /** After each batch's commit: files moved by it, and so far. */
  onBatch?(progress: { batch: number; moved: number; skipped: number; total: number }): void;
  /** A file left where it is (its bytes missing, or not the size its record says), and why. */
  onSkip?(file: { id: string; storage_key: string }, reason: string): void;
  /** Test hooks (the crash tests): after a batch's bytes are written, and after its commit. */
  afterWrites?(batch: number): void;
  afterCommit?(batch: number): void;
}

export interface InlineMoveResult {
  /** How many files were to move when the run began. */
  candidates: number;
  moved: number;
  skipped: number;
  /** Objects an interrupted run had left behind, removed before this one began. */
  swept: number;
}

/** Another `chute storage inline` holds the lease. */
export class InlineMoveBusyError extends Error {
  constructor(readonly holder: string) {
    super(`another chute storage inline is running (${holder})`);
    this.name = 'InlineMoveBusyError';
  }
}

interface Candidate extends StoredLocation {
  id: string;
  size: number;
  type: string;
}

interface Move {
  file: Candidate;
  to: StoredLocation;
  bytes: Buffer;
  /** Keys this move has written (or will): marked pending until the switch, removed when it does not happen. */
  written: string[];
}

/** Moves every file's bytes out of the database into the datasource, or the small ones back in. */
export async function moveInlineFiles(ctx: AppContext, options: InlineMoveOptions): Promise<InlineMoveResult> {
  const holder = `inline:${hostname()}:${process.pid}`;
  await takeInlineLease(ctx, holder);
  try {
    // What an interrupted run left: bytes written but never switched to, old bytes not yet removed.
    const swept = await removeUnrecordedObjects(ctx);
    const candidates = await countCandidates(ctx, options.direction);
    const size = options.batchSize ?? INLINE_BATCH;
    let moved = 0;
    let skipped = 0;
    let batch = 0;
    for (let after = ''; ;) {
      const files = await nextCandidates(ctx, options.direction, after, size);
      if (files.length === 0) break;
      after = files.at(-1)!.id;
      batch++;
      const outcome = await moveBatch(ctx, options, batch, files);
      moved += outcome.moved;
      skipped += outcome.skipped;
      options.onBatch?.({ batch, moved: outcome.moved, skipped: outcome.skipped, total: moved });
      if (files.length < size) break;
      await renewInlineLease(ctx, holder);
      await sleep(PAUSE_MS);
    }
    return { candidates, moved, skipped, swept };
  } finally {
    await releaseLease(ctx.db, LEASE, holder, ctx.clock.now()).catch(() => undefined);
  }
}

async function takeInlineLease(ctx: AppContext, holder: string): Promise<void> {
  const now = ctx.clock.now();
  if (await takeLease(ctx.db, LEASE, holder, now, now + LEASE_MS)) return;
  const row = await ctx.db.selectFrom('leases').select('holder').where('name', '=', LEASE).executeTakeFirst();
  const other = row?.holder ?? 'unknown';
  // A run on this machine that was killed (its process is gone) would otherwise hold the next one off for minutes.
  const [, host, pid] = other.split(':');
  if (host === hostname() && pid !== undefined && !processAlive(Number(pid))) {
    if (await takeLease(ctx.db, LEASE, holder, now, now + LEASE_MS, other)) return;
  }
  throw new InlineMoveBusyError(other);
}

async function renewInlineLease(ctx: AppContext, holder: string): Promise<void> {
  const now = ctx.clock.now();
  if (!(await takeLease(ctx.db, LEASE, holder, now, now + LEASE_MS))) throw new InlineMoveBusyError('lease lost');
}

function processAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const inDatabase = sql<boolean>`substr(storage_key, 1, ${DATABASE_KEY_PREFIX.length}) = ${DATABASE_KEY_PREFIX}`;
const notInDatabase = sql<boolean>`substr(storage_key, 1, ${DATABASE_KEY_PREFIX.length}) <> ${DATABASE_KEY_PREFIX}`;

/** The files to move: every one kept in the database (out), the small ones kept in the datasource (in). */
function candidates(ctx: AppContext, direction: InlineDirection) {
  const files = ctx.db.selectFrom('files');
  return direction === 'out'
    ? files.where(inDatabase)
    : files.where(notInDatabase).where('size', '<=', ctx.config.UPLOADS_INLINE_MAX);
}

async function countCandidates(ctx: AppContext, direction: InlineDirection): Promise<number> {
  const row = await candidates(ctx, direction)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The next `limit` files to move after the id `after`, in id order (the primary key: one walk over the table). */
function nextCandidates(ctx: AppContext, direction: InlineDirection, after: string, limit: number) {
  return candidates(ctx, direction)
    .select(['id', 'storage_key', 'thumbnail_key', 'size', 'type'])
    .where('id', '>', after)
    .orderBy('id')
    .limit(limit)
    .execute();
}

async function moveBatch(
  ctx: AppContext,
  options: InlineMoveOptions,
  batch: number,
  files: Candidate[],
): Promise<{ moved: number; skipped: number }> {
  const out = options.direction === 'out';
  const now = ctx.clock.now();
  const moves: Move[] = [];
  await inParallel(files, async (file) => {
    // A key of the other kind is no file to move in this direction (a key that only looks like one).
    if (out !== isDatabaseKey(file.storage_key)) return;
    const bytes = await readObject(ctx, file.storage_key);
    if (bytes === undefined) return options.onSkip?.(file, 'its bytes are missing');
    if (bytes.length !== file.size)
      return options.onSkip?.(file, `its bytes are ${bytes.length} bytes, its record says ${file.size}`);
    const key = out ? newStorageKey() : newDatabaseKey(now);
    const to = { storage_key: key, thumbnail_key: file.thumbnail_key === null ? null : thumbnailKeyOf(key) };
    const written = [...(out ? [key] : []), ...(to.thumbnail_key === null ? [] : [to.thumbnail_key])];
    moves.push({ file, to, bytes, written });
  });
  const skipped = files.length - moves.length;

  // Marked before anything is written, in one commit: a crash from here on leaves marks, not orphans.
  await ctx.commits.run((trx) =>
    markPendingObjectsIn(
      trx,
      ctx.instanceId,
      moves.flatMap((m) => m.written),
      now,
    ),
  );
  const ready: Move[] = [];
  await inParallel(moves, async (move) => {
    try {
      await writeMove(ctx, out, move);
      ready.push(move);
    } catch (err) {
      ctx.log.error(
        { err, key: move.file.storage_key },
        'could not write the bytes of a file to move; left where it is',
      );
    }
  });
  options.afterWrites?.(batch);

  const switched = await ctx.commits.run((trx) => switchBatch(trx, ctx.instanceId, out, ready, now));
  options.afterCommit?.(batch);

  // After the commit: the old bytes the switch left in the datasource, and what was written for nothing (a file that
  // was deleted or changed meanwhile, a write that failed).
  const done = new Set(switched);
  const leftovers = [
    ...switched.flatMap((m) => leftBehind(out, m)),
    ...moves.filter((m) => !done.has(m)).flatMap((m) => m.written),
  ];
  const removed: string[] = [];
  await inParallel(leftovers, async (key) => {
    try {
      await ctx.storage.delete(key);
      removed.push(key);
    } catch (err) {
      ctx.log.error({ err, key }, 'could not remove bytes a move left behind; the next run removes them');
    }
  });
  await clearPendingObjects(ctx.db, removed);
  return { moved: switched.length, skipped: skipped + moves.length - switched.length };
}

/** Writes a move's new bytes: its file's (out: to the datasource) and its thumbnail's copy. */
async function writeMove(ctx: AppContext, out: boolean, move: Move): Promise<void> {
  if (out) {
    await ctx.storage.put(move.to.storage_key, Readable.from([move.bytes]), { contentType: move.file.type });
  }
  if (move.file.thumbnail_key !== null && move.to.thumbnail_key !== null) {
    const thumbnail = await readObject(ctx, move.file.thumbnail_key);
    // A thumbnail that is gone is not copied: the record then has none (the thumbnail job can make one again).
    if (thumbnail === undefined) move.to = { ...move.to, thumbnail_key: null };
    else await ctx.storage.put(move.to.thumbnail_key, Readable.from([thumbnail]), { contentType: 'image/webp' });
  }
}

/**
 * The one transaction of a batch: each record pointed at its new key (if it is still at its old one), the database's
 * copy stored (in) or deleted (out), the marks of what was written cleared, and what is left behind marked for removal.
 * Answers the moves that switched.
 */
async function switchBatch(trx: Db, instanceId: string, out: boolean, moves: Move[], now: number): Promise<Move[]> {
  const switched: Move[] = [];
  for (const move of moves) {
    const result = await switchFileLocation(trx, move.file.id, move.file, move.to);
    if (Number(result.numUpdatedRows) === 1) switched.push(move);
  }
  if (out)
    await deleteDatabaseObjects(
      trx,
      switched.map((m) => m.file.storage_key),
    );
  else
    await storeDatabaseObjects(
      trx,
      switched.map((m) => ({ storage_key: m.to.storage_key, bytes: m.bytes, created_at: now })),
    );
  await clearPendingObjects(
    trx,
    switched.flatMap((m) => m.written),
  );
  await markPendingObjectsIn(
    trx,
    instanceId,
    switched.flatMap((m) => leftBehind(out, m)),
    now,
  );
  return switched;
}

/** What a switched move leaves in the datasource: the old object (in) and the old thumbnail. */
function leftBehind(out: boolean, move: Move): string[] {
  return [
    ...(out ? [] : [move.file.storage_key]),
    ...(move.file.thumbnail_key === null ? [] : [move.file.thumbnail_key]),
  ];
}

/** An object's bytes (at most UPLOADS_INLINE_MAX or a thumbnail's: small), or undefined when there is none. */
async function readObject(ctx: AppContext, key: string): Promise<Buffer | undefined> {
  try {
    return await buffer(await ctx.storage.get(key));
  } catch (err) {
    if (err instanceof StorageNotFoundError) return undefined;
    throw err;
  }
}

async function inParallel<T>(items: readonly T[], fn: (item: T) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < items.length; i += PARALLEL) await Promise.all(items.slice(i, i + PARALLEL).map(fn));
}
