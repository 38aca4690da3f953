// What every service needs from the outside world, built once in buildApp and passed as the first argument.
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.js';
import type { BatchWriter, SlowReader } from './db/batches-and-slow-reads.js';
import type { GroupCommit } from './db/commits.js';
import type { Engine } from './db/index.js';
import type { Db } from './db/schema/tables.js';
import type { ByteCache } from './lib/bytes/byte-cache.js';
import type { Clock } from './lib/clock.js';
import type { ProcessMetrics } from './lib/process-metrics.js';
import type { Secrets } from './lib/security/secrets.js';
import type { SettingsService } from './services/operations/settings.js';
import type { Lifecycle } from './services/operations/lifecycle.js';
import type { PendingViews } from './services/serving/pending-views.js';
import type { Datasource } from './storage/datasource.js';

export interface AppContext {
  config: Config;
  db: Db;
  engine: Engine;
  clock: Clock;
  /** This instance among several sharing the database (INSTANCE_ID, or an id kept in DATA_DIR). */
  instanceId: string;
  secrets: Secrets;
  /** Small write transactions of concurrent requests share one durable commit (db/commits.ts). */
  commits: GroupCommit;
  /** Where the statements of long deletions run, off the main thread on SQLite (db/batches-and-slow-reads.ts). */
  batches: BatchWriter;
  /** Where reads that may take long run, off the main thread on SQLite (db/batches-and-slow-reads.ts). */
  reads: SlowReader;
  settings: SettingsService;
  /** Where file bytes live (local folder or S3), see src/storage. */
  storage: Datasource;
  /** Whether this storage is the one the database's other instances use (services/operations/storage-identity.ts). */
  storageShared: boolean;
  /** The bytes of small stored files, by storage key, kept in memory for serving (services/serving/files.ts). */
  smallFiles: ByteCache;
  /** Views counted on this instance and not yet stored (services/serving/view-counts.ts). */
  views: PendingViews;
  /** Serving or draining (the readiness answer, services/operations/readiness.ts). */
  lifecycle: Lifecycle;
  /** This process's Prometheus counters (lib/process-metrics.ts), scraped at /metrics. */
  metrics: ProcessMetrics;
  log: FastifyBaseLogger;
}
