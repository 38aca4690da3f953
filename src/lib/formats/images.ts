// Recognises the image formats we accept for avatars by their first bytes (never by a client's claim).

const SIGNATURES: Array<{ type: string; test: (b: Buffer) => boolean }> = [
  {
    type: 'image/png',
    test: (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  },
  { type: 'image/jpeg', test: (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff },
  {
    type: 'image/gif',
    test: (b) => b.subarray(0, 6).toString('latin1') === 'GIF87a' || b.subarray(0, 6).toString('latin1') === 'GIF89a',
  },
  {
    type: 'image/webp',
    test: (b) => b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP',
  },
];

export function sniffImageType(bytes: Buffer): string | null {
  return SIGNATURES.find((s) => s.test(bytes))?.type ?? null;
}

export type Base64ImageResult = { ok: true; dataUrl: string; bytes: number } | { ok: false; reason: string };

/**
 * Accepts a base64 image, bare or as a data URL, and returns it as a data URL whose MIME type is what the bytes are.
 */
export function parseBase64Image(input: string, maxBytes: number): Base64ImageResult {
  const match = /^data:([\w.+-]+\/[\w.+-]+);base64,(.*)$/s.exec(input);
  const payload = (match ? match[2]! : input).replace(/\s+/g, '');
  if (payload.length === 0 || !/^[A-Za-z0-9+/_-]+={0,2}$/.test(payload)) {
    return { ok: false, reason: 'not a base64 string' };
  }
  if (Math.floor((payload.length * 3) / 4) > maxBytes + 3) {
    return { ok: false, reason: `larger than ${maxBytes} bytes` };
  }
  const bytes = Buffer.from(payload, 'base64');
  if (bytes.length > maxBytes) return { ok: false, reason: `larger than ${maxBytes} bytes` };
  const type = sniffImageType(bytes);
  if (!type) return { ok: false, reason: 'not a PNG, JPEG, GIF or WebP image' };
  return { ok: true, dataUrl: `data:${type};base64,${bytes.toString('base64')}`, bytes: bytes.length };
}
