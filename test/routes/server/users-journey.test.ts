// An admin running an instance through the API only, as a new admin would with curl: creates users and admins,
// sets quotas that uploads and short URLs then respect, changes settings that take effect at once, opens
// registration by invite, deletes a user with their content, and cannot lock the instance out of its last SUPERADMIN.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { forEachDatabase, sessionCookieOf, useTestServer } from '../../support/server.js';
import { upload } from '../../support/uploads.js';
import { assertError } from '../../support/api-errors.js';
import { makeUser, NO_RATE_LIMIT } from '../../support/factory.js';

forEachDatabase('administration journey', (engine) => {
  const server = useTestServer({ engine, env: NO_RATE_LIMIT });

  it('runs an instance end to end through the API', async () => {
    const s = server();
    const root = await s.setup('owner', 'owner-password');
    const admin = await makeUser(s, { by: root.token, username: 'helper', role: 'ADMIN' });
    const alice = await makeUser(s, {
      by: admin.token,
      username: 'alice',
      role: 'USER',
      quota: { filesQuota: 'BY_FILES', maxFiles: 1 },
    });
    const asAdmin = (method: string, path: string, body?: unknown) => s.json(method, path, { auth: admin.token, body });

    // A file quota: the second file is refused.
    assert.equal((await upload(s, alice.token, [{ name: 'a.txt', content: 'first' }])).status, 200);
    assertError(await upload(s, alice.token, [{ name: 'b.txt', content: 'second' }]), 413, 5002);
    // A byte quota instead: 1 KiB in all, "5" bytes already used.
    await asAdmin('PATCH', `/api/users/${alice.id}`, { quota: { filesQuota: 'BY_BYTES', maxBytes: '1kb' } });
    assert.equal((await upload(s, alice.token, [{ name: 'c.bin', content: Buffer.alloc(1000) }])).status, 200);
    assertError(await upload(s, alice.token, [{ name: 'd.bin', content: Buffer.alloc(100) }]), 413, 5002);
    // A short-URL quota only; files unlimited again.
    await asAdmin('PATCH', `/api/users/${alice.id}`, { quota: { filesQuota: 'NONE', maxUrls: 1 } });
    assert.equal((await upload(s, alice.token, [{ name: 'e.bin', content: Buffer.alloc(100) }])).status, 200);
    assert.equal(
      (await s.json('POST', '/api/user/urls', { auth: alice.token, body: { destination: 'https://example.com/1' } }))
        .status,
      200,
    );
    assertError(
      await s.json('POST', '/api/user/urls', { auth: alice.token, body: { destination: 'https://example.com/2' } }),
      403,
      3012,
    );
    assert.equal((await s.json('GET', '/api/user', { auth: alice.token })).body.user.quota.maxUrls, 1);

    // A settings change applies to the very next upload.
    assert.equal((await asAdmin('PATCH', '/api/server/settings', { filesMaxFileSize: '100b' })).status, 200);
    const big = await upload(s, alice.token, [{ name: 'f.bin', content: Buffer.alloc(200) }]);
    assert.equal(big.status, 413);
    assert.ok([5000, 5001].includes(big.body.code));
    await asAdmin('PATCH', '/api/server/settings', { filesMaxFileSize: '1gb' });

    // Registration by invite.
    await asAdmin('PATCH', '/api/server/settings', { invitesEnabled: true });
    const invite = (await asAdmin('POST', '/api/auth/invites', { maxUses: 1, expiresAt: '1d' })).body;
    const pub = await s.json('GET', '/api/server/public');
    assert.deepEqual([pub.body.registrationEnabled, pub.body.invitesEnabled], [false, true]);
    assert.equal((await s.json('GET', `/api/auth/invites/web/${invite.code}`)).status, 200);
    const joined = await s.json('POST', '/api/auth/register', {
      body: { username: 'bob', password: 'bob-password', code: invite.code },
    });
    assert.equal(joined.status, 200);
    const bob = sessionCookieOf(joined.headers);
    assert.equal((await s.json('GET', '/api/user', { auth: bob })).body.user.username, 'bob');
    assertError(
      await s.json('POST', '/api/auth/register', {
        body: { username: 'carl', password: 'pw-long-enough', code: invite.code },
      }),
      400,
      1035,
    );

    // Deleting alice with her content removes her files from the links too.
    const mine = await upload(s, alice.token, [{ name: 'g.txt', content: 'gone soon' }]);
    const link = new URL(mine.body.files[0].url).pathname;
    assert.equal((await s.fetch(link)).status, 200);
    const deleted = await asAdmin('DELETE', `/api/users/${alice.id}`, { delete: true });
    assert.equal(deleted.body.deletedFiles, 4);
    assert.equal((await s.fetch(link)).status, 404);

    // The owner cannot be demoted or deleted by the admin, nor step down while alone.
    assertError(await asAdmin('PATCH', `/api/users/${root.id}`, { role: 'USER' }), 403, 3019);
    assertError(await asAdmin('DELETE', `/api/users/${root.id}`), 403, 3009);
    assertError(
      await s.json('PATCH', `/api/users/${root.id}`, { auth: root.token, body: { role: 'ADMIN' } }),
      403,
      3007,
    );
  });
});
