// Cursor paging for a list shown a page at a time with numbered pages: the `nextCursor` of each page seen, by listing
// and page number, so that turning to the next page reads on after the last row of the page before (keyset paging on
// the server: as fast on page 5,000 as on page 2, and no row shown twice or missed when others come and go). Pages
// reached otherwise (a jump, an address, after a reload) are asked for by number.

/** The cursors of one kind of list: `cursorsOf(key)` for one listing (its page size, order, search and filters). */
export function pageCursorStore(maxListings = 20) {
  const listings = new Map<string, Map<number, string>>();
  return (key: string): Map<number, string> => {
    let cursors = listings.get(key);
    if (!cursors) {
      if (listings.size >= maxListings) listings.delete(listings.keys().next().value!);
      cursors = new Map();
      listings.set(key, cursors);
    }
    return cursors;
  };
}

/**
 * Page `page` of a listing: by the cursor the page before gave, when one was seen, else by number (`ask(undefined)`);
 * a cursor the server no longer takes (its secret changed, say) is asked again by number. Keeps the answer's
 * `nextCursor` for the page after.
 */
export async function askPage<T extends { nextCursor?: string | null }>(
  cursors: Map<number, string>,
  page: number,
  ask: (cursor: string | undefined) => Promise<T>,
  signal: AbortSignal,
): Promise<T> {
  const cursor = page > 1 ? cursors.get(page) : undefined;
  let answer: T;
  try {
    answer = await ask(cursor);
  } catch (err) {
    if (cursor === undefined || signal.aborted) throw err;
    cursors.delete(page);
    answer = await ask(undefined);
  }
  if (answer.nextCursor) cursors.set(page + 1, answer.nextCursor);
  else cursors.delete(page + 1);
  return answer;
}
