// The role rules of user administration, case by case: USER, ADMIN and SUPERADMIN acting on USER, ADMIN and
// SUPERADMIN accounts for create, edit, role change and delete, plus acting on oneself and the last SUPERADMIN.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import {
  forEachDatabase,
  startTestServer,
  useTestServer,
  type JsonResponse,
  type TestUser,
} from '../../support/server.js';
import { assertError } from '../../support/api-errors.js';
import { makeUser, NO_RATE_LIMIT, type Role } from '../../support/factory.js';

const ROLES: Role[] = ['USER', 'ADMIN', 'SUPERADMIN'];
type Outcome = 'ok' | number;

// [actor][target] -> outcome, for editing (a username change) and deleting another account.
const EDIT: Record<Role, Record<Role, Outcome>> = {
  USER: { USER: 3000, ADMIN: 3000, SUPERADMIN: 3000 },
  ADMIN: { USER: 'ok', ADMIN: 3019, SUPERADMIN: 3019 },
  SUPERADMIN: { USER: 'ok', ADMIN: 'ok', SUPERADMIN: 3019 },
};
const DELETE: Record<Role, Record<Role, Outcome>> = {
  USER: { USER: 3000, ADMIN: 3000, SUPERADMIN: 3000 },
  ADMIN: { USER: 'ok', ADMIN: 3009, SUPERADMIN: 3009 },
  SUPERADMIN: { USER: 'ok', ADMIN: 'ok', SUPERADMIN: 3009 },
};
// [actor][role created] -> outcome.
const CREATE: Record<Role, Record<Role, Outcome>> = {
  USER: { USER: 3000, ADMIN: 3000, SUPERADMIN: 3000 },
  ADMIN: { USER: 'ok', ADMIN: 3008, SUPERADMIN: 3015 },
  SUPERADMIN: { USER: 'ok', ADMIN: 'ok', SUPERADMIN: 'ok' },
};
// [actor][target][new role] -> outcome, for a role change of another account.
const ROLE_CHANGE: Record<Role, Record<Role, Record<Role, Outcome>>> = {
  USER: {
    USER: { USER: 3000, ADMIN: 3000, SUPERADMIN: 3000 },
    ADMIN: { USER: 3000, ADMIN: 3000, SUPERADMIN: 3000 },
    SUPERADMIN: { USER: 3000, ADMIN: 3000, SUPERADMIN: 3000 },
  },
  ADMIN: {
    USER: { USER: 'ok', ADMIN: 3007, SUPERADMIN: 3015 },
    ADMIN: { USER: 3019, ADMIN: 3019, SUPERADMIN: 3019 },
    SUPERADMIN: { USER: 3019, ADMIN: 3019, SUPERADMIN: 3019 },
  },
  SUPERADMIN: {
    USER: { USER: 'ok', ADMIN: 'ok', SUPERADMIN: 'ok' },
    ADMIN: { USER: 'ok', ADMIN: 'ok', SUPERADMIN: 'ok' },
    SUPERADMIN: { USER: 3019, ADMIN: 3019, SUPERADMIN: 3019 },
  },
};

function expectOutcome(res: JsonResponse, outcome: Outcome, label: string): void {
  if (outcome === 'ok') assert.equal(res.status, 200, `${label}: ${JSON.stringify(res.body)}`);
  else assertError(res, 403, outcome, label);
}

