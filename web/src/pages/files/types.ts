// The sort and search fields of the Files page's list (the server's own, src/lib/file-list.ts) and their labels.
import type { FileSearchField, FileSortField } from '../../../../src/lib/file-list';

export {
  FILE_SEARCH_FIELDS as SEARCH_FIELDS,
  FILE_SORT_FIELDS as SORT_FIELDS,
  type FileSearchField as SearchField,
  type FileSortField as SortField,
} from '../../../../src/lib/file-list';
export type SortOrder = 'asc' | 'desc';

export const SORT_LABELS: Record<FileSortField, string> = {
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

export const SEARCH_LABELS: Record<FileSearchField, string> = {
  name: 'Name',
  originalName: 'Original name',
  type: 'Type',
};
