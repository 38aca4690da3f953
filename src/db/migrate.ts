// Runs the migrations in src/db/migrations in name order. Kysely's migrator records what ran, takes a lock
// (so several instances starting at once migrate once) and wraps the pending migrations in a transaction.
import { Migrator, type Migration, type MigrationProvider } from 'kysely';
import type { Db } from './types.js';
import * as m0001 from './migrations/0001_core.js';
import * as m0002 from './migrations/0002_file_indexes.js';
import * as m0003 from './migrations/0003_url_slugs.js';
import * as m0005 from './migrations/0005_partial_uploads.js';
import * as m0006 from './migrations/0006_partial_upload_instance.js';
import * as m0009 from './migrations/0009_second_factors.js';
import * as m0012 from './migrations/0012_file_list_scale.js';
import * as m0013 from './migrations/0013_api_tokens.js';
import * as m0014 from './migrations/0014_username_keys_invite_hashes.js';
import * as m0015 from './migrations/0015_jobs.js';
import * as m0016 from './migrations/0016_file_shares.js';
import * as m0018 from './migrations/0018_pending_objects.js';
import * as m0019 from './migrations/0019_usage_counters.js';
import * as m0021 from './migrations/0021_metrics.js';
import * as m0022 from './migrations/0022_exports.js';
import * as m0023 from './migrations/0023_tus_uploads.js';
import * as m0024 from './migrations/0024_files_user_id.js';
import * as m0026 from './migrations/0026_cluster.js';
import * as m0027 from './migrations/0027_heavy_deletions.js';

/** Every migration, by name. A new one is added here and sorts after the others. */
export const migrations: Record<string, Migration> = {
  '0001_core': m0001,
  '0002_file_indexes': m0002,
  '0003_url_slugs': m0003,
  '0005_partial_uploads': m0005,
  '0006_partial_upload_instance': m0006,
  '0009_second_factors': m0009,
  '0012_file_list_scale': m0012,
  '0013_api_tokens': m0013,
  '0014_username_keys_invite_hashes': m0014,
  '0015_jobs': m0015,
  '0016_file_shares': m0016,
  '0018_pending_objects': m0018,
  '0019_usage_counters': m0019,
  '0021_metrics': m0021,
  '0022_exports': m0022,
  '0023_tus_uploads': m0023,
  '0024_files_user_id': m0024,
  '0026_cluster': m0026,
  '0027_heavy_deletions': m0027,
};

const provider: MigrationProvider = { getMigrations: async () => migrations };

export async function migrateToLatest(db: Db): Promise<string[]> {
  const migrator = new Migrator({ db, provider });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    throw new Error(`database migration ${failed?.migrationName ?? ''} failed: ${String(error)}`, { cause: error });
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
