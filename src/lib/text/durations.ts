// Human durations ("30m", "7d", "1 week", "2h30m") to milliseconds.

const UNIT_MS: Record<string, number> = {
  ms: 1,
  s: 1000,
  sec: 1000,
  second: 1000,
  seconds: 1000,
  m: 60_000,
  min: 60_000,
  minute: 60_000,
  minutes: 60_000,
  h: 3_600_000,
  hr: 3_600_000,
  hour: 3_600_000,
  hours: 3_600_000,
  d: 86_400_000,
  day: 86_400_000,
  days: 86_400_000,
  w: 604_800_000,
  week: 604_800_000,
  weeks: 604_800_000,
  mo: 2_592_000_000,
  month: 2_592_000_000,
  months: 2_592_000_000,
  y: 31_536_000_000,
  year: 31_536_000_000,
  years: 31_536_000_000,
};

/** Milliseconds for a duration such as "30m", "7d", "1 week" or "2h30m"; null when it is not one (or is zero). */
export function parseDuration(text: string): number | null {
  const compact = text.trim().toLowerCase();
  if (compact === '') return null;
  const re = /(\d+(?:\.\d+)?)\s*([a-z]+)\s*/gy;
  let total = 0;
  let consumed = 0;
  let match: RegExpExecArray | null;
  while ((match = re.exec(compact)) !== null) {
    const factor = UNIT_MS[match[2]!];
    if (factor === undefined) return null;
    total += Number(match[1]) * factor;
    consumed = re.lastIndex;
  }
  if (consumed !== compact.length || total <= 0 || !Number.isFinite(total)) return null;
  return Math.round(total);
}

/** Latest accepted expiry (uploads and edits): the end of year 9999. */
export const MAX_EXPIRY_MS = 253402300799999;
