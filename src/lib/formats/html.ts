// Escaping for server-rendered HTML: every value that did not come from our own templates goes through here.

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
};

/** Text safe inside element content and inside double- or single-quoted attribute values. */
export function escapeHtml(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '';
  return String(value).replace(/[&<>"'`]/g, (ch) => ENTITIES[ch]!);
}

/** A tagged template that escapes every interpolated value; `raw()` marks markup that is already safe. */
export function html(
  strings: TemplateStringsArray,
  ...values: Array<SafeHtml | string | number | null | undefined>
): SafeHtml {
  let out = strings[0]!;
  values.forEach((value, i) => {
    out += (value instanceof SafeHtml ? value.value : escapeHtml(value)) + strings[i + 1]!;
  });
  return new SafeHtml(out);
}

export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

/** Joins already-safe fragments. */
export function joinHtml(parts: SafeHtml[]): SafeHtml {
  return new SafeHtml(parts.map((p) => p.value).join(''));
}
