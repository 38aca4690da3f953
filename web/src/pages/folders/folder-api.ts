// Folders as the Folders page sees them (src/routes/folders.ts), and the few file calls it needs.
import { api } from '../../api/client';

export interface Folder {
  id: string;
  name: string;
  /** Anyone with the link may browse it (/folder/<id>) and download it as a zip. */
  public: boolean;
  /** Anyone may upload into it; the files are the owner's. */
  allowUploads: boolean;
  parentId: string | null;
  userId: string;
  createdAt: string;
  updatedAt: string;
  fileCount: number;
  childCount: number;
}

export interface FolderFile {
  id: string;
  name: string;
  originalName: string | null;
  size: number;
  type: string;
  views: number;
  maxViews: number | null;
  favorite: boolean;
  password: boolean;
  folderId: string | null;
  createdAt: string;
  deletesAt: string | null;
  url: string;
}

export interface FolderDetail extends Folder {
  files: FolderFile[];
  children: Folder[];
  /** From the top-level folder down to the parent. */
  parents: Array<{ id: string; name: string }>;
}

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

export interface FilePage {
  page: FolderFile[];
  total: number;
  pages: number;
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

export function deleteFolder(id: string, options: { files: 'keep' | 'delete'; children: 'delete' | 'lift' }): Promise<FolderDeleteResult> {
  return api<FolderDeleteResult>(folderPath(id), { method: 'DELETE', query: options });
}

export function removeFileFromFolder(folderId: string, fileId: string): Promise<Folder> {
  return api<Folder>(`${folderPath(folderId)}/files/${encodeURIComponent(fileId)}`, { method: 'DELETE' });
}

/** Moves files into the folder in one request (out of whatever folder they were in). */
export function moveFilesToFolder(folderId: string, fileIds: string[]): Promise<{ count: number }> {
  return api<{ count: number }>('/api/user/files/transaction', { method: 'PATCH', body: { files: fileIds, folder: folderId } });
}

export function searchFiles(query: { page: number; search: string }, signal: AbortSignal): Promise<FilePage> {
  return api<FilePage>('/api/user/files', {
    signal,
    query: { page: query.page, perpage: 12, searchField: 'name', searchQuery: query.search || undefined },
  });
}

/** The owner's zip download (the folder and the folders below it). */
export const zipPath = (id: string) => `${folderPath(id)}/zip`;

/** The page anonymous visitors see when the folder is public. */
export const publicFolderLink = (id: string) => `${window.location.origin}/folder/${encodeURIComponent(id)}`;
