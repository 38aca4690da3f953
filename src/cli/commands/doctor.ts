// chute doctor: checks what a Chute needs, in the order it needs it (configuration, data folder, database, storage,
// Redis, ffmpeg), and says in words what is wrong. Exit 1 when something required is broken. Every check has a time
// bound, so a database or a Redis that does not answer is reported within seconds, not after the network's timeouts.
// It only looks: no data folder, secret, instance id or database is made, no migration run, no mode changed (the only
// write is the storage probe, removed again, and --fix-counters when asked).
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { Redis } from 'ioredis';
import type { Config } from '../../config.js';
import { pingDatabase } from '../../db/index.js';
import type { Db } from '../../db/schema/tables.js';
import { lookAtInstance, type InstanceLook } from '../../instance.js';
import { octal } from '../../lib/data-dir-modes.js';
import { ffmpegAvailable } from '../../services/media/decode.js';
import {
  checkStorageIdentity,
  storageMarkerKey,
  unsharedStorageMessage,
} from '../../services/operations/storage-identity.js';
import { rebuildUsageCounters, usageCounterDrift } from '../../services/statistics/usage.js';
import { createDatasource, storageTempDir } from '../../storage/index.js';
import { CliError, pendingMigrations, readConfig } from '../context.js';

export const DOCTOR_HELP = `Usage: chute doctor [--fix-counters]

Checks the configuration (environment and .env), the data folder (does it exist, is it private), the database
(and its usage counters against a fresh count), the storage (writes, reads and deletes a probe object; is it the one the database's other
instances use?), Redis when REDIS_URL is set, and ffmpeg.
It creates nothing: before the server's first start (or \`chute migrate\`) it says that there is no data folder
or database where it looked. With --fix-counters, usage counters that differ from a fresh count are recounted.
Prints one line per check:
  ok    works
  warn  works, but something deserves a look (e.g. pending migrations, no ffmpeg)
  FAIL  broken: Chute cannot run like this
Exits 1 when a check FAILs, 0 otherwise.
`;

/** How long one network check may take. */
const CHECK_TIMEOUT_MS = 5_000;

type Outcome = { level: 'ok' | 'warn' | 'FAIL'; detail: string };

class Report {
  failures = 0;
  line(name: string, outcome: Outcome): void {
    if (outcome.level === 'FAIL') this.failures++;
    process.stdout.write(`${outcome.level.padEnd(5)} ${name}: ${outcome.detail}\n`);
  }
}

/** Rejects with "did not answer within ..." when `promise` takes longer than `ms`. */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms / 1000} s`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** A network or database error in words: what was tried, and what happened. */
function describeError(err: unknown, target: string): string {
  const e = err as NodeJS.ErrnoException & { code?: string };
  switch (e.code) {
    case 'ECONNREFUSED':
      return `nothing listens at ${target} (connection refused)`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `the host of ${target} is unknown (${e.code})`;
    case 'ETIMEDOUT':
      return `${target} did not answer (timed out)`;
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `${target} is unreachable (${e.code})`;
    case '28P01':
    case '28000':
      return `${target} refused the user or password (${e.message})`;
    case '3D000':
      return `${target}: ${e.message}`;
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
      return `no permission: ${e.message}`;
    default:
      return `${target}: ${e.message || String(err)}`;
  }
}

/** Where a URL points, without its credentials. */
function where(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || (u.protocol.startsWith('redis') ? 6379 : 5432)}`;
  } catch {
    return 'the configured address';
  }
}

