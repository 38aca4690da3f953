// A graceful stop has a deadline (issue 15, item 19): on SIGTERM the real entry point stops accepting, lets requests
// in progress finish within SHUTDOWN_TIMEOUT, then cuts the rest and exits 0; an upload cut off leaves no record and
// no temp file.
import assert from 'node:assert/strict';
import net from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { it } from 'node:test';
import { killChuteProcess, startChuteProcess, type ChuteProcess } from './support/chute-process.js';
import { requestHead } from './support/raw-http.js';
import { forEachDatabase, startTestServer, withSharedState } from './support/server.js';
import { databaseObjectKeys, fileRowCount, filesUnder } from './support/stored.js';

const BOUNDARY = 'stop-boundary';
const PART_HEAD = Buffer.from(
  `--${BOUNDARY}\r\ncontent-disposition: form-data; name="file"; filename="a.bin"\r\n` +
    'content-type: application/octet-stream\r\n\r\n',
);
const PART_TAIL = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);

/** Opens an upload of `length` file bytes: sends the headers and the part's head, returns the socket and its answer. */
function openUpload(url: string, token: string, length: number): { socket: net.Socket; answer: Promise<string> } {
  const { port } = new URL(url);
  const socket = net.connect({ host: '127.0.0.1', port: Number(port) });
  let text = '';
  socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  socket.on('error', () => undefined);
  const answer = new Promise<string>((resolve) => socket.once('close', () => resolve(text)));
  socket.write(
    requestHead('POST', '/api/upload', {
      authorization: token,
      'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
      'content-length': PART_HEAD.length + length + PART_TAIL.length,
      connection: 'close',
    }),
  );
  socket.write(PART_HEAD);
  return { socket, answer };
}

forEachDatabase('graceful stop', (engine) => {
  it('SIGTERM: a request that finishes in time is answered, a silent one is cut at the deadline, exit 0', async () => {
    await withSharedState(engine, async ({ dataDir, databaseUrl }) => {
      let chute: ChuteProcess | undefined;
      try {
        chute = await startChuteProcess({
          dataDir,
          databaseUrl,
          env: { SHUTDOWN_TIMEOUT: '3', REQUEST_IDLE_TIMEOUT: '600' },
        });
        const setup = await fetch(`${chute.url}/api/setup`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ username: 'stopper', password: 'stopper-password' }),
        });
        assert.equal(setup.status, 200);
        const cookie = setup.headers.getSetCookie()[0]!.split(';')[0]!;
        const me = (await (await fetch(`${chute.url}/api/user`, { headers: { cookie } })).json()) as { token: string };

        // The silent client: headers, the part's head and one byte, then nothing.
        const silent = openUpload(chute.url, me.token, 1_000_000);
        silent.socket.write(Buffer.from('x'));
        // The slow but steady one: its last bytes come after the SIGTERM, within the deadline.
        const content = Buffer.from('finished within the deadline');
        const steady = openUpload(chute.url, me.token, content.length);
        steady.socket.write(content.subarray(0, 5));
        await sleep(500);

        const signalled = Date.now();
        chute.child.kill('SIGTERM');
        await sleep(1_000);
        steady.socket.write(Buffer.concat([content.subarray(5), PART_TAIL]));

        const steadyAnswer = await steady.answer;
        assert.match(steadyAnswer, /^HTTP\/1\.1 200 /, steadyAnswer);
        const exit = await Promise.race([chute.exited, sleep(20_000).then(() => 'still running' as const)]);
        assert.notEqual(exit, 'still running', 'the server exits after the deadline');
        assert.deepEqual(exit, { code: 0, signal: null });
        assert.ok(Date.now() - signalled >= 2_500, 'the silent request had its deadline');
        await silent.answer; // its connection was cut

        // What the cut upload left: no temp file ...
        assert.deepEqual(await filesUnder(path.join(dataDir, 'tmp')), []);
        // ... and no record: only the finished upload is there, byte-exact.
        const uploads = await filesUnder(path.join(dataDir, 'uploads'));
        const again = await startTestServer({ engine, dataDir, databaseUrl });
        try {
          assert.equal(await fileRowCount(again), 1);
          // (a small upload keeps its bytes in the database, storage/database-objects.ts)
          assert.equal(uploads.length + (await databaseObjectKeys(again)).length, 1);
          const name = (
            JSON.parse(steadyAnswer.slice(steadyAnswer.indexOf('\r\n\r\n') + 4)) as { files: Array<{ name: string }> }
          ).files[0]!.name;
          const raw = await again.fetch(`/raw/${name}`);
          assert.deepEqual(Buffer.from(await raw.arrayBuffer()), content);
        } finally {
          await again.close();
        }
      } finally {
        await killChuteProcess(chute);
      }
    });
  });
});

forEachDatabase('graceful stop behind a load balancer', (engine) => {
  it('SIGTERM: readiness turns 503 first while requests are still served, a stalled upload is cut, exit 0', async () => {
    await withSharedState(engine, async ({ dataDir, databaseUrl }) => {
      let chute: ChuteProcess | undefined;
      try {
        chute = await startChuteProcess({
          dataDir,
          databaseUrl,
          env: { SHUTDOWN_TIMEOUT: '4', SHUTDOWN_DRAIN_DELAY: '2', REQUEST_IDLE_TIMEOUT: '600' },
        });
        const setup = await fetch(`${chute.url}/api/setup`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ username: 'drainer', password: 'drainer-password' }),
        });
        assert.equal(setup.status, 200);
        const cookie = setup.headers.getSetCookie()[0]!.split(';')[0]!;
        const me = (await (await fetch(`${chute.url}/api/user`, { headers: { cookie } })).json()) as { token: string };
        assert.equal((await fetch(`${chute.url}/api/readyz`)).status, 200);

        // A client that sends part of its body and then nothing.
        const stalled = openUpload(chute.url, me.token, 1_000_000);
        stalled.socket.write(Buffer.alloc(1000, 1));
        await sleep(300);

        chute.child.kill('SIGTERM');
        // Readiness goes false while the instance still answers: the load balancer stops sending first.
        let readiness = 200;
        while (readiness === 200) {
          readiness = (await fetch(`${chute.url}/api/readyz`, { headers: { connection: 'close' } })).status;
        }
        assert.equal(readiness, 503);
        const health = await fetch(`${chute.url}/api/healthcheck`, { headers: { connection: 'close' } });
        assert.equal(health.status, 200, 'still serving while draining');
        // The log line is written (asynchronously) right after readiness turned.
        for (let i = 0; i < 50 && !/draining: readiness is false/.test(chute.log()); i++) await sleep(20);
        assert.match(chute.log(), /draining: readiness is false/);

        const exit = await Promise.race([chute.exited, sleep(30_000).then(() => 'still running' as const)]);
        assert.deepEqual(exit, { code: 0, signal: null });
        await stalled.answer; // its connection was cut at the deadline
        assert.deepEqual(await filesUnder(path.join(dataDir, 'tmp')), []);
        assert.deepEqual(await filesUnder(path.join(dataDir, 'uploads')), []);
      } finally {
        await killChuteProcess(chute);
      }
    });
  });
});
