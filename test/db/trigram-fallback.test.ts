// PostgreSQL without pg_trgm (a role that may not create extensions): Chute still starts, says so in one clear log
// line, and searches by reading the user's files, with the same answers.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { it } from 'node:test';
import pg from 'pg';
import { loadConfig } from '../../src/config.js';
import { randomString } from '../../src/lib/security/ids.js';
import { listFiles } from '../../src/services/lists/files.js';
import { createChute } from '../../src/server.js';
import { insertFileRows } from '../support/file-rows.js';
import { createPostgresDatabase } from '../support/server.js';

const PG_URL = process.env.TEST_DATABASE_URL;

it('starts without pg_trgm, logs why searches scan, and still finds [postgres]', async (t) => {
  if (!PG_URL) return t.skip('TEST_DATABASE_URL is not set');
  const database = await createPostgresDatabase();
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'chute-trgm-'));
  const role = `chute_limited_${randomString(8, 'abcdefghijklmnopqrstuvwxyz')}`;
  const admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
  try {
    // A role that owns its tables but may not create anything in the database itself (extensions included).
    await admin.query(`CREATE ROLE ${role} LOGIN`);
    await admin.query(`REVOKE CREATE ON DATABASE ${new URL(database.url).pathname.slice(1)} FROM PUBLIC`);
    await admin.query(`GRANT ALL ON SCHEMA public TO ${role}`);
    const limitedUrl = new URL(database.url);
    limitedUrl.username = role;

    const lines: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
        done();
      },
    });
    const config = loadConfig({ DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: '0', DATABASE_URL: limitedUrl.toString() });
    const chute = await createChute(config, { startJobs: false, logger: { level: 'warn', stream } });
    try {
      const warning = lines
        .map((l) => JSON.parse(l) as { msg: string; reason?: string })
        .find((l) => /pg_trgm/.test(l.msg));
      assert.ok(warning, `no log line about pg_trgm in ${JSON.stringify(lines)}`);
      assert.match(warning.msg, /substring search of files scans every file/);
      assert.match(warning.reason ?? '', /permission denied/);
      const indexes = await admin.query(`SELECT indexname FROM pg_indexes WHERE indexname LIKE '%trgm%'`);
      assert.equal(indexes.rowCount, 0);

      const ctx = chute.ctx;
      const now = Date.now();
      await ctx.db
        .insertInto('users')
        .values({
          id: 'u-scan',
          username: 'scanner',
          password: null,
          avatar: null,
          role: 'USER',
          view: '{}',
          token_hash: 'h-scan',
          token_enc: 'x',
          totp_secret: null,
          created_at: now,
          updated_at: now,
        })
        .execute();
      await insertFileRows(ctx, [
        { id: 'f-scan-1', user_id: 'u-scan', name: 'Éclair-au-chocolat.png' },
        { id: 'f-scan-2', user_id: 'u-scan', name: 'croissant.png' },
      ]);
      const found = await listFiles(
        ctx,
        { id: 'u-scan', role: 'USER' },
        {
          page: 1,
          perPage: 10,
          sortBy: 'createdAt',
          order: 'desc',
          searchField: 'name',
          searchQuery: 'ÉCLAIR',
        },
      );
      assert.deepEqual(
        found.rows.map((r) => r.id),
        ['f-scan-1'],
      );
    } finally {
      await chute.close();
    }
  } finally {
    await admin.end();
    await database.drop();
    const cleanup = new pg.Client({ connectionString: PG_URL });
    await cleanup.connect();
    await cleanup.query(`DROP ROLE IF EXISTS ${role}`).finally(() => cleanup.end());
    await rm(dataDir, { recursive: true, force: true });
  }
});
