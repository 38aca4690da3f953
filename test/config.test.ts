import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../src/config.js';
import { settingsFromEnv } from '../src/services/settings.js';

describe('loadConfig', () => {
  it('has working defaults with nothing set', () => {
    const config = loadConfig({});
    assert.equal(config.PORT, 3000);
    assert.equal(config.HOST, '0.0.0.0');
    assert.equal(config.DATA_DIR, './data');
    assert.equal(config.DATABASE_URL, undefined);
    assert.equal(config.SECRET, undefined);
    assert.equal(config.TRUST_PROXY, false);
    assert.equal(config.JSON_BODY_LIMIT, 2 * 1024 * 1024);
  });

  it('reads values, treating empty strings as unset', () => {
    const config = loadConfig({
      PORT: '8080',
      DATABASE_URL: 'postgres://u@h/db',
      TRUST_PROXY: '1',
      JSON_BODY_LIMIT: '64kb',
      SECRET: '',
    });
    assert.equal(config.PORT, 8080);
    assert.equal(config.DATABASE_URL, 'postgres://u@h/db');
    assert.equal(config.TRUST_PROXY, 1);
    assert.equal(config.JSON_BODY_LIMIT, 65536);
    assert.equal(config.SECRET, undefined);
  });

  it('reports every bad value with its variable name, one line each', () => {
    try {
      loadConfig({
        PORT: 'eighty',
        DATABASE_URL: 'mysql://x',
        SECRET: 'short',
        TRUST_PROXY: 'maybe',
        JSON_BODY_LIMIT: 'lots',
      });
      assert.fail('should have thrown');
    } catch (err) {
      assert.ok(err instanceof ConfigError);
      const names = err.problems.map((p) => p.split('=')[0]).sort();
      assert.deepEqual(names, ['DATABASE_URL', 'JSON_BODY_LIMIT', 'PORT', 'SECRET', 'TRUST_PROXY']);
      assert.match(err.message, /SECRET="short": must be at least 32 characters/);
    }
  });
});

describe('TRUST_PROXY', () => {
  it('takes a hop count, or proxy addresses and CIDRs', () => {
    assert.equal(loadConfig({ TRUST_PROXY: '2' }).TRUST_PROXY, 2);
    assert.equal(loadConfig({ TRUST_PROXY: 'false' }).TRUST_PROXY, false);
    assert.deepEqual(loadConfig({ TRUST_PROXY: '127.0.0.1, 10.0.0.0/8,::1,loopback' }).TRUST_PROXY, [
      '127.0.0.1',
      '10.0.0.0/8',
      '::1',
      'loopback',
    ]);
  });

  it('refuses a bare true (every hop trusted), saying why and what to give instead', () => {
    for (const value of ['true', 'yes']) {
      assert.throws(
        () => loadConfig({ TRUST_PROXY: value }),
        (err: unknown) =>
          err instanceof ConfigError && /TRUST_PROXY=.*choose its own address.*number of proxies/.test(err.message),
      );
    }
  });

  it('refuses what is not an address or CIDR', () => {
    assert.throws(() => loadConfig({ TRUST_PROXY: '10.0.0.0/33' }), /not an address: 10\.0\.0\.0\/33/);
    assert.throws(() => loadConfig({ TRUST_PROXY: 'proxy.local' }), /not an address: proxy\.local/);
  });
});

describe('settings from the environment', () => {
  it('parses each kind of setting and locks it', () => {
    const locked = settingsFromEnv({
      REGISTRATION_ENABLED: 'true',
      FILES_MAX_FILE_SIZE: '2gb',
      FILES_DISABLED_EXTENSIONS: 'exe, .BAT',
      FILES_DEFAULT_EXPIRATION: 'never',
      RATELIMIT_MAX: '5',
      FILES_ROUTE: '/f',
    });
    assert.deepEqual(locked, {
      registrationEnabled: true,
      filesMaxFileSize: 2 * 1024 ** 3,
      filesDisabledExtensions: ['exe', 'bat'],
      filesDefaultExpiration: null,
      ratelimitMax: 5,
      filesRoute: '/f',
    });
  });

  it('stops on a bad value naming the variable', () => {
    assert.throws(
      () => settingsFromEnv({ RATELIMIT_MAX: 'many', FILES_ROUTE: '/api' }),
      (err: Error) => {
        assert.match(err.message, /RATELIMIT_MAX="many"/);
        assert.match(err.message, /FILES_ROUTE="\/api": is reserved/);
        return true;
      },
    );
  });
});
