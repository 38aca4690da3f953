// User administration routes: list, create, get, edit (profile, password, avatar, quota), delete with and without
// the user's content, and the avatar image routes.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { UserDto } from '../../../src/schemas/user.js';
import { insertTestFile } from '../../support/content.js';
import { PNG_1X1 } from '../../support/fixtures.js';
import { forEachDatabase, useTestServer, type TestUser } from '../../support/server.js';
import { assertError } from '../../support/api-errors.js';
import { makeUser, NO_RATE_LIMIT, uniqueName } from '../../support/factory.js';

/** The answer of GET /api/users. */
interface UserList {
  users: UserDto[];
  page: number;
  perpage: number;
  total: number;
  pages: number;
}

forEachDatabase('user administration', (engine) => {
  const server = useTestServer({ engine, env: NO_RATE_LIMIT });
  let root: TestUser;
  let admin: TestUser;
  let user: TestUser;

  before(async () => {
    root = await server().setup('root', 'root-password');
    admin = await makeUser(server(), { by: root.token, username: 'admin', role: 'ADMIN' });
    user = await makeUser(server(), { by: admin.token, username: 'user', role: 'USER' });
  });

  describe('authentication', () => {
    it('needs a caller (2002) who is an admin (3000) on every route', async () => {
      const routes: Array<[string, string, unknown?]> = [
        ['GET', '/api/users'],
        ['POST', '/api/users', { username: 'x', password: 'y' }],
        ['GET', `/api/users/${root.id}`],
        ['PATCH', `/api/users/${root.id}`, {}],
        ['DELETE', `/api/users/${root.id}`],
        ['GET', `/api/users/${root.id}/avatar`],
      ];
      for (const [method, path, body] of routes) {
        assertError(await server().json(method, path, { body }), 401, 2002, `${method} ${path}`);
        assertError(await server().json(method, path, { body, auth: user.token }), 403, 3000, `${method} ${path}`);
      }
    });
  });

  it('are documented in /api/openapi.json, with the QuotaWrite input and the User output', async () => {
    const doc = await server().json('GET', '/api/openapi.json');
    assert.equal(doc.status, 200);
    const routes: Array<[string, string]> = [
      ['/api/users', 'get'],
      ['/api/users', 'post'],
      ['/api/users/{id}', 'get'],
      ['/api/users/{id}', 'patch'],
      ['/api/users/{id}', 'delete'],
      ['/api/users/{id}/avatar', 'get'],
      ['/api/user/avatar', 'get'],
      ['/api/auth/register', 'post'],
      ['/api/auth/invites', 'get'],
      ['/api/auth/invites', 'post'],
      ['/api/auth/invites/{id}', 'get'],
      ['/api/auth/invites/{id}', 'delete'],
      ['/api/auth/invites/web/{code}', 'get'],
      ['/api/server/settings', 'get'],
      ['/api/server/settings', 'patch'],
      ['/api/server/public', 'get'],
    ];
    for (const [path, method] of routes) {
      const op = doc.body.paths[path]?.[method];
      assert.ok(op?.responses['200'] && op.responses['4XX'], `${method.toUpperCase()} ${path}`);
    }
    assert.deepEqual(doc.body.components.schemas.QuotaWrite.properties.filesQuota.enum, [
      'BY_BYTES',
      'BY_FILES',
      'NONE',
    ]);
  });

  describe('list', () => {
    it('pages through users oldest first, with total and pages', async () => {
      const totalBefore = (await server().json('GET', '/api/users?page=1', { auth: admin.token })).body.total;
      for (let i = 0; i < 5; i++)
        await server().json('POST', '/api/users', {
          auth: root.token,
          body: { username: `page-${i}`, password: 'p-long-enough' },
        });
      const all = await server().json<UserList>('GET', '/api/users?page=1&perpage=100', { auth: admin.token });
      assert.equal(all.status, 200);
      const total = totalBefore + 5;
      assert.equal(all.body.total, total);
      const names = all.body.users.map((u) => u.username);
      assert.deepEqual(names.slice(0, 3), ['root', 'admin', 'user']);
      assert.deepEqual(names.slice(-5), ['page-0', 'page-1', 'page-2', 'page-3', 'page-4']);
      const second = await server().json<UserList>('GET', '/api/users?page=2&perpage=3', { auth: admin.token });
      assert.deepEqual(
        second.body.users.map((u) => u.username),
        names.slice(3, 6),
      );
      assert.deepEqual(
        [second.body.page, second.body.perpage, second.body.total, second.body.pages],
        [2, 3, total, Math.ceil(total / 3)],
      );
      const beyond = await server().json('GET', '/api/users?page=9&perpage=3', { auth: admin.token });
      assert.deepEqual(beyond.body.users, []);
      // The token is never part of a listed user.
      assert.equal(JSON.stringify(all.body).includes(user.token), false);
    });

    it('filters by part of the username (case-insensitive, % and _ taken literally) and by role', async () => {
      const prefix = `${uniqueName('find')}-`;
      for (let i = 0; i < 5; i++) await makeUser(server(), { by: root.token, username: `${prefix}${i}` });
      const list = (query: string) =>
        server().json<UserList>('GET', `/api/users?page=1&${query}`, { auth: admin.token });
      assert.equal((await list(`search=${prefix.toUpperCase()}`)).body.total, 5);
      assert.equal((await list('search=%25')).body.total, 0);
      assert.equal((await list(`search=${prefix.slice(0, -1)}_`)).body.total, 0);
      const admins = await list('role=ADMIN');
      assert.deepEqual(
        admins.body.users.map((u) => u.username),
        ['admin'],
      );
    });

    it('refuses a bad page or page size with 1000', async () => {
      assertError(await server().json('GET', '/api/users?perpage=1000', { auth: admin.token }), 400, 1000);
      assertError(await server().json('GET', '/api/users?page=0', { auth: admin.token }), 400, 1000);
    });
  });

  describe('create and get', () => {
    it('creates a USER by default who can log in, and shows it by id', async () => {
      const res = await server().json('POST', '/api/users', {
        auth: admin.token,
        body: { username: 'carol', password: 'carol-pw' },
      });
      assert.equal(res.status, 200);
      assert.equal(res.body.user.role, 'USER');
      assert.equal(res.body.user.quota, null);
      assert.deepEqual(res.body.user.sessions, []);
      await server().login('carol', 'carol-pw');
      const got = await server().json('GET', `/api/users/${res.body.user.id}`, { auth: admin.token });
      assert.equal(got.body.user.username, 'carol');
      assert.equal(got.body.user.sessions.length, 1);
    });

    it('answers 1040 for a taken username and 4009 for an unknown id', async () => {
      assertError(
        await server().json('POST', '/api/users', {
          auth: admin.token,
          body: { username: 'user', password: 'x-long-enough' },
        }),
        400,
        1040,
      );
      assertError(await server().json('GET', '/api/users/nobody', { auth: admin.token }), 404, 4009);
      assertError(
        await server().json('PATCH', '/api/users/nobody', { auth: admin.token, body: { username: 'z' } }),
        404,
        4009,
      );
      assertError(await server().json('DELETE', '/api/users/nobody', { auth: admin.token }), 404, 4009);
    });

    it('creates with an avatar and a quota', async () => {
      const res = await server().json('POST', '/api/users', {
        auth: admin.token,
        body: {
          username: 'dave',
          password: 'p-long-enough',
          avatar: PNG_1X1,
          quota: { filesQuota: 'BY_BYTES', maxBytes: '10gb', maxUrls: 5 },
        },
      });
      assert.equal(res.status, 200);
      assert.equal(res.body.user.avatar, `data:image/png;base64,${PNG_1X1}`);
      assert.equal(res.body.user.quota.filesQuota, 'BY_BYTES');
      assert.equal(res.body.user.quota.maxBytes, String(10 * 1024 ** 3));
      assert.equal(res.body.user.quota.maxUrls, 5);
      assert.equal(res.body.user.quota.userId, res.body.user.id);
    });

    it('refuses a quota without its limit (1056, 1057) and creates nobody then', async () => {
      assertError(
        await server().json('POST', '/api/users', {
          auth: admin.token,
          body: { username: 'q1', password: 'p-long-enough', quota: { filesQuota: 'BY_BYTES' } },
        }),
        400,
        1056,
      );
      assertError(
        await server().json('POST', '/api/users', {
          auth: admin.token,
          body: { username: 'q1', password: 'p-long-enough', quota: { filesQuota: 'BY_FILES', maxBytes: 5 } },
        }),
        400,
        1057,
      );
      assert.equal((await server().json('GET', '/api/users?page=1&search=q1', { auth: admin.token })).body.total, 0);
    });
  });

  describe('edit', () => {
    it("changes username and password; the new password ends the user's sessions and replaces their token", async () => {
      const erin = await makeUser(server(), { by: admin.token, username: 'erin' });
      const res = await server().json('PATCH', `/api/users/${erin.id}`, {
        auth: admin.token,
        body: { username: 'erin2', password: 'new-pw-long' },
      });
      assert.equal(res.status, 200);
      assert.equal(res.body.user.username, 'erin2');
      assert.deepEqual(res.body.user.sessions, []);
      assertError(await server().json('GET', '/api/user', { auth: erin.cookie }), 401, 2000);
      await server().login('erin2', 'new-pw-long');
      // The API token is replaced with the password.
      assertError(await server().json('GET', '/api/user', { auth: erin.token }), 401, 2001);
    });

    it('answers 1039 for a taken username', async () => {
      assertError(
        await server().json('PATCH', `/api/users/${user.id}`, { auth: admin.token, body: { username: 'admin' } }),
        400,
        1039,
      );
    });

    it('sets and removes an avatar; refuses a non-image or an image over 1 MiB with 1000', async () => {
      const set = await server().json('PATCH', `/api/users/${user.id}`, {
        auth: admin.token,
        body: { avatar: PNG_1X1 },
      });
      assert.equal(set.body.user.avatar, `data:image/png;base64,${PNG_1X1}`);
      const text = Buffer.from('<svg onload=alert(1)>').toString('base64');
      const notImage = await server().json('PATCH', `/api/users/${user.id}`, {
        auth: admin.token,
        body: { avatar: text },
      });
      assertError(notImage, 400, 1000);
      assert.equal(notImage.body.issues[0].path, 'body.avatar');
      const big = Buffer.concat([Buffer.from(PNG_1X1, 'base64'), Buffer.alloc(1024 * 1024)]).toString('base64');
      assertError(
        await server().json('PATCH', `/api/users/${user.id}`, { auth: admin.token, body: { avatar: big } }),
        400,
        1000,
      );
      assert.equal(
        (await server().json('GET', `/api/users/${user.id}`, { auth: admin.token })).body.user.avatar,
        set.body.user.avatar,
      );
      const removed = await server().json('PATCH', `/api/users/${user.id}`, {
        auth: admin.token,
        body: { avatar: null },
      });
      assert.equal(removed.body.user.avatar, null);
    });

    it("sets, replaces and removes quotas in the spec's shape", async () => {
      const path = `/api/users/${user.id}`;
      const bytes = await server().json('PATCH', path, {
        auth: admin.token,
        body: { quota: { filesQuota: 'BY_BYTES', maxBytes: '1.5kb' } },
      });
      assert.equal(bytes.status, 200);
      const quota = bytes.body.user.quota;
      assert.deepEqual(
        {
          filesQuota: quota.filesQuota,
          maxBytes: quota.maxBytes,
          maxFiles: quota.maxFiles,
          maxUrls: quota.maxUrls,
          userId: quota.userId,
        },
        { filesQuota: 'BY_BYTES', maxBytes: '1536', maxFiles: null, maxUrls: null, userId: user.id },
      );
      const files = await server().json('PATCH', path, {
        auth: admin.token,
        body: { quota: { filesQuota: 'BY_FILES', maxFiles: 10, maxUrls: 2 } },
      });
      assert.equal(files.body.user.quota.id, quota.id, 'the quota record is updated in place');
      assert.deepEqual(
        [
          files.body.user.quota.filesQuota,
          files.body.user.quota.maxBytes,
          files.body.user.quota.maxFiles,
          files.body.user.quota.maxUrls,
        ],
        ['BY_FILES', null, 10, 2],
      );
      // NONE keeps only the URL limit; the user sees the same quota on GET /api/user.
      const urlsOnly = await server().json('PATCH', path, {
        auth: admin.token,
        body: { quota: { filesQuota: 'NONE', maxUrls: 7 } },
      });
      assert.deepEqual(
        [urlsOnly.body.user.quota.maxBytes, urlsOnly.body.user.quota.maxFiles, urlsOnly.body.user.quota.maxUrls],
        [null, null, 7],
      );
      assert.equal((await server().json('GET', '/api/user', { auth: user.token })).body.user.quota.maxUrls, 7);
      const none = await server().json('PATCH', path, { auth: admin.token, body: { quota: { filesQuota: 'NONE' } } });
      assert.equal(none.body.user.quota, null);
      await server().json('PATCH', path, {
        auth: admin.token,
        body: { quota: { filesQuota: 'BY_FILES', maxFiles: 1 } },
      });
      const removed = await server().json('PATCH', path, { auth: admin.token, body: { quota: null } });
      assert.equal(removed.body.user.quota, null);
    });

    it('refuses quotas without their limit (1056, 1057) or with a bad size (1000), changing nothing', async () => {
      const path = `/api/users/${user.id}`;
      await server().json('PATCH', path, {
        auth: admin.token,
        body: { quota: { filesQuota: 'BY_FILES', maxFiles: 4 } },
      });
      assertError(
        await server().json('PATCH', path, {
          auth: admin.token,
          body: { quota: { filesQuota: 'BY_BYTES', maxFiles: 3 } },
        }),
        400,
        1056,
      );
      assertError(
        await server().json('PATCH', path, {
          auth: admin.token,
          body: { quota: { filesQuota: 'BY_BYTES', maxBytes: null } },
        }),
        400,
        1056,
      );
      assertError(
        await server().json('PATCH', path, {
          auth: admin.token,
          body: { quota: { filesQuota: 'BY_FILES', maxBytes: '1gb' } },
        }),
        400,
        1057,
      );
      const bad = await server().json('PATCH', path, {
        auth: admin.token,
        body: { username: 'never-applied', quota: { filesQuota: 'BY_BYTES', maxBytes: 'lots' } },
      });
      assertError(bad, 400, 1000);
      assert.equal(bad.body.issues[0].path, 'body.quota.maxBytes');
      assertError(
        await server().json('PATCH', path, {
          auth: admin.token,
          body: { quota: { filesQuota: 'BY_FILES', maxFiles: -1 } },
        }),
        400,
        1000,
      );
      const after = (await server().json('GET', path, { auth: admin.token })).body.user;
      assert.equal(after.username, 'user');
      assert.equal(after.quota.maxFiles, 4);
    });
  });

  describe('delete', () => {
    it('without delete: removes the account and its sessions, keeps its files and short URLs owner-less', async () => {
      const frank = await makeUser(server(), { by: admin.token, username: 'frank' });
      const file = await insertTestFile(server(), frank.id, { bytes: 'frank kept this' });
      const url = await server().json('POST', '/api/user/urls', {
        auth: frank.token,
        body: { destination: 'https://example.com/f' },
      });
      assert.equal(url.status, 200);
      const res = await server().json('DELETE', `/api/users/${frank.id}`, { auth: admin.token });
      assert.equal(res.status, 200);
      assert.equal(res.body.user.username, 'frank');
      assert.deepEqual([res.body.deletedFiles, res.body.deletedUrls], [0, 0]);
      assertError(await server().json('GET', '/api/user', { auth: frank.cookie }), 401, 2000);
      assertError(await server().json('GET', '/api/user', { auth: frank.token }), 401, 2001);
      const row = await server().ctx.db.selectFrom('files').selectAll().where('id', '=', file.id).executeTakeFirst();
      assert.equal(row?.user_id, null);
      assert.notEqual(await server().ctx.storage.stat(file.storageKey), null);
      const go = await server().fetch(`/go/${url.body.code}`);
      assert.equal(go.status, 302);
    });

    it('with {delete: true}: also removes the files, their stored bytes and the short URLs', async () => {
      const gina = await makeUser(server(), { by: admin.token, username: 'gina' });
      const files = [
        await insertTestFile(server(), gina.id, { bytes: 'one' }),
        await insertTestFile(server(), gina.id, { bytes: 'two' }),
      ];
      const other = await insertTestFile(server(), user.id, { bytes: 'not gina' });
      const url = await server().json('POST', '/api/user/urls', {
        auth: gina.token,
        body: { destination: 'https://example.com/g' },
      });
      const res = await server().json('DELETE', `/api/users/${gina.id}`, { auth: admin.token, body: { delete: true } });
      assert.equal(res.status, 200);
      assert.deepEqual([res.body.deletedFiles, res.body.deletedUrls], [2, 1]);
      for (const file of files) {
        assert.equal(
          await server().ctx.db.selectFrom('files').select('id').where('id', '=', file.id).executeTakeFirst(),
          undefined,
        );
        assert.equal(await server().ctx.storage.stat(file.storageKey), null, 'bytes removed from storage');
      }
      assert.notEqual(await server().ctx.storage.stat(other.storageKey), null, "another user's bytes stay");
      assert.equal((await server().fetch(`/go/${url.body.code}`)).status, 404);
    });
  });

  describe('avatar images', () => {
    it("GET /api/user/avatar serves the caller's avatar bytes with their type to image requests; 404 / 9002 without one", async () => {
      const hana = await makeUser(server(), { by: admin.token, username: 'hana' });
      const none = await server().json('GET', '/api/user/avatar', { auth: hana.token });
      assertError(none, 404, 9002);
      assertError(await server().json('GET', '/api/user/avatar'), 401, 2002);
      const patched = await server().json('PATCH', '/api/user', {
        auth: hana.token,
        body: { avatar: `data:image/jpeg;base64,${PNG_1X1}` },
      });
      assert.equal(patched.status, 200);
      const res = await server().fetch('/api/user/avatar', {
        headers: { authorization: hana.token, accept: 'image/*' },
      });
      assert.equal(res.status, 200);
      // The type comes from the bytes, not from what the client claimed.
      assert.equal(res.headers.get('content-type'), 'image/png');
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
      assert.deepEqual(Buffer.from(await res.arrayBuffer()), Buffer.from(PNG_1X1, 'base64'));
      const byAdmin = await server().fetch(`/api/users/${hana.id}/avatar`, { headers: { authorization: admin.token } });
      assert.deepEqual(Buffer.from(await byAdmin.arrayBuffer()), Buffer.from(PNG_1X1, 'base64'));
      assertError(await server().json('GET', '/api/users/nobody/avatar', { auth: admin.token }), 404, 4009);
    });

    it('PATCH /api/user refuses a non-image or an avatar over 1 MiB with 1000, keeping the old one', async () => {
      const ivan = await makeUser(server(), { by: admin.token, username: 'ivan' });
      await server().json('PATCH', '/api/user', { auth: ivan.token, body: { avatar: PNG_1X1 } });
      const html = Buffer.from('<html><script>alert(1)</script></html>').toString('base64');
      assertError(await server().json('PATCH', '/api/user', { auth: ivan.token, body: { avatar: html } }), 400, 1000);
      const big = Buffer.concat([Buffer.from(PNG_1X1, 'base64'), Buffer.alloc(1024 * 1024)]).toString('base64');
      const tooBig = await server().json('PATCH', '/api/user', { auth: ivan.token, body: { avatar: big } });
      assertError(tooBig, 400, 1000);
      assert.match(tooBig.body.error, /larger than 1048576 bytes/);
      const res = await server().fetch('/api/user/avatar', {
        headers: { authorization: ivan.token, accept: 'image/*' },
      });
      assert.equal(res.status, 200);
      assert.deepEqual(Buffer.from(await res.arrayBuffer()), Buffer.from(PNG_1X1, 'base64'));
    });
  });
});
