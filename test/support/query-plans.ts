// The query plan of a compiled statement, on SQLite (EXPLAIN QUERY PLAN) or PostgreSQL (EXPLAIN), for the tests that
// assert which index a listing reads.
import assert from 'node:assert/strict';
import { CompiledQuery, sql } from 'kysely';
import type { AppContext } from '../../src/context.js';

/**
 * The plan as one line (steps joined by ' | '). `priceOut`: on PostgreSQL, sequential scans and sorts are priced out
 * (so that a small test table still shows the index the order can be read from).
 */
export async function planOf(ctx: AppContext, query: CompiledQuery, priceOut: boolean): Promise<string> {
  if (ctx.engine === 'sqlite') {
    const plan = await ctx.db.executeQuery<{ detail: string }>(
      CompiledQuery.raw(`explain query plan ${query.sql}`, [...query.parameters]),
    );
    return plan.rows.map((r) => r.detail).join(' | ');
  }
  return ctx.db.transaction().execute(async (trx) => {
    if (priceOut) {
      for (const setting of ['enable_seqscan', 'enable_sort', 'enable_incremental_sort'])
        await sql`select set_config(${setting}, 'off', true)`.execute(trx);
    }
    const plan = await trx.executeQuery<{ 'QUERY PLAN': string }>(
      CompiledQuery.raw(`explain ${query.sql}`, [...query.parameters]),
    );
    return plan.rows.map((r) => r['QUERY PLAN'].trim()).join(' | ');
  });
}

/** The plan uses `index` and sorts nothing itself. */
export function assertReadsInOrder(plan: string, index: string, what: string): void {
  assert.match(plan, new RegExp(`\\b${index}\\b`), `${what}: ${plan}`);
  assert.doesNotMatch(plan, /TEMP B-TREE|Sort Key/, `${what} sorts: ${plan}`);
}
