// Second factors: the last TOTP time step accepted (no code is accepted twice), hashed single-use recovery codes,
// WebAuthn challenges kept in the database (so that any instance can finish a flow another one started), and the
// credential id of each passkey as its own indexed column (the passkey an assertion names is found by it).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('users').addColumn('totp_last_step', 'bigint').execute();

  await db.schema
    .createTable('recovery_codes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('code_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('recovery_codes_user_code', ['user_id', 'code_hash'])
    .execute();

  await db.schema
    .createTable('webauthn_challenges')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('challenge', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('webauthn_challenges_user')
    .on('webauthn_challenges')
    .columns(['user_id', 'purpose'])
    .execute();

  await db.schema.alterTable('passkeys').addColumn('credential_id', 'text').execute();
  await db.schema.createIndex('passkeys_credential_id').on('passkeys').column('credential_id').unique().execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('passkeys_credential_id').execute();
  await db.schema.alterTable('passkeys').dropColumn('credential_id').execute();
  await db.schema.dropTable('webauthn_challenges').execute();
  await db.schema.dropTable('recovery_codes').execute();
  await db.schema.alterTable('users').dropColumn('totp_last_step').execute();
}
