// What the local datasource's get() returns: the bytes of one open file (or of one range of it) as a stream, for any
// consumer. A consumer that can copy faster (the HTTP file sender, http/serving/file-sender.ts) may instead take the open file
// over before the first read: a stream must hand out a fresh buffer per chunk, which costs about as much CPU per byte
// as the copying itself (bench/RESULTS.md).
import type { FileHandle } from 'node:fs/promises';
import { Readable } from 'node:stream';

/** An open file and the inclusive range of its bytes to read. Whoever holds it closes the handle. */
export interface OpenFileRange {
  readonly handle: FileHandle;
  readonly start: number;
  readonly end: number;
}

/** Bytes per read of the stream (and its buffering): larger reads cost less CPU per byte, up to about 1 MiB. */
const STREAM_CHUNK = 1024 * 1024;

export class LocalFileStream extends Readable {
  /** Null once the handle was closed or handed over. */
  private file: OpenFileRange | null;
  private position: number;
  private started = false;

  constructor(file: OpenFileRange) {
    super({ highWaterMark: STREAM_CHUNK });
    this.file = file;
    this.position = file.start;
  }

  /**
   * Hands the open file over, if nothing has been read from the stream yet (null otherwise): the caller now reads and
   * closes it, and this stream is spent (destroyed, without closing the handle).
   */
  takeFile(): OpenFileRange | null {
    if (this.file === null || this.started || this.destroyed) return null;
    const file = this.file;
    this.file = null;
    this.destroy();
    return file;
  }

  override _read(): void {
    this.started = true;
    const file = this.file;
    if (file === null) return;
    const length = Math.min(STREAM_CHUNK, file.end + 1 - this.position);
    if (length <= 0) {
      this.push(null);
      return;
    }
    const buffer = Buffer.allocUnsafe(length);
    file.handle
      .read(buffer, 0, length, this.position)
      .then(({ bytesRead }) => {
        if (this.destroyed) return;
        // The file shrank after it was opened: an error, never a shorter body that looks complete.
        if (bytesRead === 0) throw new FileShrankError(this.position, file.end);
        this.position += bytesRead;
        this.push(bytesRead === length ? buffer : buffer.subarray(0, bytesRead));
      })
      .catch((err: unknown) => this.destroy(err as Error));
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    const file = this.file;
    this.file = null;
    if (file === null) {
      callback(error);
      return;
    }
    // FileHandle.close() waits for a read still in flight.
    file.handle.close().then(
      () => callback(error),
      (closeError: unknown) => callback(error ?? (closeError as Error)),
    );
  }
}

/** The file ended before the range did (it was truncated while being read). */
export class FileShrankError extends Error {
  constructor(at: number, end: number) {
    super(`the file ended at byte ${at}, before the end of the range being read (${end})`);
    this.name = 'FileShrankError';
  }
}
