// TRUST_PROXY names the proxies in front of Chute: the address a rate limit counts is the one the nearest trusted
// proxy saw, never one a client wrote into X-Forwarded-For itself.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { forEachDatabase, useTestServer, type TestServer } from '../../support/server.js';

/** 11 failed logins, each claiming another address in front of what the proxy saw (`seen`); their statuses. */
async function loginsWithRotatingForwardedFor(server: TestServer, seen: string): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < 11; i++) {
    const res = await server.json('POST', '/api/auth/login', {
      body: { username: 'root', password: 'wrong' },
      headers: { 'x-forwarded-for': `198.51.100.${i + 1}, ${seen}` },
    });
    statuses.push(res.status);
  }
  return statuses;
}

for (const trustProxy of ['1', '127.0.0.1', 'loopback']) {
  forEachDatabase(`login limit behind a proxy (TRUST_PROXY=${trustProxy})`, (engine) => {
    const server = useTestServer({ engine, env: { TRUST_PROXY: trustProxy } });

    it('holds when the client rotates X-Forwarded-For', async () => {
      await server().setup('root', 'root-password');
      const statuses = await loginsWithRotatingForwardedFor(server(), '203.0.113.7');
      assert.deepEqual(statuses, [...Array<number>(10).fill(400), 429]);
    });

    it('counts each real client on its own', async () => {
      const other = await server().json('POST', '/api/auth/login', {
        body: { username: 'root', password: 'wrong' },
        headers: { 'x-forwarded-for': '203.0.113.8' },
      });
      assert.equal(other.status, 400);
    });
  });
}
