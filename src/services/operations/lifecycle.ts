// This process's place in its life: serving, or draining before it stops (services/operations/readiness.ts answers
// load balancers from it; long work such as deletions stops at its next batch once it drains).

/** This process's place in its life: serving, or draining before it stops. */
export class Lifecycle {
  private drainingSince: number | null = null;

  /** From now on the readiness answer is false (called first thing when the server begins to stop). */
  drain(now: number): void {
    this.drainingSince ??= now;
  }

  get draining(): boolean {
    return this.drainingSince !== null;
  }
}
