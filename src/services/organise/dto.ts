// The Folder and Tag shapes of the API (schemas/folder.ts, schemas/tag.ts), mapped from records.
import type { FolderRow, TagRow } from '../../db/schema/tables.js';
import { toIso } from '../../lib/clock.js';
import type { FolderDto } from '../../schemas/folder.js';
import type { TagDto } from '../../schemas/tag.js';

export type FolderWithCounts = FolderRow & { child_count: number };

export function toFolderDto(row: FolderWithCounts): FolderDto {
  return {
    id: row.id,
    name: row.name,
    public: row.public === 1,
    allowUploads: row.allow_uploads === 1,
    parentId: row.parent_id,
    userId: row.user_id,
    createdAt: toIso(row.created_at),
    updatedAt: toIso(row.updated_at),
    fileCount: row.file_count,
    childCount: row.child_count,
  };
}

export type TagWithCount = TagRow & { files: number };

export function toTagDto(row: TagWithCount): TagDto {
  return {
    id: row.id,
    name: row.name,
    color: row.color,
    userId: row.user_id,
    createdAt: toIso(row.created_at),
    updatedAt: toIso(row.updated_at),
    files: row.files,
  };
}
