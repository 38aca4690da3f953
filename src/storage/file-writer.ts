// The local datasource's way of writing a stream into an open file: chunks are gathered into 1 MiB batches written
// with one positioned writev each, and, when the file must become durable, its pages are flushed to disk while the
// rest still arrives (bench/RESULTS.md, 2026-11-24: why both matter on the upload path).
import { open } from 'node:fs/promises';
import { Writable } from 'node:stream';
import type { WritableFile } from '../lib/bytes/fd-file.js';

/** Bytes gathered before one writev: a socket delivers about 32 KiB per read, so about 32 reads make one write. */
export const WRITE_BATCH = 1024 * 1024;

/**
 * A file that must become durable gets a background fdatasync each time it grows past a multiple of this, so that the
 * fsync at the end finds only the tail still to write instead of the whole file (the kernel would otherwise start
 * writing back only when dirty pages reach a tenth of the memory, gigabytes on a server). The offsets are the
 * file's, so the chunks of a chunked upload, each its own writer, share one rhythm whatever their size.
 */
export const EARLY_FLUSH_EVERY = 8 * 1024 * 1024;

/**
 * A writer that knows where it ends starts no early flush of its own closer to the end than this: the flush would
 * still run when the stream ends and hold up its finish, while the fsync at the end writes those pages anyway.
 * (Detached flushes, see BackgroundFlusher, hold up nothing and need no margin.)
 */
export const EARLY_FLUSH_END_MARGIN = 4 * 1024 * 1024;

export interface FileWriterOptions {
  /** File offset of the first byte. */
  start?: number;
  /** Flush early (see EARLY_FLUSH_EVERY), for a file that will be fsynced, by this writer or later. */
  flushEarly: boolean;
  /** How many bytes the stream will hold, when known (see EARLY_FLUSH_END_MARGIN). */
  expectedBytes?: number;
  /** fsync the file before the stream finishes. */
  fsyncAtEnd: boolean;
  /**
   * Early flushes go through this (a descriptor of its own) and the stream's finish does not wait for them: for a file
   * that is not fsynced at the end of this writer but later, by whoever publishes it (a chunked upload's temp file),
   * so that a chunk's answer never waits for a flush that only prepares the final fsync. Ignored with `fsyncAtEnd`.
   */
  flusher?: BackgroundFlusher;
}

/**
 * Early flushes of one file that may outlive the writer that started them (each chunk of a chunked upload is its own
 * writer and request; the flush started near a chunk's end runs on while the next chunk arrives). Each flush opens
 * the file read-only and fdatasyncs it (Linux flushes the file's pages whichever descriptor asks), so no writer's
 * descriptor is held past its stream. Linux reports a write-back error to one fsync only: the first failure is kept
 * for settle(), which the final fsync's caller awaits before it.
 */
export class BackgroundFlusher {
  private running: Promise<void> | null = null;
  private failure: Error | null = null;

  constructor(private readonly file: string) {}

  /** Whether a flush runs now. */
  get busy(): boolean {
    return this.running !== null;
  }

  /** The first failure of any flush so far, if any. */
  get failed(): Error | null {
    return this.failure;
  }

  /** Starts a flush, unless one runs (it takes the pages written so far that it has not reached yet, the next one the rest). */
  start(): void {
    if (this.running) return;
    this.running = flushFile(this.file)
      .catch((err: Error) => {
        this.failure ??= err;
      })
      .finally(() => {
        this.running = null;
      });
  }

  /** Waits for the flush in flight, then throws the first failure of any flush. */
  async settle(): Promise<void> {
    await this.running;
    if (this.failure) throw this.failure;
  }
}

async function flushFile(file: string): Promise<void> {
  const handle = await open(file, 'r');
  try {
    await handle.datasync();
  } finally {
    await handle.close();
  }
}

/**
 * A writable stream into an open file, which it owns and closes. 'finish' means every byte is written (and, with
 * `fsyncAtEnd`, fsynced) and no early flush still runs. Chunks are kept (not copied) until their batch is written and
 * their write callbacks come before that, which suits a Readable piped in (it never takes a chunk back) but not a
 * producer that refills its buffer after the callback. It holds on to at most about three batches of the producer's
 * buffers: one being written, one gathered and waiting for it, and the stream's own buffer (highWaterMark) behind.
 */
