// Migrations at scale (issue 23, item 8): `npm run bench -- migrations --files N [--engine postgres --database-url
// URL] [--from NAME]`. Makes a database at the schema just before migration NAME (default 0012_file_list_scale, the
// first of issue 23's: indexes, the search index, the usage counters), seeds it with N files straight through src/db
// (bench/lib/seed.ts), then runs every later migration as a server start does, printing
// each one's progress lines as they come and a table of their durations. Not recorded in bench/RESULTS.md.
import { existsSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Migrator, sql, type Kysely } from 'kysely';
import { openDatabase, type DatabaseHandle } from '../src/db/index.js';
import {
  describeMigrationProgress,
  migrateToLatest,
  migrations,
  type MigrationProgressEvent,
} from '../src/db/schema/migrate.js';
import type { Database } from '../src/db/schema/tables.js';
import { seedFiles } from './lib/seed.js';

/** The files are spread over this many users (one of them with a folder). */
const USERS = 10;

interface MigrationBenchOptions {
  files: number;
  engine: 'sqlite' | 'postgres';
  databaseUrl: string | undefined;
  from: string;
}

function parseOptions(argv: string[]): MigrationBenchOptions {
  const value = (name: string) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const files = Number(value('--files') ?? 100_000);
  const engine = value('--engine') ?? 'sqlite';
  const from = value('--from') ?? '0012_file_list_scale';
  if (!Number.isInteger(files) || files < 1) throw new Error('--files wants a whole number of files');
  if (engine !== 'sqlite' && engine !== 'postgres') throw new Error('--engine is sqlite or postgres');
  if (!(from in migrations)) throw new Error(`--from names a migration: one of ${Object.keys(migrations).join(', ')}`);
  const databaseUrl = value('--database-url') ?? process.env.BENCH_DATABASE_URL;
  if (engine === 'postgres' && !databaseUrl)
    throw new Error('--engine postgres needs --database-url (or BENCH_DATABASE_URL): an empty database it may fill');
  return { files, engine, databaseUrl, from };
}

const log = (message: string) => console.log(`[migrations] ${message}`);

export async function runMigrationBench(argv: string[]): Promise<void> {
  const options = parseOptions(argv);
  const root = await mkdtemp(path.join(os.tmpdir(), 'chute-bench-migrations-'));
  const database = openDatabase({ databaseUrl: options.databaseUrl, sqlitePath: path.join(root, 'chute.db') });
  try {
    const earlier = Object.fromEntries(Object.entries(migrations).filter(([name]) => name < options.from));
    const { error } = await new Migrator({
      db: database.db,
      provider: { getMigrations: async () => earlier },
    }).migrateToLatest();
    if (error) throw error;
    log(`schema before ${options.from}; seeding ${options.files.toLocaleString('en')} files`);
    const seedStarted = performance.now();
    await seed(database.db, options.files);
    if (database.engine === 'postgres') await sql`vacuum analyze`.execute(database.db);
    log(`seeded in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s; migrating`);
    const bytesBefore = await databaseBytes(database, root);

    const finished: MigrationProgressEvent[] = [];
    let peakWal = 0;
    const started = performance.now();
    const applied = await database.withMigrationLock(() =>
      migrateToLatest(database.db, (event) => {
        peakWal = Math.max(peakWal, walBytes(root));
        log(`${((performance.now() - started) / 1000).toFixed(1).padStart(6)} s  ${describeMigrationProgress(event)}`);
        if (event.ms !== undefined) finished.push(event);
      }),
    );
    const total = performance.now() - started;
    const bytesAfter = await databaseBytes(database, root);
    console.log(
      `\nMigrations after ${options.from} on ${options.engine}, ${options.files.toLocaleString('en')} files ` +
        `(${applied.length} applied):\n\n| migration | seconds |\n|---|---|`,
    );
    for (const event of finished) console.log(`| ${event.migration} | ${(event.ms! / 1000).toFixed(2)} |`);
    console.log(`| all (with the migrator's own work) | ${(total / 1000).toFixed(2)} |`);
    const mb = (bytes: number) => `${(bytes / 1e6).toFixed(0)} MB`;
    console.log(
      `\ndatabase: ${mb(bytesBefore)} before, ${mb(bytesAfter)} after` +
        (database.engine === 'sqlite' ? ` (${mb(peakWal)} write-ahead log at the end of the run)` : ''),
    );
    console.log(`goal (issue 23): under 60 s at 1,000,000 files: ${total < 60_000 ? 'yes' : 'NO'}`);
  } finally {
    await database.close();
    await rm(root, { recursive: true, force: true });
  }
}

/** Users, a folder, and `files` files spread over the users, in the columns every schema since the first has. */
async function seed(db: Kysely<Database>, files: number): Promise<void> {
  const now = Date.now();
  const userIds = Array.from({ length: USERS }, (_, i) => `benchuser${i}`);
  await db
    .insertInto('users')
    .values(
      userIds.map((id) => ({
        id,
        username: id,
        password: null,
        avatar: null,
        role: 'USER' as const,
        view: '{}',
        token_hash: `h-${id}`,
        token_enc: 'x',
        totp_secret: null,
        created_at: now,
        updated_at: now,
      })),
    )
    .execute();
  const folderId = 'benchfolder';
  await db
    .insertInto('folders')
    .values({
      id: folderId,
      name: 'bench',
      user_id: userIds[0]!,
      public: 0,
      allow_uploads: 0,
      created_at: now,
      updated_at: now,
    })
    .execute();
  await seedFiles(db, {
    owners: userIds,
    folderId,
    from: 0,
    to: files,
    progress: (n) => log(`seeded ${n.toLocaleString('en')} files`),
  });
}

/** The database's size: SQLite's file and its write-ahead log, or PostgreSQL's pg_database_size. */
async function databaseBytes(database: DatabaseHandle, root: string): Promise<number> {
  if (database.engine === 'postgres') {
    const size = await sql<{ bytes: string | number }>`select pg_database_size(current_database()) as bytes`.execute(
      database.db,
    );
    return Number(size.rows[0]!.bytes);
  }
  return statSync(path.join(root, 'chute.db')).size + walBytes(root);
}

function walBytes(root: string): number {
  return existsSync(path.join(root, 'chute.db-wal')) ? statSync(path.join(root, 'chute.db-wal')).size : 0;
}
