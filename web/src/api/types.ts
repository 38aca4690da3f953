// The API's shapes as the dashboard sees them: the server's own types (src/schemas, imported as types only, so that
// no server code reaches the bundle), under the names the pages use. Only shapes the server does not describe are
// written here.
import type { FileDto, FileTagDto } from '../../../src/schemas/file';
import type { FolderDetailDto, FolderDto } from '../../../src/schemas/folder';
import type { PublicServerInfo } from '../../../src/schemas/server';
import type { TagDto } from '../../../src/schemas/tag';
import type { QuotaDto, SessionDto, UserDto, UserViewSettings, UserWithTokenDto } from '../../../src/schemas/user';

export type { PublicServerInfo, UserViewSettings };
export type Role = UserDto['role'];
export type Session = SessionDto;
export type Quota = QuotaDto;
export type User = UserDto;
/** GET /api/user */
export type CurrentUser = UserWithTokenDto;
/** A tag as a file carries it. */
export type FileTag = FileTagDto;
/** A tag as GET /api/user/tags lists it. */
export type Tag = TagDto;
/** A file as its owner sees it: GET /api/user/files, GET/PATCH /api/user/files/:id, a folder's files. */
export type FileItem = FileDto;
/** A folder as its owner sees it: GET /api/user/folders. */
export type Folder = FolderDto;
/** GET /api/user/folders/:id: the folder with its files, the folders inside it and where it is. */
export type FolderDetail = FolderDetailDto;

export const isAdmin = (user: Pick<User, 'role'> | null | undefined): boolean =>
  user?.role === 'ADMIN' || user?.role === 'SUPERADMIN';

/** One page of a list: GET /api/user/files, GET /api/user/urls. */
export interface ListPage<T> {
  page: T[];
  total: number;
  pages: number;
}
