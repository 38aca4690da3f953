// Runs the migrations in src/db/migrations in name order. Kysely's migrator records what ran, takes a lock (so several
// instances starting at once migrate once) and wraps the pending migrations and their records in one transaction, on
// SQLite too (db/sqlite/connection.ts): a run killed mid-way leaves nothing behind, and the next start runs it again
// from the beginning. Each migration's start and end, and the steps of long ones, are reported as they happen.
import { Migrator, sql, type Kysely, type Migration } from 'kysely';
import { isPostgres } from './search-index.js';
import type { MigrationStepReport } from './migration-steps.js';
import type { Db } from './tables.js';
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
import * as m0028 from './migrations/0028_list_indexes.js';
import * as m0029 from './migrations/0029_url_user_search.js';
import * as m0030 from './migrations/0030_tag_file_dates.js';
import * as m0031 from './migrations/0031_search_owners.js';
import * as m0032 from './migrations/0032_search_backlog.js';
import * as m0033 from './migrations/0033_database_objects.js';
import * as m0034 from './migrations/0034_upload_sessions.js';
import * as m0035 from './migrations/0035_kept_blobs.js';
import * as m0036 from './migrations/0036_extensionless_names.js';
import * as m0039 from './migrations/0039_ldap_accounts.js';

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
  '0028_list_indexes': m0028,
  '0029_url_user_search': m0029,
  '0030_tag_file_dates': m0030,
  '0031_search_owners': m0031,
  '0032_search_backlog': m0032,
  '0033_database_objects': m0033,
  '0034_upload_sessions': m0034,
  '0035_kept_blobs': m0035,
  '0036_extensionless_names': m0036,
  '0039_ldap_accounts': m0039,
};

type ReportingUp = (db: Kysely<unknown>, report: MigrationStepReport) => Promise<void>;

/** One line of a migration run: `ms` is set on the line that ends a migration. */
export interface MigrationProgressEvent {
  migration: string;
  message: string;
  done?: number;
  total?: number;
  ms?: number;
}

export type MigrationProgress = (event: MigrationProgressEvent) => void;

/** An event as a line: `0012_file_list_scale: search index: trigrams of the files (100000 of 1000000)`. */
export function describeMigrationProgress({ migration, message, done, total, ms }: MigrationProgressEvent): string {
  const count = total !== undefined ? ` (${done} of ${total})` : '';
  const took = ms !== undefined ? ` in ${(ms / 1000).toFixed(1)} s` : '';
  return `${migration}: ${message}${count}${took}`;
}

/** The migrations, each wrapped so that it reports its start, its own steps and its end (with its duration). */
function reporting(progress: MigrationProgress): Record<string, Migration> {
  return Object.fromEntries(
    Object.entries(migrations).map(([name, migration]) => {
      const up = async (db: Kysely<unknown>) => {
        const started = performance.now();
        progress({ migration: name, message: 'started' });
        // Index builds over a million files sort in memory instead of in temporary files (PostgreSQL's default is
        // 64 MiB); for the migrations' transaction only.
        if (isPostgres(db)) await sql`set local maintenance_work_mem = '256MB'`.execute(db);
        await (migration as { up: ReportingUp }).up(db, (message, count) =>
          progress({ migration: name, message, ...count }),
        );
        progress({ migration: name, message: 'done', ms: Math.round(performance.now() - started) });
      };
      return [name, { up, ...(migration.down ? { down: migration.down } : {}) }];
    }),
  );
}

/** Runs the migrations the database has not run yet; returns their names. `progress` hears what each one does. */
export async function migrateToLatest(db: Db, progress: MigrationProgress = () => undefined): Promise<string[]> {
  const wrapped = reporting(progress);
  const migrator = new Migrator({ db, provider: { getMigrations: async () => wrapped } });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    throw new Error(`database migration ${failed?.migrationName ?? ''} failed: ${String(error)}`, { cause: error });
  }
  const applied = (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
  // SQLite: the run went through the write-ahead log in one transaction (as large as the indexes it built); give the
  // disk space back now rather than keep a log of that size for as long as the process runs.
  if (applied.length > 0 && !isPostgres(db)) await sql`pragma wal_checkpoint(truncate)`.execute(db);
  return applied;
}
