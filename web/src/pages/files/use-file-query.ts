// The Files page's state in the query string (page, sort, search, filters, the open file), so that a reload, a
// shared address or coming back to the page shows the same list. Unknown values fall back on the defaults.
import { useDebouncedValue } from '@mantine/hooks';
import { useEffect, useRef, useState } from 'react';
import { setSearch, useLocation } from '../../router';
import { SEARCH_FIELDS, SORT_FIELDS, type SearchField, type SortField, type SortOrder } from './types';

export const PER_PAGE_OPTIONS = [24, 48, 96] as const;
const DEFAULT_PER_PAGE = 24;

export interface FileQuery {
  page: number;
  perpage: number;
  sortBy: SortField;
  order: SortOrder;
  /** The search text (the API's searchQuery). */
  q: string;
  field: SearchField;
  /** true: only favourites; false: only the others; null: all. */
  favorite: boolean | null;
  tags: string[];
  folder: string | null;
  /** The file whose detail panel is open. */
  file: string | null;
}

const DEFAULTS: FileQuery = {
  page: 1,
  perpage: DEFAULT_PER_PAGE,
  sortBy: 'createdAt',
  order: 'desc',
  q: '',
  field: 'name',
  favorite: null,
  tags: [],
  folder: null,
  file: null,
};

function oneOf<T extends string>(values: readonly T[], value: string | null, fallback: T): T {
  return value !== null && (values as readonly string[]).includes(value) ? (value as T) : fallback;
}

export function parseFileQuery(search: URLSearchParams): FileQuery {
  const page = Number(search.get('page'));
  const perpage = Number(search.get('perpage'));
  const fav = search.get('favorite');
  return {
    page: Number.isInteger(page) && page >= 1 ? page : DEFAULTS.page,
    perpage: (PER_PAGE_OPTIONS as readonly number[]).includes(perpage) ? perpage : DEFAULTS.perpage,
    sortBy: oneOf(SORT_FIELDS, search.get('sortBy'), DEFAULTS.sortBy),
    order: oneOf(['asc', 'desc'] as const, search.get('order'), DEFAULTS.order),
    q: search.get('q') ?? '',
    field: oneOf(SEARCH_FIELDS, search.get('field'), DEFAULTS.field),
    favorite: fav === 'true' ? true : fav === 'false' ? false : null,
    tags: (search.get('tags') ?? '').split(',').filter(Boolean),
    folder: search.get('folder') || null,
    file: search.get('file') || null,
  };
}

/** Writes changes to the query string; values equal to the defaults are left out of the address. */
export function writeFileQuery(patch: Partial<FileQuery>): void {
  const params: Record<string, string | number | null> = {};
  for (const [key, value] of Object.entries(patch) as Array<[keyof FileQuery, FileQuery[keyof FileQuery]]>) {
    const fallback = DEFAULTS[key];
    if (Array.isArray(value)) params[key] = value.length > 0 ? value.join(',') : null;
    else if (value === null || value === fallback) params[key] = null;
    else params[key] = String(value);
  }
  setSearch(params);
}

export function useFileQuery(): FileQuery {
  return parseFileQuery(useLocation().search);
}

/** Whether any filter narrows the list (the empty state then offers to clear them instead of uploading). */
export const isFiltered = (q: FileQuery): boolean =>
  q.q !== '' || q.favorite !== null || q.tags.length > 0 || q.folder !== null;

const SEARCH_DEBOUNCE_MS = 300;

/**
 * The search box: what is typed goes to the address (and so to the server) once typing pauses; a change of the
 * address from elsewhere (clear filters, coming back to the page) comes back into the box.
 */
export function useSearchText(q: string): [string, (text: string) => void] {
  const [text, setText] = useState(q);
  const [debounced] = useDebouncedValue(text, SEARCH_DEBOUNCE_MS);
  const pushed = useRef(q);
  useEffect(() => {
    if (debounced === pushed.current) return;
    pushed.current = debounced;
    writeFileQuery({ q: debounced, page: 1 });
  }, [debounced]);
  useEffect(() => {
    if (q === pushed.current) return;
    pushed.current = q;
    setText(q);
  }, [q]);
  return [text, setText];
}
