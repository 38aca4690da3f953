// The name formats of x-service-format (src/http/uploads/headers.ts): how the server names an uploaded file, and
// so its link. The upload page and the uploader configurations offer the same ones.
export const NAME_FORMATS = [
  { value: 'random', label: 'Random letters', example: 'aB3xY9.png' },
  { value: 'random-words', label: 'Random words', example: 'calm-blue-fox.png' },
  { value: 'uuid', label: 'UUID' },
  { value: 'date', label: 'Date and time' },
  { value: 'name', label: 'Original file name' },
] as const;

export type NameFormat = (typeof NAME_FORMATS)[number]['value'];

/** "Random letters (aB3xY9.png)": the label with its example, where there is room for one. */
export const nameFormatWithExample = (format: (typeof NAME_FORMATS)[number]): string =>
  'example' in format ? `${format.label} (${format.example})` : format.label;
