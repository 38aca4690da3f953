// GET /api/readyz: ready while serving; 503 while draining or when the database does not answer. Liveness
// (/api/healthcheck) is unchanged by a drain.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { forEachDatabase, startTestServer } from '../../support/server.js';

forEachDatabase('GET /api/readyz', (engine) => {
  it('is ready while serving, 503 draining once the server begins to stop, 503 database without a database', async () => {
    const server = await startTestServer({ engine });
    try {
      const ready = await server.json('GET', '/api/readyz');
      assert.equal(ready.status, 200);
      assert.deepEqual(ready.body, { ready: true });

      server.ctx.lifecycle.drain(server.ctx.clock.now());
      const draining = await server.json('GET', '/api/readyz');
      assert.equal(draining.status, 503);
      assert.deepEqual(draining.body, { ready: false, reason: 'draining' });
      // Still alive, and still serving what is asked of it.
      assert.deepEqual((await server.json('GET', '/api/healthcheck')).body, { pass: true });
    } finally {
      await server.close();
    }

    const broken = await startTestServer({ engine });
    try {
      await broken.chute.database.close();
      const answer = await broken.json('GET', '/api/readyz');
      assert.equal(answer.status, 503);
      assert.deepEqual(answer.body, { ready: false, reason: 'database' });
    } finally {
      await broken.close().catch(() => undefined);
    }
  });
});
