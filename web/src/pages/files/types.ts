// The sort and search fields of the Files page's list (the server's own, src/lib/file-list.ts) and their labels.
import { FILE_SORT_FIELDS, type FileSearchField, type FileSortField } from '../../../../src/lib/file-list';

export {
  FILE_SEARCH_FIELDS as SEARCH_FIELDS,
  type FileSearchField as SearchField,
} from '../../../../src/lib/file-list';
export type SortOrder = 'asc' | 'desc';

/** The page's sorts: the API's but Zipline's sortBy=id (random ids put files in no order a person looks for). */
export type SortField = Exclude<FileSortField, 'id'>;
export const SORT_FIELDS = FILE_SORT_FIELDS.filter((f): f is SortField => f !== 'id');

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

export const SEARCH_LABELS: Record<FileSearchField, string> = {
  name: 'Name',
  originalName: 'Original name',
  type: 'Type',
};