export async function doctorCommand(argv: string[]): Promise<void> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(DOCTOR_HELP);
    return;
  }
  const fixCounters = argv.includes('--fix-counters');
  const unexpected = argv.filter((a) => a !== '--fix-counters');
  if (unexpected.length > 0) throw new CliError(`unexpected arguments: ${unexpected.join(' ')}\n\n${DOCTOR_HELP}`, 2);
  const report = new Report();
  let config: Config;
  try {
    config = readConfig();
  } catch (err) {
    report.line('configuration', { level: 'FAIL', detail: (err as Error).message });
    process.exitCode = 1;
    return;
  }
  report.line('configuration', {
    level: 'ok',
    detail: `${config.DATABASE_URL ? 'PostgreSQL' : 'SQLite'}, storage ${config.DATASOURCE}, port ${config.PORT}`,
  });

  let base: InstanceLook;
  try {
    base = lookAtInstance(config, { connectTimeoutMs: CHECK_TIMEOUT_MS - 1_000 });
  } catch (err) {
    report.line('data folder', { level: 'FAIL', detail: describeError(err, config.DATA_DIR) });
    process.exitCode = 1;
    return;
  }
  checkDataFolder(report, config, base);
  try {
    const schemaReady = await checkDatabase(report, config, base, fixCounters);
    await checkStorage(report, config, base, schemaReady);
    await checkRedis(report, config);
    report.line(
      'ffmpeg',
      ffmpegAvailable(config.FFMPEG_PATH)
        ? { level: 'ok', detail: `${config.FFMPEG_PATH} runs` }
        : { level: 'warn', detail: `${config.FFMPEG_PATH} does not run: videos get no thumbnails (FFMPEG_PATH)` },
    );
    if (base.dataDirExists && !base.hasSecret) {
      report.line('secret', {
        level: 'warn',
        detail: `no secret in ${base.dataDir} yet and SECRET is not set: the server's first start makes one`,
      });
    } else if (config.DATABASE_URL && !config.SECRET) {
      report.line('secret', {
        level: 'warn',
        detail: `SECRET is not set: the one kept in ${base.dataDir}/secret is used; instances sharing the database need one SECRET`,
      });
    }
  } finally {
    await base.database?.close().catch(() => undefined);
  }
  const nothingHere = !base.dataDirExists || (base.sqliteFile !== null && base.database === null);
  process.stdout.write(
    nothingHere
      ? `nothing is set up in ${base.dataDir} yet: the server's first start (npm start) or \`chute migrate\` ` +
          'creates it there; if the installation is elsewhere, set DATA_DIR (in the environment or .env)\n'
      : report.failures === 0
        ? 'everything Chute needs works\n'
        : `${report.failures} problem(s) to fix before Chute can run\n`,
  );
  if (report.failures > 0) process.exitCode = 1;
}

/** Where the data folder is, whether it exists, and whether anyone but this account can get in. */
function checkDataFolder(report: Report, config: Config, base: InstanceLook): void {
  const unset = config.env.DATA_DIR === undefined ? ` (DATA_DIR is not set: ./data of ${process.cwd()})` : '';
  if (!base.dataDirExists) {
    report.line('data folder', {
      level: 'FAIL',
      detail: `there is no data folder at ${base.dataDir}${unset}: nothing was created`,
    });
    return;
  }
  if (base.openEntries.length > 0) {
    const names = base.openEntries.map((e) => `${path.relative(base.dataDir, e.path) || '.'} (${octal(e.mode)})`);
    report.line('data folder', {
      level: 'warn',
      detail:
        `${base.dataDir}: open to other accounts: ${names.join(', ')}; the server's next start makes them private ` +
        `(or \`chmod -R go-rwx ${base.dataDir}\`)`,
    });
    return;
  }
  report.line('data folder', { level: 'ok', detail: `${base.dataDir}${unset}, private to this account` });
}

/** Connects, then checks the schema and the counters; true when the database answers at this version's schema. */
async function checkDatabase(
  report: Report,
  config: Config,
  base: InstanceLook,
  fixCounters: boolean,
): Promise<boolean> {
  const target = config.DATABASE_URL ? `PostgreSQL at ${where(config.DATABASE_URL)}` : `SQLite in ${base.dataDir}`;
  const database = base.database;
  if (database === null) {
    report.line('database', {
      level: 'FAIL',
      detail: `there is no database at ${base.sqliteFile ?? target}: nothing was created`,
    });
    return false;
  }
  try {
    await within(pingDatabase(database.db), CHECK_TIMEOUT_MS, target);
  } catch (err) {
    report.line('database', { level: 'FAIL', detail: describeError(err, target) });
    return false;
  }
  report.line('database', { level: 'ok', detail: `${target} answers` });
  let pending: string[];
  try {
    pending = await within(pendingMigrations({ database }), CHECK_TIMEOUT_MS, target);
    report.line(
      'schema',
      pending.length === 0
        ? { level: 'ok', detail: 'up to date' }
        : {
            level: 'warn',
            detail: `${pending.length} migration(s) to run (${pending.join(', ')}): the next start or \`chute migrate\` runs them`,
          },
    );
  } catch (err) {
    report.line('schema', { level: 'FAIL', detail: describeError(err, target) });
    return false;
  }
  if (pending.length > 0) return false;
  await checkCounters(report, database.db, fixCounters);
  return true;
}

