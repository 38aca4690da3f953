// The IncompleteFile shape of the API (schemas/chunked-upload.ts), mapped from records.
import type { IncompleteFileRow } from '../../db/schema/tables.js';
import { toIso } from '../../lib/clock.js';
import type { IncompleteFileDto } from '../../schemas/chunked-upload.js';

export function toIncompleteFileDto(row: IncompleteFileRow): IncompleteFileDto {
  const metadata = JSON.parse(row.metadata) as IncompleteFileMetadata;
  return {
    id: row.id,
    status: row.status,
    chunksTotal: row.chunks_total,
    chunksComplete: row.chunks_complete,
    fileId: row.file_id,
    userId: row.user_id,
    metadata: {
      name: metadata.name,
      type: metadata.type,
      size: metadata.size,
      url: metadata.url,
      ...(metadata.error === undefined ? {} : { error: metadata.error }),
    },
    createdAt: toIso(row.created_at),
    updatedAt: toIso(row.updated_at),
  };
}

/** What the metadata column holds. */
export interface IncompleteFileMetadata {
  /** The served name the file gets. */
  name: string;
  type: string;
  size: number;
  /** Its share link. */
  url: string | null;
  /** Why the assembly FAILED. */
  error?: string;
}
