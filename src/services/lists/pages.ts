// Paging of the lists other than files (short URLs, users, folders: issue 23, item 5), each read in one order from an
// index with the id as tie-breaker. A page by number is read from whichever end of the order is nearer, so the last
// page costs what the first does (pages in the middle of a long list still skip index entries); a cursor (keyset)
// starts right after the last row of the previous page, at the same cost at any depth.
import { createHash } from 'node:crypto';
import type { Compilable } from 'kysely';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { sameConnectionReader } from '../../db/sqlite/worker-connections.js';
import { ApiError } from '../../lib/errors.js';

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

/** Where a page ended: the sort value and the id of its last row. */
export interface ListPosition {
  value: number | string;
  id: string;
}

/** What binds a cursor to one listing: a short hash of the list's name, owner and filters. */
export function listKey(parts: unknown[]): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('base64url').slice(0, 16);
}

const CursorPayload = z.object({ k: z.string(), v: z.union([z.number(), z.string()]), i: z.string() });

/**
 * A `nextCursor`: the position, bound to one listing by `key` (the list, its owner and its filters), encrypted with the
 * instance's key (opaque, and a changed one does not decrypt).
 */
export function encodeListCursor(ctx: AppContext, key: string, position: ListPosition): string {
  return ctx.secrets.encrypt(JSON.stringify({ k: key, v: position.value, i: position.id }));
}

/** The position of a cursor of this listing; anything else -> 1000, the same words whatever was wrong. */
export function decodeListCursor(
  ctx: AppContext,
  key: string,
  cursor: string,
  valueType: 'number' | 'string',
): ListPosition {
  let payload: z.infer<typeof CursorPayload> | undefined;
  try {
    payload = CursorPayload.parse(JSON.parse(ctx.secrets.decrypt(cursor)));
  } catch {
    payload = undefined;
  }
  if (!payload || payload.k !== key || typeof payload.v !== valueType) {
    const message = 'not a cursor of this listing';
    throw new ApiError(1000, `querystring.cursor: ${message}`, {
      extra: { issues: [{ path: 'querystring.cursor', message }] },
    });
  }
  return { value: payload.v, id: payload.i };
}
