// The settings record: defaults, stored changes, environment locks, and propagation to another instance.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { isApiError } from '../../src/lib/errors.js';
import { SettingsService } from '../../src/services/settings.js';
import { forEachDatabase, useTestServer } from '../support/server.js';

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
