// Every /api/* answer (which can carry the API token) is kept by no cache and sniffed by no browser: answers and
// errors alike, before and after authentication.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { forEachDatabase, useTestServer } from '../support/server.js';

forEachDatabase('headers of /api answers', (engine) => {
  const server = useTestServer({ engine });

  it('Cache-Control: no-store and X-Content-Type-Options: nosniff on answers and errors', async () => {
    const admin = await server().setup();
    const answers = [
      await server().fetch('/api/user', { headers: { authorization: admin.token } }),
      await server().fetch('/api/user/token', { headers: { authorization: admin.token } }),
      await server().fetch('/api/user'),
      await server().fetch('/api/user', { headers: { authorization: 'wrong' } }),
      await server().fetch('/api/no-such-route'),
      await server().fetch('/api/healthcheck'),
    ];
    for (const res of answers) {
      assert.equal(res.headers.get('cache-control'), 'no-store', `${res.url} ${res.status}`);
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff', `${res.url} ${res.status}`);
      await res.arrayBuffer();
    }
  });
});