export class FileWriter extends Writable {
  /** Bytes accepted so far (all of them written once the stream has finished). */
  bytesWritten = 0;
  private readonly handle: WritableFile;
  private readonly flushEarly: boolean;
  private readonly fsyncAtEnd: boolean;
  private readonly flusher: BackgroundFlusher | null;
  private position: number;
  private batch: Buffer[] = [];
  private batchBytes = 0;
  /** The writev in flight, if any; one at a time, so that the batches land in order. */
  private writing: Promise<void> = Promise.resolve();
  /** File offset where the stream is expected to end, or null. */
  private readonly expectedEnd: number | null;
  /** The early flush in flight, if any. */
  private flushing: Promise<void> | null = null;
  /**
   * The first failure of an early flush. Kept, because Linux reports a write-back error to one fsync only: the final
   * fsync could succeed after an early one had failed.
   */
  private flushError: Error | null = null;

  constructor(handle: WritableFile, options: FileWriterOptions) {
    // The producer may run a batch ahead while one is written.
    super({ highWaterMark: WRITE_BATCH });
    this.handle = handle;
    this.flushEarly = options.flushEarly;
    this.fsyncAtEnd = options.fsyncAtEnd;
    this.flusher = options.fsyncAtEnd ? null : (options.flusher ?? null);
    this.position = options.start ?? 0;
    this.expectedEnd = options.expectedBytes === undefined ? null : this.position + options.expectedBytes;
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.batch.push(chunk);
    this.batchBytes += chunk.length;
    this.bytesWritten += chunk.length;
    if (this.batchBytes < WRITE_BATCH) {
      callback();
      return;
    }
    // The next batch may gather while this one is written; it waits only if it fills up before.
    this.submitBatch().then(() => callback(), callback);
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.submitBatch()
      .then(() => this.writing)
      .then(() => this.flushing)
      .then(() => {
        if (this.flushError) throw this.flushError;
        return this.fsyncAtEnd ? this.handle.sync() : undefined;
      })
      .then(() => callback(), callback);
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    // Whatever is still in flight settles before the descriptor is closed (and its number reused).
    const settled = Promise.allSettled([this.writing, this.flushing]);
    settled
      .then(() => this.handle.close())
      .then(
        () => callback(error),
        (closeError: Error) => callback(error ?? closeError),
      );
  }

  /** Waits for the batch in flight (failing with its error), then starts writing the gathered one. */
  private async submitBatch(): Promise<void> {
    await this.writing;
    if (this.batchBytes === 0) return;
    const chunks = this.batch;
    const position = this.position;
    this.position += this.batchBytes;
    this.batch = [];
    this.batchBytes = 0;
    this.writing = writeFully(this.handle, chunks, position);
    // Seen by the next submitBatch() or _final(); not an unhandled rejection in between.
    this.writing.catch(() => undefined);
    if (this.flushEarly && Math.floor(this.position / EARLY_FLUSH_EVERY) > Math.floor(position / EARLY_FLUSH_EVERY)) {
      this.startEarlyFlush();
    }
  }

  /**
   * A background fdatasync, unless one still runs (the next one takes these pages) or the end is near; its failure
   * fails the stream at the end.
   */
  private startEarlyFlush(): void {
    if (this.flusher) {
      // Detached: the finish does not wait for it, so it may start as close to the end as it likes.
      this.flusher.start();
      return;
    }
    if (this.flushing) return;
    if (this.expectedEnd !== null && this.expectedEnd - this.position < EARLY_FLUSH_END_MARGIN) return;
    this.flushing = this.handle
      .datasync()
      .catch((err: Error) => {
        this.flushError ??= err;
      })
      .finally(() => {
        this.flushing = null;
      });
  }
}

/** writev of `chunks` at `position`, again for what a short write left. */
async function writeFully(handle: WritableFile, chunks: Buffer[], position: number): Promise<void> {
  let rest = chunks;
  let at = position;
  for (;;) {
    const { bytesWritten } = await handle.writev(rest, at);
    at += bytesWritten;
    let skip = bytesWritten;
    while (rest.length > 0 && skip >= rest[0]!.length) {
      skip -= rest[0]!.length;
      rest = rest.slice(1);
    }
    if (rest.length === 0) return;
    if (skip > 0) rest = [rest[0]!.subarray(skip), ...rest.slice(1)];
    if (bytesWritten === 0) throw new Error('writev wrote nothing');
  }
}
