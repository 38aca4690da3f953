// Sets of triggers that keep stored counts (db/schema/usage-counters.ts, db/schema/list-counters.ts): created from their
// definitions, and dropped by name (PostgreSQL: with the table each is on, then their functions). On PostgreSQL they
// are statement-level triggers over transition tables: a bulk statement updates each counted row once, instead of
// once per changed row.
import { PostgresAdapter, sql, type QueryExecutorProvider } from 'kysely';

type Executor = QueryExecutorProvider;

export const isPostgresExecutor = (db: Executor): boolean => db.getExecutor().adapter instanceof PostgresAdapter;

export interface TriggerSet {
  /** PostgreSQL: the SQL that creates the functions the triggers run. */
  pgFunctions: string;
  /** Their names, dropped after the triggers. */
  pgFunctionNames: string[];
  /** Trigger name -> what follows `create trigger <name>`. */
  pg: Record<string, string>;
  sqlite: Record<string, string>;
}

/**
 * PostgreSQL statement-level triggers `<prefix>_insert|_delete|_update` running `fn` after each statement that
 * changes `table`, its changed rows in `new_rows` / `old_rows`.
 */
export function pgStatementTriggers(prefix: string, table: string, fn: string): Record<string, string> {
  return {
    [`${prefix}_insert`]: `after insert on ${table} referencing new table as new_rows
    for each statement execute function ${fn}()`,
    [`${prefix}_delete`]: `after delete on ${table} referencing old table as old_rows
    for each statement execute function ${fn}()`,
    [`${prefix}_update`]: `after update on ${table} referencing old table as old_rows new table as new_rows
    for each statement execute function ${fn}()`,
  };
}

export async function createTriggers(db: Executor, set: TriggerSet): Promise<void> {
  const pg = isPostgresExecutor(db);
  if (pg) await sql.raw(set.pgFunctions).execute(db);
  for (const [name, body] of Object.entries(pg ? set.pg : set.sqlite))
    await sql.raw(`create trigger ${name} ${body}`).execute(db);
}

export async function dropTriggers(db: Executor, set: TriggerSet): Promise<void> {
  const pg = isPostgresExecutor(db);
  for (const [name, body] of Object.entries(set.pg)) {
    // The table is named in the definition: `after <event> on <table> ...`.
    const table = /\bon (\w+)/.exec(body)?.[1];
    if (!table) throw new Error(`no table in the definition of trigger ${name}`);
    await sql.raw(`drop trigger if exists ${name}${pg ? ` on ${table}` : ''}`).execute(db);
  }
  if (pg) for (const fn of set.pgFunctionNames) await sql.raw(`drop function if exists ${fn}()`).execute(db);
}
