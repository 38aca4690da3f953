// Queries of the hot path, built and compiled once: Kysely otherwise builds the operation tree and compiles the same
// SQL on every request, which cost a redirect about as much CPU as the query itself (bench/RESULTS.md).
import type { Compilable, CompiledQuery } from 'kysely';
import type { Db } from './types.js';

/** Stands for the key while the query is compiled; it never reaches the database. */
const KEY = '\u0000chute-precompiled-key\u0000';

/**
 * A one-parameter query (found by `key`), compiled on its first use per database and then run with each key. `build`
 * must pass the key as a bound parameter (as where(column, '=', key) does), never inline it into the SQL.
 */
export function precompiledByKey<R>(build: (db: Db, key: string) => Compilable<R>) {
  const compiled = new WeakMap<Db, CompiledQuery<R>>();
  return async (db: Db, key: string): Promise<R | undefined> => {
    let query = compiled.get(db);
    if (!query) {
      query = build(db, KEY).compile();
      if (!query.parameters.includes(KEY)) throw new Error('a precompiled query must bind its key as a parameter');
      compiled.set(db, query);
    }
    const parameters = query.parameters.map((p) => (p === KEY ? key : p));
    const { rows } = await db.executeQuery<R>({ ...query, parameters });
    return rows[0];
  };
}
