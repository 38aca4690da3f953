// The account hierarchy holds for files too: an ADMIN manages USERs' files, not a SUPERADMIN's (nor reads or
// unlocks them through the owner's routes); a SUPERADMIN manages USERs' and ADMINs' files.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { assertError } from '../../support/api-errors.js';
import { makeUser, NO_RATE_LIMIT } from '../../support/factory.js';
import { forEachDatabase, useTestServer, type TestUser } from '../../support/server.js';
import { uploadOne } from '../../support/uploads.js';

forEachDatabase('files and the account hierarchy', (engine) => {
  const server = useTestServer({ engine, env: NO_RATE_LIMIT });
  let superadmin: TestUser;
  let admin: TestUser;
  let user: TestUser;
  before(async () => {
    superadmin = await server().setup();
    admin = await makeUser(server(), { role: 'ADMIN' });
    user = await makeUser(server());
  });

  it("an ADMIN cannot list, read, unlock, edit or delete a SUPERADMIN's files", async () => {
    const file = await uploadOne(server(), superadmin.token, 'the boss only', {
      headers: { 'x-service-password': 'boss-pw' },
    });
    assertError(await server().json('GET', `/api/user/files?id=${superadmin.id}`, { auth: admin.token }), 403, 3000);
    assertError(await server().json('GET', `/api/user/files/${file.id}`, { auth: admin.token }), 404, 4000);
    assertError(await server().json('GET', `/api/user/files/${file.id}/raw`, { auth: admin.token }), 404, 4000);
    const unlock = await server().json('POST', `/api/user/files/${file.id}/password`, { auth: admin.token, body: {} });
    assertError(unlock, 403, 3005);
    const edit = await server().json('PATCH', `/api/user/files/${file.id}`, {
      auth: admin.token,
      body: { password: null },
    });
    assertError(edit, 404, 4000);
    const bulk = await server().json('DELETE', '/api/user/files/transaction', {
      auth: admin.token,
      body: { files: [file.id] },
    });
    assertError(bulk, 403, 3013);
    // The SUPERADMIN's own routes still work.
    const own = await server().fetch(`/api/user/files/${file.id}/raw`, {
      headers: { authorization: superadmin.token },
    });
    assert.equal(await own.text(), 'the boss only');
  });

  it("an ADMIN still manages a USER's files; a SUPERADMIN an ADMIN's", async () => {
    const userFile = await uploadOne(server(), user.token, 'user bytes', { headers: { 'x-service-password': 'u' } });
    const listed = await server().json('GET', `/api/user/files?id=${user.id}`, { auth: admin.token });
    assert.equal(listed.status, 200);
    const raw = await server().fetch(`/api/user/files/${userFile.id}/raw`, { headers: { authorization: admin.token } });
    assert.equal(await raw.text(), 'user bytes');
    const unlock = await server().json('POST', `/api/user/files/${userFile.id}/password`, {
      auth: admin.token,
      body: {},
    });
    assert.equal(unlock.status, 200);
    const adminFile = await uploadOne(server(), admin.token, 'admin bytes');
    const bySuper = await server().fetch(`/api/user/files/${adminFile.id}/raw`, {
      headers: { authorization: superadmin.token },
    });
    assert.equal(await bySuper.text(), 'admin bytes');
  });
});
