// The folder calls of the Folders page (src/routes/folders.ts), and the few file calls it needs; the shapes are in
// api/types.ts.
import { api } from '../../api/client';
import type { FileItem, Folder, FolderDetail, ListPage } from '../../api/types';

export interface FolderInput {
  name?: string;
  public?: boolean;
  allowUploads?: boolean;
  parentId?: string | null;
}

export interface FolderDeleteResult {
  folders: number;
  deletedFiles: number;
  keptFiles: number;
}

const folderPath = (id: string) => `/api/user/folders/${encodeURIComponent(id)}`;

/** Top-level folders (parentId "root"), or every folder (for names of the folders files are in). */
export function listFolders(scope: 'root' | 'all', signal?: AbortSignal): Promise<Folder[]> {
  return api<Folder[]>('/api/user/folders', { signal, query: { parentId: scope === 'root' ? 'root' : undefined } });
}

export function getFolder(id: string, signal?: AbortSignal): Promise<FolderDetail> {
  return api<FolderDetail>(folderPath(id), { signal });
}

export function createFolder(input: FolderInput & { name: string }): Promise<Folder> {
  return api<Folder>('/api/user/folders', { method: 'POST', body: input });
}

export function updateFolder(id: string, patch: FolderInput): Promise<Folder> {
  return api<Folder>(folderPath(id), { method: 'PATCH', body: patch });
}

export function deleteFolder(
  id: string,
  options: { files: 'keep' | 'delete'; children: 'delete' | 'lift' },
): Promise<FolderDeleteResult> {
  return api<FolderDeleteResult>(folderPath(id), { method: 'DELETE', query: options });
}

export function removeFileFromFolder(folderId: string, fileId: string): Promise<Folder> {
  return api<Folder>(`${folderPath(folderId)}/files/${encodeURIComponent(fileId)}`, { method: 'DELETE' });
}

/** Moves files into the folder in one request (out of whatever folder they were in). */
export function moveFilesToFolder(folderId: string, fileIds: string[]): Promise<{ count: number }> {
  return api<{ count: number }>('/api/user/files/transaction', {
    method: 'PATCH',
    body: { files: fileIds, folder: folderId },
  });
}

export function searchFiles(query: { page: number; search: string }, signal: AbortSignal): Promise<ListPage<FileItem>> {
  return api<ListPage<FileItem>>('/api/user/files', {
    signal,
    query: { page: query.page, perpage: 12, searchField: 'name', searchQuery: query.search || undefined },
  });
}

/** The owner's zip download (the folder and the folders below it). */
export const zipPath = (id: string) => `${folderPath(id)}/zip`;

/** The page anonymous visitors see when the folder is public. */
export const publicFolderLink = (id: string) => `${window.location.origin}/folder/${encodeURIComponent(id)}`;
