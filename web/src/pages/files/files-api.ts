// The file calls of the Files page (src/routes/files/user-files.ts, src/routes/organise/tags.ts); the shapes are in api/types.ts.
import { errorFromResponse, request, type ApiAnswer, type ApiBody } from '../../api/client';
import type { FileItem, FileTag } from '../../api/types';
import { ownerRawUrl } from '../../lib/file-kind';
import { askPage, pageCursorStore } from '../../lib/page-cursors';
import type { SearchField, SortField, SortOrder } from './types';

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

/** PATCH /api/user/files/:id: name, originalName, password, maxViews, deletesAt, favorite. */
export type FilePatch = ApiBody<'/api/user/files/{id}', 'patch'>;

/** The `nextCursor` of each page seen, by listing (lib/page-cursors.ts). */
const cursorsOf = pageCursorStore();

/** One page of the caller's files, sorted, searched and filtered on the server. */
export function listFiles(query: FileListQuery, signal: AbortSignal) {
  const key = JSON.stringify([
    query.perpage,
    query.sortBy,
    query.order,
    query.field,
    query.q,
    query.favorite,
    query.tags,
    query.folder,
  ]);
  return askPage(
    cursorsOf(key),
    query.page,
    (cursor) =>
      request('get', '/api/user/files', {
        signal,
        query: {
          ...(cursor === undefined ? { page: query.page } : { cursor }),
          perpage: query.perpage,
          sortBy: query.sortBy,
          order: query.order,
          searchField: query.field,
          searchQuery: query.q || undefined,
          favorite: query.favorite === null ? undefined : query.favorite ? 'true' : 'false',
          tags: query.tags || undefined,
          folder: query.folder ?? undefined,
        },
      }),
    signal,
  );
}

export function getFile(id: string, signal?: AbortSignal): Promise<FileItem> {
  return request('get', '/api/user/files/{id}', { params: { id }, signal });
}

export function updateFile(id: string, patch: FilePatch): Promise<FileItem> {
  return request('patch', '/api/user/files/{id}', { params: { id }, body: patch });
}

export function deleteFile(id: string): Promise<FileItem> {
  return request('delete', '/api/user/files/{id}', { params: { id } });
}

/** Favourite or not, or into a folder (null: out of any): the files whose value changes, and the folder's name. */
export function updateFiles(ids: string[], change: { favorite: boolean } | { folder: string | null }) {
  return request('patch', '/api/user/files/transaction', { body: { files: ids, ...change } });
}

export function deleteFiles(ids: string[]) {
  return request('delete', '/api/user/files/transaction', { body: { files: ids } });
}

/** Puts a tag on a file or takes it off; answers the file's tags. */
export async function setFileTag(fileId: string, tagId: string, on: boolean): Promise<FileTag[]> {
  const res = await request(on ? 'post' : 'delete', '/api/user/files/{id}/tags/{tagId}', {
    params: { id: fileId, tagId },
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

/** A share link of a file (src/routes/files/file-shares.ts). */
export type FileShare = ApiAnswer<'/api/user/files/{id}/shares', 'get'>[number];
export type NewFileShare = ApiBody<'/api/user/files/{id}/shares', 'post'>;

export function listShares(fileId: string, signal?: AbortSignal): Promise<FileShare[]> {
  return request('get', '/api/user/files/{id}/shares', { params: { id: fileId }, signal });
}

export function createShare(fileId: string, body: NewFileShare): Promise<FileShare> {
  return request('post', '/api/user/files/{id}/shares', { params: { id: fileId }, body });
}

export function revokeShare(fileId: string, shareId: string): Promise<FileShare> {
  return request('delete', '/api/user/files/{id}/shares/{shareId}', { params: { id: fileId, shareId } });
}
