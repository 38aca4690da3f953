// What a `chute` command works with: the server's configuration (environment and .env), its database, settings and
// (for the commands that move bytes) its storage, opened the way the server opens them (server.ts).
import type { FastifyBaseLogger } from 'fastify';
import { Migrator } from 'kysely';
import { ConfigError, environmentWithEnvFile, loadConfig, type Config } from '../config.js';
import type { AppContext } from '../context.js';
import { migrations } from '../db/schema/migrate.js';
import { ByteCache } from '../lib/bytes/byte-cache.js';
import { systemClock } from '../lib/clock.js';
import { octal } from '../lib/data-dir-modes.js';
import { ProcessMetrics } from '../lib/process-metrics.js';
import { openInstanceBase, type InstanceBase } from '../instance.js';
import { Lifecycle } from '../services/operations/lifecycle.js';
import { SettingsService, settingsFromEnv } from '../services/operations/settings.js';
import { checkStorageIdentity, unsharedStorageMessage } from '../services/operations/storage-identity.js';
import { PendingViews } from '../services/serving/pending-views.js';
import type { Datasource } from '../storage/datasource.js';
import { createDatasource } from '../storage/index.js';
import { withDatabaseObjects } from '../storage/database-objects.js';
import { sameConnectionReader, sameConnectionWriter } from '../db/batches-and-slow-reads.js';

/** A failure the command explains in words (printed without a stack trace, exit 1). */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** The configuration as the server would read it in this folder; a bad one -> CliError listing the problems. */
export function readConfig(): Config {
  try {
    const config = loadConfig(environmentWithEnvFile());
    // The settings fixed by environment variables are checked at a server's start too.
    settingsFromEnv(config.env);
    return config;
  } catch (err) {
    if (err instanceof ConfigError || (err as Error).message.startsWith('Invalid configuration')) {
      throw new CliError((err as Error).message);
    }
    throw err;
  }
}

/** Log lines of the services a command calls: warnings and errors on stderr, the rest dropped. */
export function stderrLogger(): FastifyBaseLogger {
  const write =
    (level: string) =>
    (first: unknown, second?: unknown): void => {
      const message = typeof first === 'string' ? first : typeof second === 'string' ? second : '';
      const err = typeof first === 'object' && first !== null ? (first as { err?: unknown }).err : undefined;
      process.stderr.write(`${level}: ${message}${err instanceof Error ? ` (${err.message})` : ''}\n`);
    };
  const ignore = (): void => undefined;
  const logger = {
    level: 'warn',
    fatal: write('error'),
    error: write('error'),
    warn: write('warning'),
    info: ignore,
    debug: ignore,
    trace: ignore,
    silent: ignore,
    child: () => logger,
  };
  return logger as unknown as FastifyBaseLogger;
}

/**
 * Opens the installation as the server does (instance.ts), saying on stderr what in DATA_DIR it made private, as the
 * server says it in its log.
 */
export function openCliInstance(config: Config): InstanceBase {
  const base = openInstanceBase(config);
  for (const entry of base.madePrivate) {
    process.stderr.write(
      `warning: ${entry.path} was open to other accounts (mode ${octal(entry.mode)}): made it private to this account\n`,
    );
  }
  return base;
}

/** Names of the migrations this version has that the database has not run yet. */
export async function pendingMigrations(base: Pick<InstanceBase, 'database'>): Promise<string[]> {
  const known = await new Migrator({
    db: base.database.db,
    provider: { getMigrations: async () => migrations },
  }).getMigrations();
  return known.filter((m) => m.executedAt === undefined).map((m) => m.name);
}

export interface CliContext {
  config: Config;
  ctx: AppContext;
  close(): Promise<void>;
}

/**
 * Opens the database (which must be at this version's schema: `chute migrate` or a server start brings it there),
 * the settings and, with `storage`, the datasource. The CLI's temp files and pending uploads are tagged with an
 * instance id of its own (`<instance>-cli`), so that opening storage never sweeps the running server's uploads in
 * progress, and a later command cleans up what an interrupted one left. `instanceSuffix` makes that tag its own for a
 * command whose pending marks no other command may sweep while it runs (chute storage inline).
 */
export async function openCliContext(options: { storage: boolean; instanceSuffix?: string }): Promise<CliContext> {
  const config = readConfig();
  const base = openCliInstance(config);
  let storage: Datasource | undefined;
  try {
    const pending = await pendingMigrations(base);
    if (pending.length > 0) {
      throw new CliError(
        `the database is not at this version's schema (${pending.length} migration(s) to run, ${pending.at(-1)} last): ` +
          'run `chute migrate` first (starting the server does it too)',
      );
    }
    const instanceId = `${base.instanceId}-${options.instanceSuffix ?? 'cli'}`.slice(-64);
    const settings = new SettingsService(base.database.db, systemClock, settingsFromEnv(config.env));
    await settings.refresh();
    const fullConfig = { ...config, DATA_DIR: base.dataDir };
    // Only the commands that move bytes open storage: a command that does not need it never touches its folders.
    storage = options.storage
      ? withDatabaseObjects(await createDatasource(fullConfig, { instanceId }), base.database.db)
      : noStorage();
    // Bytes put where the server's instances do not look would be files nobody can download.
    if (options.storage) {
      const identity = await checkStorageIdentity(base.database.db, storage);
      if (!identity.shared) throw new CliError(unsharedStorageMessage(storage, identity.marker));
    }
    const ctx: AppContext = {
      config: fullConfig,
      db: base.database.db,
      engine: base.database.engine,
      clock: systemClock,
      instanceId,
      secrets: base.secrets,
      settings,
      storage,
      storageShared: true,
      smallFiles: new ByteCache(0, 0),
      commits: base.database.groupCommit(),
      // A command's deletions run on its own connection (nothing else waits on this process).
      batches: sameConnectionWriter(base.database.db),
      reads: sameConnectionReader(base.database.db),
      views: new PendingViews(),
      lifecycle: new Lifecycle(),
      metrics: new ProcessMetrics(),
      log: stderrLogger(),
    };
    return {
      config: fullConfig,
      ctx,
      async close() {
        await storage?.close();
        await base.database.close();
      },
    };
  } catch (err) {
    await storage?.close().catch(() => undefined);
    await base.database.close().catch(() => undefined);
    throw err;
  }
}

/** The datasource of a command that must not touch bytes: any use is a bug. */
function noStorage(): Datasource {
  return new Proxy({} as Datasource, {
    get(_target, property) {
      if (property === 'close') return async () => undefined;
      throw new Error(`this command does not open storage (used: ${String(property)})`);
    },
  });
}
