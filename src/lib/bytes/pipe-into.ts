// pipeline() for one source and one destination, without its AbortController: Node's pipeline() aborts one at every
// finish, which builds a DOMException with a stack trace; with the rest of its set-up that cost ~20 us of the event
// loop per call, against ~5 us for pipe() and finished() (a scratch benchmark), and a small upload ran two of them
// (bench/RESULTS.md, 2026-11-28).
import { finished, type Readable, type Writable } from 'node:stream';

/**
 * Pipes `source` into `destination` as pipeline(source, destination, done) does: an error of either, or a source that
 * closes before its end (ERR_STREAM_PREMATURE_CLOSE), destroys both with that error; `done` is called once, when the
 * destination has finished (after its 'close', when it emits one) or failed, with the first error.
 */
export function pipeInto(source: Readable, destination: Writable, done: (err?: Error) => void): void {
  let error: Error | undefined;
  const destroyBoth = (err: Error): void => {
    error ??= err;
    if (!source.destroyed) source.destroy(err);
    if (!destination.destroyed) destination.destroy(err);
  };
  finished(source, { writable: false }, (err) => {
    if (err) destroyBoth(err);
  });
  // Its writable side only, as pipeline() watches its last stream: a Transform is done once it took all of the source.
  finished(destination, { readable: false }, (err) => {
    if (err) destroyBoth(err);
    done(error);
  });
  source.pipe(destination);
}

/** pipeInto() as a promise. */
export function pipeIntoAsync(source: Readable, destination: Writable): Promise<void> {
  return new Promise((resolve, reject) => pipeInto(source, destination, (err) => (err ? reject(err) : resolve())));
}
