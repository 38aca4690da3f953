// A pass-through stream that counts bytes and fails as soon as more than `limit` have gone through, so that an
// over-size upload is cut off while it streams instead of after it was stored.
import { Transform, type TransformCallback } from 'node:stream';

export class ByteLimitExceededError extends Error {
  constructor(readonly limit: number) {
    super(`more than ${limit} bytes`);
    this.name = 'ByteLimitExceededError';
  }
}

export class ByteLimit extends Transform {
  /** Bytes passed through so far. */
  bytes = 0;

  constructor(readonly limit: number) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.bytes > this.limit) {
      callback(new ByteLimitExceededError(this.limit));
      return;
    }
    callback(null, chunk);
  }
}
