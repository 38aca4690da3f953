// How long files (x-service-deletes-at, a file's deletesAt) and invites (expiresAt) live: the preset durations the
// server reads from now ("1h", "7d"; src/lib/text/durations.ts), and the date-and-time fields for a moment of one's own.
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** The durations offered everywhere an expiry is chosen: the server's value, the length in words, in milliseconds. */
export const EXPIRY_PRESETS = [
  { value: '1h', label: '1 hour', ms: HOUR },
  { value: '1d', label: '1 day', ms: DAY },
  { value: '7d', label: '1 week', ms: 7 * DAY },
  { value: '30d', label: '30 days', ms: 30 * DAY },
] as const;

export type ExpiryPreset = (typeof EXPIRY_PRESETS)[number]['value'];

/** Select choices for an expiry counted from now: Never, In 1 hour … In 30 days, On a date… (value 'custom'). */
export const EXPIRY_FROM_NOW: ReadonlyArray<{ value: 'never' | ExpiryPreset | 'custom'; label: string }> = [
  { value: 'never', label: 'Never' },
  ...EXPIRY_PRESETS.map((p) => ({ value: p.value, label: `In ${p.label}` })),
  { value: 'custom', label: 'On a date…' },
];

/** A moment as the value of a datetime-local input (local time, to the minute). */
export function localInputValue(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** What a datetime-local field holds, read as an expiry: the moment, or why it cannot be one. */
export function readExpiryDate(value: string, now = Date.now()): Date | 'missing' | 'past' {
  const at = value ? new Date(value) : null;
  if (!at || Number.isNaN(at.getTime())) return 'missing';
  return at.getTime() <= now ? 'past' : at;
}
