// Incomplete files: the records that report the background assembly of a finished chunked upload
// (PENDING -> PROCESSING -> COMPLETE | FAILED), listed and cleared by their owner.
import type { AppContext } from '../../context.js';
import type { Db, IncompleteFileRow, IncompleteFileStatus, IncompleteFilesTable } from '../../db/schema/tables.js';
import type { IncompleteFileDto } from '../../schemas/chunked-upload.js';
import { toIncompleteFileDto, type IncompleteFileMetadata } from './dto.js';

const FINISHED: IncompleteFileStatus[] = ['COMPLETE', 'FAILED'];

/** Records a PENDING assembly, in the transaction that reserves its session's name (uploads/chunked.ts). */
export async function insertIncompleteFile(db: Db, row: IncompleteFileRow): Promise<void> {
  await db.insertInto('incomplete_files').values(row).execute();
}

/**
 * Moves a record on (optionally only from the status `from`); returns whether it did. Touches updated_at.
 */
export async function markIncompleteFile(
  ctx: AppContext,
  id: string,
  from: IncompleteFileStatus | null,
  patch: Partial<Pick<IncompleteFilesTable, 'status' | 'file_id' | 'chunks_complete'>>,
): Promise<boolean> {
  let query = ctx.db
    .updateTable('incomplete_files')
    .set({ ...patch, updated_at: ctx.clock.now() })
    .where('id', '=', id);
  if (from !== null) query = query.where('status', '=', from);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** PENDING or PROCESSING -> FAILED, keeping the reason in the metadata. A finished record is left alone. */
export async function failIncompleteFile(ctx: AppContext, id: string, reason: string): Promise<void> {
  const row = await ctx.db.selectFrom('incomplete_files').select('metadata').where('id', '=', id).executeTakeFirst();
  if (!row) return;
  const metadata = { ...(JSON.parse(row.metadata) as IncompleteFileMetadata), error: reason };
  await ctx.db
    .updateTable('incomplete_files')
    .set({ status: 'FAILED', metadata: JSON.stringify(metadata), updated_at: ctx.clock.now() })
    .where('id', '=', id)
    .where('status', 'in', ['PENDING', 'PROCESSING'])
    .execute();
}

/**
 * At start-up: records left PENDING or PROCESSING without a session become FAILED (an assembly's session row lives
 * until its record is COMPLETE or FAILED, so such a record was orphaned by a crash). Returns how many.
 */
export async function failOrphanedIncompleteFiles(ctx: Pick<AppContext, 'db' | 'clock'>): Promise<number> {
  const failed = await ctx.db
    .updateTable('incomplete_files')
    .set({ status: 'FAILED', updated_at: ctx.clock.now() })
    .where('status', 'in', ['PENDING', 'PROCESSING'])
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('upload_sessions')
            .select('upload_sessions.id')
            .whereRef('upload_sessions.incomplete_file_id', '=', 'incomplete_files.id'),
        ),
      ),
    )
    .executeTakeFirst();
  return Number(failed.numUpdatedRows);
}

/** The user's records, newest first. */
export async function listIncompleteFiles(ctx: AppContext, userId: string): Promise<IncompleteFileDto[]> {
  const rows = await ctx.db
    .selectFrom('incomplete_files')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .execute();
  return rows.map(toIncompleteFileDto);
}

/**
 * Removes the user's finished (COMPLETE or FAILED) records: those listed in `ids`, or all of them. Records still
 * PENDING or PROCESSING stay. Returns how many were removed.
 */
export async function deleteFinishedIncompleteFiles(ctx: AppContext, userId: string, ids?: string[]): Promise<number> {
  if (ids !== undefined && ids.length === 0) return 0;
  let query = ctx.db.deleteFrom('incomplete_files').where('user_id', '=', userId).where('status', 'in', FINISHED);
  if (ids !== undefined) query = query.where('id', 'in', ids);
  const result = await query.executeTakeFirst();
  return Number(result.numDeletedRows);
}
