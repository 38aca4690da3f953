// Requests Chute makes to other servers, against a real local HTTP server: redirects followed on the same origin only
// (a POST keeps its body through 307/308), a bounded read of the answer, a time limit, and clear errors.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { OutboundError, outboundRequest } from '../../src/lib/outbound-http.js';

describe('outboundRequest', () => {
  let server: Server;
  let base = '';
  const seen: Array<{ method: string; url: string; body: string }> = [];
  before(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        seen.push({ method: req.method ?? '', url: req.url ?? '', body: Buffer.concat(chunks).toString() });
        const port = (server.address() as AddressInfo).port;
        if (req.url === '/307') res.writeHead(307, { location: '/target' }).end();
        else if (req.url === '/303') res.writeHead(303, { location: '/target' }).end();
        else if (req.url === '/away') res.writeHead(302, { location: `http://localhost:${port}/target` }).end();
        else if (req.url === '/loop') res.writeHead(307, { location: '/loop' }).end();
        else if (req.url === '/big') res.writeHead(200).end('y'.repeat(100_000));
        else if (req.url === '/silent') return;
        else res.writeHead(200).end(`${req.method} ${req.url}`);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const limits = { timeoutMs: 5_000, maxResponseBytes: 1024 };
  const post = { method: 'POST' as const, body: 'payload' };

  it('follows a same-origin 307 keeping the POST and its body; a 303 becomes a GET', async () => {
    seen.length = 0;
    const kept = await outboundRequest(`${base}/307`, post, limits);
    assert.equal(kept.body, 'POST /target');
    assert.deepEqual(seen.at(-1), { method: 'POST', url: '/target', body: 'payload' });
    const switched = await outboundRequest(`${base}/303`, post, limits);
    assert.equal(switched.body, 'GET /target');
  });

  it('never follows a redirect to another origin, and stops a redirect loop', async () => {
    seen.length = 0;
    await assert.rejects(outboundRequest(`${base}/away`, post, limits), (err: Error) => {
      assert.ok(err instanceof OutboundError);
      assert.match(err.message, /answered 302, a redirect to http:\/\/localhost:\d+: redirects to another host/);
      return true;
    });
    assert.deepEqual(
      seen.map((s) => s.url),
      ['/away'],
    );
    await assert.rejects(outboundRequest(`${base}/loop`, post, limits), /too many redirects/);
  });

  it('reads at most maxResponseBytes of the answer', async () => {
    const answer = await outboundRequest(`${base}/big`, { method: 'GET' }, limits);
    assert.equal(answer.body.length, 1024);
    assert.equal(answer.truncated, true);
    const small = await outboundRequest(`${base}/small`, { method: 'GET' }, limits);
    assert.equal(small.truncated, false);
  });

  it('gives up after timeoutMs, and names a refused connection', async () => {
    await assert.rejects(
      outboundRequest(`${base}/silent`, { method: 'GET' }, { timeoutMs: 200, maxResponseBytes: 10 }),
      /no answer within 200 ms/,
    );
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await assert.rejects(
      outboundRequest(`http://127.0.0.1:${port}/`, { method: 'GET' }, limits),
      /could not reach http:\/\/127\.0\.0\.1:\d+: ECONNREFUSED/,
    );
  });
});
