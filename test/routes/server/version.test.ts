// GET /api/version: the running version (package.json's), for signed-in users.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { it } from 'node:test';
import { forEachDatabase, useTestServer } from '../../support/server.js';

forEachDatabase('version', (engine) => {
  const server = useTestServer({ engine });

  it('answers the running version to a signed-in user, 401 to anyone else', async () => {
    const admin = await server().setup();
    const pkg = JSON.parse(await readFile(new URL('../../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    const res = await server().json('GET', '/api/version', { auth: admin.token });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { version: pkg.version });
    const anonymous = await server().json('GET', '/api/version');
    assert.equal(anonymous.status, 401);
  });
});
