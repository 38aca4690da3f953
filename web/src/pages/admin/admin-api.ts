// The administration API as the admin pages use it: users (src/routes/accounts/users.ts), server statistics
// (src/routes/server/server-stats.ts), server settings (src/routes/server/server-settings.ts) and the version (src/routes/server/version.ts). The shapes are the server's
// (api/openapi.d.ts).
import { request, type ApiAnswer, type ApiBody, type ApiQuery } from '../../api/client';
import type { components } from '../../api/openapi';

export type UserUsage = ApiAnswer<'/api/server/stats/users', 'get'>['usage'][number];
export type ServerStats = components['schemas']['ServerStats'];
/** When the statistics snapshots come (part of GET /api/server/stats). */
export type SnapshotSchedule = ServerStats['snapshots'];
/** One statistics snapshot (GET /api/stats), in Zipline's Metric shape. */
export type Metric = components['schemas']['Metric'];
/** A quota as an admin writes it: NONE limits no files (maxUrls may still be set). */
export type QuotaInput = components['schemas']['QuotaWrite'];
export type UserInput = ApiBody<'/api/users/{id}', 'patch'>;
export type NewUser = ApiBody<'/api/users', 'post'>;
export type ServerSettingsAnswer = ApiAnswer<'/api/server/settings', 'get'>;
type ServerSettings = components['schemas']['ServerSettings'];
export type SettingValue = ServerSettings[keyof ServerSettings];

/** One page of users (with `page` the server answers a page object; without, Zipline's plain array). */
export const listUsers = (query: ApiQuery<'/api/users', 'get'> & { page: number }, signal?: AbortSignal) =>
  request('get', '/api/users', { query, signal }).then((answer) => {
    if (Array.isArray(answer)) throw new Error('the server answered a list without pages');
    return answer;
  });

export const usersUsage = (ids: string[], signal?: AbortSignal) =>
  ids.length === 0
    ? Promise.resolve({ usage: [] as UserUsage[] })
    : request('get', '/api/server/stats/users', { query: { ids: ids.join(',') }, signal });

export const createUser = (body: NewUser) => request('post', '/api/users', { body });

export const updateUser = (id: string, body: UserInput) =>
  request('patch', '/api/users/{id}', { params: { id }, body });

export const deleteUser = (id: string, withContent: boolean) =>
  request('delete', '/api/users/{id}', { params: { id }, body: { delete: withContent } });

export const serverStats = (signal?: AbortSignal) => request('get', '/api/server/stats', { signal });

/** The running version and, when the update check is on, the latest release (6001 when the check failed). */
export const serverVersion = (signal?: AbortSignal) => request('get', '/api/version', { signal });

/** The statistics snapshots since `from` (an ISO date), or all of them; newest first. */
export const statsSeries = (from: string | null, signal?: AbortSignal) =>
  request('get', '/api/stats', { query: from === null ? { all: 'true' } : { from }, signal });

export const serverSettings = (signal?: AbortSignal) => request('get', '/api/server/settings', { signal });

export const updateServerSettings = (patch: Record<string, SettingValue>) =>
  request('patch', '/api/server/settings', { body: patch });

/** The background job queue (src/routes/server/server-jobs.ts): counts by kind and state, and the failed jobs. */
export type JobsOverview = ApiAnswer<'/api/server/jobs', 'get'>;
export type Job = components['schemas']['Job'];
export const jobsOverview = (signal?: AbortSignal) => request('get', '/api/server/jobs', { signal });
export const retryJob = (id: string) => request('post', '/api/server/jobs/{id}/retry', { params: { id } });
export const deleteJob = (id: string) => request('delete', '/api/server/jobs/{id}', { params: { id } });

// Zipline's server actions (src/routes/server/server-maintenance.ts): each answers what it did in `status`.
export const clearTemp = () => request('delete', '/api/server/clear_temp');
export const zeroByteFiles = (signal?: AbortSignal) => request('get', '/api/server/clear_zeros', { signal });
export const clearZeroByteFiles = () => request('delete', '/api/server/clear_zeros');
export const orphanedFiles = (signal?: AbortSignal) => request('get', '/api/server/orphaned_files', { signal });
export const clearOrphanedFiles = () => request('delete', '/api/server/orphaned_files');
export const requerySizes = (body: ApiBody<'/api/server/requery_size', 'post'>) =>
  request('post', '/api/server/requery_size', { body });
export const queueThumbnails = (rerun: boolean) => request('post', '/api/server/thumbnails', { body: { rerun } });

/** The instance export and import (SUPERADMIN; src/routes/server/server-export.ts). */
export const EXPORT_URL = '/api/server/export';
export const exportCounts = (signal?: AbortSignal) =>
  request('get', '/api/server/export', { query: { counts: 'true' }, signal }) as Promise<
    components['schemas']['ExportCounts']
  >;
export type ImportResult = components['schemas']['ImportResult'];
export const importExport = (body: ApiBody<'/api/server/import', 'post'>) =>
  request('post', '/api/server/import', { body });
