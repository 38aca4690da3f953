// Server settings over HTTP: admins read and change them (taking effect at once), the environment locks keys, and
// the public subset for login and register pages.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { SETTING_DEFINITIONS, SETTING_KEYS } from '../../../src/services/operations/settings.js';
import { forEachDatabase, useTestServer, type TestUser } from '../../support/server.js';
import { assertError } from '../../support/api-errors.js';
import { makeUser, NO_RATE_LIMIT } from '../../support/factory.js';

/** The chunked-upload settings of GET /api/server/public by default (test/routes/uploads/chunk-settings.test.ts tests them). */
const DEFAULT_CHUNKS = { chunksEnabled: true, chunksThreshold: 95 * 1024 ** 2, chunksSize: 25 * 1024 ** 2 };
/** The upload page's default for links without the extension (test/routes/files/extensionless-links.test.ts). */
const DEFAULT_LINKS = { filesExtensionlessUrls: false };
/** The second-factor switches of GET /api/server/public by default (the sign-in and settings pages read them). */
const DEFAULT_MFA = { mfaTotpEnabled: true, mfaPasskeys: true };
const DEFAULT_PASSWORDS = { passwordMinLength: 8, passwordMaxLength: 1024 };
/** The upload page's keep-original-name default (test/routes/uploads/upload-original-name.test.ts tests it). */
const DEFAULT_NAMES = { filesKeepOriginalName: true };

