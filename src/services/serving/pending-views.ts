// The views this instance counted and has not stored yet (services/serving/view-counts.ts writes them in batches): a
// map per target in memory, handed over whole to each flush and put back when the flush fails.

export type ViewTarget = 'files' | 'urls';

/** Views counted on this instance and not yet written, per file and per URL id. */
export class PendingViews {
  private counts: Record<ViewTarget, Map<string, number>> = { files: new Map(), urls: new Map() };
  private writtenCounts: Record<ViewTarget, Map<string, Written>> = { files: new Map(), urls: new Map() };

  add(target: ViewTarget, id: string, views = 1): void {
    const counts = this.counts[target];
    counts.set(id, (counts.get(id) ?? 0) + views);
  }

  /**
   * Notes a view that a conditional UPDATE already wrote to the record (one with a view limit): only its owner's
   * total is still to be moved. `ownerId` is the owner when it was viewed (the record may be gone by the flush).
   */
  written(target: ViewTarget, id: string, ownerId: string | null, views = 1): void {
    const written = this.writtenCounts[target];
    const entry = written.get(id);
    if (entry) entry.views += views;
    else written.set(id, { ownerId, views });
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
  take(): Taken {
    const taken = { counts: this.counts, written: this.writtenCounts };
    this.counts = { files: new Map(), urls: new Map() };
    this.writtenCounts = { files: new Map(), urls: new Map() };
    return taken;
  }

  /** Puts back what a failed flush took. */
  restore(taken: Taken): void {
    for (const target of TARGETS) {
      for (const [id, views] of taken.counts[target]) this.add(target, id, views);
      for (const [id, { ownerId, views }] of taken.written[target]) this.written(target, id, ownerId, views);
    }
  }
}

interface Written {
  ownerId: string | null;
  views: number;
}

interface Taken {
  counts: Record<ViewTarget, Map<string, number>>;
  written: Record<ViewTarget, Map<string, Written>>;
}

export const TARGETS: ViewTarget[] = ['files', 'urls'];
