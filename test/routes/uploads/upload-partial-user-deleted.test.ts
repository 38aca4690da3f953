// Deleting a user in the middle of their chunked uploads: the sessions go with the user (by cascade) and so does
// their temp data, instead of being left behind for nobody to clean up.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { it } from 'node:test';
import { createTestUser } from '../../support/content.js';
import { forEachDatabase, useTestServer } from '../../support/server.js';
import { appendTempFiles, uploadSessionCount } from '../../support/stored.js';
import { sendChunk } from '../../support/chunked-uploads.js';

forEachDatabase('deleting a user with unfinished chunked uploads', (engine) => {
  const server = useTestServer({ engine });

  it("removes their sessions and temp data; other users' uploads carry on", async () => {
    const admin = await server().setup();
    const leaving = await createTestUser(server(), 'leaving');
    const staying = await createTestUser(server(), 'staying');
    const file = randomBytes(20_000);
    for (const end of [4_999, 9_999]) {
      const res = await sendChunk(server(), leaving.token, { file, start: 0, end });
      assert.equal(res.status, 200, JSON.stringify(res.body));
    }
    const kept = await sendChunk(server(), staying.token, { file, start: 0, end: 9_999 });
    assert.equal(kept.status, 200, JSON.stringify(kept.body));
    assert.equal((await appendTempFiles(server().dataDir)).length, 3);

    const deleted = await server().json('DELETE', `/api/users/${leaving.id}`, {
      auth: admin.token,
      body: { delete: true },
    });
    assert.equal(deleted.status, 200, JSON.stringify(deleted.body));

    assert.equal(await uploadSessionCount(server()), 1);
    assert.equal((await appendTempFiles(server().dataDir)).length, 1);
    const last = await sendChunk(server(), staying.token, {
      file,
      start: 10_000,
      end: 19_999,
      token: kept.body.partialToken,
    });
    assert.equal(last.status, 200, JSON.stringify(last.body));
  });
});