/** The stored usage counters against a fresh count (src/db/schema/usage-counters.ts); recounted when asked. */
async function checkCounters(report: Report, db: Db, fix: boolean): Promise<void> {
  const drift = await usageCounterDrift(db);
  if (drift.length === 0) {
    report.line('counters', { level: 'ok', detail: 'the usage counters match a fresh count' });
    return;
  }
  if (fix) {
    await rebuildUsageCounters(db);
    report.line('counters', { level: 'ok', detail: `${drift.length} usage counter(s) differed: recounted` });
    return;
  }
  report.line('counters', {
    level: 'warn',
    detail:
      `${drift.length} usage counter(s) differ from a fresh count (view totals of a running server may lag a ` +
      'second): `chute doctor --fix-counters` recounts them',
  });
}

/**
 * Writes, reads back and deletes a probe object; with the schema in place, also checks that this storage is the one
 * the database's other instances use (their marker, services/operations/storage-identity.ts).
 */
async function checkStorage(report: Report, config: Config, base: InstanceLook, schemaReady: boolean): Promise<void> {
  const uploadsDir = path.resolve(config.UPLOADS_DIR ?? path.join(base.dataDir, 'uploads'));
  const target =
    config.DATASOURCE === 's3'
      ? `S3 bucket ${config.S3_BUCKET ?? ''} at ${config.S3_ENDPOINT ?? 'AWS'}`
      : `folder ${config.UPLOADS_DIR ?? `${base.dataDir}/uploads`}`;
  // Opening the datasource makes its folders: not checked before the server has made them.
  const folders = [storageTempDir({ DATA_DIR: base.dataDir }), ...(config.DATASOURCE === 's3' ? [] : [uploadsDir])];
  const missing = folders.filter((folder) => !existsSync(folder));
  if (missing.length > 0) {
    report.line('storage', {
      level: 'warn',
      detail: `${target}: not checked: ${missing.join(' and ')} do(es) not exist yet (the server's first start makes them)`,
    });
    return;
  }
  // The probe's temp files carry an owner of their own: opening storage here never sweeps the server's.
  const owner = `${base.instanceId ?? 'unknown'}-doctor`.slice(-64);
  const storage = await within(
    createDatasource({ ...config, DATA_DIR: base.dataDir }, { instanceId: owner }),
    CHECK_TIMEOUT_MS,
    target,
  ).catch((err: unknown) => {
    report.line('storage', { level: 'FAIL', detail: describeError(err, target) });
    return null;
  });
  if (!storage) return;
  const key = `doctor-probe-${randomBytes(8).toString('hex')}`;
  const content = `chute doctor ${new Date().toISOString()}`;
  try {
    await within(
      (async () => {
        await storage.put(key, Readable.from([Buffer.from(content)]), { contentType: 'text/plain' });
        const back = await text(await storage.get(key));
        if (back !== content) throw new Error('the probe object came back different from what was written');
        await storage.delete(key);
      })(),
      CHECK_TIMEOUT_MS * 2,
      target,
    );
    report.line('storage', { level: 'ok', detail: `${target}: wrote, read and deleted a probe object` });
    if (schemaReady && base.database) {
      const identity = await within(checkStorageIdentity(base.database.db, storage), CHECK_TIMEOUT_MS, target);
      report.line(
        'shared storage',
        identity.shared
          ? { level: 'ok', detail: `holds the database's storage marker (${storageMarkerKey(identity.marker)})` }
          : { level: 'FAIL', detail: unsharedStorageMessage(storage, identity.marker) },
      );
    }
  } catch (err) {
    report.line('storage', { level: 'FAIL', detail: describeError(err, target) });
    await storage.delete(key).catch(() => undefined);
  } finally {
    await storage.close().catch(() => undefined);
  }
}

async function checkRedis(report: Report, config: Config): Promise<void> {
  if (!config.REDIS_URL) {
    report.line('redis', { level: 'ok', detail: 'not configured: rate limits are counted per instance' });
    return;
  }
  const target = `Redis at ${where(config.REDIS_URL)}`;
  const redis = new Redis(config.REDIS_URL, {
    lazyConnect: true,
    connectTimeout: CHECK_TIMEOUT_MS - 1_000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: false,
  });
  let lastError: unknown;
  redis.on('error', (err: unknown) => (lastError = err));
  try {
    await within(redis.connect(), CHECK_TIMEOUT_MS, target);
    const pong = await within(redis.ping(), CHECK_TIMEOUT_MS, target);
    report.line('redis', { level: 'ok', detail: `${target} answers (${pong})` });
  } catch (err) {
    report.line('redis', { level: 'FAIL', detail: describeError(lastError ?? err, target) });
  } finally {
    redis.disconnect();
  }
}
