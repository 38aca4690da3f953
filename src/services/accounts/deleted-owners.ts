// Users being deleted (user_deletions, services/accounts/user-deletion.ts) are gone for every look-up from the
// moment their deletion is noted, while their rows go in batches: these are the conditions every query that reads
// users, files, short URLs or folders adds, so that an owner being deleted is skipped. A leaf module: it reads one
// table and imports nothing of the services.
import { sql } from 'kysely';

/** SQL: the owner of this row (`column`, e.g. files.user_id) is not being deleted with their content. */
export function ownerNotDeleted(column: 'files.user_id' | 'urls.user_id' | 'folders.user_id') {
  return sql<boolean>`not exists (select 1 from user_deletions d where d.user_id = ${sql.ref(column)} and d.with_content = 1)`;
}

/** SQL: this user (`column`, e.g. users.id) is not being deleted. */
export function userNotDeleted(column: 'users.id') {
  return sql<boolean>`not exists (select 1 from user_deletions d where d.user_id = ${sql.ref(column)})`;
}
