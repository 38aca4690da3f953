// Bytes stored before their file record exists. An upload marks its key pending before the bytes are stored; the
// transaction that records the file clears the mark, and a failed upload clears it after removing the bytes. A mark
// left by a process that died between storing and recording (kill -9 during the second file of a request, or between
// the rename and the commit) names bytes that no record will ever own: the instance's next start removes them.
import type { Insertable } from 'kysely';
import type { AppContext } from '../../context.js';
import type { RowLane } from '../../db/commits.js';
import { precompiledWrite } from '../../db/precompiled.js';
import { isPostgres } from '../../db/schema/search-index.js';
import type { Database, Db } from '../../db/schema/tables.js';

const engineOf = (db: Db): string => (isPostgres(db) ? 'postgres' : 'sqlite');

/** Marks `key` as stored bytes without a record yet (call before storing them). */
export async function markPendingObject(ctx: AppContext, key: string): Promise<void> {
  // Durable before the bytes are stored, in a commit shared with the concurrent uploads (group commit), the marks of
  // one commit written by one statement.
  await ctx.commits.add(pendingMarks, { storage_key: key, instance_id: ctx.instanceId, created_at: ctx.clock.now() });
}

const pendingMarks: RowLane<Insertable<Database['pending_objects']>> = {
  write: (trx, rows) => trx.insertInto('pending_objects').values(rows).execute(),
};

/**
 * Marks `keys` as stored bytes that no record owns, in the caller's transaction (`trx`): bytes about to be written
 * (committed before they are), or bytes a transaction leaves without a record, to be removed after its commit. A mark
 * that a crash leaves is worked off by the next removeUnrecordedObjects() of `instanceId`.
 */
export async function markPendingObjectsIn(trx: Db, instanceId: string, keys: readonly string[], now: number) {
  if (keys.length === 0) return;
  await trx
    .insertInto('pending_objects')
    .values(keys.map((key) => ({ storage_key: key, instance_id: instanceId, created_at: now })))
    .execute();
}

/** Clears the marks of `keys`: inside the transaction that records their files, or after their bytes are removed. */
export async function clearPendingObjects(db: Db, keys: readonly string[]): Promise<void> {
  if (keys.length === 0) return;
  // One key (every single-file upload): a statement compiled once per engine.
  if (keys.length === 1) await clearPendingObject(db, engineOf(db), { storage_key: keys[0]! });
  else await db.deleteFrom('pending_objects').where('storage_key', 'in', keys).execute();
}

const clearPendingObject = precompiledWrite<{ storage_key: string }>(['storage_key'], (db, { storage_key }) =>
  db.deleteFrom('pending_objects').where('storage_key', '=', storage_key),
);

/**
 * At start-up, before accepting uploads: removes the bytes this instance stored for uploads it never recorded (the
 * marks a dead process left) and the marks. Other instances' marks are theirs. Returns how many were removed.
 */
export async function removeUnrecordedObjects(ctx: AppContext): Promise<number> {
  const pending = await ctx.db
    .selectFrom('pending_objects')
    .select('storage_key')
    .where('instance_id', '=', ctx.instanceId)
    .execute();
  let removed = 0;
  for (const { storage_key: key } of pending) {
    // A record that owns the key keeps its bytes (the mark is cleared in the recording transaction, so this is only a
    // safeguard).
    const owner = await ctx.db.selectFrom('files').select('id').where('storage_key', '=', key).executeTakeFirst();
    if (!owner) {
      await ctx.storage.delete(key);
      removed++;
    }
    await clearPendingObjects(ctx.db, [key]);
  }
  if (removed > 0) ctx.log.warn({ removed }, 'removed the bytes of uploads that a previous process never recorded');
  return removed;
}
