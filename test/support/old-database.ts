// A database as an earlier version of Chute left it: migrated up to (not including) a given migration, seeded with
// rows written straight into it, then opened by today's server, which runs the remaining migrations at start-up.
// For the tests of migrations that must carry existing data.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Migrator, type Kysely } from 'kysely';
import { openDatabase } from '../../src/db/index.js';
import { migrations } from '../../src/db/schema/migrate.js';
import type { Database } from '../../src/db/schema/tables.js';
import { createPostgresDatabase, startTestServer, type TestServer } from './server.js';

/** A database made by makeDatabaseBefore: its data folder, its PostgreSQL URL (or none: SQLite), and its removal. */
export interface OldDatabase {
  engine: 'sqlite' | 'postgres';
  dataDir: string;
  databaseUrl: string | undefined;
  remove(): Promise<void>;
}

/**
 * Migrates a new database (SQLite in a temporary folder, or a new PostgreSQL database) up to the migrations named
 * before `before` and lets `seed` write into it. The caller starts what it needs on it and removes it.
 */
export async function makeDatabaseBefore(
  engine: 'sqlite' | 'postgres',
  before: string,
  seed: (db: Kysely<Database>) => Promise<void>,
): Promise<OldDatabase> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), `chute-before-${before}-`));
  const pgDatabase = engine === 'postgres' ? await createPostgresDatabase() : undefined;
  const remove = async () => {
    await pgDatabase?.drop();
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    const old = openDatabase({ databaseUrl: pgDatabase?.url, sqlitePath: path.join(dataDir, 'chute.db') });
    try {
      const earlier = Object.fromEntries(Object.entries(migrations).filter(([name]) => name < before));
      const { error } = await new Migrator({
        db: old.db,
        provider: { getMigrations: async () => earlier },
      }).migrateToLatest();
      assert.equal(error, undefined);
      await seed(old.db);
    } finally {
      await old.close();
    }
  } catch (err) {
    await remove();
    throw err;
  }
  return { engine, dataDir, databaseUrl: pgDatabase?.url, remove };
}

/** makeDatabaseBefore, then a server started on it for `check`; everything is removed after. */
export async function withDatabaseBefore(
  engine: 'sqlite' | 'postgres',
  before: string,
  seed: (db: Kysely<Database>) => Promise<void>,
  check: (server: TestServer) => Promise<void>,
): Promise<void> {
  const old = await makeDatabaseBefore(engine, before, seed);
  try {
    const server = await startTestServer({
      engine,
      dataDir: old.dataDir,
      ...(old.databaseUrl ? { databaseUrl: old.databaseUrl } : {}),
    });
    try {
      await check(server);
    } finally {
      await server.close();
    }
  } finally {
    await old.remove();
  }
}

/** A users row with the columns every schema since the first has (as an old version wrote it). */
export function oldUserRow(id: string, username: string, extra: Record<string, unknown> = {}) {
  const now = Date.now();
  return {
    id,
    username,
    password: null,
    avatar: null,
    role: 'USER' as const,
    view: '{}',
    token_hash: `h-${id}`,
    token_enc: 'x',
    totp_secret: null,
    created_at: now,
    updated_at: now,
    ...extra,
  };
}
