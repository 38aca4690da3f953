// What every process of an installation opens from its configuration, the server (server.ts) and the `chute` command
// (src/cli) alike: the data folder, the secret, the instance id and the database, and the migrations.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Config } from './config.js';
import { openDatabase, type DatabaseHandle } from './db/index.js';
import { migrateToLatest, type MigrationProgress } from './db/schema/migrate.js';
import { loadOrCreateDataDirValue } from './lib/data-dir-values.js';
import { randomString } from './lib/security/ids.js';
import { loadOrCreateSecret, Secrets } from './lib/security/secrets.js';
import { sealLegacyInviteCodes } from './services/accounts/invites.js';

const INSTANCE_ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** The installation as a process opens it. */
export interface InstanceBase {
  /** DATA_DIR, resolved (and created). */
  dataDir: string;
  secrets: Secrets;
  /** INSTANCE_ID, or the id kept in DATA_DIR. */
  instanceId: string;
  database: DatabaseHandle;
}

/**
 * Resolves DATA_DIR, reads (or makes) the secret and the instance id, and opens the database (not yet migrated).
 * `connectTimeoutMs` bounds each PostgreSQL connection attempt (chute doctor); by default pg waits for the network.
 */
export function openInstanceBase(config: Config, options: { connectTimeoutMs?: number } = {}): InstanceBase {
  const dataDir = path.resolve(config.DATA_DIR);
  mkdirSync(dataDir, { recursive: true });
  const secrets = new Secrets(loadOrCreateSecret(dataDir, config.SECRET));
  const instanceId =
    config.INSTANCE_ID ??
    loadOrCreateDataDirValue(
      dataDir,
      'instance-id',
      () => randomString(12, INSTANCE_ID_ALPHABET),
      (v) => /^[a-z0-9]{12}$/.test(v),
    );
  const database = openDatabase({
    databaseUrl: config.DATABASE_URL,
    sqlitePath: path.join(dataDir, 'chute.db'),
    ...(options.connectTimeoutMs !== undefined ? { connectTimeoutMs: options.connectTimeoutMs } : {}),
  });
  return { dataDir, secrets, instanceId, database };
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
