// Turns to write to the SQLite file, one writer at a time, first come first served, decided in this process. SQLite
// lets one connection write at a time; the others wait in its busy handler, which sleeps on the thread that asked. For
// the main connection that thread is the event loop: a job claim or an upload that found the batch writer's thread
// (db/batch-writer.ts) holding the write lock stopped every request of the process until the lock was free, up to a
// second during a user's deletion (bench/heavy.ts). With turns, a writer on either connection first waits here,
// asynchronously, until the writer before it has finished; SQLite's busy handler is then left for other processes
// (the `chute` command).

export class WriteTurns {
  /** Settles when the last turn taken so far has ended. */
  private tail: Promise<void> = Promise.resolve();
  /** Turns taken and not ended (waiting or writing). */
  private open = 0;

  /** Waits for the turn; resolves with the function that ends it (ending it twice does nothing). */
  take(): Promise<() => void> {
    let end!: () => void;
    const ended = new Promise<void>((resolve) => {
      let done = false;
      end = () => {
        if (done) return;
        done = true;
        this.open--;
        resolve();
      };
    });
    this.open++;
    const before = this.tail;
    this.tail = ended;
    return before.then(() => end);
  }

  /** Runs `fn` in a turn of its own. */
  async during<T>(fn: () => Promise<T>): Promise<T> {
    const end = await this.take();
    try {
      return await fn();
    } finally {
      end();
    }
  }

  /** Turns taken and not ended yet, this one's own included (for tests). */
  get pending(): number {
    return this.open;
  }
}
