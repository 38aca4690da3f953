// View counts without a durable write on the read path: a view of a file or short URL that has no view limit is
// counted in memory and written in batches (flushViews, every VIEW_FLUSH_INTERVAL_MS and at shutdown), so a view
// costs no database commit. The API adds this instance's pending counts to the stored ones. A crash loses at most the
// counts of the last interval. Views of files and URLs WITH a limit never pass through here: each is one atomic
// conditional UPDATE, exact across instances and crashes.
import type { AppContext } from '../context.js';

/** How often the pending counts are written. */
export const VIEW_FLUSH_INTERVAL_MS = 1_000;

export type ViewTarget = 'files' | 'urls';

/** Views counted on this instance and not yet written, per file and per URL id. */
export class PendingViews {
  private counts: Record<ViewTarget, Map<string, number>> = { files: new Map(), urls: new Map() };

  add(target: ViewTarget, id: string, views = 1): void {
    const counts = this.counts[target];
    counts.set(id, (counts.get(id) ?? 0) + views);
  }

  /** The views of one file or URL that are counted here but not yet stored. */
  of(target: ViewTarget, id: string): number {
    return this.counts[target].get(id) ?? 0;
  }

  /** All pending views of files or URLs (for totals). */
  total(target: ViewTarget): number {
    let sum = 0;
    for (const views of this.counts[target].values()) sum += views;
    return sum;
  }

  /** Hands over everything pending and starts counting afresh. */
  take(): Record<ViewTarget, Map<string, number>> {
    const taken = this.counts;
    this.counts = { files: new Map(), urls: new Map() };
    return taken;
  }
}

/**
 * Writes the pending view counts in one transaction (one UPDATE per file or URL, whatever its number of views). A
 * failed write puts the counts back, to be tried again with the next flush. Records deleted meanwhile are skipped.
 */
export async function flushViews(ctx: Pick<AppContext, 'db' | 'views'>): Promise<number> {
  const taken = ctx.views.take();
  const batches = (Object.keys(taken) as ViewTarget[]).flatMap((target) =>
    [...taken[target]].map(([id, views]) => ({ target, id, views })),
  );
  // One order for every instance, so that two flushes on PostgreSQL cannot deadlock on each other's rows.
  batches.sort((a, b) => (a.target === b.target ? (a.id < b.id ? -1 : 1) : a.target < b.target ? -1 : 1));
  if (batches.length === 0) return 0;
  try {
    await ctx.db.transaction().execute(async (trx) => {
      for (const { target, id, views } of batches) {
        await trx
          .updateTable(target)
          .set((eb) => ({ views: eb('views', '+', views) }))
          .where('id', '=', id)
          .execute();
      }
    });
  } catch (err) {
    for (const { target, id, views } of batches) ctx.views.add(target, id, views);
    throw err;
  }
  return batches.length;
}
