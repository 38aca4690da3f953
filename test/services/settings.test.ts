// The settings record: defaults, stored changes, environment locks, and propagation to another instance.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { sql } from 'kysely';
import { isApiError } from '../../src/lib/errors.js';
import { SettingsService } from '../../src/services/operations/settings.js';
import { forEachDatabase, startTestServer, useTestServer, withSharedState } from '../support/server.js';

forEachDatabase('SettingsService', (engine) => {
  const server = useTestServer({ engine, env: { SITE_TITLE: 'Locked Title' } });

  it('starts from defaults, with environment values locked', () => {
    const settings = server().ctx.settings;
    assert.equal(settings.get().siteTitle, 'Locked Title');
    assert.equal(settings.get().filesRoute, '/u');
    assert.deepEqual(settings.lockedKeys(), ['siteTitle']);
  });

  it('stores valid changes and refuses invalid, unknown and locked ones with 1022, all or nothing', async () => {
    const settings = server().ctx.settings;
    const updated = await settings.update({ registrationEnabled: true, filesMaxFileSize: '10mb' });
    assert.equal(updated.registrationEnabled, true);
    assert.equal(updated.filesMaxFileSize, 10 * 1024 * 1024);
    await assert.rejects(
      settings.update({ ratelimitMax: 0, nonsense: 1, siteTitle: 'x', invitesEnabled: true }),
      (err: unknown) => {
        assert.ok(isApiError(err, 1022));
        assert.match(err.message, /ratelimitMax/);
        assert.match(err.message, /nonsense: unknown setting/);
        assert.match(err.message, /siteTitle: set by the environment variable SITE_TITLE/);
        return true;
      },
    );
    assert.equal(settings.get().invitesEnabled, false, 'the valid part of a refused update is not applied');
  });

  it('reaches another instance sharing the database on refresh', async () => {
    const { ctx } = server();
    await ctx.settings.update({ registrationEnabled: true });
    const other = new SettingsService(ctx.db, ctx.clock, {});
    await other.refresh();
    assert.equal(other.get().registrationEnabled, true);
    await ctx.settings.update({ urlsLength: 9 });
    assert.equal(other.get().urlsLength, 6, 'not before refresh');
    await other.refresh();
    assert.equal(other.get().urlsLength, 9);
  });

  it('answers 4010 when the settings record is missing', async () => {
    const { ctx } = server();
    const saved = await ctx.db.selectFrom('settings').selectAll().executeTakeFirstOrThrow();
    await ctx.db.deleteFrom('settings').execute();
    try {
      await assert.rejects(ctx.settings.refresh(), (err: unknown) => isApiError(err, 4010));
      const res = await server().json('GET', '/api/setup');
      assert.equal(res.status, 404);
      assert.equal(res.body.code, 4010);
    } finally {
      await ctx.db.insertInto('settings').values(saved).execute();
      await ctx.settings.refresh();
    }
  });
});

forEachDatabase('settings across running instances', (engine) => {
  it('a change made through one instance is in force on the other within a second (PostgreSQL LISTEN/NOTIFY)', async (t) => {
    if (engine !== 'postgres') return t.skip('instances share a database on PostgreSQL');
    await withSharedState(engine, async (shared) => {
      // Test servers run no periodic jobs: only the change feed can bring the change to the second instance.
      const a = await startTestServer({ engine, ...shared, env: { INSTANCE_ID: 'one' } });
      const b = await startTestServer({ engine, ...shared, env: { INSTANCE_ID: 'two' } });
      try {
        const admin = await a.setup();
        const latencies: number[] = [];
        for (const title of ['First title', 'Second title', 'Third title']) {
          const changed = await a.json('PATCH', '/api/server/settings', {
            auth: admin.token,
            body: { siteTitle: title },
          });
          assert.equal(changed.status, 200, JSON.stringify(changed.body));
          const sent = performance.now();
          while (b.ctx.settings.get().siteTitle !== title) {
            assert.ok(performance.now() - sent < 10_000, 'the change never reached the other instance');
            await new Promise((resolve) => setTimeout(resolve, 2));
          }
          latencies.push(performance.now() - sent);
        }
        // A lost listening connection is opened again, and the change made meanwhile is picked up then.
        const cut = await sql<{ pid: number }>`select pid from pg_stat_activity
          where datname = current_database() and query like 'LISTEN chute_changes%'`.execute(a.ctx.db);
        assert.equal(cut.rows.length, 2, 'each instance listens on one connection');
        for (const { pid } of cut.rows) await sql`select pg_terminate_backend(${pid})`.execute(a.ctx.db);
        const changed = await a.json('PATCH', '/api/server/settings', {
          auth: admin.token,
          body: { siteTitle: 'After the reconnection' },
        });
        assert.equal(changed.status, 200);
        const sent = performance.now();
        while (b.ctx.settings.get().siteTitle !== 'After the reconnection') {
          assert.ok(performance.now() - sent < 10_000, 'the feed did not come back');
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        t.diagnostic(`settings reached the other instance after ${latencies.map((ms) => ms.toFixed(1)).join(', ')} ms`);
      } finally {
        await a.close();
        await b.close();
      }
    });
  });
});
