// HTTP byte ranges (RFC 9110 section 14): one range of a representation of known size. Several ranges in one
// request are answered with the whole representation (allowed by the RFC, and what most clients expect).

export type RangeRequest =
  /** No Range header, or one we ignore (other unit, several ranges, malformed): answer 200 with everything. */
  | { kind: 'full' }
  /** One satisfiable range, inclusive: answer 206. */
  | { kind: 'partial'; start: number; end: number }
  /** A well-formed range that selects nothing of this representation: answer 416. */
  | { kind: 'unsatisfiable' };

const SPEC = /^(\d*)-(\d*)$/;

/** Interprets a Range header value for a representation of `size` bytes. */
export function parseRange(header: string | undefined, size: number): RangeRequest {
  if (header === undefined) return { kind: 'full' };
  const eq = header.indexOf('=');
  if (eq < 0 || header.slice(0, eq).trim().toLowerCase() !== 'bytes') return { kind: 'full' };
  const specs = header
    .slice(eq + 1)
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (specs.length !== 1) return { kind: 'full' };
  const match = SPEC.exec(specs[0]!);
  if (!match) return { kind: 'full' };
  const [, first, last] = match as unknown as [string, string, string];
  if (first === '' && last === '') return { kind: 'full' };
  if (first === '') {
    // Suffix range: the last N bytes.
    const length = Number(last);
    if (!Number.isSafeInteger(length)) return { kind: 'full' };
    if (length === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'partial', start: Math.max(0, size - length), end: size - 1 };
  }
  const start = Number(first);
  const end = last === '' ? size - 1 : Number(last);
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end)) return { kind: 'full' };
  // "last < first" makes the header invalid, which the RFC says to ignore.
  if (last !== '' && end < start) return { kind: 'full' };
  if (start >= size) return { kind: 'unsatisfiable' };
  return { kind: 'partial', start, end: Math.min(end, size - 1) };
}

/** The Content-Range value of a 206 answer. */
export function contentRange(start: number, end: number, size: number): string {
  return `bytes ${start}-${end}/${size}`;
}

/** The Content-Range value of a 416 answer. */
export function unsatisfiedRange(size: number): string {
  return `bytes */${size}`;
}
