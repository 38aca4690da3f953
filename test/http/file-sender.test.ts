// The file sender on a real HTTP server and a real file: exact bytes for whole files and ranges across many chunk
// boundaries, at most two buffers and one read in flight, backpressure, a client that goes away, a read that fails
// or a file that shrinks midway (the response is cut off, never ended as if complete), and the hook before the last
// chunk. The file is closed in every case.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, open, rm, truncate, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sendFileRange, type SendFileOptions, type SendOutcome } from '../../src/http/serving/file-sender.js';
import { FileShrankError, type OpenFileRange } from '../../src/storage/local-file-stream.js';
import { readToEnd } from '../support/bodies.js';

interface Served {
  /** What sendFileRange() settled with: its outcome, or the error it rejected with. */
  outcome: Promise<SendOutcome | Error>;
  /**
   * Every read the sender made: which buffer (the Buffer object itself: small ones may share one ArrayBuffer, Node
   * 24's 64 KiB allocation pool holds sixteen of 4 KiB), where, and how many reads were in flight when it started.
   */
  reads: Array<{ buffer: Buffer; position: number; inFlight: number }>;
  file: OpenFileRange;
  closed: () => boolean;
}

describe('file sender', () => {
  let dir: string;
  let server: http.Server;
  let base: string;
  /** What the next request sends: a file path, the range and options; the served state is kept for the test. */
  let next: { file: string; start: number; end: number; options?: SendFileOptions; failReadAt?: number } | null = null;
  let served: Served | null = null;

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'chute-sender-'));
    server = http.createServer((req, res) => {
      const plan = next!;
      void (async () => {
        const handle = await open(plan.file, 'r');
        let inFlight = 0;
        let closed = false;
        const reads: Served['reads'] = [];
        const realRead = handle.read.bind(handle);
        // Count reads and the buffers they fill (and fail one on demand), through the real handle.
        handle.read = (async (buffer: Buffer, offset: number, length: number, position: number) => {
          reads.push({ buffer, position, inFlight: inFlight + 1 });
          inFlight++;
          try {
            if (plan.failReadAt !== undefined && position >= plan.failReadAt)
              throw Object.assign(new Error('EIO: injected'), { code: 'EIO' });
            return await realRead(buffer, offset, length, position);
          } finally {
            inFlight--;
          }
        }) as typeof handle.read;
        const realClose = handle.close.bind(handle);
        handle.close = async () => {
          closed = true;
          return realClose();
        };
        const file = { handle, start: plan.start, end: plan.end };
        res.writeHead(200, { 'content-length': String(plan.end - plan.start + 1) });
        const outcome = sendFileRange(res, file, plan.options).catch((err: Error) => err);
        served = { outcome, reads, file, closed: () => closed };
      })();
    });
    server.keepAliveTimeout = 1000;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await rm(dir, { recursive: true, force: true });
  });

  async function fixture(name: string, bytes: Buffer): Promise<string> {
    const file = path.join(dir, name);
    await writeFile(file, bytes);
    return file;
  }

  it('sends whole files and ranges byte-exact across many chunk boundaries, then closes the file', async () => {
    const bytes = randomBytes(10_007);
    const file = await fixture('exact.bin', bytes);
    const cases: Array<[number, number, number]> = [
      [0, bytes.length - 1, 1000],
      [0, bytes.length - 1, 10_007],
      [0, bytes.length - 1, 64 * 1024],
      [1, bytes.length - 2, 333],
      [5000, 5000, 333],
      [9000, bytes.length - 1, 7],
    ];
    for (const [start, end, chunkBytes] of cases) {
      next = { file, start, end, options: { chunkBytes } };
      const res = await fetch(base);
      const body = Buffer.from(await res.arrayBuffer());
      assert.ok(body.equals(bytes.subarray(start, end + 1)), `${start}-${end} in ${chunkBytes}-byte chunks`);
      assert.equal(await served!.outcome, 'sent');
      assert.ok(served!.closed(), 'the file is closed');
    }
  });

  it('reuses two buffers, with one read in flight at a time, and reads each byte once', async () => {
    const bytes = randomBytes(100_000);
    next = { file: await fixture('pool.bin', bytes), start: 0, end: bytes.length - 1, options: { chunkBytes: 4096 } };
    const body = Buffer.from(await (await fetch(base)).arrayBuffer());
    assert.ok(body.equals(bytes));
    const { reads } = served!;
    assert.equal(reads.length, Math.ceil(bytes.length / 4096));
    const buffers = [...new Set(reads.map((r) => r.buffer))];
    assert.equal(buffers.length, 2, 'two buffers, reused');
    const [a, b] = buffers as [Buffer, Buffer];
    assert.ok(
      a.buffer !== b.buffer || a.byteOffset + a.length <= b.byteOffset || b.byteOffset + b.length <= a.byteOffset,
      'the two buffers do not overlap',
    );
    assert.ok(
      reads.every((r) => r.inFlight === 1),
      'never two reads at once',
    );
    assert.deepEqual(
      reads.map((r) => r.position),
      reads.map((_, i) => i * 4096),
    );
  });

  it('waits for a slow client: reads stay a chunk or two ahead of what the socket has taken', async () => {
    const bytes = randomBytes(48 * 1024 * 1024);
    next = { file: await fixture('slow.bin', bytes), start: 0, end: bytes.length - 1 };
    const res = await fetch(base);
    const reader = res.body!.getReader();
    const first = (await reader.read()).value!.length;
    await sleep(200);
    // The client has taken almost nothing; the socket buffers hold a few MiB at most, the sender two more chunks.
    const readSoFar = served!.reads.length;
    assert.ok(readSoFar < 40, `${readSoFar} MiB read while the client was paused`);
    assert.equal(first + (await readToEnd(reader)), bytes.length);
    assert.equal(await served!.outcome, 'sent');
    assert.ok(served!.closed());
  });

  it('stops reading and closes the file when the client goes away', async () => {
    const bytes = randomBytes(48 * 1024 * 1024);
    next = { file: await fixture('abort.bin', bytes), start: 0, end: bytes.length - 1 };
    const controller = new AbortController();
    const res = await fetch(base, { signal: controller.signal });
    await res.body!.getReader().read();
    controller.abort();
    assert.equal(await served!.outcome, 'aborted');
    assert.ok(served!.closed(), 'the file is closed');
    const reads = served!.reads.length;
    await sleep(100);
    assert.equal(served!.reads.length, reads, 'no read after the client went away');
    assert.ok(reads < 48, `${reads} of 48 chunks read`);
  });

  it('cuts the response off when a read fails midway: the client never sees a complete body', async () => {
    const bytes = randomBytes(5 * 1024 * 1024);
    next = { file: await fixture('eio.bin', bytes), start: 0, end: bytes.length - 1, failReadAt: 3 * 1024 * 1024 };
    const res = await fetch(base);
    assert.equal(res.status, 200);
    await assert.rejects(res.arrayBuffer());
    const outcome = await served!.outcome;
    assert.ok(outcome instanceof Error && /EIO/.test(outcome.message));
    assert.ok(served!.closed());
  });

  it('cuts the response off when the file shrinks while it is sent', async () => {
    const bytes = randomBytes(48 * 1024 * 1024);
    const file = await fixture('shrinks.bin', bytes);
    next = { file, start: 0, end: bytes.length - 1 };
    const res = await fetch(base);
    const reader = res.body!.getReader();
    await reader.read();
    await truncate(file, 20 * 1024 * 1024);
    let received = 0;
    await assert.rejects(readToEnd(reader, (n) => (received = n)));
    assert.ok(received < bytes.length);
    assert.ok((await served!.outcome) instanceof FileShrankError);
    assert.ok(served!.closed());
  });

  it('runs beforeLastChunk before the client holds the last byte; if it fails, the response is cut off', async () => {
    const bytes = randomBytes(300_000);
    const file = await fixture('last.bin', bytes);
    let receivedWhenHookRan = -1;
    let received = 0;
    next = {
      file,
      start: 0,
      end: bytes.length - 1,
      options: {
        chunkBytes: 64 * 1024,
        beforeLastChunk: async () => {
          await sleep(50);
          receivedWhenHookRan = received;
        },
      },
    };
    const reader = (await fetch(base)).body!.getReader();
    assert.equal(await readToEnd(reader, (n) => (received = n)), bytes.length);
    assert.ok(
      receivedWhenHookRan >= 0 && receivedWhenHookRan < bytes.length,
      `${receivedWhenHookRan} bytes before the hook`,
    );

    next = {
      file,
      start: 0,
      end: bytes.length - 1,
      options: { chunkBytes: 64 * 1024, beforeLastChunk: () => Promise.reject(new Error('delete failed')) },
    };
    const failed = await fetch(base);
    await assert.rejects(failed.arrayBuffer());
    assert.match(String(await served!.outcome), /delete failed/);
    assert.ok(served!.closed());
  });

  it('sends an empty range as an empty body', async () => {
    next = { file: await fixture('empty.bin', Buffer.alloc(0)), start: 0, end: -1 };
    const res = await fetch(base);
    assert.equal((await res.arrayBuffer()).byteLength, 0);
    assert.equal(await served!.outcome, 'sent');
    assert.ok(served!.closed());
  });
});
