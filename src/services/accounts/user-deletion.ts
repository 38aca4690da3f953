// Deleting a user without stalling the server: one short transaction notes the deletion (user_deletions), and from its
// commit on the user is gone for every look-up (services/accounts/deleted-owners.ts) while their files and short URLs
// go (or lose their owner) in batches on the batch writer (services/files/deletions.ts), resumed after a crash by
// services/operations/unfinished-deletions.ts.
import type { AppContext } from '../../context.js';
import type { Db } from '../../db/schema/tables.js';
import { deleteFilesWhere, writeInBatches } from '../files/deletions.js';
import { disownFilesOf } from '../files/records.js';
import { disownUrlsOf, urlsOfUserDeletion } from '../links/short-urls.js';
import { releaseSessionData } from '../uploads/assembly.js';
import { deleteSessionsOf } from './sessions.js';
import { deleteUserRow } from './user-records.js';

/**
 * Notes the deletion of a user, inside the caller's transaction (with the checks that allow it). From its commit on,
 * the user cannot sign in (their sessions go here; every look-up of a user skips those being deleted) and, with their
 * content, their files and short URLs are no longer served or listed.
 */
export async function beginUserDeletion(ctx: AppContext, trx: Db, userId: string, withContent: boolean): Promise<void> {
  await trx
    .insertInto('user_deletions')
    .values({ user_id: userId, with_content: withContent ? 1 : 0, created_at: ctx.clock.now() })
    .onConflict((oc) => oc.column('user_id').doNothing())
    .execute();
  await deleteSessionsOf(trx, userId);
}

/**
 * Carries out a noted user deletion: their files and short URLs (deleted, or kept without an owner), in batches,
 * then the user row (with what cascades from it: folders, tags, tokens ...) and the note, in one transaction. Safe to
 * run twice at once or again after a crash. Returns the number of files deleted.
 */
export async function continueUserDeletion(ctx: AppContext, userId: string, onBatch?: () => Promise<void>) {
  const task = await ctx.db.selectFrom('user_deletions').selectAll().where('user_id', '=', userId).executeTakeFirst();
  if (!task) return 0;
  let files = 0;
  if (task.with_content === 1) {
    files = await deleteFilesWhere(
      ctx,
      (size) => ctx.db.selectFrom('files').select('id').where('user_id', '=', userId).limit(size),
      onBatch,
    );
    await writeInBatches(ctx, (size) => urlsOfUserDeletion(ctx.db, userId, size), onBatch);
  } else {
    // What the foreign keys would do to every row at once when the user row goes (owner and folder set null).
    await writeInBatches(ctx, (size) => disownFilesOf(ctx.db, userId, size), onBatch);
    await writeInBatches(ctx, (size) => disownUrlsOf(ctx.db, userId, size), onBatch);
  }
  // Their unfinished chunked uploads go with them (the rows by cascade); their bytes are released after the commit.
  const sessions = await ctx.db.transaction().execute(async (trx) => {
    const sessions = await trx.selectFrom('upload_sessions').selectAll().where('user_id', '=', userId).execute();
    await deleteUserRow(trx, userId);
    await trx.deleteFrom('user_deletions').where('user_id', '=', userId).execute();
    return sessions;
  });
  for (const session of sessions) await releaseSessionData(ctx, session);
  ctx.log.info({ userId, files, withContent: task.with_content === 1 }, 'deleted a user');
  return files;
}
