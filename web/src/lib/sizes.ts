// Byte sizes as an admin types them ("10gb", "512 MB", "1048576"): read by the server's own parser (src/lib/sizes.ts,
// a module without Node imports, so the dashboard runs the very same code: binary units, 1kb = 1024 bytes), and
// written back without losing a byte.
export { parseByteSize as parseSize } from '../../../src/lib/sizes';

/** "10gb" for 10 GiB, "1536kb" for 1.5 MiB, the plain number when no unit divides it. */
export function sizeText(bytes: number): string {
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
