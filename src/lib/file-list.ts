// What a list of files can be sorted and searched by (GET /api/user/files): the API's query values, which the
// dashboard offers too (it imports this module: no Node imports here).

export const FILE_SORT_FIELDS = [
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
