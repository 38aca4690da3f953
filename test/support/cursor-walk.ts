// Following `nextCursor` from the first page of a listing to its last, for the cursor paging tests of the lists.
import assert from 'node:assert/strict';

/** A page as the walk needs it: the ids on it and the cursor of the next page. */
export interface CursorPage {
  ids: string[];
  nextCursor: string | null;
}

/**
 * Every page by cursor after `first`; `between` runs before each next page (changes to the list). Returns the ids in
 * the order seen.
 */
export async function walkByCursor(
  first: () => Promise<CursorPage>,
  next: (cursor: string) => Promise<CursorPage>,
  between: () => Promise<void> = async () => undefined,
): Promise<string[]> {
  const seen: string[] = [];
  let page = await first();
  for (let guard = 0; ; guard++) {
    assert.ok(guard < 1000, 'the cursor walk does not end');
    seen.push(...page.ids);
    if (page.nextCursor === null) return seen;
    await between();
    page = await next(page.nextCursor);
  }
}

/** No id twice, and every id of `stayed` (there from before the walk to after it) seen. */
export function assertNoneRepeatedOrSkipped(seen: string[], stayed: string[]): void {
  assert.equal(new Set(seen).size, seen.length, `an item was seen twice: ${JSON.stringify(seen)}`);
  const seenSet = new Set(seen);
  assert.deepEqual(
    stayed.filter((id) => !seenSet.has(id)),
    [],
    'items there throughout were skipped',
  );
}
