// The API's shapes as the dashboard sees them (docs/api-spec.md and the server's zod schemas in src/routes).
export type Role = 'USER' | 'ADMIN' | 'SUPERADMIN';

export interface UserViewSettings {
  enabled?: boolean | null;
  disableTextFiles?: boolean | null;
  align?: 'left' | 'center' | 'right' | null;
  showMimetype?: boolean | null;
  showTags?: boolean | null;
  showFolder?: boolean | null;
  content?: string | null;
  embed?: boolean | null;
  embedMediaOnly?: boolean | null;
  embedTitle?: string | null;
  embedDescription?: string | null;
  embedColor?: string | null;
  embedSiteName?: string | null;
}

export interface Session {
  id: string;
  createdAt: string;
  ua: string;
}

export interface Quota {
  filesQuota: 'BY_BYTES' | 'BY_FILES';
  maxBytes: string | null;
  maxFiles: number | null;
  maxUrls: number | null;
}

export interface User {
  id: string;
  username: string;
  createdAt: string;
  updatedAt: string;
  role: Role;
  view: UserViewSettings;
  sessions: Array<Session | string>;
  oauthProviders: unknown[];
  totpEnabled?: boolean;
  quota?: Quota | null;
  avatar?: string | null;
}

/** GET /api/user */
export interface CurrentUser {
  user: User;
  token: string;
}

/** GET /api/server/public: what pages need before anyone logs in. */
export interface PublicServerInfo {
  siteTitle: string;
  registrationEnabled: boolean;
  invitesEnabled: boolean;
  firstSetup: boolean;
  /** The upload page sends files larger than chunksThreshold bytes in chunks of chunksSize bytes. */
  chunksEnabled: boolean;
  chunksThreshold: number;
  chunksSize: number;
}

export const isAdmin = (user: Pick<User, 'role'> | null | undefined): boolean =>
  user?.role === 'ADMIN' || user?.role === 'SUPERADMIN';

/** A tag as a file carries it. */
export interface FileTag {
  id: string;
  name: string;
  /** #rrggbb (or #rgb), lower case */
  color: string;
}

/** A tag as GET /api/user/tags lists it (src/schemas/tag.ts). */
export interface Tag extends FileTag {
  userId: string;
  createdAt: string;
  updatedAt: string;
  /** How many of the user's files carry it. */
  files: number;
}

/** A file as its owner sees it: GET /api/user/files, GET/PATCH /api/user/files/:id, a folder's files (src/schemas/file.ts). */
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
  /** The share link. */
  url: string;
  tags: FileTag[];
}

/** One page of a list: GET /api/user/files, GET /api/user/urls. */
export interface ListPage<T> {
  page: T[];
  total: number;
  pages: number;
}

/** A folder as its owner sees it: GET /api/user/folders (src/schemas/folder.ts). */
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

/** GET /api/user/folders/:id: the folder with its files, the folders inside it and where it is. */
export interface FolderDetail extends Folder {
  files: FileItem[];
  children: Folder[];
  /** From the top-level folder down to the parent. */
  parents: Array<{ id: string; name: string }>;
}
