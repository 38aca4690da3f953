// Human byte sizes ("10gb", "512 KiB", "1048576") to numbers and back.

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

/** Parses a byte size; returns null when the text is not one. Units are binary (1kb = 1024 bytes). */
export function parseByteSize(text: string | number): number | null {
  if (typeof text === 'number') return Number.isSafeInteger(text) && text >= 0 ? text : null;
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(text);
  if (!match) return null;
  const unit = (match[2] ?? '').toLowerCase() || 'b';
  const factor = UNITS[unit];
  if (factor === undefined) return null;
  const bytes = Math.floor(Number(match[1]) * factor);
  return Number.isSafeInteger(bytes) ? bytes : null;
}

const IEC_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

/** The one size formatter of server pages, API texts, CLI and dashboard: IEC units with binary values, about three
 * significant digits ("512 B", "1.50 KiB", "10.0 GiB", "300 MiB"); "-" for what is not a byte count. */
export function formatByteSize(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '-';
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < IEC_UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  if (unit === 0) return `${value} B`;
  let text = value.toFixed(value >= 100 ? 0 : value >= 10 ? 1 : 2);
  // 1 MiB - 1 byte rounds to "1024 KiB": say "1.00 MiB" instead.
  if (Number(text) >= 1024 && unit < IEC_UNITS.length - 1) {
    unit++;
    text = (Number(text) / 1024).toFixed(2);
  }
  return `${text} ${IEC_UNITS[unit]}`;
}

/** A byte count as people type it: "10gb" for 10 GiB, "1536kb" for 1.5 MiB, the plain number when no unit divides it
 * (parseByteSize reads it back to the same number). */
export function byteSizeText(bytes: number): string {
  for (const [unit, factor] of [
    ['tb', 1024 ** 4],
    ['gb', 1024 ** 3],
    ['mb', 1024 ** 2],
    ['kb', 1024],
  ] as const) {
    if (bytes >= factor && bytes % factor === 0) return `${bytes / factor}${unit}`;
  }
  return String(bytes);
}
