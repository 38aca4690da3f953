// An instance export as `chute export` writes it: the records of every account, folder, file, tag and short URL, and
// the server settings, as one JSON document streamed table by table in pages (never the whole database in memory).
// Credentials stay out: password hashes become "has a password", API tokens, TOTP secrets and sessions are left out.
// File bytes are not in it: they stay in storage (docs/operations.md: backups).
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import type { AppContext } from '../context.js';
import type { Database } from '../db/types.js';
import { toIso } from '../lib/clock.js';
import { runningVersion } from './version.js';

/** Rows read per query. */
const PAGE_SIZE = 500;

/** Format of the document; a reader checks it before anything else. */
export const INSTANCE_EXPORT_FORMAT = 'chute-instance-export/1';

type IdTable = 'users' | 'quotas' | 'folders' | 'files' | 'tags' | 'urls';

/** How each exported table's rows are written (credentials out, flags as booleans, times as ISO dates). */
const EXPORTED: { [T in IdTable]: (row: Record<string, unknown>) => Record<string, unknown> } = {
  users: ({ password, token_hash: _h, token_enc: _e, totp_secret, totp_last_step: _s, ...row }) => ({
    ...row,
    has_password: password !== null,
    totp_enabled: totp_secret !== null,
  }),
  quotas: (row) => row,
  folders: (row) => row,
  files: ({ password, ...row }) => ({ ...row, has_password: password !== null }),
  tags: (row) => row,
  urls: ({ password, ...row }) => ({ ...row, has_password: password !== null }),
};

async function write(out: Writable, text: string): Promise<void> {
  if (!out.write(text)) await once(out, 'drain');
}

/** Writes the export to `out` (left open); returns how many records of each table it holds. */
export async function exportInstance(ctx: AppContext, out: Writable): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  const settings = await ctx.db
    .selectFrom('settings')
    .select(['data', 'first_setup'])
    .where('id', '=', 1)
    .executeTakeFirst();
  const head = {
    format: INSTANCE_EXPORT_FORMAT,
    version: runningVersion(),
    exportedAt: toIso(ctx.clock.now()),
    engine: ctx.engine,
    settings: settings ? (JSON.parse(settings.data) as unknown) : null,
    firstSetup: settings ? Number(settings.first_setup) === 1 : true,
  };
  await write(out, JSON.stringify(head, null, 1).replace(/\n}$/, ''));
  for (const table of Object.keys(EXPORTED) as IdTable[]) {
    await write(out, `,\n "${table}": [`);
    counts[table] = await writeTable(ctx, out, table);
    await write(out, '\n ]');
  }
  await write(out, ',\n "file_tags": [');
  counts.file_tags = await writeFileTags(ctx, out);
  await write(out, '\n ]\n}\n');
  return counts;
}

/** One table, page by page in id order (keyset: each page starts after the last id of the one before). */
async function writeTable(ctx: AppContext, out: Writable, table: IdTable): Promise<number> {
  let after: string | null = null;
  let written = 0;
  for (;;) {
    // The table is chosen from a fixed list; Kysely cannot type a query over a union of tables.
    let query = ctx.db.selectFrom(table as 'users').selectAll();
    if (after !== null) query = query.where('id', '>', after);
    const rows = (await query.orderBy('id').limit(PAGE_SIZE).execute()) as Array<Record<string, unknown>>;
    for (const row of rows) {
      await write(out, `${written === 0 ? '' : ','}\n  ${JSON.stringify(EXPORTED[table](row))}`);
      written++;
    }
    if (rows.length < PAGE_SIZE) return written;
    after = rows.at(-1)!.id as string;
  }
}

async function writeFileTags(ctx: AppContext, out: Writable): Promise<number> {
  let after: Database['file_tags'] | null = null;
  let written = 0;
  for (;;) {
    let query = ctx.db.selectFrom('file_tags').selectAll();
    if (after !== null) {
      const last: Database['file_tags'] = after;
      query = query.where((eb) =>
        eb.or([
          eb('file_id', '>', last.file_id),
          eb.and([eb('file_id', '=', last.file_id), eb('tag_id', '>', last.tag_id)]),
        ]),
      );
    }
    const rows = await query.orderBy('file_id').orderBy('tag_id').limit(PAGE_SIZE).execute();
    for (const row of rows) {
      await write(out, `${written === 0 ? '' : ','}\n  ${JSON.stringify(row)}`);
      written++;
    }
    if (rows.length < PAGE_SIZE) return written;
    after = rows.at(-1)!;
  }
}
