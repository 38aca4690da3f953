import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { sql } from 'kysely';
import { precompiledByKey } from '../../src/db/precompiled.js';
import { forEachDatabase, useTestServer, type TestUser } from '../support/server.js';
import { uploadOne } from '../support/uploads.js';

forEachDatabase('precompiled queries', (engine) => {
  const server = useTestServer({ engine });
  let user: TestUser;
  before(async () => {
    user = await server().setup('pre', 'pre-password');
  });

  it('are compiled once and run with each key', async () => {
    const byName = precompiledByKey((db, name) =>
      db.selectFrom('files').select(['id', 'size']).where('name', '=', name),
    );
    const a = await uploadOne(server(), user.token, 'aaa');
    const b = await uploadOne(server(), user.token, 'bbbbb');
    const { db } = server().ctx;
    assert.deepEqual(await byName(db, a.name), { id: a.id, size: 3 });
    assert.deepEqual(await byName(db, b.name), { id: b.id, size: 5 });
    assert.equal(await byName(db, 'no-such-name'), undefined);
  });

  it('refuse a query that does not bind its key', async () => {
    const inlined = precompiledByKey((db, name) =>
      db
        .selectFrom('files')
        .select('id')
        .where('name', '=', sql.lit(name) as never),
    );
    await assert.rejects(inlined(server().ctx.db, 'x'), /must bind its key/);
  });
});
