// The Export shape of the API (schemas/export.ts), mapped from records.
import type { ExportRow } from '../../db/schema/tables.js';
import { toIso } from '../../lib/clock.js';
import type { ExportDto } from '../../schemas/export.js';

/**
 * The archive's name, for the person who downloads it: `chute-export-<username>-<YYYY-MM-DD>.zip` (the day it was
 * started, UTC). Only letters, digits, `.`, `_` and `-` of the username are kept (the rest become `-`), so the name
 * is safe on every file system; Zipline's `zexport_<userId>_<epoch>.zip` said neither whose nor when.
 */
export function exportFileName(username: string, createdAt: number): string {
  const safe =
    username
      .normalize('NFC')
      .replace(/[^\p{L}\p{N}._-]+/gu, '-')
      .replace(/^[-.]+|-+$/g, '')
      .slice(0, 64) || 'user';
  return `chute-export-${safe}-${new Date(createdAt).toISOString().slice(0, 10)}.zip`;
}

/** The Export shape of `row`, an export of the user named `username`. */
export function toExportDto(row: ExportRow, username: string): ExportDto {
  return {
    id: row.id,
    createdAt: toIso(row.created_at),
    updatedAt: toIso(row.updated_at),
    completed: row.completed === 1,
    path: exportFileName(username, row.created_at),
    files: row.files,
    size: String(row.size),
    expiresAt: toIso(row.expires_at),
  };
}
