// /api/upload/tus with the real tus-js-client: whole uploads, stopped and resumed ones, checksums, quota and size
// limits, termination, and the raw protocol with fetch (OPTIONS, HEAD).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { before, it } from 'node:test';
import { forEachDatabase, useTestServer, type TestUser } from '../support/server.js';
import { tusErrorOf, tusUpload } from '../support/tus.js';

const MiB = 1024 * 1024;

forEachDatabase('tus uploads', (engine) => {
  const server = useTestServer({ engine, env: { FILES_MAX_FILE_SIZE: '64mb' } });
  let admin: TestUser;
  before(async () => {
    admin = await server().setup();
  });

  it('uploads a file byte-exact and names it in the last answer', async () => {
    const data = randomBytes(3 * MiB + 17);
    const run = await tusUpload(server(), admin.token, data, { metadata: { filename: 'a.bin', filetype: 'application/x-test' } });
    assert.ok(run.fileUrl, 'Chute-File-Url');
    const raw = await fetch(run.fileUrl!.replace('/u/', '/raw/'));
    assert.equal(raw.status, 200);
    assert.ok(Buffer.from(await raw.arrayBuffer()).equals(data));
  });
});
