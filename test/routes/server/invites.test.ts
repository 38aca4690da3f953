// Invites: admin routes (list, create with expiry and maximum uses, get by id or code, delete) and the public
// look-up the register page uses.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { ManualClock } from '../../../src/lib/clock.js';
import { forEachDatabase, useTestServer, type TestUser } from '../../support/server.js';
import { assertError } from '../../support/api-errors.js';
import { makeUser, NO_RATE_LIMIT } from '../../support/factory.js';

const DAY = 86_400_000;

forEachDatabase('invites', (engine) => {
  const clock = new ManualClock(Date.UTC(2030, 0, 1));
  const server = useTestServer({ engine, env: NO_RATE_LIMIT, clock });
  let root: TestUser;
  let admin: TestUser;
  let user: TestUser;

  const create = (body: Record<string, unknown> = {}, auth = admin.token) =>
    server().json('POST', '/api/auth/invites', { auth, body });
  const setSettings = (body: Record<string, unknown>) =>
    server().json('PATCH', '/api/server/settings', { auth: root.token, body });
  /** Invites are off by default; the tests of what they do turn them on for themselves. */
  const enableInvites = async () => {
    assert.equal((await setSettings({ invitesEnabled: true })).status, 200);
  };

  before(async () => {
    root = await server().setup('root', 'root-password');
    admin = await makeUser(server(), { by: root.token, username: 'admin', role: 'ADMIN' });
    user = await makeUser(server(), { by: root.token, username: 'user', role: 'USER' });
  });

  it('are for admins only (2002, 3000)', async () => {
    const routes: Array<[string, string]> = [
      ['GET', '/api/auth/invites'],
      ['POST', '/api/auth/invites'],
      ['GET', '/api/auth/invites/x'],
      ['DELETE', '/api/auth/invites/x'],
    ];
    for (const [method, path] of routes) {
      const body = method === 'POST' ? {} : undefined;
      assertError(await server().json(method, path, { body }), 401, 2002, `${method} ${path}`);
      assertError(await server().json(method, path, { body, auth: user.token }), 403, 3000, `${method} ${path}`);
    }
  });

  it('cannot be created or looked up while invites are disabled (1036)', async () => {
    assert.equal((await setSettings({ invitesEnabled: false })).status, 200);
    assertError(await create(), 400, 1036);
    assertError(await server().json('GET', '/api/auth/invites/web/anything'), 400, 1036);
    assert.equal((await setSettings({ invitesEnabled: true })).status, 200);
  });

  describe('create', () => {
    before(enableInvites);

    it('makes a code of settings.invitesCodeLength characters, unlimited and never expiring by default', async () => {
      const res = await create();
      assert.equal(res.status, 200);
      assert.equal(res.body.code.length, 8);
      assert.match(res.body.code, /^[a-zA-Z2-9]+$/);
      assert.deepEqual([res.body.expiresAt, res.body.maxUses, res.body.uses], [null, null, 0]);
      assert.deepEqual(res.body.inviter, { id: admin.id, username: 'admin', role: 'ADMIN' });
      assert.equal(res.body.inviterId, admin.id);
      await setSettings({ invitesCodeLength: 20 });
      assert.equal((await create()).body.code.length, 20);
      await setSettings({ invitesCodeLength: 8 });
    });

    it('stores the code only as a keyed hash and encrypted, and still finds it', async () => {
      const res = await create();
      const { code } = res.body;
      const row = await server()
        .ctx.db.selectFrom('invites')
        .selectAll()
        .where('id', '=', res.body.id)
        .executeTakeFirstOrThrow();
      assert.ok(!JSON.stringify(row).includes(code), 'the code is not in the row in clear');
      assert.equal(row.code_hash, server().ctx.secrets.hash(code));
      assert.equal(server().ctx.secrets.decrypt(row.code_enc!), code);
      const looked = await server().json('GET', `/api/auth/invites/web/${code}`);
      assert.equal(looked.status, 200);
      assert.equal(looked.body.code, code);
      const listed = await server().json('GET', '/api/auth/invites', { auth: admin.token });
      assert.equal(listed.body.find((i: { id: string }) => i.id === res.body.id)?.code, code);
    });

    it('takes expiry as a duration, an ISO date-time or "never", and maximum uses', async () => {
      const week = await create({ expiresAt: '7d', maxUses: 3 });
      assert.equal(week.body.expiresAt, new Date(clock.now() + 7 * DAY).toISOString());
      assert.equal(week.body.maxUses, 3);
      const dated = await create({ expiresAt: '2030-02-01T12:00:00Z' });
      assert.equal(dated.body.expiresAt, '2030-02-01T12:00:00.000Z');
      assert.equal((await create({ expiresAt: 'never' })).body.expiresAt, null);
    });

    it('refuses a bad or past expiry and a maximum below one with 1000', async () => {
      for (const body of [
        { expiresAt: 'soonish' },
        { expiresAt: '2029-12-31T00:00:00Z' },
        { maxUses: 0 },
        { maxUses: 1.5 },
      ]) {
        assertError(await create(body), 400, 1000, JSON.stringify(body));
      }
    });
  });

  describe('read and delete', () => {
    before(enableInvites);

    it('lists newest first, and gets one by id or by code (4005 when neither)', async () => {
      clock.advance(1000);
      const newest = await create({ maxUses: 9 });
      const list = await server().json('GET', '/api/auth/invites', { auth: admin.token });
      assert.equal(list.status, 200);
      assert.equal(list.body[0].id, newest.body.id);
      const byId = await server().json('GET', `/api/auth/invites/${newest.body.id}`, { auth: admin.token });
      assert.deepEqual(byId.body, newest.body);
      const byCode = await server().json('GET', `/api/auth/invites/${newest.body.code}`, { auth: admin.token });
      assert.deepEqual(byCode.body, newest.body);
      assertError(await server().json('GET', '/api/auth/invites/nothing-like-it', { auth: admin.token }), 404, 4005);
    });

    it('deletes by id, answering the invite; a second delete or an unknown id -> 4004', async () => {
      const invite = await create();
      const res = await server().json('DELETE', `/api/auth/invites/${invite.body.id}`, { auth: admin.token });
      assert.equal(res.status, 200);
      assert.equal(res.body.code, invite.body.code);
      assertError(
        await server().json('DELETE', `/api/auth/invites/${invite.body.id}`, { auth: admin.token }),
        404,
        4004,
      );
      assertError(await server().json('GET', `/api/auth/invites/${invite.body.id}`, { auth: admin.token }), 404, 4005);
      // Deleting by code is not a thing: codes are for registering.
      const other = await create();
      assertError(
        await server().json('DELETE', `/api/auth/invites/${other.body.code}`, { auth: admin.token }),
        404,
        4004,
      );
    });

    it('answers 6000 when the database refuses the deletion, and keeps the invite', async () => {
      const invite = await create();
      const { db } = server().ctx;
      if (engine === 'sqlite') {
        await sql`create trigger refuse_invite_delete before delete on invites begin select raise(abort, 'refused'); end`.execute(
          db,
        );
      } else {
        await sql`create function refuse_invite_delete() returns trigger as $$ begin raise exception 'refused'; end $$ language plpgsql`.execute(
          db,
        );
        await sql`create trigger refuse_invite_delete before delete on invites for each row execute function refuse_invite_delete()`.execute(
          db,
        );
      }
      try {
        assertError(
          await server().json('DELETE', `/api/auth/invites/${invite.body.id}`, { auth: admin.token }),
          500,
          6000,
        );
      } finally {
        if (engine === 'sqlite') await sql`drop trigger refuse_invite_delete`.execute(db);
        else await sql`drop trigger refuse_invite_delete on invites`.execute(db);
      }
      assert.equal(
        (await server().json('GET', `/api/auth/invites/${invite.body.id}`, { auth: admin.token })).status,
        200,
      );
      assert.equal(
        (await server().json('DELETE', `/api/auth/invites/${invite.body.id}`, { auth: admin.token })).status,
        200,
      );
    });
  });

  describe('public look-up', () => {
    before(enableInvites);

    it('tells anyone whether a code can be used, without naming the inviter', async () => {
      const invite = await create({ expiresAt: '1d', maxUses: 2 });
      const res = await server().json('GET', `/api/auth/invites/web/${invite.body.code}`);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, { code: invite.body.code, expiresAt: invite.body.expiresAt, maxUses: 2, uses: 0 });
      assertError(await server().json('GET', '/api/auth/invites/web/unknown-code'), 404, 4005);
    });

    it('answers 1035 for an expired or used-up code', async () => {
      const expiring = await create({ expiresAt: '1h' });
      const once = await create({ maxUses: 1 });
      await setSettings({ registrationEnabled: false });
      const registered = await server().json('POST', '/api/auth/register', {
        body: { username: 'by-invite', password: 'pw-long-enough', code: once.body.code },
      });
      assert.equal(registered.status, 200);
      assertError(await server().json('GET', `/api/auth/invites/web/${once.body.code}`), 400, 1035);
      const used = await server().json('GET', `/api/auth/invites/${once.body.id}`, { auth: admin.token });
      assert.equal(used.body.uses, 1);
      clock.advance(3_600_001);
      assertError(await server().json('GET', `/api/auth/invites/web/${expiring.body.code}`), 400, 1035);
    });
  });
});
