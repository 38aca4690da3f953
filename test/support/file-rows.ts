// File records written straight into the database (no bytes stored), for listing tests that need many files with
// chosen names, sizes, dates and nulls quickly. The search index follows them as it follows uploads (triggers and
// indexNewFiles on SQLite, the GIN indexes on PostgreSQL).
import type { AppContext } from '../../src/context.js';
import { sql } from 'kysely';
import { indexNewFiles, isPostgres, NEW_FILES } from '../../src/db/schema/search-index.js';
import type { Db } from '../../src/db/schema/tables.js';
import type { Insertable } from 'kysely';
import type { FileRow, FilesTable } from '../../src/db/schema/tables.js';
import { randomString } from '../../src/lib/security/ids.js';

export type FileRowSpec = Partial<Insertable<FilesTable>> & Pick<FileRow, 'user_id'>;

let sequence = 0;

/** A files row: the spec with defaults for what it leaves out (ids and dates unique in this process). */
export function fileRowOf(spec: FileRowSpec): Insertable<FilesTable> & { id: string } {
  const id = spec.id ?? `f${randomString(15, 'abcdefghijklmnopqrstuvwxyz0123456789')}`;
  sequence += 1;
  return {
    id,
    name: `${id}.txt`,
    original_name: null,
    type: 'text/plain',
    size: 1,
    views: 0,
    max_views: null,
    favorite: 0,
    password: null,
    deletes_at: null,
    folder_id: null,
    storage_key: `none/${id}`,
    created_at: 1_700_000_000_000 + sequence,
    updated_at: 1_700_000_000_000 + sequence,
    ...spec,
  };
}

/** Inserts the rows (defaults for what a spec leaves out) in batches; returns them as stored, in the same order. */
export async function insertFileRows(ctx: Pick<AppContext, 'db'>, specs: FileRowSpec[]): Promise<FileRow[]> {
  const rows = specs.map(fileRowOf);
  for (let i = 0; i < rows.length; i += 200) {
    await ctx.db
      .insertInto('files')
      .values(rows.slice(i, i + 200))
      .execute();
  }
  // As every writer of the product does before its commit (db/schema/search-index.ts); a database from before migration 0032
  // indexes them from the trigger.
  if (await hasSearchBacklog(ctx.db)) await indexNewFiles(ctx.db);
  const stored = new Map<string, FileRow>();
  const ids = rows.map((r) => r.id);
  for (let i = 0; i < ids.length; i += 500) {
    const batch = await ctx.db
      .selectFrom('files')
      .selectAll()
      .where('id', 'in', ids.slice(i, i + 500))
      .execute();
    for (const row of batch) stored.set(row.id, row);
  }
  return ids.map((id) => stored.get(id)!);
}

async function hasSearchBacklog(db: Db): Promise<boolean> {
  if (isPostgres(db)) return false;
  const found = await sql<{ name: string }>`select name from sqlite_master where name = ${NEW_FILES}`.execute(db);
  return found.rows.length > 0;
}
