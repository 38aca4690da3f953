// Shared flushes of SQLite's write-ahead log, off the event loop. With synchronous = FULL every COMMIT fsyncs the log
// inside better-sqlite3, on the event loop: nothing else runs meanwhile, and 32 concurrent commits pay 32 fsyncs one
// after another. The server's connection instead commits with synchronous = NORMAL (the frames are written to the
// log, not yet flushed) and its driver (db/index.ts) then asks this class for an fdatasync of the log file, made by
// libuv's thread pool: while one is running, the commits that follow wait for the next one, which covers them all. A
// commit is acknowledged only after a flush that began after it: as durable as with FULL. (Linux flushes a file's dirty
// pages whichever descriptor wrote them.) A failed flush leaves the log's state unknown: `onFailure` decides (the
// server stops, as PostgreSQL does).
import { fstat, stat } from 'node:fs';
import { promisify } from 'node:util';
import { FdFile } from '../../lib/bytes/fd-file.js';

// The log's descriptor is an FdFile (lib/bytes/fd-file.ts: its calls cost the event loop about half a FileHandle's); the
// stats go through the callback functions alike (not measured on their own: one path stat per flush).
const statOf = promisify(stat);
const fstatOf = promisify(fstat);

export class WalSync {
  private handle: FdFile | undefined;
  private inode = -1;
  /** The flush running now, and whether another must follow it (for commits made after it began). */
  private running: Promise<void> | undefined;
  private next: Promise<void> | undefined;
  /** Flushes made (for tests and benchmarks). */
  flushes = 0;
  /** Told of a flush that failed (after its waiters were given the error). */
  onFailure: ((err: unknown) => void) | undefined;

  constructor(private readonly walPath: string) {}

  /** Resolves once everything written to the log before this call is on disk. */
  sync(): Promise<void> {
    if (this.running === undefined) {
      this.running = this.flush()
        .catch((err: unknown) => {
          queueMicrotask(() => this.onFailure?.(err));
          throw err;
        })
        .finally(() => (this.running = undefined));
      return this.running;
    }
    // A flush is running, but it may have begun before the caller's frames were written: the next one covers them.
    this.next ??= this.running
      .catch(() => undefined)
      .then(() => {
        this.next = undefined;
        return this.sync();
      });
    return this.next;
  }

  /**
   * Resolves once no flush is running (at once when none is). A commit made while a flush runs waits for the next
   * one anyway; made after this, it shares that next flush and its pages with every commit that waited with it.
   */
  async idle(): Promise<void> {
    while (this.running !== undefined) await this.running.catch(() => undefined);
  }

  /** One flush of the log (protected: a test holds it back to see what waits for it). */
  protected async flush(): Promise<void> {
    // The log file can be replaced (deleted when the last connection closes, made anew by the next write): the
    // descriptor must name the file at this path now.
    const current = await statOf(this.walPath);
    if (this.handle === undefined || current.ino !== this.inode) {
      await this.handle?.close().catch(() => undefined);
      this.handle = await FdFile.open(this.walPath, 'r');
      this.inode = (await fstatOf(this.handle.fd)).ino;
    }
    await this.handle.datasync();
    this.flushes++;
  }

  async close(): Promise<void> {
    await this.running?.catch(() => undefined);
    await this.next?.catch(() => undefined);
    await this.handle?.close().catch(() => undefined);
    this.handle = undefined;
  }
}
