// Byte sizes as an admin types them ("10gb", "512 MB", "1048576"), read the way the server reads them
// (src/lib/sizes.ts: binary units, 1kb = 1024 bytes), and written back without losing a byte.
const UNITS: Record<string, number> = {
  b: 1,
  k: 1024,
  kb: 1024,
  kib: 1024,
  m: 1024 ** 2,
  mb: 1024 ** 2,
  mib: 1024 ** 2,
  g: 1024 ** 3,
  gb: 1024 ** 3,
  gib: 1024 ** 3,
  t: 1024 ** 4,
  tb: 1024 ** 4,
  tib: 1024 ** 4,
};

/** Bytes for a size such as "10gb" or "1048576"; null when the text is not one. */
export function parseSize(text: string): number | null {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(text);
  if (!match) return null;
  const factor = UNITS[(match[2] ?? '').toLowerCase() || 'b'];
  if (factor === undefined) return null;
  const bytes = Math.floor(Number(match[1]) * factor);
  return Number.isSafeInteger(bytes) ? bytes : null;
}

/** "10gb" for 10 GiB, "1536kb" for 1.5 MiB, the plain number when no unit divides it. */
export function sizeText(bytes: number): string {
  for (const [unit, factor] of [['tb', 1024 ** 4], ['gb', 1024 ** 3], ['mb', 1024 ** 2], ['kb', 1024]] as const) {
    if (bytes >= factor && bytes % factor === 0) return `${bytes / factor}${unit}`;
  }
  return String(bytes);
}
