// A pass-through that keeps back the last chunk until an async step has run, so that whoever reads the stream
// cannot have all of it before that step is done (the last view of a file: its bytes are deleted before the
// client holds the last byte).
import { Transform, type TransformCallback } from 'node:stream';

export class HoldLastChunk extends Transform {
  private held: Buffer | null = null;

  constructor(private readonly beforeLastChunk: () => Promise<void>) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    const previous = this.held;
    this.held = chunk;
    callback(null, previous ?? undefined);
  }

  override _flush(callback: TransformCallback): void {
    this.beforeLastChunk().then(
      () => callback(null, this.held ?? undefined),
      (err: unknown) => callback(err as Error),
    );
  }
}
