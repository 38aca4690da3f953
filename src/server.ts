// Assembles a running Chute from a configuration: data folder, secret, database (migrated), settings, the app
// and its background jobs. main.ts and the tests both start Chute through here.
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import Fastify, { type FastifyServerOptions } from 'fastify';
import { buildApp } from './app.js';
import { installFastPath } from './http/serving/fast-path.js';
import type { Config } from './config.js';
import type { AppContext } from './context.js';
import { openChangeFeed, type ChangeFeed } from './db/postgres/change-feed.js';
import type { BatchWriter, SlowReader } from './db/batches-and-slow-reads.js';
import type { DatabaseHandle } from './db/index.js';
import { describeMigrationProgress } from './db/schema/migrate.js';
import { migrateDatabase, openInstanceBase } from './instance.js';
import { octal } from './lib/data-dir-modes.js';
import { checkTrigramSearch } from './db/schema/search-index.js';
import type { App } from './http/types.js';
import { ByteCache } from './lib/bytes/byte-cache.js';
import { ProcessMetrics } from './lib/process-metrics.js';
import { systemClock, type Clock } from './lib/clock.js';
import { deleteExpiredFiles } from './services/files/manage.js';
import { deletionsSettled, resumeDeletions } from './services/operations/unfinished-deletions.js';
import { JobWorker } from './services/operations/job-worker.js';
import { Jobs, purgeDoneJobs } from './services/operations/jobs.js';
import { makeThumbnail, THUMBNAIL_JOB } from './services/media/thumbnails.js';
import {
  EXPORT_SWEEP_JOB,
  queueExportSweep,
  runUserExport,
  sweepExports,
  USER_EXPORT_JOB,
  USER_EXPORT_TIMEOUT_MS,
} from './services/exports/user-exports.js';
import {
  deliverDiscordWebhook,
  deliverWebhook,
  DISCORD_WEBHOOK_JOB,
  WEBHOOK_JOB,
} from './services/operations/webhooks.js';
import { METRICS_TICK_MS, takeMetricsSnapshots } from './services/statistics/snapshots.js';
import { discardIdleUploadSessions, discardUnfinishedUploadSessions } from './services/uploads/assembly.js';
import { removeUnrecordedObjects } from './services/uploads/pending-objects.js';
import { purgeExpiredSessions } from './services/accounts/sessions.js';
import { SettingsService, settingsFromEnv } from './services/operations/settings.js';
import { Lifecycle } from './services/operations/lifecycle.js';
import { checkStorageIdentity, unsharedStorageMessage } from './services/operations/storage-identity.js';
import { flushViews, VIEW_FLUSH_INTERVAL_MS } from './services/serving/view-counts.js';
import { PendingViews } from './services/serving/pending-views.js';
import { indexWaitingFiles, SEARCH_INDEX_INTERVAL_MS } from './services/lists/files.js';
import type { Datasource } from './storage/datasource.js';
import { withDatabaseObjects } from './storage/database-objects.js';
import { createDatasource } from './storage/index.js';

export interface Chute {
  app: App;
  ctx: AppContext;
  jobs: Jobs;
  /** Runs the durable queue's jobs (thumbnails ...); started with the periodic jobs, or by hand in tests. */
  worker: JobWorker;
  database: DatabaseHandle;
  /** Stops jobs, closes the HTTP server, stores the pending view counts and closes the database. */
  close(): Promise<void>;
}

export interface StartOptions {
  clock?: Clock;
  logger?: FastifyServerOptions['logger'];
  /** Start the periodic jobs and the queue's worker (tests usually run them by hand). */
  startJobs?: boolean;
  /** How long running queue jobs get to finish when the server closes before they are handed back. */
  shutdownGraceMs?: number;
}

/** How long handlers of requests cut off at the shutdown deadline get to clean up before the database closes. */
const HANDLER_SETTLE_MS = 3_000;

/** Files up to this size are served from memory after their first read, ... */
const SMALL_FILE_BYTES = 256 * 1024;
/** ... within this much memory (least recently served out first). */
const SMALL_FILES_CACHE_BYTES = 64 * 1024 * 1024;
/** Done queue jobs are kept this long (failed ones until an admin retries or deletes them). */
const DONE_JOBS_KEPT_MS = 24 * 3_600_000;
/** What running queue jobs get to finish at shutdown (below `docker stop`'s 10 s). */
const SHUTDOWN_GRACE_MS = 5_000;

