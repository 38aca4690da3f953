// The file calls of the Files page (src/routes/user-files.ts, src/routes/tags.ts); the shapes are in api/types.ts.
import { api, errorFromResponse } from '../../api/client';
import type { FileItem, FileTag, ListPage } from '../../api/types';
import { ownerRawUrl } from '../../lib/file-kind';
import type { SearchField, SortField, SortOrder } from './types';

const filePath = (id: string) => `/api/user/files/${encodeURIComponent(id)}`;

export interface FileListQuery {
  page: number;
  perpage: number;
  sortBy: SortField;
  order: SortOrder;
  field: SearchField;
  q: string;
  favorite: boolean | null;
  /** Tag ids, comma separated: files with any of them. */
  tags: string;
  folder: string | null;
}

/** One page of the caller's files, sorted, searched and filtered on the server. */
export function listFiles(query: FileListQuery, signal: AbortSignal): Promise<ListPage<FileItem>> {
  return api<ListPage<FileItem>>('/api/user/files', {
    signal,
    query: {
      page: query.page,
      perpage: query.perpage,
      sortBy: query.sortBy,
      order: query.order,
      searchField: query.field,
      searchQuery: query.q || undefined,
      favorite: query.favorite === null ? undefined : String(query.favorite),
      tags: query.tags || undefined,
      folder: query.folder ?? undefined,
    },
  });
}

export function getFile(id: string, signal?: AbortSignal): Promise<FileItem> {
  return api<FileItem>(filePath(id), { signal });
}

/** PATCH /api/user/files/:id: name, originalName, password, maxViews, deletesAt, favorite. */
export function updateFile(id: string, patch: Record<string, unknown>): Promise<FileItem> {
  return api<FileItem>(filePath(id), { method: 'PATCH', body: patch });
}

export function deleteFile(id: string): Promise<FileItem> {
  return api<FileItem>(filePath(id), { method: 'DELETE' });
}

/** Favourite or not, or into a folder (null: out of any): the files whose value changes, and the folder's name. */
export function updateFiles(
  ids: string[],
  change: { favorite: boolean } | { folder: string | null },
): Promise<{ count: number; name?: string }> {
  return api<{ count: number; name?: string }>('/api/user/files/transaction', {
    method: 'PATCH',
    body: { files: ids, ...change },
  });
}

export function deleteFiles(ids: string[]): Promise<{ count: number }> {
  return api<{ count: number }>('/api/user/files/transaction', { method: 'DELETE', body: { files: ids } });
}

/** Puts a tag on a file or takes it off; answers the file's tags. */
export async function setFileTag(fileId: string, tagId: string, on: boolean): Promise<FileTag[]> {
  const res = await api<{ tags: FileTag[] }>(`${filePath(fileId)}/tags/${encodeURIComponent(tagId)}`, {
    method: on ? 'POST' : 'DELETE',
  });
  return res.tags;
}

/** The first `bytes` of one of the caller's files as text, counting no view (the owner's raw route). */
export async function readFileStart(id: string, bytes: number, signal: AbortSignal): Promise<string> {
  const res = await fetch(ownerRawUrl(id), {
    headers: { range: `bytes=0-${bytes - 1}` },
    credentials: 'same-origin',
    signal,
  });
  if (!res.ok) throw await errorFromResponse(res);
  return res.text();
}
