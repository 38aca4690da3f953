// Guessing a protected file's password through the JSON unlock endpoint is limited like a login: 10 attempts a
// minute per address, then 429 (even for the right password), so a short password cannot be brute-forced.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { forEachDatabase, useTestServer } from '../../support/server.js';
import { upload } from '../../support/uploads.js';

forEachDatabase('file password guessing', (engine) => {
  const server = useTestServer({ engine });

  it('POST /api/user/files/:id/password allows 10 attempts a minute per address, then 429', async () => {
    const admin = await server().setup();
    const res = await upload(server(), admin.token, [{ name: 'secret.txt', content: Buffer.from('hidden') }], {
      'x-service-password': 'right',
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const name = res.body.files[0].name as string;
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) {
      statuses.push(
        (await server().json('POST', `/api/user/files/${name}/password`, { body: { password: `guess-${i}` } })).status,
      );
    }
    assert.deepEqual(statuses, [...Array(10).fill(403), 429]);
    const limited = await server().json('POST', `/api/user/files/${name}/password`, { body: { password: 'right' } });
    assert.equal(limited.status, 429);
    assert.equal(limited.body.statusCode, 429);
  });
});