forEachDatabase('user administration: role rules', (engine) => {
  const server = useTestServer({ engine, env: NO_RATE_LIMIT });
  const actors = {} as Record<Role, TestUser>;
  let serial = 0;

  before(async () => {
    actors.SUPERADMIN = await server().setup('root', 'root-password');
    actors.ADMIN = await makeUser(server(), { by: actors.SUPERADMIN.token, username: 'the-admin', role: 'ADMIN' });
    actors.USER = await makeUser(server(), { by: actors.SUPERADMIN.token, username: 'the-user', role: 'USER' });
  });

  /** A fresh account of `role`, made by the setup SUPERADMIN. */
  async function target(role: Role): Promise<string> {
    const res = await server().json('POST', '/api/users', {
      auth: actors.SUPERADMIN.token,
      body: { username: `target-${++serial}`, password: 'target-password', role },
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.user.id;
  }

  const roleOf = async (id: string) =>
    (await server().json('GET', `/api/users/${id}`, { auth: actors.SUPERADMIN.token })).body.user?.role;

  for (const actor of ROLES) {
    for (const created of ROLES) {
      const outcome = CREATE[actor][created];
      it(`${actor} creating a ${created}: ${outcome}`, async () => {
        const username = `made-${++serial}`;
        const res = await server().json('POST', '/api/users', {
          auth: actors[actor].token,
          body: { username, password: 'made-password', role: created },
        });
        expectOutcome(res, outcome, `${actor} creates ${created}`);
        const list = await server().json('GET', `/api/users?page=1&search=${username}`, {
          auth: actors.SUPERADMIN.token,
        });
        assert.equal(list.body.total, outcome === 'ok' ? 1 : 0);
        if (outcome === 'ok') assert.equal(res.body.user.role, created);
      });
    }

    for (const targetRole of ROLES) {
      const edit = EDIT[actor][targetRole];
      it(`${actor} editing another ${targetRole}: ${edit}`, async () => {
        const id = await target(targetRole);
        const username = `renamed-${++serial}`;
        const res = await server().json('PATCH', `/api/users/${id}`, { auth: actors[actor].token, body: { username } });
        expectOutcome(res, edit, `${actor} edits ${targetRole}`);
        const after = await server().json('GET', `/api/users/${id}`, { auth: actors.SUPERADMIN.token });
        assert.equal(after.body.user.username === username, edit === 'ok');
      });

      for (const newRole of ROLES) {
        const change = ROLE_CHANGE[actor][targetRole][newRole];
        it(`${actor} changing another ${targetRole} to ${newRole}: ${change}`, async () => {
          const id = await target(targetRole);
          const res = await server().json('PATCH', `/api/users/${id}`, {
            auth: actors[actor].token,
            body: { role: newRole },
          });
          expectOutcome(res, change, `${actor} sets ${targetRole} to ${newRole}`);
          assert.equal(await roleOf(id), change === 'ok' ? newRole : targetRole);
        });
      }

      const del = DELETE[actor][targetRole];
      it(`${actor} deleting another ${targetRole}: ${del}`, async () => {
        const id = await target(targetRole);
        const res = await server().json('DELETE', `/api/users/${id}`, { auth: actors[actor].token });
        expectOutcome(res, del, `${actor} deletes ${targetRole}`);
        const after = await server().json('GET', `/api/users/${id}`, { auth: actors.SUPERADMIN.token });
        if (del === 'ok') assertError(after, 404, 4009);
        else assert.equal(after.status, 200);
      });
    }
  }

  describe('acting on oneself', () => {
    it('nobody deletes themselves: 3010 for ADMIN and SUPERADMIN (and 3000 for a USER)', async () => {
      assertError(
        await server().json('DELETE', `/api/users/${actors.SUPERADMIN.id}`, { auth: actors.SUPERADMIN.token }),
        403,
        3010,
      );
      assertError(
        await server().json('DELETE', `/api/users/${actors.ADMIN.id}`, { auth: actors.ADMIN.token }),
        403,
        3010,
      );
      assertError(
        await server().json('DELETE', `/api/users/${actors.USER.id}`, { auth: actors.USER.token }),
        403,
        3000,
      );
      assert.equal(await roleOf(actors.ADMIN.id), 'ADMIN');
    });

    it('an ADMIN edits their own profile but cannot make themselves SUPERADMIN (3015) or change their own quota (3019)', async () => {
      const me = await makeUser(server(), {
        by: actors.SUPERADMIN.token,
        username: `self-admin-${++serial}`,
        role: 'ADMIN',
      });
      const renamed = await server().json('PATCH', `/api/users/${me.id}`, {
        auth: me.token,
        body: { username: `${me.username}-x` },
      });
      assert.equal(renamed.status, 200);
      assertError(
        await server().json('PATCH', `/api/users/${me.id}`, { auth: me.token, body: { role: 'SUPERADMIN' } }),
        403,
        3015,
      );
      assertError(
        await server().json('PATCH', `/api/users/${me.id}`, { auth: me.token, body: { quota: null } }),
        403,
        3019,
      );
      assert.equal(await roleOf(me.id), 'ADMIN');
      // Stepping down is allowed, and takes effect on the next request.
      const down = await server().json('PATCH', `/api/users/${me.id}`, { auth: me.token, body: { role: 'USER' } });
      assert.equal(down.body.user.role, 'USER');
      assertError(await server().json('GET', '/api/users', { auth: me.token }), 403, 3000);
    });

    it('a SUPERADMIN sets their own quota and may step down while another SUPERADMIN remains', async () => {
      const me = await makeUser(server(), {
        by: actors.SUPERADMIN.token,
        username: `self-super-${++serial}`,
        role: 'SUPERADMIN',
      });
      const quota = await server().json('PATCH', `/api/users/${me.id}`, {
        auth: me.token,
        body: { quota: { filesQuota: 'BY_FILES', maxFiles: 3 } },
      });
      assert.equal(quota.body.user.quota.maxFiles, 3);
      const down = await server().json('PATCH', `/api/users/${me.id}`, { auth: me.token, body: { role: 'ADMIN' } });
      assert.equal(down.status, 200);
      assert.equal(down.body.user.role, 'ADMIN');
    });
  });
});

forEachDatabase('user administration: the last SUPERADMIN', (engine) => {
  const server = useTestServer({ engine, env: NO_RATE_LIMIT });

  it('cannot step down (3007), not even by asking for the same role twice; with a second one, one can', async () => {
    const root = await server().setup('root', 'root-password');
    assertError(
      await server().json('PATCH', `/api/users/${root.id}`, { auth: root.token, body: { role: 'ADMIN' } }),
      403,
      3007,
    );
    assertError(
      await server().json('PATCH', `/api/users/${root.id}`, { auth: root.token, body: { role: 'USER' } }),
      403,
      3007,
    );
    const same = await server().json('PATCH', `/api/users/${root.id}`, {
      auth: root.token,
      body: { role: 'SUPERADMIN' },
    });
    assert.equal(same.status, 200);

    const second = await makeUser(server(), { by: root.token, username: 'second', role: 'SUPERADMIN' });
    const down = await server().json('PATCH', `/api/users/${root.id}`, { auth: root.token, body: { role: 'ADMIN' } });
    assert.equal(down.body.user.role, 'ADMIN');
    assertError(
      await server().json('PATCH', `/api/users/${second.id}`, { auth: second.token, body: { role: 'USER' } }),
      403,
      3007,
    );
    // The former SUPERADMIN, now an ADMIN, can neither delete nor demote the remaining one.
    assertError(await server().json('DELETE', `/api/users/${second.id}`, { auth: root.token }), 403, 3009);
    assertError(
      await server().json('PATCH', `/api/users/${second.id}`, { auth: root.token, body: { role: 'ADMIN' } }),
      403,
      3019,
    );
  });
});

forEachDatabase('user administration: SUPERADMINs stepping down at once', (engine) => {
  it('of six SUPERADMINs all stepping down concurrently, exactly five succeed and one remains', async () => {
    const server = await startTestServer({ engine, env: NO_RATE_LIMIT });
    try {
      const root = await server.setup('root', 'root-password');
      const all = [root];
      for (let i = 0; i < 5; i++)
        all.push(await makeUser(server, { by: root.token, username: `super-${i}`, role: 'SUPERADMIN' }));
      const results = await Promise.all(
        all.map((u) => server.json('PATCH', `/api/users/${u.id}`, { auth: u.token, body: { role: 'ADMIN' } })),
      );
      assert.deepEqual(results.map((r) => r.status).sort(), [200, 200, 200, 200, 200, 403]);
      assertError(
        results.find((r) => r.status === 403)!,
        403,
        3007,
      );
      const supers = await server.json('GET', '/api/users?page=1&role=SUPERADMIN', { auth: root.token });
      // root may be the one left or have stepped down; either way exactly one SUPERADMIN exists.
      assert.equal(supers.status, 200);
      assert.equal(supers.body.total, 1);
    } finally {
      await server.close();
    }
  });
});
