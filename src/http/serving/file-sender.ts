// Sends an open local file (or one range of it) as the body of an HTTP response through two reused buffers: while
// the socket takes one, the next chunk is read into the other, and a buffer is read into again only once the socket
// has taken all of it (the write callback). Against a stream, which needs a fresh buffer per chunk (page faults,
// garbage), this costs about half the CPU per byte (bench/RESULTS.md). Memory per download: at most 2 x CHUNK_BYTES.
import type { ServerResponse } from 'node:http';
import { FileShrankError, type OpenFileRange } from '../../storage/local-file-stream.js';

/** Bytes per read and per socket write; measured: 512 KiB-1 MiB cost the least CPU per byte here. */
export const CHUNK_BYTES = 1024 * 1024;

export interface SendFileOptions {
  /** Runs before the last chunk is written: the client cannot hold the whole body before it is done. */
  beforeLastChunk?: () => Promise<void>;
  /** Bytes per buffer (tests use small ones to cross many chunk boundaries). */
  chunkBytes?: number;
}

/** How a sendFileRange() ended: every byte handed to the socket and the response ended, or the client went away. */
export type SendOutcome = 'sent' | 'aborted';

/**
 * Writes bytes start..end of `file` as the body of `res`, whose status and headers (Content-Length matching the range)
 * the caller has written or set. Closes the file in every case. Resolves 'aborted' when the response closes early (the
 * client went away: reading stops at once). When reading or `beforeLastChunk` fails it destroys the response, so that
 * the client sees a cut-off body rather than a short one that looks complete, and rejects with that error.
 */
export async function sendFileRange(
  res: ServerResponse,
  file: OpenFileRange,
  options: SendFileOptions = {},
): Promise<SendOutcome> {
  const total = file.end - file.start + 1;
  const chunkBytes = Math.max(1, Math.min(options.chunkBytes ?? CHUNK_BYTES, total));
  const buffers = [Buffer.allocUnsafe(chunkBytes), total > chunkBytes ? Buffer.allocUnsafe(chunkBytes) : null];
  let position = file.start;
  let reading: Promise<Buffer> | null = null;
  try {
    if (total > 0) reading = readChunk(file, buffers[0]!, position);
    for (let turn = 0; reading !== null; turn++) {
      const chunk = await reading;
      reading = null;
      position += chunk.length;
      const last = position > file.end;
      // Read ahead into the other buffer, whose bytes the socket has taken already.
      if (!last) reading = readChunk(file, buffers[(turn + 1) % 2]!, position);
      if (last && options.beforeLastChunk) await options.beforeLastChunk();
      if (!(await write(res, chunk))) return 'aborted';
    }
    if (res.destroyed) return 'aborted';
    res.end();
    return 'sent';
  } catch (err) {
    res.destroy();
    throw err;
  } finally {
    // A read still in flight (the client went away, or the other one failed) ends before the file is closed.
    await reading?.catch(() => undefined);
    await file.handle.close();
  }
}

/**
 * Fills `buffer` (or as much of it as the range has left) with the bytes at `position`. The promise is marked handled
 * at once: a read ahead may fail while a write is awaited, and is awaited (and its error thrown) only after that.
 */
function readChunk(file: OpenFileRange, buffer: Buffer, position: number): Promise<Buffer> {
  const reading = fillBuffer(file, buffer, position);
  reading.catch(() => undefined);
  return reading;
}

async function fillBuffer(file: OpenFileRange, buffer: Buffer, position: number): Promise<Buffer> {
  const length = Math.min(buffer.length, file.end + 1 - position);
  let filled = 0;
  while (filled < length) {
    const { bytesRead } = await file.handle.read(buffer, filled, length - filled, position + filled);
    if (bytesRead === 0) throw new FileShrankError(position + filled, file.end);
    filled += bytesRead;
  }
  return length === buffer.length ? buffer : buffer.subarray(0, length);
}

/** Writes `chunk` and resolves once the socket has taken it (true), or as soon as the response closes (false). */
function write(res: ServerResponse, chunk: Buffer): Promise<boolean> {
  if (res.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onClose = () => resolve(false);
    res.once('close', onClose);
    res.write(chunk, (err) => {
      res.off('close', onClose);
      resolve(!err && !res.destroyed);
    });
  });
}
