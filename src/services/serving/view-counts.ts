// View counts without a durable write on the read path: a view of a file or short URL that has no view limit is
// counted in memory and written in batches (flushViews, every VIEW_FLUSH_INTERVAL_MS and at shutdown), so a view
// costs no database commit. The API adds this instance's pending counts to the stored ones. A crash loses at most the
// counts of the last interval. Views of files and URLs WITH a limit never pass through here: each is one atomic
// conditional UPDATE, exact across instances and crashes.
//
// The owners' view totals (the stored usage counters, db/schema/usage-counters.ts) move here too, never per request: a flush
// adds the views it writes to its files' and URLs' owners, and the views already written by a conditional UPDATE
// (noted with `written`) in the same batch. So serving never writes a row that every request shares; a crash loses at
// most one interval of the totals as well (a rebuild of the counters recounts them).
import type { AppContext } from '../../context.js';
import { TARGETS, type ViewTarget } from './pending-views.js';
import { addViewTotals, INSTANCE, OWNERLESS } from '../../db/schema/usage-counters.js';
import { addFileViews } from '../files/records.js';
import { addUrlViews } from '../links/short-urls.js';

/** How often the pending counts are written. */
export const VIEW_FLUSH_INTERVAL_MS = 1_000;

/**
 * Writes the pending view counts in one transaction (one UPDATE per file or URL, whatever its number of views), and
 * adds them, with the views noted as `written`, to their owners' totals and the instance's. A failed write puts
 * everything back, to be tried again with the next flush. Records deleted meanwhile are skipped (their views were
 * never stored, so no total holds them), except written views, which the record's deletion already took off.
 */
export async function flushViews(ctx: Pick<AppContext, 'db' | 'views'>): Promise<number> {
  const taken = ctx.views.take();
  const batches = TARGETS.flatMap((target) => [...taken.counts[target]].map(([id, views]) => ({ target, id, views })));
  const written = TARGETS.flatMap((target) =>
    [...taken.written[target]].map(([id, entry]) => ({ target, id, ...entry })),
  );
  // One order for every instance, so that two flushes on PostgreSQL cannot deadlock on each other's rows.
  const byTargetAndId = (a: { target: ViewTarget; id: string }, b: { target: ViewTarget; id: string }) =>
    a.target === b.target ? (a.id < b.id ? -1 : 1) : a.target < b.target ? -1 : 1;
  batches.sort(byTargetAndId);
  written.sort(byTargetAndId);
  if (batches.length === 0 && written.length === 0) return 0;
  try {
    await ctx.db.transaction().execute(async (trx) => {
      // Per owner: [file views, URL views] to add.
      const totals = new Map<string, [number, number]>();
      const addTotal = (target: ViewTarget, ownerId: string | null, views: number) => {
        const owner = ownerId ?? OWNERLESS;
        const sums = totals.get(owner) ?? [0, 0];
        sums[target === 'files' ? 0 : 1] += views;
        totals.set(owner, sums);
      };
      for (const { target, id, views } of batches) {
        const row = await (target === 'files' ? addFileViews(trx, id, views) : addUrlViews(trx, id, views));
        if (row) addTotal(target, row.user_id, views);
      }
      for (const { target, id, ownerId, views } of written) {
        // The record's owner now, if it still exists (its views went along when it changed owner).
        const row = await trx.selectFrom(target).select('user_id').where('id', '=', id).executeTakeFirst();
        addTotal(target, row ? row.user_id : ownerId, views);
      }
      // The instance's totals too; every owner in byte order, the order of every other writer of these rows (the
      // triggers of db/schema/usage-counters.ts), so that no two writers wait on each other in a cycle.
      let instance: [number, number] = [0, 0];
      for (const [fileViews, urlViews] of totals.values()) instance = [instance[0] + fileViews, instance[1] + urlViews];
      totals.set(INSTANCE, instance);
      for (const owner of [...totals.keys()].sort()) {
        const [fileViews, urlViews] = totals.get(owner)!;
        await addViewTotals(trx, owner, fileViews, urlViews);
      }
    });
  } catch (err) {
    ctx.views.restore(taken);
    throw err;
  }
  return batches.length + written.length;
}
