import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError, environmentWithEnvFile, loadConfig } from '../src/config.js';
import { settingsFromEnv } from '../src/services/operations/settings.js';

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

  /** The refusal names every kind of value TRUST_PROXY takes, each with an example that it indeed takes. */
  const assertNamesAcceptedValues = (message: string) => {
    assert.match(message, /takes false \(none\)/);
    assert.match(message, /the number of proxies in front of Chute \(e\.g\. 1\)/);
    assert.match(message, /their addresses or CIDRs, comma-separated \(e\.g\. 127\.0\.0\.1,10\.0\.0\.0\/8;/);
    assert.match(message, /loopback, linklocal, uniquelocal/);
    for (const example of ['false', '1', '127.0.0.1,10.0.0.0/8', 'loopback,linklocal,uniquelocal']) {
      assert.doesNotThrow(() => loadConfig({ TRUST_PROXY: example }), example);
    }
  };

  it('refuses a bare true (every hop trusted), saying why and which values it takes', () => {
    for (const value of ['true', 'yes']) {
      assert.throws(
        () => loadConfig({ TRUST_PROXY: value }),
        (err: unknown) => {
          assert.ok(err instanceof ConfigError);
          assert.match(err.message, new RegExp(`TRUST_PROXY="${value}": .*choose its own address`));
          assertNamesAcceptedValues(err.message);
          return true;
        },
      );
    }
  });

  it('refuses what is not an address or CIDR, saying which values it takes', () => {
    assert.throws(() => loadConfig({ TRUST_PROXY: '10.0.0.0/33' }), /not an address: 10\.0\.0\.0\/33/);
    assert.throws(
      () => loadConfig({ TRUST_PROXY: 'proxy.local' }),
      (err: unknown) => {
        assert.ok(err instanceof ConfigError);
        assert.match(err.message, /not an address: proxy\.local/);
        assertNamesAcceptedValues(err.message);
        return true;
      },
    );
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

describe('SHUTDOWN_DRAIN_DELAY', () => {
  it('defaults to 0 and must stay below SHUTDOWN_TIMEOUT', () => {
    assert.equal(loadConfig({}).SHUTDOWN_DRAIN_DELAY, 0);
    assert.equal(loadConfig({ SHUTDOWN_DRAIN_DELAY: '5', SHUTDOWN_TIMEOUT: '20' }).SHUTDOWN_DRAIN_DELAY, 5);
    assert.throws(
      () => loadConfig({ SHUTDOWN_DRAIN_DELAY: '20', SHUTDOWN_TIMEOUT: '20' }),
      (err: unknown) =>
        err instanceof ConfigError && /SHUTDOWN_DRAIN_DELAY="20": must be less than SHUTDOWN_TIMEOUT/.test(err.message),
    );
  });
});

describe('environmentWithEnvFile', () => {
  it('reads .env in the folder, the environment winning; CHUTE_ENV_FILE names another file', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'chute-env-'));
    try {
      assert.deepEqual(environmentWithEnvFile({ PORT: '1' }, dir), { PORT: '1' });
      await writeFile(path.join(dir, '.env'), '# comment\nPORT=2\nDATA_DIR="/srv/chute data"\n');
      assert.deepEqual(environmentWithEnvFile({ PORT: '1' }, dir), { PORT: '1', DATA_DIR: '/srv/chute data' });
      await writeFile(path.join(dir, 'other.env'), 'LOG_LEVEL=warn\n');
      assert.deepEqual(environmentWithEnvFile({ CHUTE_ENV_FILE: 'other.env' }, dir), {
        CHUTE_ENV_FILE: 'other.env',
        LOG_LEVEL: 'warn',
      });
      assert.throws(
        () => environmentWithEnvFile({ CHUTE_ENV_FILE: 'missing.env' }, dir),
        (err: unknown) => err instanceof ConfigError && /CHUTE_ENV_FILE=.*missing\.env.*ENOENT/.test(err.message),
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
