// The shapes the Files page reads from the API (src/schemas/file.ts, tag.ts, folder.ts; src/routes/user-files.ts).

export interface FileTag {
  id: string;
  name: string;
  color: string;
}

/** A file as GET /api/user/files and GET/PATCH /api/user/files/:id answer it. */
export interface FileItem {
  id: string;
  /** The served name: the share link is <filesRoute>/<name>. */
  name: string;
  originalName: string | null;
  size: number;
  type: string;
  views: number;
  maxViews: number | null;
  favorite: boolean;
  /** Whether the file is password protected. */
  password: boolean;
  folderId: string | null;
  userId: string | null;
  createdAt: string;
  updatedAt: string;
  deletesAt: string | null;
  url: string;
  tags: FileTag[];
}

/** GET /api/user/files */
export interface FileListPage {
  page: FileItem[];
  total: number;
  pages: number;
}

/** GET /api/user/tags */
export interface Tag extends FileTag {
  files: number;
}

/** GET /api/user/folders */
export interface Folder {
  id: string;
  name: string;
  parentId: string | null;
  fileCount: number;
}

export const SORT_FIELDS = ['createdAt', 'updatedAt', 'deletesAt', 'name', 'originalName', 'size', 'type', 'views', 'favorite'] as const;
export type SortField = (typeof SORT_FIELDS)[number];
export const SEARCH_FIELDS = ['name', 'originalName', 'type'] as const;
export type SearchField = (typeof SEARCH_FIELDS)[number];
export type SortOrder = 'asc' | 'desc';

export const SORT_LABELS: Record<SortField, string> = {
  createdAt: 'Uploaded',
  updatedAt: 'Last changed',
  deletesAt: 'Expiry',
  name: 'Name',
  originalName: 'Original name',
  size: 'Size',
  type: 'Type',
  views: 'Views',
  favorite: 'Favourite',
};

export const SEARCH_LABELS: Record<SearchField, string> = {
  name: 'Name',
  originalName: 'Original name',
  type: 'Type',
};
