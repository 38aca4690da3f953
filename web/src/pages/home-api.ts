// The calls of the overview page (src/routes/user-files.ts): the caller's totals and latest files.
import { api } from '../api/client';
import type { FileItem } from '../api/types';
import type { FileStatsDto } from '../../../src/schemas/file';

export type Stats = FileStatsDto;

export function getStats(signal: AbortSignal): Promise<Stats> {
  return api<Stats>('/api/user/stats', { signal });
}

export function recentFiles(take: number, signal: AbortSignal): Promise<FileItem[]> {
  return api<FileItem[]>('/api/user/recent', { signal, query: { take } });
}
