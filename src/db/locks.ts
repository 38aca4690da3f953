// Row locks that serialise one user's competing writes (quota checks, folder moves). PostgreSQL takes a row lock on
// the user; SQLite needs none: its single connection runs one transaction at a time.
import type { Engine } from './index.js';
import type { Db } from './schema/tables.js';

/** Within the transaction `trx`, waits until no other transaction holds the user's lock, then holds it until `trx` ends. */
export async function lockUser(trx: Db, engine: Engine, userId: string): Promise<void> {
  if (engine !== 'postgres') return;
  await trx.selectFrom('users').select('id').where('id', '=', userId).forUpdate().execute();
}
