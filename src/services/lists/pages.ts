// Paging of the lists other than files (short URLs, users, folders: issue 23, item 5), each read in one order from an
// index with the id as tie-breaker. A page by number is read from whichever end of the order is nearer, so the last
// page costs what the first does (pages in the middle of a long list still skip index entries); a cursor (keyset)
// starts right after the last row of the previous page, at the same cost at any depth.
import type { Compilable } from 'kysely';
import type { AppContext } from '../../context.js';
import { sameConnectionReader } from '../../db/batches-and-slow-reads.js';
import type { ListPosition } from './cursors.js';

/** A page number this many rows from both ends of its list is skipped to on the slow reader (ctx.reads). */
export const DEEP_SKIP = 20_000;
/** A search with more matches than this reads its pages on the slow reader (they are read and sorted, or walked). */
export const MANY_MATCHES = 5000;

/** Whether page `page` (by number) of a list of `total` rows starts DEEP_SKIP rows or more from both of its ends. */
export function isDeepPage(page: number, perPage: number, total: number): boolean {
  const skip = (page - 1) * perPage;
  return Math.min(skip, total - skip - perPage) >= DEEP_SKIP;
}

/** Runs a list's statement: on the main connection, or ctx.reads for one that may take long. */
export type RunList = <R>(query: Compilable<R>) => Promise<R[]>;

/**
 * Where a list's page is read: on ctx.reads (on SQLite a worker thread with its own connection, db/sqlite/worker-connections.ts,
 * so that the read holds up no other request) when `long`, else on the main connection.
 */
export function listRunner(ctx: AppContext, long: boolean): RunList {
  const reader = long ? ctx.reads : sameConnectionReader(ctx.db);
  return (query) => reader.all(query);
}

/** Reads `limit` rows after skipping `offset`, in the list's order (`forward`) or its reverse (`backward`). */
export type ReadRows<Row> = (direction: 'forward' | 'backward', offset: number, limit: number) => Promise<Row[]>;

/** The rows of page `page` (from 1) of a list of `total` rows, in the list's order. */
export async function rowsOfPage<Row>(
  read: ReadRows<Row>,
  page: number,
  perPage: number,
  total: number,
): Promise<Row[]> {
  const skip = (page - 1) * perPage;
  if (skip >= total) return [];
  const fromEnd = total - skip - perPage;
  if (fromEnd >= skip) return read('forward', skip, perPage);
  const rows = await read('backward', Math.max(0, fromEnd), Math.min(perPage, total - skip));
  return rows.reverse();
}

/**
 * One page of a list and whether another follows it: after a cursor's position (`readAfter`, asked for one row more
 * than the page holds), or page `page` by number (rowsOfPage) of a list of `total` rows.
 */
export async function pageOfRows<Row>(
  query: { page: number; perPage: number; after: ListPosition | undefined },
  total: number,
  readAfter: (after: ListPosition, limit: number) => Promise<Row[]>,
  read: ReadRows<Row>,
): Promise<{ rows: Row[]; hasNext: boolean }> {
  const { page, perPage, after } = query;
  if (after) {
    const rows = await readAfter(after, perPage + 1);
    return { rows: rows.slice(0, perPage), hasNext: rows.length > perPage };
  }
  const rows = await rowsOfPage(read, page, perPage, total);
  return { rows, hasNext: (page - 1) * perPage + rows.length < total && rows.length === perPage };
}
