// Zipline's maintenance routes for admins (/api/server/clear_temp, clear_zeros, requery_size), done the Chute way:
// temp data that an upload may still need is kept, files go through the one deletion path (records, then bytes; the
// usage counters follow by trigger), and sizes are read from the datasource. Each answers a sentence, as Zipline.
// Chute's own: the orphaned files, bytes that a bulk delete with delete_datasourceFiles false left without a record.
import type { AppContext } from '../../context.js';
import { clearStaleTempFiles } from '../../storage/index.js';
import { keptBlobs, removeKeptBlobs, type KeptBlob } from '../files/blob-deletions.js';
import { deleteFiles } from '../files/manage.js';
import { setFileSize } from '../files/records.js';
import { discardIdleUploadSessions } from '../uploads/assembly.js';

/** A temp file nobody has written to for this long belongs to no request (an upload in progress keeps writing). */
export const STALE_TEMP_MS = 60 * 60_000;

/** How many files one statement of clear_zeros and requery_size handles. */
const BATCH = 500;

/**
 * DELETE /api/server/clear_temp: discards chunked uploads idle past their timeout (with their temp data), then the
 * temp files no upload uses that were left by a crash. Chunked uploads that may continue keep theirs.
 */
export async function clearTemp(ctx: AppContext): Promise<{ status: string }> {
  const sessions = await discardIdleUploadSessions(ctx);
  const states = await ctx.db.selectFrom('upload_sessions').select('append_state').execute();
  const removed: string[] = [];
  for (const dir of ctx.storage.tempDirs) {
    removed.push(
      ...(await clearStaleTempFiles(dir, {
        staleBefore: ctx.clock.now() - STALE_TEMP_MS,
        inUse: (name) => states.some((s) => s.append_state.includes(name)),
      })),
    );
  }
  ctx.log.info({ files: removed.length, sessions }, 'cleared temp files');
  const abandoned = sessions === 0 ? '' : ` and ${sessions} abandoned chunked upload${sessions === 1 ? '' : 's'}`;
  return { status: `Cleared ${removed.length} temporary file${removed.length === 1 ? '' : 's'}${abandoned}.` };
}

/** GET /api/server/clear_zeros: every file of zero bytes, of every user. */
export function zeroByteFiles(ctx: AppContext): Promise<Array<{ id: string; name: string }>> {
  return ctx.db.selectFrom('files').select(['id', 'name']).where('size', '=', 0).orderBy('id').execute();
}

/** DELETE /api/server/clear_zeros: deletes every zero-byte file (record and bytes, as any deletion). */
export async function clearZeroByteFiles(ctx: AppContext): Promise<{ status: string }> {
  let count = 0;
  for (;;) {
    const rows = await ctx.db
      .selectFrom('files')
      .select(['id', 'storage_key'])
      .where('size', '=', 0)
      .limit(BATCH)
      .execute();
    count += await deleteFiles(ctx, rows);
    if (rows.length < BATCH) break;
  }
  ctx.log.info({ files: count }, 'cleared zero-byte files');
  return { status: `Cleared ${count} file${count === 1 ? '' : 's'} with a size of 0.` };
}

export interface RequeryOptions {
  /** Delete the records whose bytes are missing from the datasource (otherwise they are only reported). */
  forceDelete: boolean;
  /** Re-read every file's size, not only the files recorded with 0 bytes. */
  forceUpdate: boolean;
}

/**
 * POST /api/server/requery_size: reads the stored size of the files recorded with 0 bytes (every file with
 * forceUpdate) from the datasource and records it where it differs. A record whose bytes are missing is deleted with
 * forceDelete, and reported otherwise.
 */
export async function requerySizes(ctx: AppContext, options: RequeryOptions): Promise<{ status: string }> {
  let updated = 0;
  let missing = 0;
  let deleted = 0;
  let after = '';
  for (;;) {
    let query = ctx.db
      .selectFrom('files')
      .select(['id', 'size', 'storage_key'])
      .where('id', '>', after)
      .orderBy('id')
      .limit(BATCH);
    if (!options.forceUpdate) query = query.where('size', '=', 0);
    const rows = await query.execute();
    const gone: typeof rows = [];
    for (const row of rows) {
      const info = await ctx.storage.stat(row.storage_key);
      if (!info) {
        gone.push(row);
        continue;
      }
      if (info.size === row.size) continue;
      await setFileSize(ctx.db, row.id, info.size);
      ctx.smallFiles.delete(row.storage_key);
      updated++;
    }
    if (options.forceDelete) deleted += await deleteFiles(ctx, gone);
    else missing += gone.length;
    if (rows.length < BATCH) break;
    after = rows.at(-1)!.id;
  }
  ctx.log.info({ updated, missing, deleted, ...options }, 'requeried file sizes');
  const parts = [`Finished requerying sizes: ${updated} updated`];
  if (deleted > 0) parts.push(`${deleted} deleted because their bytes were missing`);
  const status = `${parts.join(', ')}.`;
  if (missing === 0) return { status };
  return {
    status:
      `${status} ${missing} file${missing === 1 ? ' is' : 's are'} in the database but not in the datasource: ` +
      'run again with forceDelete to remove their records.',
  };
}

/** GET /api/server/orphaned_files: the bytes kept by deletions with delete_datasourceFiles false (oldest first). */
export function orphanedFiles(ctx: AppContext): Promise<KeptBlob[]> {
  return keptBlobs(ctx);
}

/** DELETE /api/server/orphaned_files: removes those bytes (and their thumbnails) from the datasource. */
export async function clearOrphanedFiles(ctx: AppContext): Promise<{ status: string }> {
  const count = await removeKeptBlobs(ctx);
  ctx.log.info({ files: count }, 'cleared orphaned files');
  const left = (await keptBlobs(ctx)).length;
  const rest = left === 0 ? '' : ` ${left} could not be removed now (see the log): run again later.`;
  return { status: `Cleared ${count} orphaned file${count === 1 ? '' : 's'}.${rest}` };
}
