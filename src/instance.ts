// What every process of an installation opens from its configuration, the server (server.ts) and the `chute` command
// (src/cli) alike: the data folder, the secret, the instance id and the database, and the migrations. Everything it
// creates is private to the service account (lib/data-dir-modes.ts); `chute doctor` looks without creating
// (lookAtInstance).
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from './config.js';
import { openDatabase, type DatabaseHandle } from './db/index.js';
import { migrateToLatest, type MigrationProgress } from './db/schema/migrate.js';
import { findOpenEntries, makePrivate, PRIVATE_FOLDER_MODE, type OpenEntry } from './lib/data-dir-modes.js';
import { loadOrCreateDataDirValue } from './lib/data-dir-values.js';
import { randomString } from './lib/security/ids.js';
import { loadOrCreateSecret, SECRET_FILE, Secrets } from './lib/security/secrets.js';
import { sealLegacyInviteCodes } from './services/accounts/invites.js';

const INSTANCE_ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
const INSTANCE_ID_FILE = 'instance-id';
const isInstanceId = (v: string): boolean => /^[a-z0-9]{12}$/.test(v);
/** The SQLite database of DATA_DIR (when DATABASE_URL is not set). */
export const SQLITE_FILE = 'chute.db';

/** The installation as a process opens it. */
export interface InstanceBase {
  /** DATA_DIR, resolved (and created). */
  dataDir: string;
  secrets: Secrets;
  /** INSTANCE_ID, or the id kept in DATA_DIR. */
  instanceId: string;
  database: DatabaseHandle;
  /**
   * What was open to the group or others in DATA_DIR (the folder, its database, secret, uploads/ ...) with the mode
   * it had, before this process made it private; the caller says so (the server in its log).
   */
  madePrivate: OpenEntry[];
}

/**
 * Resolves DATA_DIR (made 0700 when missing), makes it and its top-level entries private when they are open to others
 * (or throws, naming what it could not change), reads (or makes) the secret and the instance id, and opens the
 * database (not yet migrated).
 */
export function openInstanceBase(config: Config): InstanceBase {
  const dataDir = path.resolve(config.DATA_DIR);
  mkdirSync(dataDir, { recursive: true, mode: PRIVATE_FOLDER_MODE });
  // Before the database opens: SQLite gives its new -wal and -shm files the database file's mode.
  const madePrivate = findOpenEntries(dataDir);
  makePrivate(madePrivate);
  const secrets = new Secrets(loadOrCreateSecret(dataDir, config.SECRET));
  const instanceId =
    config.INSTANCE_ID ??
    loadOrCreateDataDirValue(dataDir, INSTANCE_ID_FILE, () => randomString(12, INSTANCE_ID_ALPHABET), isInstanceId);
  const database = openDatabase({ databaseUrl: config.DATABASE_URL, sqlitePath: path.join(dataDir, SQLITE_FILE) });
  return { dataDir, secrets, instanceId, database, madePrivate };
}

/** The installation as `chute doctor` finds it, having created, changed and migrated nothing. */
export interface InstanceLook {
  /** DATA_DIR, resolved. */
  dataDir: string;
  dataDirExists: boolean;
  /** SQLite: DATA_DIR/chute.db; null on PostgreSQL. */
  sqliteFile: string | null;
  /** The database, when there is one to open: PostgreSQL's server, or an existing SQLite file. */
  database: DatabaseHandle | null;
  /** INSTANCE_ID, or the id kept in DATA_DIR; null when neither is there yet. */
  instanceId: string | null;
  /** Whether SECRET is set or DATA_DIR holds a secret. */
  hasSecret: boolean;
  /** What in DATA_DIR is open to the group or others (the next server start makes it private). */
  openEntries: OpenEntry[];
}

/**
 * Looks at DATA_DIR and opens the database only when it exists: no folder, secret, instance id or database file is
 * made. `connectTimeoutMs` bounds each PostgreSQL connection attempt; by default pg waits for the network.
 */
export function lookAtInstance(config: Config, options: { connectTimeoutMs?: number } = {}): InstanceLook {
  const dataDir = path.resolve(config.DATA_DIR);
  const dataDirExists = existsSync(dataDir);
  const sqliteFile = config.DATABASE_URL ? null : path.join(dataDir, SQLITE_FILE);
  const storedId = readDataDirValue(dataDir, INSTANCE_ID_FILE);
  const database =
    sqliteFile !== null && !existsSync(sqliteFile)
      ? null
      : openDatabase({
          databaseUrl: config.DATABASE_URL,
          sqlitePath: sqliteFile ?? path.join(dataDir, SQLITE_FILE),
          ...(options.connectTimeoutMs !== undefined ? { connectTimeoutMs: options.connectTimeoutMs } : {}),
        });
  return {
    dataDir,
    dataDirExists,
    sqliteFile,
    database,
    instanceId: config.INSTANCE_ID ?? (storedId !== null && isInstanceId(storedId) ? storedId : null),
    hasSecret: Boolean(config.SECRET) || readDataDirValue(dataDir, SECRET_FILE) !== null,
    openEntries: findOpenEntries(dataDir),
  };
}

/** DATA_DIR/<name>'s value, or null when it is not there (or not readable). */
function readDataDirValue(dataDir: string, name: string): string | null {
  try {
    return readFileSync(path.join(dataDir, name), 'utf8').trim();
  } catch {
    return null;
  }
}

/**
 * Brings the database to this version's schema (what `chute migrate` and every start do), under the lock that keeps
 * several processes from migrating at once. Returns the names of the migrations applied; `progress` hears each
 * migration's start, the steps of long ones (with counts) and its end.
 */
export async function migrateDatabase(
  base: Pick<InstanceBase, 'database' | 'secrets'>,
  progress?: MigrationProgress,
): Promise<string[]> {
  return base.database.withMigrationLock(async () => {
    const applied = await migrateToLatest(base.database.db, progress);
    await sealLegacyInviteCodes(base.database.db, base.secrets);
    return applied;
  });
}
