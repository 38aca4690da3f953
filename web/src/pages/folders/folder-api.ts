// The folder calls of the Folders page (src/routes/organise/folders.ts), and the few file calls it needs; the shapes are in
// api/types.ts.
import { request, type ApiAnswer, type ApiBody } from '../../api/client';
import type { Folder, FolderDetail } from '../../api/types';
import { askPage, pageCursorStore } from '../../lib/page-cursors';

export type FolderInput = ApiBody<'/api/user/folders/{id}', 'patch'>;
/** What deleting a folder did (the answer of the dashboard's form of DELETE, without Zipline's body). */
export type FolderDeleteResult = Extract<ApiAnswer<'/api/user/folders/{id}', 'delete'>, { keptFiles: number }>;

/** Top-level folders (parentId "root"), or every folder (for names of the folders files are in). */
export async function listFolders(scope: 'root' | 'all', signal?: AbortSignal): Promise<Folder[]> {
  const query = { parentId: scope === 'root' ? 'root' : undefined };
  // Without page or cursor the answer is every folder, an array (the page object's form is for long lists).
  const answer = await request('get', '/api/user/folders', { signal, query });
  return Array.isArray(answer) ? answer : answer.page;
}

/** The folder with the first page of its files, or (`cursor`: the nextCursor of the page before) the next page. */
export function getFolder(id: string, signal?: AbortSignal, cursor?: string): Promise<FolderDetail> {
  return request('get', '/api/user/folders/{id}', { params: { id }, query: { cursor }, signal });
}

export function createFolder(input: ApiBody<'/api/user/folders', 'post'>): Promise<Folder> {
  return request('post', '/api/user/folders', { body: input });
}

export function updateFolder(id: string, patch: FolderInput): Promise<Folder> {
  return request('patch', '/api/user/folders/{id}', { params: { id }, body: patch });
}

export function deleteFolder(
  id: string,
  options: { files: 'keep' | 'delete'; children: 'delete' | 'lift' },
): Promise<FolderDeleteResult> {
  return request('delete', '/api/user/folders/{id}', { params: { id }, query: options }) as Promise<FolderDeleteResult>;
}

export function removeFileFromFolder(folderId: string, fileId: string): Promise<Folder> {
  return request('delete', '/api/user/folders/{id}/files/{fileId}', { params: { id: folderId, fileId } });
}

/** Moves files into the folder in one request (out of whatever folder they were in). */
export function moveFilesToFolder(folderId: string, fileIds: string[]) {
  return request('patch', '/api/user/files/transaction', { body: { files: fileIds, folder: folderId } });
}

/** The `nextCursor` of each page of the "Add files" search seen, by search (lib/page-cursors.ts). */
const searchCursorsOf = pageCursorStore();

/** A page of the person's files whose name holds `search`: the next page by cursor, a jump by number. */
export function searchFiles(query: { page: number; search: string }, signal: AbortSignal) {
  return askPage(
    searchCursorsOf(query.search),
    query.page,
    (cursor) =>
      request('get', '/api/user/files', {
        signal,
        query: {
          ...(cursor === undefined ? { page: query.page } : { cursor }),
          perpage: 12,
          searchField: 'name',
          searchQuery: query.search || undefined,
        },
      }),
    signal,
  );
}

/** The owner's zip download (the folder and the folders below it). */
export const zipPath = (id: string) => `/api/user/folders/${encodeURIComponent(id)}/zip`;

/** The page anonymous visitors see when the folder is public. */
export const publicFolderLink = (id: string) => `${window.location.origin}/folder/${encodeURIComponent(id)}`;
