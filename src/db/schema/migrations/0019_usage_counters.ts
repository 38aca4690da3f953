// Stored usage counters (issue 23, item 4): tables, the triggers that keep them, and their first values, counted
// from the files and URLs already there (one grouped pass over each table). See db/schema/usage-counters.ts.
import type { Kysely } from 'kysely';
import type { MigrationStepReport } from '../migration-steps.js';
import {
  createCounterTables,
  createCounterTriggers,
  dropCounterTables,
  dropCounterTriggers,
  fillCounters,
} from '../usage-counters.js';

export async function up(db: Kysely<unknown>, report: MigrationStepReport = () => undefined): Promise<void> {
  // What a run stopped half-way left (earlier versions migrated SQLite outside a transaction) starts over.
  await dropCounterTriggers(db);
  await dropCounterTables(db);
  await createCounterTables(db);
  await createCounterTriggers(db);
  report('counting the files and short URLs of every owner');
  await fillCounters(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await dropCounterTriggers(db);
  await dropCounterTables(db);
}
