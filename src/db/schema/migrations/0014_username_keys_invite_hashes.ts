// Two hardenings of stored identifiers.
//
// users.username_key: the case-folded NFKC form of the username, unique, so that `Admin` beside `admin` (or a
// full-width or trailing-space twin) cannot be made, and signing in finds a name whatever its case. Existing names
// are kept as they are; when two of them share a key already, the oldest account keeps the plain key and each
// younger one gets `<key>#<id>`: every account still signs in with its exact name, and an admin renames the
// younger ones (docs/security.md).
//
// invites.code -> code_hash + code_enc: the code is looked up by a keyed hash and kept only encrypted. The keys come
// from the instance SECRET, which a migration does not have: the table is rebuilt here with each old code carried in
// code_hash as `clear:<code>`, and sealLegacyInviteCodes (services/accounts/invites.ts) replaces those with the hash and the
// ciphertext at start-up, before the server answers a request.
import { sql, type Kysely } from 'kysely';

/** The columns this migration reads and writes, as they are at this point of history. */
interface Tables {
  users: { id: string; username: string; username_key: string | null; created_at: number };
}

/** Frozen copy of lib/text/usernames.ts's usernameKey as of this migration (later changes must not rewrite history). */
function keyOf(name: string): string {
  return name
    .replace(/\p{Cs}/gu, '\uFFFD')
    .normalize('NFKC')
    .trim()
    .toUpperCase()
    .toLowerCase()
    .normalize('NFKC');
}

async function addUsernameKeys(db: Kysely<Tables>): Promise<void> {
  await db.schema.alterTable('users').addColumn('username_key', 'text').execute();
  const users = await db.selectFrom('users').select(['id', 'username']).orderBy('created_at').orderBy('id').execute();
  const taken = new Set<string>();
  for (const user of users) {
    let key = keyOf(user.username);
    if (taken.has(key)) key = `${key}#${user.id}`;
    taken.add(key);
    await db.updateTable('users').set({ username_key: key }).where('id', '=', user.id).execute();
  }
  await db.schema.createIndex('users_username_fold_unique').on('users').column('username_key').unique().execute();
}

async function rebuildInvites(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('invites_next')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('code_hash', 'text', (c) => c.notNull().unique())
    .addColumn('code_enc', 'text')
    .addColumn('inviter_id', 'text', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('expires_at', 'bigint')
    .addColumn('max_uses', 'integer')
    .addColumn('uses', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await sql`insert into invites_next (id, code_hash, code_enc, inviter_id, expires_at, max_uses, uses, created_at, updated_at)
    select id, 'clear:' || code, null, inviter_id, expires_at, max_uses, uses, created_at, updated_at from invites`.execute(
    db,
  );
  await db.schema.dropTable('invites').execute();
  await db.schema.alterTable('invites_next').renameTo('invites').execute();
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await addUsernameKeys(db as Kysely<Tables>);
  await rebuildInvites(db);
}

export async function down(): Promise<void> {
  throw new Error('0014 cannot be undone: invite codes are no longer stored in clear');
}
