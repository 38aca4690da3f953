// Formatting shared by every page: sizes, dates, durations, counts.
// Sizes come from the server's own formatter (a module without Node imports), so the dashboard, the server's pages,
// its messages and the CLI print the same IEC units.
import { formatByteSize as formatBytes } from '../../../src/lib/text/sizes.js';

export { formatBytes };

export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '-';
  const date = new Date(iso);
  return Number.isNaN(date.getTime())
    ? '-'
    : date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** "3 minutes", "2 hours" ... for times left and ages. */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '-';
  if (seconds < 60) return `${Math.ceil(seconds)} s`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min`;
  if (seconds < 86400) return `${(seconds / 3600).toFixed(1)} h`;
  return `${Math.round(seconds / 86400)} d`;
}

export function formatSpeed(bytesPerSecond: number): string {
  return `${formatBytes(bytesPerSecond)}/s`;
}

/** "1 file", "2 files", "1,204 files"; `many` for words whose plural is not one + "s" ("files were"). */
export const plural = (count: number, one: string, many = `${one}s`): string =>
  `${count.toLocaleString()} ${count === 1 ? one : many}`;
