// The one writer of `ldap_accounts` (test/lint/table-owners.test.ts): which Chute account a directory entry signs in to.
import type { Db, LdapAccountRow } from '../../db/schema/tables.js';

export async function findLdapAccountByEntry(db: Db, entryId: string): Promise<LdapAccountRow | undefined> {
  return db.selectFrom('ldap_accounts').selectAll().where('entry_id', '=', entryId).executeTakeFirst();
}

export async function findLdapAccountOfUser(db: Db, userId: string): Promise<LdapAccountRow | undefined> {
  return db.selectFrom('ldap_accounts').selectAll().where('user_id', '=', userId).executeTakeFirst();
}

export async function insertLdapAccount(db: Db, row: LdapAccountRow): Promise<void> {
  await db.insertInto('ldap_accounts').values(row).execute();
}

/** Keeps the entry's DN as the directory now names it (a renamed or moved entry keeps its stable id). */
export async function updateLdapAccountDn(db: Db, userId: string, dn: string, now: number): Promise<void> {
  await db.updateTable('ldap_accounts').set({ dn, updated_at: now }).where('user_id', '=', userId).execute();
}
