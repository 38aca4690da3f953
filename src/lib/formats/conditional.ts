// Conditional requests (RFC 9110 section 13) for representations that never change once stored: a strong ETag and
// a Last-Modified date at one-second precision.

function opaqueTags(header: string): string[] {
  return header
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
}

const stripWeak = (tag: string): string => (tag.startsWith('W/') ? tag.slice(2) : tag);

/** If-None-Match (weak comparison), else If-Modified-Since: true when the client's copy is current (answer 304). */
export function isNotModified(
  headers: { 'if-none-match'?: string | undefined; 'if-modified-since'?: string | undefined },
  etag: string,
  lastModifiedMs: number,
): boolean {
  const noneMatch = headers['if-none-match'];
  if (noneMatch !== undefined) {
    return opaqueTags(noneMatch).some((tag) => tag === '*' || stripWeak(tag) === stripWeak(etag));
  }
  const since = headers['if-modified-since'];
  if (since !== undefined) {
    const at = Date.parse(since);
    return !Number.isNaN(at) && Math.floor(lastModifiedMs / 1000) <= Math.floor(at / 1000);
  }
  return false;
}

/** If-Range: whether a Range may be honoured (strong ETag match, or the exact Last-Modified date). */
export function ifRangeAllows(ifRange: string | undefined, etag: string, lastModifiedMs: number): boolean {
  if (ifRange === undefined) return true;
  const value = ifRange.trim();
  if (value.startsWith('"') || value.startsWith('W/')) return value === etag;
  const at = Date.parse(value);
  return !Number.isNaN(at) && Math.floor(at / 1000) === Math.floor(lastModifiedMs / 1000);
}

export function httpDate(ms: number): string {
  return new Date(ms).toUTCString();
}
