// What the instances of one database agree on. server_values: small named values of the whole installation (the id of
// its storage marker, see services/operations/storage-identity.ts). leases: a named task that one instance at a time runs (the
// expiry sweep and the other periodic clean-ups, see services/operations/leases.ts): who holds it and until when.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('server_values')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('leases')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('holder', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('leases').execute();
  await db.schema.dropTable('server_values').execute();
}
