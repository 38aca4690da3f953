// Queries of the hot path, built and compiled once: Kysely otherwise builds the operation tree and compiles the same
// SQL on every request, which cost a redirect about as much CPU as the query itself (bench/RESULTS.md).
import type { Compilable, CompiledQuery, QueryResult } from 'kysely';
import type { RowWatch, WatchedRows, WatchedTable } from './sqlite/row-watch.js';
import type { Db } from './schema/tables.js';

/** Stands for the key while the query is compiled; it never reaches the database. */
const KEY = '\u0000chute-precompiled-key\u0000';

/**
 * Runs a compiled read at once (SQLite, outside a transaction): its first row, null when there is none, or undefined
 * when it cannot run now.
 */
type SynchronousReader = (sql: string, parameters: readonly unknown[]) => unknown;

const synchronousReaders = new WeakMap<Db, SynchronousReader>();
const rowWatches = new WeakMap<Db, RowWatch>();

/**
 * Lets the precompiled queries of `db` run synchronously (db/sqlite/connection.ts, for SQLite: better-sqlite3 runs a
 * statement synchronously anyway; this skips Kysely's connection lock and its promises, which cost a redirect more than
 * the query). The reader must refuse while a transaction is open on the connection: a read then would see its
 * uncommitted rows.
 */
export function allowSynchronousReads(db: Db, reader: SynchronousReader, watch?: RowWatch): void {
  synchronousReaders.set(db, reader);
  if (watch) rowWatches.set(db, watch);
}

/** What a precompiled query's `now` answers when it cannot run synchronously. */
export const NOT_NOW: unique symbol = Symbol('not now');

export interface PrecompiledQuery<R> {
  (db: Db, key: string): Promise<R | undefined>;
  /** The same query run synchronously when the database allows it now; NOT_NOW otherwise (use the call). */
  now(db: Db, key: string): R | undefined | typeof NOT_NOW;
}

export interface PrecompiledOptions {
  /**
   * Keep the answers of now() in memory, by key (at most `entries`), while no row of `tables` (every table the query
   * reads, with every column it reads or filters on) may have changed: on a database that can watch them
   * (db/sqlite/row-watch.ts: SQLite), else never. The rows answered are then shared between callers: they must not
   * change them.
   */
  cache?: { tables: readonly WatchedTable[]; entries: number };
}

/**
 * A one-parameter query (found by `key`), compiled on its first use per database and then run with each key. `build`
 * must pass the key as a bound parameter (as where(column, '=', key) does), never inline it into the SQL.
 */
export function precompiledByKey<R>(
  build: (db: Db, key: string) => Compilable<R>,
  options: PrecompiledOptions = {},
): PrecompiledQuery<R> {
  const compiled = new WeakMap<Db, CompiledQuery<R>>();
  const compile = (db: Db): CompiledQuery<R> => {
    let query = compiled.get(db);
    if (!query) {
      query = build(db, KEY).compile();
      if (!query.parameters.includes(KEY)) throw new Error('a precompiled query must bind its key as a parameter');
      compiled.set(db, query);
    }
    return query;
  };
  const run = async (db: Db, key: string): Promise<R | undefined> => {
    const query = compile(db);
    const parameters = query.parameters.map((p) => (p === KEY ? key : p));
    const { rows } = await db.executeQuery<R>({ ...query, parameters });
    return rows[0];
  };
  const read = (db: Db, reader: SynchronousReader, key: string): R | null | typeof NOT_NOW => {
    const query = compile(db);
    const row = reader(
      query.sql,
      query.parameters.map((p) => (p === KEY ? key : p)),
    );
    return row === undefined ? NOT_NOW : row === null ? null : (row as R);
  };
  const caches = new WeakMap<Db, AnswerCache<R | null>>();
  run.now = (db: Db, key: string): R | undefined | typeof NOT_NOW => {
    const reader = synchronousReaders.get(db);
    if (reader === undefined) return NOT_NOW;
    const cache = options.cache ? cacheFor(db, options.cache, caches) : undefined;
    // Read before the query: a change committed between the two makes the next call refresh, never keep a stale copy.
    const generation = cache?.watch.generation();
    if (cache === undefined || generation === undefined) {
      const row = read(db, reader, key);
      return row === null ? undefined : row;
    }
    if (cache.generation !== generation) {
      cache.answers.clear();
      cache.generation = generation;
    }
    const kept = cache.answers.get(key);
    if (kept !== undefined) return kept === null ? undefined : kept;
    const row = read(db, reader, key);
    if (row === NOT_NOW) return NOT_NOW;
    if (cache.answers.size >= cache.entries) cache.answers.delete(cache.answers.keys().next().value!);
    cache.answers.set(key, row);
    return row === null ? undefined : row;
  };
  return run;
}

interface AnswerCache<T> {
  watch: WatchedRows;
  entries: number;
  generation: number;
  answers: Map<string, T>;
}

/** The answer cache of one query on `db` (its tables watched from now on), when `db` can watch rows; else undefined. */
function cacheFor<T>(
  db: Db,
  wanted: { tables: readonly WatchedTable[]; entries: number },
  caches: WeakMap<Db, AnswerCache<T>>,
): AnswerCache<T> | undefined {
  let cache = caches.get(db);
  if (cache) return cache;
  const watch = rowWatches.get(db)?.watch(wanted.tables);
  if (!watch) return undefined;
  cache = { watch, entries: wanted.entries, generation: -1, answers: new Map() };
  caches.set(db, cache);
  return cache;
}

/** Stands for the value of `field` while a write is compiled; it never reaches the database. */
const fieldMark = (field: string): string => `\u0000chute-precompiled-field:${field}\u0000`;

/**
 * A write of one shape whose values change per call (the record of an upload), compiled once per engine (Kysely's
 * tree and compiler cost a 17-column insert ~11 us of the event loop per call, a scratch benchmark) and run on any
 * connection or transaction of that engine. `build` gets a stand-in for each value and must bind every one of them
 * as a parameter (as values() and where(column, '=', value) do), and each call must give the same fields (the first
 * one is checked against them, and the compiled query for every one bound).
 */
export function precompiledWrite<V extends Record<string, unknown>>(
  fields: ReadonlyArray<keyof V & string>,
  build: (db: Db, values: V) => Compilable<unknown>,
): (db: Db, engine: string, values: V) => Promise<QueryResult<unknown>> {
  const compiled = new Map<string, { query: CompiledQuery<unknown>; slots: Array<string | null> }>();
  return async (db, engine, values) => {
    let entry = compiled.get(engine);
    if (!entry) {
      // A value the fields leave out would never be written: the first call (in every test) says so.
      const unknown = Object.keys(values).filter((k) => !fields.includes(k));
      if (unknown.length > 0)
        throw new Error(`a precompiled write was given values it does not bind: ${unknown.join(', ')}`);
      const marks = Object.fromEntries(fields.map((f) => [f, fieldMark(f)])) as V;
      const query = build(db, marks).compile();
      const byMark = new Map(fields.map((f) => [fieldMark(f), f as string]));
      const slots = query.parameters.map((p) => (typeof p === 'string' ? (byMark.get(p) ?? null) : null));
      for (const f of fields) {
        if (!slots.includes(f)) throw new Error(`a precompiled write must bind ${f} as a parameter`);
      }
      entry = { query, slots };
      compiled.set(engine, entry);
    }
    const { query, slots } = entry;
    const parameters = slots.map((field, i) => (field === null ? query.parameters[i] : values[field]));
    return db.executeQuery({ ...query, parameters });
  };
}
