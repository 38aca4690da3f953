// Usernames as people read them: one canonical spelling (NFKC, trimmed), no characters a reader cannot see, and a
// case-folded key so that `Admin` and `admin` are the same name for uniqueness and for signing in.
import { ApiError } from '../errors.js';

/**
 * Characters refused anywhere in a name: controls (Cc), format characters (Cf: zero-width space and joiners,
 * bidirectional overrides, the BOM, soft hyphen ...), lone surrogates (Cs), private use (Co), unassigned code points
 * (Cn), line and paragraph separators (Zl, Zp), and whatever Unicode says is ignorable by default (invisible letters
 * and marks that are not Cf: combining grapheme joiner, Hangul fillers, variation selectors), plus the Braille blank.
 */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}\u2800]/u;

const LONE_SURROGATE = /\p{Cs}/u;

/** Whitespace other than a plain space (tabs are Cc; these are the Zs that NFKC does not turn into a space). */
const ODD_SPACE = /[^\S ]/u;

/** Scripts whose letters are easily taken for one another; a name mixing two of them is refused. */
const CONFUSABLE_SCRIPTS: Array<[string, RegExp]> = [
  ['Latin', /\p{Script=Latin}/u],
  ['Cyrillic', /\p{Script=Cyrillic}/u],
  ['Greek', /\p{Script=Greek}/u],
];

function invalid(path: string, message: string): ApiError {
  return new ApiError(1000, `${path.replace(/^body\./, '')} ${message}`, { extra: { issues: [{ path, message }] } });
}

/**
 * The canonical form of a new or changed username: NFKC, trimmed, 1 to 128 characters, no invisible characters, no
 * mix of Latin, Cyrillic and Greek letters. Anything else -> 1000 naming `path` (as a validation error would).
 */
export function canonicalUsername(raw: string, path = 'body.username'): string {
  if (LONE_SURROGATE.test(raw)) throw invalid(path, 'must be valid Unicode text');
  // Checked before trimming: JavaScript's trim() also takes a byte order mark away.
  if (INVISIBLE.test(raw)) throw invalid(path, 'must not contain control, zero-width or other invisible characters');
  const name = raw.normalize('NFKC').trim();
  if (name.length === 0) throw invalid(path, 'must not be empty');
  if (name.length > 128) throw invalid(path, 'must be at most 128 characters');
  if (ODD_SPACE.test(name)) throw invalid(path, 'must not contain whitespace other than plain spaces');
  const scripts = CONFUSABLE_SCRIPTS.filter(([, letters]) => letters.test(name)).map(([script]) => script);
  if (scripts.length > 1) throw invalid(path, `must not mix ${scripts.join(' and ')} letters`);
  return name;
}

/**
 * The key two names share when they are the same name to a reader: NFKC, trimmed, case-folded (upper then lower
 * case, so that ß and SS, or σ and ς, meet). Unique among users; signing in looks a name up by it. Also works on a
 * name that canonicalUsername would refuse (an account made before these rules), so that it can still sign in.
 */
export function usernameKey(name: string): string {
  return name
    .replace(/\p{Cs}/gu, '\uFFFD')
    .normalize('NFKC')
    .trim()
    .toUpperCase()
    .toLowerCase()
    .normalize('NFKC');
}
