// The one cursor codec of every list (files, short URLs, users, folders, a folder's files): a `nextCursor` is where a
// page ended (the sort value and the id of its last row, and for the file listing which of its segments), bound to
// one listing by a key (the list, its owner, its order and filters) and encrypted with the instance's key, so that it
// is opaque, and a changed or forged one does not decrypt. Anything but a cursor of the same listing -> 1000, with
// the same words whatever was wrong: a cursor tells nothing.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { ApiError } from '../../lib/errors.js';

/** Where a page ended: the sort value and the id of its last row (the file listing: and the segment it was in). */
export interface ListPosition<Value = number | string> {
  value: Value;
  id: string;
  segment?: number;
}

/** What binds a cursor to one listing: a short hash of the list's name, owner and filters. */
export function listKey(parts: unknown[]): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('base64url').slice(0, 16);
}

const CursorPayload = z.object({
  k: z.string(),
  s: z.number().int().min(0).optional(),
  v: z.union([z.number(), z.string(), z.null()]),
  i: z.string(),
});

export function encodeListCursor(ctx: AppContext, key: string, position: ListPosition<unknown>): string {
  const { value: v, id: i, segment: s } = position;
  return ctx.secrets.encrypt(JSON.stringify(s === undefined ? { k: key, v, i } : { k: key, s, v, i }));
}

/** The position of a cursor of this listing whose value is of `valueType`. */
export function decodeListCursor(
  ctx: AppContext,
  key: string,
  cursor: string,
  valueType: 'number' | 'string',
): ListPosition;
/** The position of a cursor of this listing that `fits` takes (the file listing's segments). */
export function decodeListCursor(
  ctx: AppContext,
  key: string,
  cursor: string,
  fits: (position: ListPosition<number | string | null>) => boolean,
): ListPosition<number | string | null>;
export function decodeListCursor(
  ctx: AppContext,
  key: string,
  cursor: string,
  fits: 'number' | 'string' | ((position: ListPosition<number | string | null>) => boolean),
): ListPosition<number | string | null> {
  let position: ListPosition<number | string | null> | undefined;
  try {
    const payload = CursorPayload.parse(JSON.parse(ctx.secrets.decrypt(cursor)));
    if (payload.k === key)
      position = { value: payload.v, id: payload.i, ...(payload.s === undefined ? {} : { segment: payload.s }) };
  } catch {
    position = undefined;
  }
  const fitting =
    position !== undefined && (typeof fits === 'function' ? fits(position) : typeof position.value === fits);
  if (!fitting) {
    const message = 'not a cursor of this listing';
    throw new ApiError(1000, `querystring.cursor: ${message}`, {
      extra: { issues: [{ path: 'querystring.cursor', message }] },
    });
  }
  return position!;
}
