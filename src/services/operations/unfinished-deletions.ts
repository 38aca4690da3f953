// Finishing what deletions a crash or a stop cut off: users being deleted (services/accounts/user-deletion.ts), bulk
// deletes of files noted in file_deletions (services/files/deletions.ts), then the bytes whose records are gone
// (services/files/blob-deletions.ts). At start-up, every minute, and after a large user deletion's answer; one
// instance at a time (a lease).
import { randomBytes } from 'node:crypto';
import type { AppContext } from '../../context.js';
import { continueUserDeletion } from '../accounts/user-deletion.js';
import { drainBlobDeletions } from '../files/blob-deletions.js';
import { finishNotedFileDeletions } from '../files/deletions.js';
import { releaseLease, takeLease } from './leases.js';

const RESUME_LEASE = 'deletions';
/** The periodic drain leaves the bytes noted more recently than this to the process that deleted their records. */
const BLOB_NOTE_MIN_AGE_MS = 60_000;
const RESUME_LEASE_MS = 2 * 60_000;
/** This process among the instances taking the lease: `deletions:<instance>:<process>` (see resumeOnce). */
const PROCESS = randomBytes(6).toString('hex');

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
    await finishNotedFileDeletions(ctx, atStart, renew);
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
