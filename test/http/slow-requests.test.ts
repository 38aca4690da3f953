// Slow clients (issue 15, item 1): a connection silent in the middle of a request is ended after
// REQUEST_IDLE_TIMEOUT, the body of a request that is not an upload must arrive within REQUEST_BODY_TIMEOUT, uploads
// go on as long as bytes flow, and the caller is authenticated before its JSON body is read.
import assert from 'node:assert/strict';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { before, it } from 'node:test';
import type { ApiErrorBody } from '../support/api-errors.js';
import { rawRequest, requestHead } from '../support/raw-http.js';
import { forEachDatabase, useTestServer, type TestUser } from '../support/server.js';
import { fileRowCount, storedFiles } from '../support/stored.js';

/** Sends `head`, then `pieces` one every `everyMs`, and reads the answer (the raw response text). */
async function trickle(url: string, head: string, pieces: Buffer[], everyMs: number): Promise<string> {
  const { hostname, port } = new URL(url);
  const socket = net.connect({ host: hostname, port: Number(port) });
  let answer = '';
  let closed = false;
  socket.on('data', (chunk: Buffer) => (answer += chunk.toString('utf8')));
  socket.on('error', () => undefined);
  const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.once('close', () => (closed = true));
  socket.write(head);
  for (const piece of pieces) {
    if (closed || answer) break;
    await sleep(everyMs);
    socket.write(piece);
  }
  await Promise.race([ended, sleep(5_000)]);
  socket.destroy();
  return answer;
}

function statusOf(answer: string): number {
  return Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0);
}

function multipartOf(): { head: Buffer; tail: Buffer; contentType: string } {
  const boundary = 'slow-boundary';
  return {
    head: Buffer.from(
      `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="slow.bin"\r\n` +
        'content-type: application/octet-stream\r\n\r\n',
    ),
    tail: Buffer.from(`\r\n--${boundary}--\r\n`),
    contentType: `multipart/form-data; boundary=${boundary}`,
  };
}

forEachDatabase('slow requests', (engine) => {
  const server = useTestServer({ engine, env: { REQUEST_IDLE_TIMEOUT: '2', REQUEST_BODY_TIMEOUT: '1' } });
  let user: TestUser;
  before(async () => {
    user = await server().setup('slow', 'slow-password');
  });

  it('a JSON body that stops after one byte -> 408 / 9000 and the connection closed', async () => {
    const answer = await rawRequest(
      server().url,
      requestHead('POST', '/api/user/folders', {
        authorization: user.token,
        'content-type': 'application/json',
        'content-length': 100,
      }) + '{',
      { waitMs: 10_000, untilClose: true },
    );
    assert.equal(answer.status, 408, answer.body);
    const body = JSON.parse(answer.body) as ApiErrorBody;
    assert.equal(body.code, 9000);
    assert.equal(body.statusCode, 408);
    assert.ok(answer.closedByServer, 'the server closes the connection');
  });

  it('a JSON body that trickles in past REQUEST_BODY_TIMEOUT -> 408, though bytes keep coming', async () => {
    const json = Buffer.from(JSON.stringify({ name: 'a folder with a long name' }));
    const answer = await trickle(
      server().url,
      requestHead('POST', '/api/user/folders', {
        authorization: user.token,
        'content-type': 'application/json',
        'content-length': json.length,
      }),
      [...json].map((byte) => Buffer.from([byte])),
      250,
    );
    assert.equal(statusOf(answer), 408, answer);
    const folders = await server().json('GET', '/api/user/folders', { auth: user.token });
    assert.deepEqual(folders.body, []);
  });

  it('an upload goes on past both timeouts as long as bytes flow, and is stored byte-exact', async () => {
    const content = Buffer.alloc(12, 0x61);
    const { head, tail, contentType } = multipartOf();
    const pieces = [head, ...[...content].map((byte) => Buffer.from([byte])), tail];
    const answer = await trickle(
      server().url,
      requestHead('POST', '/api/upload', {
        authorization: user.token,
        'content-type': contentType,
        'content-length': head.length + content.length + tail.length,
        connection: 'close',
      }),
      pieces,
      400, // 14 pieces: about 5.6 s, past REQUEST_BODY_TIMEOUT (1 s); never 2 s silent
    );
    assert.equal(statusOf(answer), 200, answer);
    const json = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as { files: Array<{ name: string }> };
    const raw = await server().fetch(`/raw/${json.files[0]!.name}`);
    assert.deepEqual(Buffer.from(await raw.arrayBuffer()), content);
  });

  it('an upload that goes silent is ended after REQUEST_IDLE_TIMEOUT, nothing kept', async () => {
    const files = await fileRowCount(server());
    const stored = await storedFiles(server());
    const { head, contentType } = multipartOf();
    const answer = await rawRequest(
      server().url,
      Buffer.concat([
        Buffer.from(
          requestHead('POST', '/api/upload', {
            authorization: user.token,
            'content-type': contentType,
            'content-length': 1_000_000,
          }),
        ),
        head,
        Buffer.alloc(1000, 0x62),
      ]),
      { waitMs: 10_000, untilClose: true },
    );
    assert.ok(answer.closedByServer, 'the server closes the connection');
    assert.equal(answer.status, 408, answer.body);
    await sleep(500);
    assert.equal(await fileRowCount(server()), files);
    assert.deepEqual(await storedFiles(server()), stored);
  });

  it('an anonymous JSON request is refused before its body arrives (2002 at once)', async () => {
    const answer = await rawRequest(
      server().url,
      requestHead('POST', '/api/user/folders', { 'content-type': 'application/json', 'content-length': 1000 }),
      { waitMs: 1_500 },
    );
    assert.equal(answer.status, 401, `an answer within 1.5 s, before the body: ${JSON.stringify(answer)}`);
    assert.equal((JSON.parse(answer.body) as ApiErrorBody).code, 2002);
  });

  it('a request that arrives whole is not affected; the server is still healthy', async () => {
    const res = await server().json('POST', '/api/user/folders', { auth: user.token, body: { name: 'quick' } });
    assert.equal(res.status, 200);
  });
});
