// Opens PostgreSQL (what db/index.ts hands out as the DatabaseHandle when DATABASE_URL is set): a pool of connections
// behind Kysely's own dialect. Commits are plain transactions (db/postgres/commits.ts); long work runs on the pool like
// any query (db/batches-and-slow-reads.ts): the server does it, nothing blocks this process.
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { sameConnectionReader, sameConnectionWriter } from '../batches-and-slow-reads.js';
import type { Database } from '../schema/tables.js';
import { allowUnflushedPostgresCommits, plainTransactions } from './commits.js';

export interface PostgresOptions {
  /** postgres:// URL. */
  databaseUrl: string;
  /** Largest number of pooled connections (default 10). */
  poolSize?: number | undefined;
  /** How long a connection attempt may take (default: no bound but the network's). */
  connectTimeoutMs?: number | undefined;
}

// int8 (bigint) and numeric counts come back as numbers: every bigint we store (sizes, epoch ms) is far below 2^53.
const pgTypes = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === 20 /* int8 */) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format as 'text');
  },
};

export function openPostgres(options: PostgresOptions) {
  const pool = new pg.Pool({
    connectionString: options.databaseUrl,
    max: options.poolSize ?? 10,
    ...(options.connectTimeoutMs !== undefined ? { connectionTimeoutMillis: options.connectTimeoutMs } : {}),
    types: pgTypes as pg.CustomTypesConfig,
  });
  // An idle connection that fails (database restart, network, DROP DATABASE in tests) is dropped by the pool and
  // replaced on the next query; without a listener its 'error' event would crash the process.
  pool.on('error', () => undefined);
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  allowUnflushedPostgresCommits(db);
  return {
    db,
    // Kysely's migrator takes PostgreSQL's advisory lock by itself.
    withMigrationLock: <T>(fn: () => Promise<T>): Promise<T> => fn(),
    groupCommit: () => plainTransactions(db),
    batchWriter: () => sameConnectionWriter(db),
    slowReader: () => sameConnectionReader(db),
    close: () => db.destroy(),
  };
}
