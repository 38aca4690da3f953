// Private files and share links: a private file answers 404 under /u, /raw and /view to everyone but its owner, and
// is reached through its share links, each with its own password, view limit and expiry; a revoked link answers 404.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { ManualClock } from '../../../src/lib/clock.js';
import { assertError } from '../../support/api-errors.js';
import { makeFolder, makeUser } from '../../support/factory.js';
import { forEachDatabase, useTestServer, type TestUser } from '../../support/server.js';
import { upload, uploadOne } from '../../support/uploads.js';

const PRIVATE = { 'x-service-private': 'true' };
const HTML = { accept: 'text/html' };

forEachDatabase('private files and share links', (engine) => {
  const clock = new ManualClock(Date.UTC(2030, 0, 1));
  const server = useTestServer({ engine, clock });
  let root: TestUser;
  let owner: TestUser;
  let other: TestUser;

  const shares = (fileId: string) => `/api/user/files/${fileId}/shares`;
  const makeShare = async (fileId: string, body: Record<string, unknown> = {}) => {
    const res = await server().json('POST', shares(fileId), { auth: owner.token, body });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body as { id: string; url: string };
  };
  const pathOf = (url: string) => new URL(url).pathname;

  before(async () => {
    root = await server().setup('root', 'root-password');
    owner = await makeUser(server(), { by: root.token });
    other = await makeUser(server(), { by: root.token, role: 'ADMIN' });
  });

  describe('a private file', () => {
    it('is served under its plain links to its owner only; 404 to anyone else, signed in or not', async () => {
      const file = await uploadOne(server(), owner.token, 'private bytes', { headers: PRIVATE });
      const listed = await server().json('GET', `/api/user/files/${file.id}`, { auth: owner.token });
      assert.equal(listed.body.private, true);
      for (const path of [`/raw/${file.name}`, `/u/${file.name}`, `/view/${file.name}`]) {
        assertError(await server().json('GET', path), 404, 4000, `anonymous ${path}`);
        assertError(await server().json('GET', path, { auth: other.token }), 404, 4000, `admin ${path}`);
        assertError(await server().json('GET', path, { auth: root.token }), 404, 4000, `superadmin ${path}`);
        const mine = await server().fetch(path, { headers: { authorization: owner.token } });
        assert.equal(mine.status, 200, path);
        if (path.startsWith('/raw')) assert.equal(mine.headers.get('cache-control'), 'private, no-store');
      }
      const page = await server().fetch(`/u/${file.name}`, { headers: HTML });
      assert.equal(page.status, 404, 'a browser gets the missing-file page');
      // The JSON unlock route does not hand a stranger a token either.
      assertError(await server().json('POST', `/api/user/files/${file.id}/password`, { body: {} }), 404, 4000);
    });

    it('is private by the server setting, unless the upload says otherwise; the owner can toggle it', async () => {
      await server().json('PATCH', '/api/server/settings', {
        auth: root.token,
        body: { uploadsPrivateByDefault: true },
      });
      try {
        const byDefault = await uploadOne(server(), owner.token, 'default private');
        assert.equal((await server().fetch(`/raw/${byDefault.name}`)).status, 404);
        const publicOne = await uploadOne(server(), owner.token, 'said public', {
          headers: { 'x-service-private': 'false' },
        });
        assert.equal((await server().fetch(`/raw/${publicOne.name}`)).status, 200);
        const toggled = await server().json('PATCH', `/api/user/files/${byDefault.id}`, {
          auth: owner.token,
          body: { private: false },
        });
        assert.equal(toggled.body.private, false);
        assert.equal((await server().fetch(`/raw/${byDefault.name}`)).status, 200);
      } finally {
        await server().json('PATCH', '/api/server/settings', {
          auth: root.token,
          body: { uploadsPrivateByDefault: false },
        });
      }
      const bad = await upload(server(), owner.token, [{ name: 'a.txt', content: 'a' }], {
        'x-service-private': 'maybe',
      });
      assertError(bad, 400, 1001);
    });

    it("is left out of its public folder's page and zip", async () => {
      const folder = await makeFolder(server(), owner, { public: true });
      const into = { 'x-service-folder': folder.id };
      const seen = await uploadOne(server(), owner.token, 'seen', { name: 'seen.txt', headers: into });
      const hidden = await uploadOne(server(), owner.token, 'hidden', {
        name: 'hidden.txt',
        headers: { ...into, ...PRIVATE },
      });
      const res = await server().json('GET', `/api/folders/${folder.id}`);
      const body = JSON.stringify(res.body);
      assert.ok(body.includes(seen.name), body);
      assert.ok(!body.includes(hidden.name), 'the private file is not listed');
    });
  });

  describe('share links', () => {
    it('open a private file, page and bytes, byte-exact, with ranges; revoking answers 404 from then on', async () => {
      const file = await uploadOne(server(), owner.token, 'shared private bytes', { headers: PRIVATE });
      const share = await makeShare(file.id);
      assert.match(share.id, /^[A-Za-z0-9]{22}$/);
      assert.equal(share.url, `${server().url}/s/${share.id}`);
      const bytes = await server().fetch(pathOf(share.url));
      assert.equal(bytes.status, 200);
      assert.equal(await bytes.text(), 'shared private bytes');
      assert.equal(bytes.headers.get('cache-control'), 'private, no-store');
      const ranged = await server().fetch(`${pathOf(share.url)}/raw`, { headers: { range: 'bytes=7-13' } });
      assert.equal(ranged.status, 206);
      assert.equal(await ranged.text(), 'private');
      const page = await server().fetch(pathOf(share.url), { headers: HTML });
      assert.equal(page.status, 200);
      assert.match(await page.text(), new RegExp(`/s/${share.id}/raw`));
      // The plain link still answers 404.
      assert.equal((await server().fetch(`/raw/${file.name}`)).status, 404);

      const list = await server().json('GET', shares(file.id), { auth: owner.token });
      assert.deepEqual(
        list.body.map((s: { id: string }) => s.id),
        [share.id],
      );
      // The whole GET and the page's text preview; the ranged read from byte 7 continues a view.
      assert.equal(list.body[0].views, 2);
      const revoked = await server().json('DELETE', `${shares(file.id)}/${share.id}`, { auth: owner.token });
      assert.equal(revoked.status, 200);
      assertError(await server().json('GET', pathOf(share.url)), 404, 4000);
      assertError(await server().json('GET', `${pathOf(share.url)}/raw`), 404, 4000);
      assertError(await server().json('DELETE', `${shares(file.id)}/${share.id}`, { auth: owner.token }), 404, 4000);
    });

    it('are made, listed and revoked only by whoever manages the file (404 to others)', async () => {
      const file = await uploadOne(server(), owner.token, 'mine', { headers: PRIVATE });
      const share = await makeShare(file.id);
      const stranger = await makeUser(server(), { by: root.token });
      assertError(await server().json('POST', shares(file.id), { auth: stranger.token, body: {} }), 404, 4000);
      assertError(await server().json('GET', shares(file.id), { auth: stranger.token }), 404, 4000);
      assertError(await server().json('DELETE', `${shares(file.id)}/${share.id}`, { auth: stranger.token }), 404, 4000);
      assertError(await server().json('GET', shares(file.id)), 401, 2002);
      assert.equal((await server().fetch(pathOf(share.url))).status, 200, 'still working');
    });

    it('with a password: the bytes want a token, the form trades the password for one (argon2 hash stored)', async () => {
      const file = await uploadOne(server(), owner.token, 'locked bytes', { headers: PRIVATE });
      const share = await makeShare(file.id, { password: 'open sesame' });
      const row = await server()
        .ctx.db.selectFrom('file_shares')
        .select('password')
        .where('id', '=', share.id)
        .executeTakeFirstOrThrow();
      assert.match(row.password!, /^\$argon2id\$/);
      assertError(await server().json('GET', `${pathOf(share.url)}/raw`), 403, 3004);
      assertError(await server().json('GET', `${pathOf(share.url)}/raw?token=forged`), 403, 3018);
      assert.equal((await server().fetch(pathOf(share.url), { headers: HTML })).status, 200, 'the password form');
      const form = (password: string) =>
        server().fetch(pathOf(share.url), {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ password }).toString(),
        });
      assert.equal((await form('wrong')).status, 403);
      const right = await form('open sesame');
      assert.equal(right.status, 303);
      const location = right.headers.get('location')!;
      const token = new URL(location, server().url).searchParams.get('token')!;
      const bytes = await server().fetch(`${pathOf(share.url)}/raw?token=${encodeURIComponent(token)}`);
      assert.equal(bytes.status, 200);
      assert.equal(await bytes.text(), 'locked bytes');
      // A token of one link does not open another link of the same file.
      const second = await makeShare(file.id, { password: 'other' });
      assertError(await server().json('GET', `${pathOf(second.url)}/raw?token=${token}`), 403, 3018);
    });

    it('with a view limit: counted atomically, ranged reads included; then 404', async () => {
      const file = await uploadOne(server(), owner.token, 'few views', { headers: PRIVATE });
      const share = await makeShare(file.id, { maxViews: 3 });
      const answers = await Promise.all(
        Array.from({ length: 10 }, () =>
          server().fetch(`${pathOf(share.url)}/raw`, { headers: { range: 'bytes=1-' } }),
        ),
      );
      const statuses = answers.map((r) => r.status).sort();
      await Promise.all(answers.map((r) => r.arrayBuffer()));
      assert.deepEqual(statuses, [206, 206, 206, 404, 404, 404, 404, 404, 404, 404]);
      assertError(await server().json('GET', pathOf(share.url)), 404, 4000);
      const list = await server().json('GET', shares(file.id), { auth: owner.token });
      assert.equal(list.body[0].views, 3);
      // The file itself is untouched: another link still opens it.
      assert.equal((await server().fetch(pathOf((await makeShare(file.id)).url))).status, 200);
    });

    it('with an expiry: works until then, 404 after; a bad or past expiry -> 1000', async () => {
      const file = await uploadOne(server(), owner.token, 'for a day', { headers: PRIVATE });
      const share = await makeShare(file.id, { expiresAt: '1d' });
      assert.equal((await server().fetch(pathOf(share.url))).status, 200);
      clock.advance(86_400_000 + 1);
      assertError(await server().json('GET', pathOf(share.url)), 404, 4000);
      for (const expiresAt of ['soon', '2020-01-01T00:00:00Z']) {
        assertError(
          await server().json('POST', shares(file.id), { auth: owner.token, body: { expiresAt } }),
          400,
          1000,
          expiresAt,
        );
      }
      assertError(
        await server().json('POST', shares(file.id), { auth: owner.token, body: { maxViews: 0 } }),
        400,
        1000,
      );
    });

    it('stop with their file: a deleted file takes its links with it', async () => {
      const file = await uploadOne(server(), owner.token, 'short-lived');
      const share = await makeShare(file.id);
      assert.equal((await server().json('DELETE', `/api/user/files/${file.id}`, { auth: owner.token })).status, 200);
      assertError(await server().json('GET', pathOf(share.url)), 404, 4000);
      const left = await server().ctx.db.selectFrom('file_shares').select('id').where('id', '=', share.id).execute();
      assert.deepEqual(left, []);
    });
  });
});
