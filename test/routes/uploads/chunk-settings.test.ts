// The chunked-upload settings the dashboard's upload page follows (chunksEnabled, chunksThreshold, chunksSize): their
// defaults, environment overrides that lock them, admin changes, GET /api/server/public carrying them, and the
// server taking a chunk of the default chunk size whole.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { settingsFromEnv } from '../../../src/services/operations/settings.js';
import { forEachDatabase, useTestServer, type TestUser } from '../../support/server.js';
import { uploadAndVerify } from '../../support/chunked-uploads.js';
import { assertError } from '../../support/api-errors.js';
import { NO_RATE_LIMIT } from '../../support/factory.js';

const MB = 1024 ** 2;

describe('chunk settings from the environment', () => {
  it('read byte sizes and refuse a chunk size outside 64kb..1gb, naming the variable', () => {
    assert.deepEqual(settingsFromEnv({ CHUNKS_ENABLED: 'no', CHUNKS_THRESHOLD: '4mb', CHUNKS_SIZE: '1048576' }), {
      chunksEnabled: false,
      chunksThreshold: 4 * MB,
      chunksSize: MB,
    });
    assert.throws(() => settingsFromEnv({ CHUNKS_SIZE: '1kb' }), /CHUNKS_SIZE="1kb": must be between 64 KiB and 1 GiB/);
    assert.throws(() => settingsFromEnv({ CHUNKS_SIZE: '2gb' }), /CHUNKS_SIZE/);
    assert.throws(() => settingsFromEnv({ CHUNKS_THRESHOLD: 'big' }), /CHUNKS_THRESHOLD="big": must be a byte size/);
  });
});

forEachDatabase('chunk settings', (engine) => {
  const server = useTestServer({ engine, env: NO_RATE_LIMIT });
  let root: TestUser;
  const publicInfo = async () => (await server().json('GET', '/api/server/public')).body;

  before(async () => {
    root = await server().setup('root', 'root-password');
  });

  it('default to chunks of 25 MiB for files over 95 MiB, shown to everyone in GET /api/server/public', async () => {
    const pub = await publicInfo();
    assert.equal(pub.chunksEnabled, true);
    assert.equal(pub.chunksThreshold, 95 * MB);
    assert.equal(pub.chunksSize, 25 * MB);
    const admin = await server().json('GET', '/api/server/settings', { auth: root.token });
    assert.equal(admin.body.settings.chunksSize, 25 * MB);
    assert.equal(admin.body.fields.chunksThreshold.env, 'CHUNKS_THRESHOLD');
    assert.equal(admin.body.fields.chunksSize.env, 'CHUNKS_SIZE');
    assert.equal(admin.body.fields.chunksEnabled.env, 'CHUNKS_ENABLED');
  });

  it('are changed by an admin as byte sizes and take effect at once; bad values are refused with 1022', async () => {
    const res = await server().json('PATCH', '/api/server/settings', {
      auth: root.token,
      body: { chunksThreshold: '10mb', chunksSize: '2mb', chunksEnabled: false },
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const pub = await publicInfo();
    assert.deepEqual([pub.chunksEnabled, pub.chunksThreshold, pub.chunksSize], [false, 10 * MB, 2 * MB]);

    const bad = await server().json('PATCH', '/api/server/settings', {
      auth: root.token,
      body: { chunksSize: '16kb', chunksThreshold: 'a lot' },
    });
    assertError(bad, 400, 1022);
    const issues = (bad.body.issues as string[]).join('\n');
    assert.match(issues, /chunksSize: must be between 64 KiB and 1 GiB/);
    assert.match(issues, /chunksThreshold: must be a byte size/);
    assert.equal((await publicInfo()).chunksSize, 2 * MB, 'nothing was stored');
  });

  it('a chunk of the default chunk size (25 MiB) is taken whole, and the file is served byte for byte', async () => {
    const file = randomBytes(25 * MB + 4096);
    const { answer } = await uploadAndVerify(server(), root.token, file, [25 * MB]);
    assert.equal(answer.files[0].size, file.length);
  });
});

forEachDatabase('chunk settings locked by the environment', (engine) => {
  const server = useTestServer({
    engine,
    env: { ...NO_RATE_LIMIT, CHUNKS_ENABLED: 'false', CHUNKS_THRESHOLD: '4mb', CHUNKS_SIZE: '1mb' },
  });

  it('are shown in GET /api/server/public, listed as locked, and cannot be changed through the API', async () => {
    const root = await server().setup('root', 'root-password');
    const pub = (await server().json('GET', '/api/server/public')).body;
    assert.deepEqual([pub.chunksEnabled, pub.chunksThreshold, pub.chunksSize], [false, 4 * MB, MB]);
    const settings = await server().json('GET', '/api/server/settings', { auth: root.token });
    for (const key of ['chunksEnabled', 'chunksThreshold', 'chunksSize'])
      assert.ok(settings.body.locked.includes(key), key);
    const res = await server().json('PATCH', '/api/server/settings', { auth: root.token, body: { chunksSize: '2mb' } });
    assertError(res, 400, 1022);
    assert.match((res.body.issues as string[]).join('\n'), /chunksSize: set by the environment variable CHUNKS_SIZE/);
  });
});
