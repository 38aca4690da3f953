// Object keys: the rules both datasources enforce, so that a key can never name something outside the storage
// folder (local) or outside the configured prefix (S3), and so that a key means the same thing on both.
import { InvalidStorageKeyError, type ByteRange } from './datasource.js';

export const MAX_KEY_LENGTH = 1024;

/** First path segment reserved for the local datasource's own temp folder when it has to live inside the root. */
export const RESERVED_SEGMENT = '.chute-tmp';

/**
 * Throws InvalidStorageKeyError unless `key` is a relative, normalised '/'-separated path: no empty, '.' or '..'
 * segments, no leading or trailing '/', no backslash, no NUL or other control characters, at most 1024 bytes.
 */
export function assertValidKey(key: string): void {
  const problem = keyProblem(key);
  if (problem) throw new InvalidStorageKeyError(key, problem);
}

function keyProblem(key: string): string | null {
  if (typeof key !== 'string' || key.length === 0) return 'is empty';
  if (Buffer.byteLength(key) > MAX_KEY_LENGTH) return `is longer than ${MAX_KEY_LENGTH} bytes`;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(key)) return 'contains a NUL or control character';
  if (key.includes('\\')) return 'contains a backslash';
  if (key.startsWith('/')) return 'is absolute';
  for (const segment of key.split('/')) {
    if (segment === '') return 'has an empty path segment';
    if (segment === '.' || segment === '..') return `has a '${segment}' path segment`;
  }
  if (key.split('/')[0] === RESERVED_SEGMENT) return `starts with the reserved folder ${RESERVED_SEGMENT}`;
  return null;
}

/** Throws RangeError unless `range` is a well-formed inclusive range of integers (0 <= start <= end). */
export function assertValidRange(range: ByteRange): void {
  const { start, end } = range;
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end < start) {
    throw new RangeError(`invalid byte range ${start}-${end}`);
  }
}

/** The error for a range that starts at or past the end of an object of `size` bytes. */
export function unsatisfiableRange(key: string, range: ByteRange, size: number): RangeError {
  return new RangeError(`byte range ${range.start}-${range.end} starts past the end of ${key} (${size} bytes)`);
}
