// Random text for the substring-search properties (files, short URLs, users): accents, Cyrillic, CJK, emoji, LIKE's
// wildcards, backslashes and quotes, and searches cut from it with some letters' case flipped.
import fc from 'fast-check';

export const SEARCH_ALPHABET = [
  ...'abcxABCX1 .-',
  ...'éÉüÜñÑøØ',
  ...'пПрРиИ',
  ...'写真スクショ',
  '📸',
  '🎉',
  ...'%_\\\'"',
];

export const codepoints = (text: string) => [...text];

/** Text of `min` to `max` characters of SEARCH_ALPHABET (`alphabet`: another set). */
export const textOf = (min: number, max: number, alphabet: string[] = SEARCH_ALPHABET) =>
  fc.array(fc.constantFrom(...alphabet), { minLength: min, maxLength: max }).map((chars) => chars.join(''));

/** Upper-cases some characters (only where that is one character), so that a search differs in case from the text. */
export const flipCase = (text: string, flips: boolean[]) =>
  codepoints(text)
    .map((c, i) => {
      const upper = c.toUpperCase();
      return flips[i % Math.max(flips.length, 1)] && codepoints(upper).length === 1 ? upper : c;
    })
    .join('');

/** How a search is drawn: cut from one of the values (`of`), or (`random`) any text. */
export const searchPick = () =>
  fc.record({
    of: fc.nat(),
    start: fc.nat(),
    length: fc.integer({ min: 1, max: 5 }),
    flips: fc.array(fc.boolean(), { minLength: 1, maxLength: 5 }),
    random: fc.option(textOf(1, 4), { freq: 4 }),
  });

/** The search a pick stands for, from `values` (those that are null are skipped when there are others). */
export function searchOf(values: Array<string | null>, pick: SearchPick): string {
  const present = values.filter((v): v is string => v !== null && v !== '');
  const source = present.length > 0 ? present[pick.of % present.length]! : 'x';
  const query =
    pick.random ??
    flipCase(
      codepoints(source)
        .slice(pick.start % codepoints(source).length)
        .join(''),
      pick.flips,
    );
  return codepoints(query).slice(0, pick.length).join('');
}

export type SearchPick = { of: number; start: number; length: number; flips: boolean[]; random: string | null };
