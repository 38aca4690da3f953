// Zipline clients keep working: every upload and shortening option header is also accepted under its x-zipline-*
// name (the x-service-* one wins when both come), so a ShareX or Flameshot config made for Zipline works after changing
// only the host and the token.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { ManualClock } from '../../src/lib/clock.js';
import { createTestUser, insertTestFolder } from '../support/content.js';
import { sendChunk, waitForAssembly } from '../support/chunked-uploads.js';
import { forEachDatabase, useTestServer, type TestUser } from '../support/server.js';
import { upload } from '../support/uploads.js';

const UUID_NAME = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.png$/;

forEachDatabase('compat: x-zipline-* headers', (engine) => {
  const clock = new ManualClock(Date.parse('2031-05-01T08:00:00Z'));
  const server = useTestServer({ engine, clock });
  let user: TestUser;
  before(async () => {
    await server().setup();
    user = await createTestUser(server(), 'from-zipline');
  });

  const fileOf = async (id: string) => (await server().json('GET', `/api/user/files/${id}`, { auth: user.token })).body;

  it('an upload shaped like a Zipline ShareX config: format, max views, expiry, original name, folder', async () => {
    const folderId = await insertTestFolder(server(), user.id, 'screenshots');
    // What Zipline's ShareX generator writes: the token as authorization, the options as x-zipline-* headers.
    const res = await upload(server(), user.token, [{ name: 'Screenshot 1.png', content: 'png', type: 'image/png' }], {
      'x-zipline-format': 'uuid',
      'x-zipline-max-views': '3',
      'x-zipline-deletes-at': '1d',
      'x-zipline-original-name': 'true',
      'x-zipline-folder': folderId,
      'x-zipline-password': 'hunter2',
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const answered = res.body.files[0];
    assert.match(answered.name, UUID_NAME);
    assert.equal(res.body.deletesAt, new Date(clock.now() + 86_400_000).toISOString());
    const file = await fileOf(answered.id);
    assert.equal(file.maxViews, 3);
    assert.equal(file.originalName, 'Screenshot 1.png');
    assert.equal(file.folderId, folderId);
    assert.equal(file.password, true);
  });

  it('x-zipline-no-json, -domain, -filename and -file-extension', async () => {
    const res = await upload(server(), user.token, [{ name: 'a.txt', content: 'text', type: 'text/plain' }], {
      'x-zipline-no-json': 'true',
      'x-zipline-domain': 'files.example.com',
      'x-zipline-filename': 'my-name',
      'x-zipline-file-extension': 'md',
    });
    assert.equal(res.status, 200);
    assert.equal(typeof res.body, 'string');
    assert.match(res.body.trim(), /^https?:\/\/files\.example\.com\/u\/my-name\.md$/);
  });

  it('a bad x-zipline-* value is refused like its x-service-* name (400/1001)', async () => {
    const res = await upload(server(), user.token, [{ name: 'a.txt', content: 'a' }], {
      'x-zipline-max-views': 'lots',
    });
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 1001);
  });

  it('when both names come, the x-service-* header wins', async () => {
    const res = await upload(server(), user.token, [{ name: 'shot.png', content: 'png', type: 'image/png' }], {
      'x-service-format': 'uuid',
      'x-zipline-format': 'date',
      'x-service-max-views': '5',
      'x-zipline-max-views': '2',
      'x-service-deletes-at': 'never',
      'x-zipline-deletes-at': '1h',
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.match(res.body.files[0].name, UUID_NAME);
    const file = await fileOf(res.body.files[0].id);
    assert.equal(file.maxViews, 5);
    assert.equal(file.deletesAt, null);
  });

  it('chunked uploads take the x-zipline-p-* headers', async () => {
    const bytes = Buffer.from('chunked from a Zipline client');
    const res = await sendChunk(server(), user.token, {
      file: bytes,
      start: 0,
      end: bytes.length - 1,
      fileName: 'z.txt',
      type: 'text/plain',
      headers: {
        'x-service-p-content-length': undefined,
        'x-service-p-content-type': undefined,
        'x-service-p-filename': undefined,
        'x-service-p-lastchunk': undefined,
        'x-zipline-p-content-length': String(bytes.length),
        'x-zipline-p-content-type': 'text/plain',
        'x-zipline-p-filename': 'z.txt',
        'x-zipline-p-lastchunk': 'true',
        'x-zipline-max-views': '7',
      },
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const record = await waitForAssembly(server(), user.token, res.body.incompleteFileId);
    assert.equal(record.status, 'COMPLETE');
    const file = await fileOf(record.fileId!);
    assert.equal(file.maxViews, 7);
    assert.equal(file.size, bytes.length);
  });

  it('shortening: x-zipline-max-views, -password, -domain and -no-json; x-service-* wins over them', async () => {
    const res = await server().json('POST', '/api/user/urls', {
      auth: user.token,
      body: { destination: 'https://example.com/zipline' },
      headers: { 'x-zipline-max-views': '4', 'x-zipline-password': 'pw', 'x-zipline-domain': 'go.example.com' },
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.maxViews, 4);
    assert.equal(res.body.passwordProtected, true);
    assert.match(res.body.url, /^https?:\/\/go\.example\.com\//);

    const both = await server().json('POST', '/api/user/urls', {
      auth: user.token,
      body: { destination: 'https://example.com/both' },
      headers: { 'x-service-max-views': '9', 'x-zipline-max-views': '1' },
    });
    assert.equal(both.body.maxViews, 9);

    const text = await server().json('POST', '/api/user/urls', {
      auth: user.token,
      body: { destination: 'https://example.com/text' },
      headers: { 'x-zipline-no-json': 'true' },
    });
    assert.equal(text.status, 201);
    assert.match(text.body, /^https?:\/\/.+\/go\/\w+$/);
  });
});
