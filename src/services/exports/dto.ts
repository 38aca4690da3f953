// The Export shape of the API (schemas/export.ts), mapped from records.
import type { ExportRow } from '../../db/schema/tables.js';
import { toIso } from '../../lib/clock.js';
import type { ExportDto } from '../../schemas/export.js';

export function toExportDto(row: ExportRow): ExportDto {
  return {
    id: row.id,
    createdAt: toIso(row.created_at),
    updatedAt: toIso(row.updated_at),
    completed: row.completed === 1,
    path: `zexport_${row.user_id}_${row.created_at}_${row.files}.zip`,
    files: row.files,
    size: String(row.size),
    expiresAt: toIso(row.expires_at),
  };
}
