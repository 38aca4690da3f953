// The sort and search fields of the Files page's list (src/routes/user-files.ts); the API's shapes are in api/types.ts.

export const SORT_FIELDS = [
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
