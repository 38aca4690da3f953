// The administration API as the admin pages use it: users (src/routes/users.ts), server statistics
// (src/routes/server-stats.ts) and server settings (src/routes/server-settings.ts).
import { api } from '../../api/client';
import type { Role, User } from '../../api/types';

export interface UserList {
  users: User[];
  page: number;
  perpage: number;
  total: number;
  pages: number;
}

export interface UserUsage {
  userId: string;
  files: number;
  storageUsed: number;
  urls: number;
}

export interface ServerStats {
  users: number;
  usersByRole: Record<Role, number>;
  files: number;
  storageUsed: number;
  fileViews: number;
  ownerlessFiles: number;
  urls: number;
  urlViews: number;
  invites: number;
  filesByType: Array<{ type: string; files: number; bytes: number }>;
  topUsers: Array<{ id: string; username: string; files: number; storageUsed: number }>;
}

/** A quota as an admin writes it: NONE limits no files (maxUrls may still be set). */
export interface QuotaInput {
  filesQuota: 'NONE' | 'BY_BYTES' | 'BY_FILES';
  maxBytes?: string | null;
  maxFiles?: number | null;
  maxUrls?: number | null;
}

export interface UserInput {
  username?: string;
  password?: string;
  role?: Role;
  avatar?: string | null;
  quota?: QuotaInput | null;
}

export type SettingValue = boolean | number | string | string[] | null;

export interface ServerSettingsAnswer {
  settings: Record<string, SettingValue>;
  locked: string[];
  fields: Record<string, { description: string; env: string }>;
}

export const listUsers = (
  query: { page: number; perpage: number; search?: string; role?: Role | '' },
  signal?: AbortSignal,
) => api<UserList>('/api/users', { query, signal });

export const usersUsage = (ids: string[], signal?: AbortSignal) =>
  ids.length === 0
    ? Promise.resolve({ usage: [] as UserUsage[] })
    : api<{ usage: UserUsage[] }>('/api/server/stats/users', { query: { ids: ids.join(',') }, signal });

export const createUser = (body: UserInput & { username: string; password: string }) =>
  api<{ user: User }>('/api/users', { method: 'POST', body });

export const updateUser = (id: string, body: UserInput) =>
  api<{ user: User }>(`/api/users/${encodeURIComponent(id)}`, { method: 'PATCH', body });

export const deleteUser = (id: string, withContent: boolean) =>
  api<{ user: User; deletedFiles: number; deletedUrls: number }>(`/api/users/${encodeURIComponent(id)}`, {
    method: 'DELETE',
    body: { delete: withContent },
  });

export const serverStats = (signal?: AbortSignal) => api<ServerStats>('/api/server/stats', { signal });

export const serverSettings = (signal?: AbortSignal) => api<ServerSettingsAnswer>('/api/server/settings', { signal });

export const updateServerSettings = (patch: Record<string, SettingValue>) =>
  api<ServerSettingsAnswer>('/api/server/settings', { method: 'PATCH', body: patch });
