// Migrations are safe to run again and at once; a run killed mid-way leaves nothing and the next start finishes it;
// a restart keeps data, the secret, tokens and sessions.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { it } from 'node:test';
import { sql } from 'kysely';
import { openDatabase, type DatabaseHandle } from '../../src/db/index.js';
import { migrateToLatest, migrations } from '../../src/db/schema/migrate.js';
import { hasTrigramIndexes } from '../../src/db/schema/search-index.js';
import { counterDrift } from '../../src/db/schema/usage-counters.js';
import { killChuteProcess, spawnChuteProcess, startChuteProcess, type ChuteProcess } from '../support/chute-process.js';
import { makeDatabaseBefore, oldUserRow } from '../support/old-database.js';
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

/** Enough files that the search index and counters of migrations 0012 and 0019 take a while to build. */
const KILLED_RUN_FILES = 20_000;

async function ranMigrations(database: DatabaseHandle): Promise<string[]> {
  const rows = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(database.db);
  return rows.rows.map((r) => r.name);
}

async function indexExists(database: DatabaseHandle, name: string): Promise<boolean> {
  const found =
    database.engine === 'postgres'
      ? await sql`select 1 from pg_indexes where indexname = ${name}`.execute(database.db)
      : await sql`select 1 from sqlite_master where type = 'index' and name = ${name}`.execute(database.db);
  return found.rows.length > 0;
}

forEachDatabase('a migration killed mid-way', (engine) => {
  it('leaves nothing half-done, and the next start runs the migrations again to the end, saying how far it is', async () => {
    const old = await makeDatabaseBefore(engine, '0012_file_list_scale', async (db) => {
      await db.insertInto('users').values(oldUserRow('u1', 'ada')).execute();
      for (let i = 0; i < KILLED_RUN_FILES; i += 1000) {
        const rows = Array.from({ length: 1000 }, (_, j) => {
          const n = i + j;
          return {
            id: `f${n}`,
            name: `Shot_${n.toString(36)}.png`,
            original_name: n % 2 ? `Écran ${n}.png` : null,
            type: n % 3 ? 'image/png' : 'video/mp4',
            size: n,
            views: n % 7,
            favorite: n % 10 === 0 ? 1 : 0,
            user_id: 'u1',
            storage_key: `none/f${n}`,
            created_at: 1_700_000_000_000 + n,
            updated_at: 1_700_000_000_000 + n,
          };
        });
        await db.insertInto('files').values(rows).execute();
      }
    });
    const open = () => openDatabase({ databaseUrl: old.databaseUrl, sqlitePath: path.join(old.dataDir, 'chute.db') });
    let chute: ChuteProcess | undefined;
    try {
      // Killed while 0012 builds its third index (two are built, inside its transaction).
      const first = spawnChuteProcess({ dataDir: old.dataDir, databaseUrl: old.databaseUrl });
      try {
        await first.waitForLog(/migration 0012_file_list_scale: index files_user_deletes_at \(2 of 6\)/);
      } finally {
        first.child.kill('SIGKILL');
      }
      assert.equal((await first.exited).signal, 'SIGKILL');

      const killed = open();
      try {
        const before = Object.keys(migrations).filter((name) => name < '0012_file_list_scale');
        assert.deepEqual(await ranMigrations(killed), before, 'the killed run recorded nothing');
        assert.equal(await indexExists(killed, 'files_user_name_id'), false, 'an index built before the kill is gone');
        assert.equal(await indexExists(killed, 'files_user_name'), true, 'an index the run dropped is still there');
      } finally {
        await killed.close();
      }

      chute = await startChuteProcess({ dataDir: old.dataDir, databaseUrl: old.databaseUrl });
      assert.match(chute.log(), /migration 0012_file_list_scale: search index: [^"]* \(\d+ of \d+\)/);
      assert.match(chute.log(), /migration 0019_usage_counters: done in \d/);
      await killChuteProcess(chute);
      const done = open();
      try {
        assert.deepEqual(await ranMigrations(done), Object.keys(migrations).sort());
        assert.equal(await indexExists(done, 'files_user_name_id'), true);
        assert.deepEqual(await counterDrift(done.db), [], 'the counters match the files');
        if (engine === 'postgres') assert.equal(await hasTrigramIndexes(done.db), true);
        else {
          const found = await sql<{ file_id: string }>`select file_search.file_id from files_fts
            join file_search on file_search.seq = files_fts.rowid where files_fts match '"écran 1235"'`.execute(
            done.db,
          );
          assert.deepEqual(
            found.rows.map((r) => r.file_id).sort(),
            ['f1235', ...Array.from({ length: 10 }, (_, k) => `f1235${k}`).filter((_, k) => k % 2 === 1)].sort(),
          );
        }
      } finally {
        await done.close();
      }
    } finally {
      await killChuteProcess(chute);
      await old.remove();
    }
  });
});

forEachDatabase('restart', (engine) => {
  it('keeps users, the API token and sessions valid across a restart', async () => {
    const fresh = await freshDatabase(engine);
    try {
      const first = await startTestServer({ engine, dataDir: fresh.dir, databaseUrl: fresh.databaseUrl });
      const admin = await first.setup('grace', 'pw-long-enough');
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
      const admin = await first.setup('heidi', 'pw-long-enough');
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
