// Migrations are safe to run again and at once; a restart keeps data, the secret, tokens and sessions.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { it } from 'node:test';
import { openDatabase } from '../../src/db/index.js';
import { migrateToLatest, migrations } from '../../src/db/migrate.js';
import { createPostgresDatabase, forEachDatabase, startTestServer } from '../support/server.js';

async function freshDatabase(engine: 'sqlite' | 'postgres') {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'chute-migrate-'));
  const pg = engine === 'postgres' ? await createPostgresDatabase() : undefined;
  return {
    dir,
    databaseUrl: pg?.url,
    open: () => openDatabase({ databaseUrl: pg?.url, sqlitePath: path.join(dir, 'chute.db') }),
    cleanup: async () => {
      await pg?.drop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

forEachDatabase('migrations', (engine) => {
  it('run once, then again as a no-op, and concurrently without harm', async () => {
    const fresh = await freshDatabase(engine);
    const handles = [fresh.open(), fresh.open(), fresh.open()];
    try {
      const results = await Promise.all(handles.map((h) => h.withMigrationLock(() => migrateToLatest(h.db))));
      const applied = results.flat();
      assert.deepEqual(applied.sort(), Object.keys(migrations).sort(), 'each migration applied exactly once');
      assert.deepEqual(await migrateToLatest(handles[0]!.db), []);
      const settings = await handles[0]!.db.selectFrom('settings').selectAll().execute();
      assert.equal(settings.length, 1);
    } finally {
      for (const h of handles) await h.close();
      await fresh.cleanup();
    }
  });
});

forEachDatabase('restart', (engine) => {
  it('keeps users, the API token and sessions valid across a restart', async () => {
    const fresh = await freshDatabase(engine);
    try {
      const first = await startTestServer({ engine, dataDir: fresh.dir, databaseUrl: fresh.databaseUrl });
      const admin = await first.setup('grace', 'pw');
      await first.close();

      const second = await startTestServer({ engine, dataDir: fresh.dir, databaseUrl: fresh.databaseUrl });
      try {
        assert.deepEqual((await second.json('GET', '/api/setup')).body, { firstSetup: false });
        const byToken = await second.json('GET', '/api/user', { auth: admin.token });
        assert.equal(byToken.status, 200);
        assert.equal(byToken.body.token, admin.token, 'the stored token still decrypts');
        assert.equal((await second.json('GET', '/api/user', { auth: admin.cookie })).status, 200);
      } finally {
        await second.close();
      }
    } finally {
      await fresh.cleanup();
    }
  });

  it('with another SECRET, old tokens and sessions stop working', async () => {
    const fresh = await freshDatabase(engine);
    try {
      const first = await startTestServer({
        engine,
        dataDir: fresh.dir,
        databaseUrl: fresh.databaseUrl,
        env: { SECRET: 'a'.repeat(40) },
      });
      const admin = await first.setup('heidi', 'pw');
      await first.close();
      const second = await startTestServer({
        engine,
        dataDir: fresh.dir,
        databaseUrl: fresh.databaseUrl,
        env: { SECRET: 'b'.repeat(40) },
      });
      try {
        assert.equal((await second.json('GET', '/api/user', { auth: admin.token })).body.code, 2001);
        assert.equal((await second.json('GET', '/api/user', { auth: admin.cookie })).body.code, 2000);
      } finally {
        await second.close();
      }
    } finally {
      await fresh.cleanup();
    }
  });
});
