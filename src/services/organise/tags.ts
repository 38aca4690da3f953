// Tags: a user's own labels (name unique per user, a colour), and which of the user's files carry them.
import type { AppContext } from '../../context.js';
import { isUniqueViolation } from '../../db/errors.js';
import type { Db, NewTag, TagRow } from '../../db/schema/tables.js';
import { ApiError } from '../../lib/errors.js';
import { newId } from '../../lib/security/ids.js';
import type { TagWithCount } from './dto.js';

export const DEFAULT_TAG_COLOR = '#868e96';

/** The user's tags, each with its stored file count (db/schema/list-counters.ts). */
function tagsWithCounts(db: Db, userId: string) {
  return db.selectFrom('tags').selectAll('tags').where('tags.user_id', '=', userId);
}

const withNumber = (row: TagRow): TagWithCount => ({ ...row, files: Number(row.file_count) });

/** The user's tags by name (an answer as long as the list), with their stored file counts. */
export async function listTags(ctx: AppContext, userId: string): Promise<TagWithCount[]> {
  const rows = await tagList(ctx.db, userId).execute();
  return rows.map(withNumber);
}

// By name alone: names are unique per user (tags_user_name), so the order is read from that index on both engines.
const tagList = (db: Db, userId: string) => tagsWithCounts(db, userId).orderBy('tags.name');

/** The statement of listTags, compiled (for the test of its query plan). */
export const tagListStatement = (ctx: AppContext, userId: string) => tagList(ctx.db, userId).compile();

/** The caller's tag; another user's is answered exactly like a missing one. */
export async function getOwnTag(ctx: AppContext, userId: string, id: string): Promise<TagWithCount> {
  const row = await tagsWithCounts(ctx.db, userId).where('tags.id', '=', id).executeTakeFirst();
  if (!row) throw new ApiError(9002, 'no such tag');
  return withNumber(row);
}

export async function createTag(
  ctx: AppContext,
  userId: string,
  input: { name: string; color?: string | undefined },
): Promise<TagWithCount> {
  const now = ctx.clock.now();
  const row: NewTag = {
    id: newId(),
    user_id: userId,
    name: input.name,
    color: input.color ?? DEFAULT_TAG_COLOR,
    created_at: now,
    updated_at: now,
  };
  try {
    await ctx.db.insertInto('tags').values(row).execute();
  } catch (err) {
    if (isUniqueViolation(err)) throw new ApiError(1033, input.name);
    throw err;
  }
  return { ...row, file_count: 0, files: 0 };
}

export async function updateTag(
  ctx: AppContext,
  userId: string,
  id: string,
  patch: { name?: string | undefined; color?: string | undefined },
): Promise<TagWithCount> {
  try {
    const updated = await ctx.db
      .updateTable('tags')
      .set({
        ...(patch.name !== undefined && { name: patch.name }),
        ...(patch.color !== undefined && { color: patch.color }),
        updated_at: ctx.clock.now(),
      })
      .where('id', '=', id)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    if (updated.numUpdatedRows === 0n) throw new ApiError(9002, 'no such tag');
  } catch (err) {
    if (isUniqueViolation(err)) throw new ApiError(1034, patch.name);
    throw err;
  }
  return getOwnTag(ctx, userId, id);
}

export async function deleteTag(ctx: AppContext, userId: string, id: string): Promise<TagWithCount> {
  const tag = await getOwnTag(ctx, userId, id);
  await ctx.db.deleteFrom('tags').where('id', '=', id).where('user_id', '=', userId).execute();
  return tag;
}

export interface FileTag {
  id: string;
  name: string;
  color: string;
}

/** The tags of one of the caller's files (4000 when the file is not the caller's). */
export async function tagsOfFile(ctx: AppContext, userId: string, fileId: string): Promise<FileTag[]> {
  await assertOwnFile(ctx.db, userId, fileId);
  return fileTags(ctx.db, fileId);
}

function fileTags(db: Db, fileId: string): Promise<FileTag[]> {
  return db
    .selectFrom('file_tags')
    .innerJoin('tags', 'tags.id', 'file_tags.tag_id')
    .select(['tags.id', 'tags.name', 'tags.color'])
    .where('file_tags.file_id', '=', fileId)
    .orderBy('tags.name')
    .execute();
}

async function assertOwnFile(db: Db, userId: string, fileId: string): Promise<void> {
  const file = await db
    .selectFrom('files')
    .select('id')
    .where('id', '=', fileId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  if (!file) throw new ApiError(4000);
}

/** 1032 unless every one of `tagIds` is one of the user's tags (checked before a change that also sets them). */
export async function assertTagsOf(ctx: AppContext, userId: string, tagIds: string[]): Promise<void> {
  await assertOwnTags(ctx.db, userId, tagIds);
}

/** 1032 unless every one of `tagIds` is one of the caller's tags. */
async function assertOwnTags(db: Db, userId: string, tagIds: string[]): Promise<void> {
  if (tagIds.length === 0) return;
  const own = await db
    .selectFrom('tags')
    .select('id')
    .where('user_id', '=', userId)
    .where('id', 'in', tagIds)
    .execute();
  if (own.length !== new Set(tagIds).size) throw new ApiError(1032);
}

/** Attaches tags to one of the caller's files ("replace": the file ends up with exactly `tagIds`). */
export async function setFileTags(
  ctx: AppContext,
  userId: string,
  fileId: string,
  tagIds: string[],
  mode: 'add' | 'replace',
): Promise<FileTag[]> {
  const unique = [...new Set(tagIds)];
  return ctx.db.transaction().execute(async (trx) => {
    await assertOwnFile(trx, userId, fileId);
    await assertOwnTags(trx, userId, unique);
    if (mode === 'replace') await trx.deleteFrom('file_tags').where('file_id', '=', fileId).execute();
    if (unique.length > 0) {
      await trx
        .insertInto('file_tags')
        .values(unique.map((tagId) => ({ file_id: fileId, tag_id: tagId })))
        .onConflict((oc) => oc.columns(['file_id', 'tag_id']).doNothing())
        .execute();
    }
    return fileTags(trx, fileId);
  });
}

/** Detaches one tag from one of the caller's files (1032 when the tag is not the caller's). */
export async function removeFileTag(
  ctx: AppContext,
  userId: string,
  fileId: string,
  tagId: string,
): Promise<FileTag[]> {
  await assertOwnFile(ctx.db, userId, fileId);
  await assertOwnTags(ctx.db, userId, [tagId]);
  await ctx.db.deleteFrom('file_tags').where('file_id', '=', fileId).where('tag_id', '=', tagId).execute();
  return fileTags(ctx.db, fileId);
}

/** An imported tag, in the import's transaction (its file count is the triggers'). */
export async function insertImportedTag(db: Db, row: NewTag): Promise<void> {
  await db.insertInto('tags').values(row).execute();
}

/** Imported links of files to a tag, one statement per slice the import gives. */
export async function insertImportedFileTags(db: Db, tagId: string, fileIds: string[]): Promise<void> {
  await db
    .insertInto('file_tags')
    .values(fileIds.map((fileId) => ({ file_id: fileId, tag_id: tagId })))
    .execute();
}
