// What a list of files can be sorted and searched by (GET /api/user/files): the API's query values, which the
// dashboard offers too (it imports this module: no Node imports here).

export const FILE_SORT_FIELDS = [
  'id',
  'createdAt',
  'updatedAt',
  'deletesAt',
  'name',
  'originalName',
  'size',
  'type',
  'views',
  'favorite',
] as const;
export type FileSortField = (typeof FILE_SORT_FIELDS)[number];

export const FILE_SEARCH_FIELDS = ['name', 'originalName', 'type'] as const;
export type FileSearchField = (typeof FILE_SEARCH_FIELDS)[number];

/**
 * What the API's searchField also takes (Zipline's): `tags`, whose searchQuery is comma-separated tag ids (files
 * carrying every one of them), and `id` (a substring of the file's id).
 */
export const FILE_LIST_SEARCH_FIELDS = [...FILE_SEARCH_FIELDS, 'tags', 'id'] as const;
export type FileListSearchField = (typeof FILE_LIST_SEARCH_FIELDS)[number];

/** Zipline's `filter`: `dashboard` lists images, videos, audio and text only; `all` ignores `favorite`. */
export const FILE_LIST_FILTERS = ['dashboard', 'none', 'all'] as const;
export type FileListFilter = (typeof FILE_LIST_FILTERS)[number];

/**
 * Case folding for substring search, the same on both engines and in the dashboard: each Unicode character to its
 * lower case when that is one character (as SQLite's FTS5 and PostgreSQL's lower() on a UTF-8 database fold), so
 * `É` finds `é` and `ПРИВЕТ` finds `привет`; nothing else (no accent stripping).
 */
export function foldCase(text: string): string {
  let folded = '';
  for (const char of text) {
    const lower = char.toLowerCase();
    folded += lower.length === char.length ? lower : char;
  }
  return folded;
}