export async function createChute(config: Config, options: StartOptions = {}): Promise<Chute> {
  const lockedSettings = settingsFromEnv(config.env);
  const { dataDir, secrets, instanceId, database, madePrivate } = openInstanceBase(config);
  // A failed flush of SQLite's log leaves unknown what is on disk: stop at once; the next start recovers from the log.
  if (database.walSync) {
    database.walSync.onFailure = (err) => {
      console.error('flushing the database log failed; stopping:', err);
      process.exit(1);
    };
  }
  let storage: Datasource | undefined;
  let feed: ChangeFeed | undefined;
  let batches: BatchWriter | undefined;
  let reads: SlowReader | undefined;
  try {
    // The bytes of small uploads live in the database, next to their records (storage/database-objects.ts).
    storage = withDatabaseObjects(
      await createDatasource({ ...config, DATA_DIR: dataDir }, { instanceId }),
      database.db,
    );
    // Before the app (and its log) exists: a log with the app's settings for the migrations' progress, written at
    // once (process.stdout is synchronous for files and pipes): a SQLite migration holds the event loop until it ends,
    // so the app's asynchronous log would print its progress only afterwards.
    const startLog = Fastify({ logger: options.logger ?? { level: config.LOG_LEVEL, stream: process.stdout } }).log;
    // Made private before the database opened (instance.ts); said once, for the admin to find who made it so.
    for (const entry of madePrivate) {
      startLog.warn(
        { path: entry.path, mode: octal(entry.mode), now: octal(entry.mode & ~0o077) },
        `${entry.path} was open to other accounts (mode ${octal(entry.mode)}): made it private to this account`,
      );
    }
    await migrateDatabase({ database, secrets }, (event) => {
      const line = `migration ${describeMigrationProgress(event)}`;
      if (event.message === 'started') startLog.debug(event, line);
      else startLog.info(event, line);
    });
    database.keepTemporaryDataInMemory?.();
    const clock = options.clock ?? systemClock;
    const settings = new SettingsService(database.db, clock, lockedSettings);
    await settings.refresh();
    const identity = await checkStorageIdentity(database.db, storage);
    const { app, ctx } = await buildApp(
      {
        config: { ...config, DATA_DIR: dataDir },
        db: database.db,
        engine: database.engine,
        clock,
        instanceId,
        secrets,
        settings,
        storage,
        storageShared: identity.shared,
        views: new PendingViews(),
        lifecycle: new Lifecycle(),
        smallFiles: new ByteCache(SMALL_FILE_BYTES, SMALL_FILES_CACHE_BYTES),
        commits: database.groupCommit(),
        batches: (batches = database.batchWriter()),
        reads: (reads = database.slowReader()),
        metrics: new ProcessMetrics(),
      },
      { logger: options.logger ?? { level: config.LOG_LEVEL } },
    );
    // Plain redirects, small public files and plain uploads are answered before Fastify's routing (http/serving/fast-path.ts).
    installFastPath(app, ctx);
    // Names this process among the instances of the database (instances may share an INSTANCE_ID's data folder).
    const processId = `${instanceId}:${randomBytes(6).toString('hex')}`;
    if (!identity.shared) app.log.error(unsharedStorageMessage(storage, identity.marker));
    feed = await openChangeFeed({
      db: database.db,
      databaseUrl: config.DATABASE_URL,
      onError: (err) => app.log.warn({ err }, 'the change feed lost its database connection; reconnecting'),
    });
    const changes = feed;
    changes.subscribe('settings', () => {
      settings.refresh().catch((err: unknown) => app.log.warn({ err }, 'settings refresh failed'));
    });
    settings.afterUpdate = () => changes.publish('settings');
    const jobs = new Jobs(app.log, { ctx, holder: processId });
    jobs.every('refresh-settings', 5_000, () => settings.refresh());
    jobs.every('purge-expired-sessions', 3_600_000, () => purgeExpiredSessions(ctx), { exclusive: true });
    jobs.every('discard-idle-upload-sessions', 60_000, () => discardIdleUploadSessions(ctx), { exclusive: true });
    // Chunked uploads do not survive a restart of the instance that holds them: their temp data goes, their assemblies
    // become FAILED. Other instances' uploads carry on.
    await discardUnfinishedUploadSessions(ctx);
    // Bytes a dead process stored for uploads it never recorded go too.
    await removeUnrecordedObjects(ctx);
    if (database.engine === 'postgres') await checkTrigramSearch(database.db, app.log);
    jobs.every('delete-expired-files', 60_000, () => deleteExpiredFiles(ctx), { exclusive: true });
    // Deletions a crash or a stop cut off (users, bulk deletes, the bytes of deleted files): continued at start and
    // then every minute, by one instance at a time (a lease inside).
    jobs.every('resume-deletions', 60_000, () => resumeDeletions(ctx, { atStart: false }));
    jobs.every('flush-views', VIEW_FLUSH_INTERVAL_MS, () => flushViews(ctx));
    // SQLite: the new files' names into the trigram table, for many files at once (db/schema/search-index.ts NEW_FILES).
    if (ctx.engine === 'sqlite') jobs.every('index-new-files', SEARCH_INDEX_INTERVAL_MS, () => indexWaitingFiles(ctx));
    jobs.every('purge-done-jobs', 3_600_000, () => purgeDoneJobs(ctx.db, clock.now() - DONE_JOBS_KEPT_MS), {
      exclusive: true,
    });
    // A statistics snapshot per metricsInterval slot: one instance looks each minute (a lease), and the slot is unique
    // in the table, so a slot never gets two whatever happens. A young series also gets one when its figures change.
    jobs.every('metrics-snapshot', METRICS_TICK_MS, () => takeMetricsSnapshots(ctx), { exclusive: true });
    jobs.every('queue-export-sweep', 3_600_000, () => queueExportSweep(ctx), { exclusive: true });
    const worker = new JobWorker(
      ctx,
      {
        [THUMBNAIL_JOB]: makeThumbnail,
        [WEBHOOK_JOB]: deliverWebhook,
        [DISCORD_WEBHOOK_JOB]: deliverDiscordWebhook,
        [USER_EXPORT_JOB]: runUserExport,
        [EXPORT_SWEEP_JOB]: sweepExports,
      },
      {
        concurrency: config.JOBS_CONCURRENCY,
        leaseMs: config.JOBS_LEASE_SECONDS * 1000,
        kindTimeoutsMs: { [USER_EXPORT_JOB]: USER_EXPORT_TIMEOUT_MS },
      },
    );
    await app.ready();
    if (options.startJobs ?? true) {
      jobs.start();
      if (config.JOBS_CONCURRENCY > 0) worker.start();
      void resumeDeletions(ctx, { atStart: true }).catch((err: unknown) =>
        app.log.error({ err }, 'continuing the deletions left from before failed; the job tries again'),
      );
      // A snapshot at start, not a minute later: a new server's charts begin at once (a failure is logged).
      void jobs.runNow('metrics-snapshot');
    }
    return {
      app,
      ctx,
      jobs,
      worker,
      database,
      async close() {
        // Readiness turns false first, so that a load balancer takes this instance out of rotation; with
        // SHUTDOWN_DRAIN_DELAY it keeps serving meanwhile. The whole stop keeps to SHUTDOWN_TIMEOUT from here.
        const deadlineAt = Date.now() + config.SHUTDOWN_TIMEOUT * 1000;
        ctx.lifecycle.drain(clock.now());
        if (config.SHUTDOWN_DRAIN_DELAY > 0 && app.server.listening) {
          app.log.info({ seconds: config.SHUTDOWN_DRAIN_DELAY }, 'draining: readiness is false, still serving');
          await sleep(config.SHUTDOWN_DRAIN_DELAY * 1000);
        }
        // Queue jobs finish within the grace period or go back to the queue for another instance or the next start;
        // meanwhile the requests in progress finish too (both within the shutdown deadline).
        const workerStopped = worker.stop(options.shutdownGraceMs ?? SHUTDOWN_GRACE_MS);
        await jobs.stop();
        // A background deletion stops after its current batch (readiness is false); the next start continues it.
        await deletionsSettled(ctx);
        // Stop accepting; requests in progress get what is left of SHUTDOWN_TIMEOUT to finish, then their connections
        // are cut. Their handlers then clean up (an upload cut off removes its temp file) before the database closes.
        const deadline = setTimeout(
          () => {
            app.log.warn(
              { requests: app.inFlightHandlers.size },
              'shutdown deadline: cutting the requests in progress',
            );
            app.server.closeAllConnections();
          },
          Math.max(0, deadlineAt - Date.now()),
        );
        try {
          await app.close();
        } finally {
          clearTimeout(deadline);
        }
        if (!(await app.inFlightHandlers.settle(HANDLER_SETTLE_MS))) {
          app.log.error({ requests: app.inFlightHandlers.size }, 'handlers still running after the shutdown deadline');
        }
        await workerStopped;
        // No request counts a view any more: what is pending is written before the database closes.
        await flushViews(ctx).catch((err: unknown) => app.log.error({ err }, 'the last view counts were not stored'));
        await changes.close();
        await storage?.close();
        await ctx.batches.close();
        await ctx.reads.close();
        await database.close();
      },
    };
  } catch (err) {
    await feed?.close().catch(() => undefined);
    await batches?.close().catch(() => undefined);
    await reads?.close().catch(() => undefined);
    await storage?.close().catch(() => undefined);
    await database.close().catch(() => undefined);
    throw err;
  }
}
