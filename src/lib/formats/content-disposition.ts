// Content-Disposition values (RFC 6266) that carry any file name safely: an ASCII fallback in `filename` and the
// exact name, UTF-8 percent-encoded, in `filename*` (RFC 8187).

/** Characters allowed unencoded in an RFC 8187 value (attr-char). */
const ATTR_CHAR = /[A-Za-z0-9!#$&+\-.^_`|~]/;

function encodeExtValue(name: string): string {
  let out = '';
  for (const byte of Buffer.from(name, 'utf8')) {
    const ch = String.fromCharCode(byte);
    out += byte < 0x80 && ATTR_CHAR.test(ch) ? ch : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** An ASCII-only, quote-safe stand-in for the name (non-ASCII, quotes, backslashes and controls become _). */
function asciiFallback(name: string): string {
  return name.replace(/[^\x20-\x7e]|["\\%]/g, '_');
}

export function contentDisposition(kind: 'inline' | 'attachment', fileName: string | null | undefined): string {
  if (!fileName) return kind;
  const fallback = asciiFallback(fileName);
  const header = `${kind}; filename="${fallback}"`;
  return fallback === fileName ? header : `${header}; filename*=UTF-8''${encodeExtValue(fileName)}`;
}
