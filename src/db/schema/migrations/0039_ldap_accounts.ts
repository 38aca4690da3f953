// LDAP sign-in (issue 47, item 4): which Chute account each directory entry signs in to. An entry is known by its
// directory's stable id (entryUUID, objectGUID, ipaUniqueID, nsUniqueId) where it has one, else by its DN; the DN
// is kept up to date for the log. One entry per account and one account per entry; the row goes with its account.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('ldap_accounts')
    .addColumn('user_id', 'text', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('entry_id', 'text', (c) => c.notNull().unique())
    .addColumn('dn', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('ldap_accounts').ifExists().execute();
}
