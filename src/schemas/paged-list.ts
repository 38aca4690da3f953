// The answer of a list route asked for one page (Zipline's shape): the page's items, how many items the list has in
// all, how many pages of this size that makes, and the cursor of the next page. One schema and one builder for every
// list route, so that the lists page alike.
import { z } from 'zod';

const NEXT_CURSOR = 'pass as ?cursor= for the next page (keyset: nothing skipped or repeated); null on the last';

/** What a list's service answers for one page, besides its rows. */
export interface ListedPage {
  /** Every item the list holds, on all pages. */
  total: number;
  /** The cursor of the page after this one; null on the last. */
  nextCursor: string | null;
}

/** The fields of a page answer after its items (`nextCursor` described in the list's own words, when it has them). */
export function pageFieldsSchema(nextCursor = NEXT_CURSOR) {
  return {
    total: z.number().int(),
    pages: z.number().int(),
    nextCursor: z.string().nullable().describe(nextCursor),
  };
}

/** A page answer whose `page` holds the items. */
export function pagedListSchema<Item extends z.ZodType>(item: Item, nextCursor?: string) {
  return z.object({ page: z.array(item), ...pageFieldsSchema(nextCursor) });
}

/** The fields of pageFieldsSchema() for a page of `perPage` items. */
export function pageFields(
  listed: ListedPage,
  perPage: number,
): { total: number; pages: number; nextCursor: string | null } {
  return { total: listed.total, pages: Math.ceil(listed.total / perPage), nextCursor: listed.nextCursor };
}

/** The answer of pagedListSchema(): the page's `items` (as the route answers them) and pageFields(). */
export function pagedList<Item>(items: Item[], listed: ListedPage, perPage: number) {
  return { page: items, ...pageFields(listed, perPage) };
}
