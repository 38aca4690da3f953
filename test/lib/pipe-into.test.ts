// pipeInto (src/lib/bytes/pipe-into.ts), the upload path's pipeline() without an AbortController: the same outcomes as
// pipeline() for success, an error of either stream, and a source that closes before its end.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { PassThrough, pipeline, Readable, Transform, Writable } from 'node:stream';
import { pipeInto, pipeIntoAsync } from '../../src/lib/bytes/pipe-into.js';

function sink(fail?: Error): Writable & { received: Buffer[] } {
  const received: Buffer[] = [];
  const out = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      received.push(chunk);
      callback(fail ?? null);
    },
  });
  return Object.assign(out, { received });
}

it('pipes every byte and resolves once the destination has finished and closed', async () => {
  const out = sink();
  let closed = false;
  out.on('close', () => (closed = true));
  await pipeIntoAsync(Readable.from([Buffer.from('ab'), Buffer.from('cd')]), out);
  assert.equal(Buffer.concat(out.received).toString(), 'abcd');
  assert.equal(closed, true);
});

it('a failing destination destroys the source, and the error is the outcome', async () => {
  const source = new PassThrough();
  source.write('x');
  await assert.rejects(pipeIntoAsync(source, sink(new Error('disk full'))), /disk full/);
  assert.equal(source.destroyed, true);
});

it('a failing source destroys the destination with its error', async () => {
  const source = new PassThrough();
  const out = sink();
  const done = pipeIntoAsync(source, out);
  source.destroy(new Error('client went away'));
  await assert.rejects(done, /client went away/);
  assert.equal(out.destroyed, true);
});

it('a source that closes before its end fails as pipeline() does (ERR_STREAM_PREMATURE_CLOSE)', async () => {
  for (const run of [
    (s: Readable, d: Writable) => pipeIntoAsync(s, d),
    (s: Readable, d: Writable) =>
      new Promise<void>((resolve, reject) => pipeline(s, d, (err) => (err ? reject(err) : resolve()))),
  ]) {
    const source = new PassThrough();
    const out = sink();
    const done = run(source, out);
    source.write('partial');
    source.destroy();
    await assert.rejects(done, (err: NodeJS.ErrnoException) => err.code === 'ERR_STREAM_PREMATURE_CLOSE');
    assert.equal(out.destroyed, true);
  }
});

it('a Transform as destination is done once it took the whole source; its own failure reaches the source', async () => {
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      callback(null, chunk);
    },
  });
  const source = new PassThrough();
  const outcome = new Promise<Error | undefined>((resolve) => pipeInto(source, counter, resolve));
  source.write('abc');
  counter.destroy(new Error('over the limit'));
  assert.match(String(await outcome), /over the limit/);
  assert.equal(source.destroyed, true);
});
