// The one writer of `users` (test/lint/table-owners.test.ts): creating, changing and removing account rows, for the
// services that decide when (setup, profiles, administration, TOTP, deletion, the import). Imports only db/ and lib/.
import type { Db, UserRow, UserUpdate } from '../../db/schema/tables.js';

/** A new account's row (a taken username fails on its unique index, for the caller to name). */
export async function insertUserRow(db: Db, row: UserRow): Promise<void> {
  await db.insertInto('users').values(row).execute();
}

/** The rows of an import, one statement per slice the import gives. */
export async function insertImportedUsers(db: Db, rows: UserRow[]): Promise<void> {
  await db.insertInto('users').values(rows).execute();
}

/** Changes columns of one account. */
export async function setUserColumns(db: Db, id: string, changes: UserUpdate): Promise<void> {
  await db.updateTable('users').set(changes).where('id', '=', id).execute();
}

/**
 * Turns TOTP on only while it is off: of two concurrent confirmations exactly one wins (the result says whether this
 * one did).
 */
export async function turnTotpOn(
  db: Db,
  id: string,
  changes: Pick<UserRow, 'totp_secret' | 'totp_last_step' | 'updated_at'>,
): Promise<boolean> {
  const updated = await db
    .updateTable('users')
    .set(changes)
    .where('id', '=', id)
    .where('totp_secret', 'is', null)
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1;
}

/**
 * Moves the last accepted TOTP step forward to `step`, in one conditional update: of two requests with the same code
 * only one wins (the result says whether this one did).
 */
export async function claimTotpStep(db: Db, id: string, step: number): Promise<boolean> {
  const claimed = await db
    .updateTable('users')
    .set({ totp_last_step: step })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('totp_last_step', 'is', null), eb('totp_last_step', '<', step)]))
    .executeTakeFirst();
  return Number(claimed.numUpdatedRows) === 1;
}

/** Removes the account's row; what refers to it goes by cascade (folders, tags, tokens ...). */
export async function deleteUserRow(db: Db, id: string): Promise<void> {
  await db.deleteFrom('users').where('id', '=', id).execute();
}
