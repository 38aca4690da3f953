// Migration 0014 on a database that has what it changes: usernames that are the same name to a reader, and invite
// codes stored in clear. After it (and the start-up that seals the codes) every account still signs in with its
// exact name, the oldest keeps the plain key, and the codes work while no longer stored in clear.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hashPassword } from '../../src/lib/security/passwords.js';
import { withDatabaseBefore } from '../support/old-database.js';

describe('migration 0014 (username keys, invite code hashes)', () => {
  for (const engine of ['sqlite', 'postgres'] as const) {
    it(`keeps every account reachable and seals the invite codes [${engine}]`, async (t) => {
      if (engine === 'postgres' && !process.env.TEST_DATABASE_URL) return t.skip('TEST_DATABASE_URL is not set');
      await withDatabaseBefore(
        engine,
        '0014',
        async (old) => {
          const db = old as any;
          const password = await hashPassword('same-password');
          const base = { password, avatar: null, view: '{}', token_enc: 'x', totp_secret: null, updated_at: 1 };
          await db
            .insertInto('users')
            .values([
              { ...base, id: 'u-young', username: 'Admin', role: 'USER', token_hash: 'h1', created_at: 2000 },
              { ...base, id: 'u-old', username: 'admin', role: 'SUPERADMIN', token_hash: 'h2', created_at: 1000 },
            ])
            .execute();
          await db
            .insertInto('invites')
            .values({ id: 'i-1', code: 'OldCode42', inviter_id: 'u-old', uses: 0, created_at: 1, updated_at: 1 })
            .execute();
        },
        async (server) => {
          const users = await server.ctx.db
            .selectFrom('users')
            .select(['id', 'username_key'])
            .orderBy('created_at')
            .execute();
          assert.deepEqual(users, [
            { id: 'u-old', username_key: 'admin' },
            { id: 'u-young', username_key: 'admin#u-young' },
          ]);
          for (const [typed, id] of [
            ['admin', 'u-old'],
            ['Admin', 'u-young'],
            ['ADMIN', 'u-old'],
          ]) {
            const res = await server.json('POST', '/api/auth/login', {
              body: { username: typed, password: 'same-password' },
            });
            assert.equal(res.status, 200, JSON.stringify(res.body));
            assert.equal(res.body.user.id, id, typed);
          }

          const invite = await server.ctx.db.selectFrom('invites').selectAll().executeTakeFirstOrThrow();
          assert.ok(!JSON.stringify(invite).includes('OldCode42'), 'the code is no longer stored in clear');
          assert.equal(invite.code_hash, server.ctx.secrets.hash('OldCode42'));
          await server.json('PATCH', '/api/server/settings', {
            auth: await server.login('admin', 'same-password'),
            body: { invitesEnabled: true },
          });
          const looked = await server.json('GET', '/api/auth/invites/web/OldCode42');
          assert.equal(looked.status, 200, JSON.stringify(looked.body));
          const listed = await server.json('GET', '/api/auth/invites', {
            auth: await server.login('admin', 'same-password'),
          });
          assert.equal(listed.body[0].code, 'OldCode42');
        },
      );
    });
  }
});
