// Turns to write to the SQLite file, one writer at a time, first come first served, decided in this process. SQLite
// lets one connection write at a time; the others wait in its busy handler, which sleeps on the thread that asked. For
// the main connection that thread is the event loop: a job claim or an upload that found the batch writer's thread
// (db/sqlite/worker-connections.ts) holding the write lock stopped every request of the process until the lock was
// free, up to a second during a user's deletion (bench/heavy.ts). With turns, a writer on either connection first waits
// here, asynchronously, until the writer before it has finished; SQLite's busy handler is then left for other processes
// (the `chute` command).

export class WriteTurns {
  /** Settles when the last turn taken so far has ended. */
  private tail: Promise<void> = Promise.resolve();

  /** Waits for the turn; resolves with the function that ends it (ending it twice does nothing). */
  take(): Promise<() => void> {
    let end!: () => void;
    // Resolving twice does nothing: a turn ended twice frees the next one once.
    const ended = new Promise<void>((resolve) => (end = resolve));
    const before = this.tail;
    this.tail = ended;
    return before.then(() => end);
  }
}