forEachDatabase('server settings', (engine) => {
  const server = useTestServer({ engine, env: { ...NO_RATE_LIMIT, URLS_LENGTH: '9' } });
  let root: TestUser;
  let admin: TestUser;
  let user: TestUser;

  const patch = (body: unknown, auth = admin.token) => server().json('PATCH', '/api/server/settings', { auth, body });

  it('GET /api/server/public answers firstSetup true before setup, without logging in', async () => {
    const res = await server().json('GET', '/api/server/public');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, {
      siteTitle: 'Chute',
      registrationEnabled: false,
      invitesEnabled: false,
      firstSetup: true,
      ...DEFAULT_CHUNKS,
      ...DEFAULT_NAMES,
      ...DEFAULT_LINKS,
      oauthProviders: [],
      ...DEFAULT_MFA,
      ...DEFAULT_PASSWORDS,
    });
  });

  describe('after setup', () => {
    before(async () => {
      root = await server().setup('root', 'root-password');
      admin = await makeUser(server(), { by: root.token, username: 'admin', role: 'ADMIN' });
      user = await makeUser(server(), { by: root.token, username: 'user', role: 'USER' });
    });

    it('are for admins only (2002, 3000)', async () => {
      for (const method of ['GET', 'PATCH']) {
        const body = method === 'PATCH' ? { siteTitle: 'x' } : undefined;
        assertError(await server().json(method, '/api/server/settings', { body }), 401, 2002);
        assertError(await server().json(method, '/api/server/settings', { body, auth: user.token }), 403, 3000);
      }
      assert.equal(
        (await server().json('GET', '/api/server/settings', { auth: admin.token })).body.settings.siteTitle,
        'Chute',
      );
    });

    it('GET answers every setting, the keys the environment locks, and what each key means', async () => {
      const res = await server().json('GET', '/api/server/settings', { auth: admin.token });
      assert.equal(res.status, 200);
      assert.deepEqual(Object.keys(res.body.settings).sort(), [...SETTING_KEYS].sort());
      assert.equal(res.body.settings.urlsLength, 9);
      assert.equal(res.body.settings.filesMaxFileSize, 1024 ** 3);
      assert.deepEqual(res.body.settings.filesDisabledExtensions, []);
      assert.equal(res.body.settings.filesDefaultExpiration, null);
      assert.deepEqual([...res.body.locked].sort(), ['ratelimitEnabled', 'urlsLength']);
      assert.deepEqual(res.body.fields.registrationEnabled, {
        description: SETTING_DEFINITIONS.registrationEnabled.description,
        env: 'REGISTRATION_ENABLED',
        default: false,
      });
      // Every key says its default, as the definitions hold it (the settings page shows it in words).
      for (const key of SETTING_KEYS) {
        assert.deepEqual(res.body.fields[key].default, SETTING_DEFINITIONS[key].default, key);
      }
      assert.equal(res.body.fields.filesMaxFileSize.default, 1024 ** 3);
    });

    it('PATCH stores changes that take effect at once, and answers the new settings', async () => {
      const res = await patch({
        siteTitle: 'Team Files',
        registrationEnabled: true,
        filesMaxFileSize: '10mb',
        filesDisabledExtensions: ['.EXE', 'bat'],
      });
      assert.equal(res.status, 200);
      assert.equal(res.body.settings.siteTitle, 'Team Files');
      assert.equal(res.body.settings.filesMaxFileSize, 10 * 1024 * 1024);
      assert.deepEqual(res.body.settings.filesDisabledExtensions, ['exe', 'bat']);
      assert.equal(server().ctx.settings.get().filesMaxFileSize, 10 * 1024 * 1024);
      const pub = await server().json('GET', '/api/server/public');
      assert.deepEqual(pub.body, {
        siteTitle: 'Team Files',
        registrationEnabled: true,
        invitesEnabled: false,
        firstSetup: false,
        ...DEFAULT_CHUNKS,
        ...DEFAULT_NAMES,
        ...DEFAULT_LINKS,
        oauthProviders: [],
        ...DEFAULT_MFA,
        ...DEFAULT_PASSWORDS,
      });
      const registered = await server().json('POST', '/api/auth/register', {
        body: { username: 'walk-in', password: 'pw-long-enough' },
      });
      assert.equal(registered.status, 200);
      // Only what was sent changes.
      const again = await patch({ registrationEnabled: false });
      assert.equal(again.body.settings.siteTitle, 'Team Files');
      assertError(
        await server().json('POST', '/api/auth/register', {
          body: { username: 'walk-in-2', password: 'pw-long-enough' },
        }),
        400,
        1037,
      );
      // Back to the defaults the other tests of this suite read.
      const reset = await patch({ siteTitle: 'Chute', filesMaxFileSize: '1gb', filesDisabledExtensions: [] });
      assert.equal(reset.status, 200);
    });

    it('PATCH refuses bad values, unknown keys and locked keys together with 1022, storing nothing', async () => {
      const before = await server().json('GET', '/api/server/settings', { auth: admin.token });
      const res = await patch({
        ratelimitMax: 0,
        filesRoute: '/api',
        nonsense: true,
        urlsLength: 5,
        siteTitle: 'Never',
      });
      assertError(res, 400, 1022);
      const issues = (res.body.issues as string[]).join('\n');
      for (const key of [
        'ratelimitMax',
        'filesRoute',
        'nonsense: unknown setting',
        'urlsLength: set by the environment variable URLS_LENGTH',
      ]) {
        assert.match(issues, new RegExp(key));
      }
      assert.doesNotMatch(issues, /siteTitle/);
      const after = await server().json('GET', '/api/server/settings', { auth: admin.token });
      assert.deepEqual(after.body.settings, before.body.settings);
      assert.notEqual(after.body.settings.siteTitle, 'Never');
      assertError(await patch([1, 2]), 400, 1000);
    });
  });
});

forEachDatabase('server settings without their record', (engine) => {
  const server = useTestServer({ engine, env: NO_RATE_LIMIT });

  it('answer 4010 when the settings record is gone', async () => {
    const root = await server().setup('root', 'root-password');
    await server().ctx.db.deleteFrom('settings').execute();
    assertError(await server().json('GET', '/api/server/settings', { auth: root.token }), 404, 4010);
    assertError(
      await server().json('PATCH', '/api/server/settings', { auth: root.token, body: { siteTitle: 'x' } }),
      404,
      4010,
    );
    assertError(await server().json('GET', '/api/server/public'), 404, 4010);
  });
});
