// The calls of the overview page (src/routes/files/user-files.ts): the caller's totals and latest files.
import { request } from '../api/client';
import type { components } from '../api/openapi';
import type { FileItem } from '../api/types';

export type Stats = components['schemas']['FileStats'];

export function getStats(signal: AbortSignal): Promise<Stats> {
  return request('get', '/api/user/stats', { signal });
}

export function recentFiles(take: number, signal: AbortSignal): Promise<FileItem[]> {
  return request('get', '/api/user/recent', { signal, query: { take } });
}
