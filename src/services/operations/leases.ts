// Tasks that one instance at a time runs (the expiry sweep and the other periodic clean-ups): every instance tries
// on its own schedule; the one that takes the task's lease in the database runs it, the others skip that turn. After
// a run the lease is kept until the next turn is due, so that N instances do the work once per interval, not N
// times; a holder that dies mid-run loses the lease when it expires and another instance takes the task over.
import { sql, type SqlBool } from 'kysely';
import type { AppContext } from '../../context.js';
import type { Db } from '../../db/schema/tables.js';

/**
 * Takes the lease `name` until `until` (epoch ms) when it is free, expired or already `holder`'s, or (`takeOver`) held
 * by a holder whose name starts so: a process of this instance that died (at start-up no other process of the
 * instance runs), whose lease would otherwise hold up its successor's start-up work until it expired. True when
 * `holder` holds it afterwards. One conditional update, or one insert that loses to a concurrent one: never two
 * holders.
 */
export async function takeLease(
  db: Db,
  name: string,
  holder: string,
  now: number,
  until: number,
  takeOver?: string,
): Promise<boolean> {
  const updated = await db
    .updateTable('leases')
    .set({ holder, expires_at: until })
    .where('name', '=', name)
    .where((eb) =>
      eb.or([
        eb('holder', '=', holder),
        eb('expires_at', '<=', now),
        ...(takeOver ? [sql<SqlBool>`substr(holder, 1, ${takeOver.length}) = ${takeOver}`] : []),
      ]),
    )
    .executeTakeFirst();
  if (Number(updated.numUpdatedRows) === 1) return true;
  const inserted = await db
    .insertInto('leases')
    .values({ name, holder, expires_at: until })
    .onConflict((oc) => oc.column('name').doNothing())
    .returning('name')
    .executeTakeFirst();
  return inserted !== undefined;
}

/** Gives the lease back (or shortens it to `until`), when `holder` still holds it. */
export async function releaseLease(db: Db, name: string, holder: string, until: number): Promise<void> {
  await db
    .updateTable('leases')
    .set({ expires_at: until })
    .where('name', '=', name)
    .where('holder', '=', holder)
    .execute();
}

export interface ExclusiveOptions {
  /** How often the task is due: after a run, no instance runs it again before this much time from its start. */
  intervalMs: number;
  /** Longest a run may hold the lease; a holder that died is replaced after this. */
  maxRunMs: number;
}

/**
 * Runs `task` when this process (`holder`) takes the lease `name`; resolves to false without running it when another
 * instance holds it. A failed run gives the lease back at once, so that the next turn of any instance retries.
 */
export async function runExclusive(
  ctx: Pick<AppContext, 'db' | 'clock'>,
  name: string,
  holder: string,
  options: ExclusiveOptions,
  task: () => Promise<unknown>,
): Promise<boolean> {
  const started = ctx.clock.now();
  if (!(await takeLease(ctx.db, name, holder, started, started + options.maxRunMs))) return false;
  try {
    await task();
  } catch (err) {
    await releaseLease(ctx.db, name, holder, ctx.clock.now()).catch(() => undefined);
    throw err;
  }
  // A little less than the interval, so that this holder's own next turn (timer jitter) still finds it due.
  await releaseLease(ctx.db, name, holder, started + Math.floor(options.intervalMs * 0.9));
  return true;
}
