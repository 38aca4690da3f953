// The filesKeepOriginalName setting (on by default): an upload without x-service-original-name keeps the client's
// file name as originalName, on every way in (POST /api/upload, chunks through /api/upload/partial, tus); an explicit
// header (or its Zipline name) wins both ways; GET /api/server/public tells the dashboard the default.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { SETTING_DEFINITIONS, settingsFromEnv } from '../../../src/services/operations/settings.js';
import { createTestUser } from '../../support/content.js';
import { uploadInChunks, waitForAssembly } from '../../support/chunked-uploads.js';
import { NO_RATE_LIMIT } from '../../support/factory.js';
import { forEachDatabase, useTestServer, type TestServer, type TestUser } from '../../support/server.js';
import { tusUpload } from '../../support/tus.js';
import { upload } from '../../support/uploads.js';

describe('filesKeepOriginalName', () => {
  it('is on by default and read from FILES_KEEP_ORIGINAL_NAME', () => {
    assert.equal(SETTING_DEFINITIONS.filesKeepOriginalName.default, true);
    assert.equal(SETTING_DEFINITIONS.filesKeepOriginalName.env, 'FILES_KEEP_ORIGINAL_NAME');
    assert.deepEqual(settingsFromEnv({ FILES_KEEP_ORIGINAL_NAME: 'false' }), { filesKeepOriginalName: false });
    assert.deepEqual(settingsFromEnv({ FILES_KEEP_ORIGINAL_NAME: 'true' }), { filesKeepOriginalName: true });
  });
});

/** The three ways a file goes up, each answering the stored file's originalName. */
type Uploader = (server: TestServer, auth: string, name: string, headers: Record<string, string>) => Promise<unknown>;

async function storedOriginalName(server: TestServer, id: string): Promise<string | null> {
  const row = await server.ctx.db
    .selectFrom('files')
    .select('original_name')
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  return row.original_name;
}

const UPLOADS: Record<string, Uploader> = {
  'POST /api/upload': async (server, auth, name, headers) => {
    const res = await upload(server, auth, [{ name, content: 'one request', type: 'text/plain' }], headers);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const answered = res.body.files[0].originalName as string | null;
    assert.equal(await storedOriginalName(server, res.body.files[0].id), answered);
    return answered;
  },
  'POST /api/upload/partial': async (server, auth, name, headers) => {
    const res = await uploadInChunks(server, auth, Buffer.from('hello chunked world'), [7, 7], {
      headers,
      fileName: name,
      type: 'text/plain',
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const record = await waitForAssembly(server, auth, res.body.incompleteFileId);
    assert.equal(record.status, 'COMPLETE');
    const stored = await storedOriginalName(server, record.fileId!);
    assert.equal(res.body.files[0].originalName, stored);
    return stored;
  },
  tus: async (server, auth, name, headers) => {
    const run = await tusUpload(server, auth, Buffer.from('resumable bytes'), {
      metadata: { filename: name, filetype: 'text/plain' },
      headers,
    });
    return storedOriginalName(server, run.fileId!);
  },
};

forEachDatabase('uploads keep their original names', (engine) => {
  const server = useTestServer({ engine, env: NO_RATE_LIMIT });
  let admin: TestUser;
  let user: TestUser;
  const setKeep = async (value: boolean) => {
    const res = await server().json('PATCH', '/api/server/settings', {
      auth: admin.token,
      body: { filesKeepOriginalName: value },
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
  };
  const publicDefault = async () =>
    (await server().json('GET', '/api/server/public')).body.filesKeepOriginalName as boolean;

  before(async () => {
    admin = await server().setup();
    user = await createTestUser(server(), 'namer');
  });

  it('GET /api/server/public says the default: on, then what an admin sets', async () => {
    assert.equal(await publicDefault(), true);
    await setKeep(false);
    try {
      assert.equal(await publicDefault(), false);
    } finally {
      await setKeep(true);
    }
    assert.equal(await publicDefault(), true);
  });

  for (const [kind, send] of Object.entries(UPLOADS)) {
    it(`${kind}: kept without a header by default; x-service-original-name: false drops it`, async () => {
      assert.equal(await send(server(), user.token, 'Holiday notes (été).txt', {}), 'Holiday notes (été).txt');
      assert.equal(await send(server(), user.token, 'dropped.txt', { 'x-service-original-name': 'false' }), null);
      assert.equal(await send(server(), user.token, 'zipline.txt', { 'x-zipline-original-name': 'false' }), null);
    });

    it(`${kind}: with the setting off, dropped without a header; x-service-original-name: true keeps it`, async () => {
      await setKeep(false);
      try {
        assert.equal(await send(server(), user.token, 'plain.txt', {}), null);
        assert.equal(await send(server(), user.token, 'asked.txt', { 'x-service-original-name': 'true' }), 'asked.txt');
        assert.equal(
          await send(server(), user.token, 'zipline.txt', { 'x-zipline-original-name': 'true' }),
          'zipline.txt',
        );
      } finally {
        await setKeep(true);
      }
    });
  }
});
