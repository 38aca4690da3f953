// A stream's bytes in one buffer, for bodies known to be small (an upload request of at most UPLOADS_INLINE_MAX).
import type { Readable } from 'node:stream';

/** Reads `stream` to its end; rejects with the stream's error. */
export async function collectBytes(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  // A copy, also of a single chunk: a parser's chunk may be a view into a larger buffer of the socket.
  return Buffer.concat(chunks);
}
