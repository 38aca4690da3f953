// The File shape of the API (schemas/file.ts), mapped from records: one function for one file, one for a page of
// them with their tags read in one query.
import type { AppContext } from '../../context.js';
import type { FileRow } from '../../db/schema/tables.js';
import { toIso } from '../../lib/clock.js';
import { fileLink, linkNameOf } from '../../lib/text/links.js';
import type { FileDto } from '../../schemas/file.js';
import { publicThumbnailName } from '../media/thumbnail-names.js';

type FileTag = FileDto['tags'][number];

/** A file record as the API shows it (views: the stored ones and this instance's pending ones). */
export function toFileDto(ctx: AppContext, baseUrl: string, row: FileRow, tags: FileTag[] = []): FileDto {
  return {
    id: row.id,
    name: row.name,
    originalName: row.original_name,
    size: row.size,
    type: row.type,
    views: row.views + ctx.views.of('files', row.id),
    maxViews: row.max_views,
    favorite: row.favorite === 1,
    password: row.password !== null,
    private: row.private === 1,
    folderId: row.folder_id,
    userId: row.user_id,
    createdAt: toIso(row.created_at),
    updatedAt: toIso(row.updated_at),
    deletesAt: row.deletes_at === null ? null : toIso(row.deletes_at),
    url: fileLink(ctx.settings.get(), baseUrl, linkNameOf(row)),
    thumbnail: row.thumbnail_key ? { path: publicThumbnailName(row.id) } : null,
    tags,
  };
}

/** The tags of each of the given files, in one query. */
export async function tagsOfFiles(ctx: AppContext, fileIds: string[]): Promise<Map<string, FileTag[]>> {
  const byFile = new Map<string, FileTag[]>();
  if (fileIds.length === 0) return byFile;
  const rows = await ctx.db
    .selectFrom('file_tags')
    .innerJoin('tags', 'tags.id', 'file_tags.tag_id')
    .select(['file_tags.file_id', 'tags.id', 'tags.name', 'tags.color'])
    .where('file_tags.file_id', 'in', fileIds)
    .orderBy('tags.name')
    .execute();
  for (const r of rows) {
    const list = byFile.get(r.file_id) ?? [];
    list.push({ id: r.id, name: r.name, color: r.color });
    byFile.set(r.file_id, list);
  }
  return byFile;
}

/** Records as the API shows them, with their tags. */
export async function toFileDtos(ctx: AppContext, baseUrl: string, rows: FileRow[]): Promise<FileDto[]> {
  const tags = await tagsOfFiles(
    ctx,
    rows.map((r) => r.id),
  );
  return rows.map((row) => toFileDto(ctx, baseUrl, row, tags.get(row.id) ?? []));
}
