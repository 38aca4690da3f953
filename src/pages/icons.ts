// Small outline icons for the public pages, inline SVG (no requests, nothing to run), drawn in currentColor.
import { mimeEssence, mediaKind } from '../lib/formats/media-types.js';
import { html, SafeHtml } from '../lib/formats/html.js';

const PATHS = {
  file: '<path d="M14 3v4a1 1 0 0 0 1 1h4"/><path d="M17 21H7a2 2 0 0 1-2-2V5a2 2 0 0 1 2-2h7l5 5v11a2 2 0 0 1-2 2z"/>',
  text: '<path d="M14 3v4a1 1 0 0 0 1 1h4"/><path d="M17 21H7a2 2 0 0 1-2-2V5a2 2 0 0 1 2-2h7l5 5v11a2 2 0 0 1-2 2z"/><path d="M9 9h1M9 13h6M9 17h6"/>',
  archive:
    '<path d="M14 3v4a1 1 0 0 0 1 1h4"/><path d="M17 21H7a2 2 0 0 1-2-2V5a2 2 0 0 1 2-2h7l5 5v11a2 2 0 0 1-2 2z"/><path d="M11 5h1M11 8h1M11 11h1"/><rect x="10" y="13" width="3" height="4" rx="1"/>',
  image:
    '<rect x="3" y="3" width="18" height="18" rx="3"/><path d="M15 8h.01"/><path d="m3 16 5-5c.93-.9 2.07-.9 3 0l5 5"/><path d="m14 14 1-1c.93-.9 2.07-.9 3 0l3 3"/>',
  video:
    '<path d="m15 10 4.55-2.28A1 1 0 0 1 21 8.62v6.76a1 1 0 0 1-1.45.9L15 14z"/><rect x="3" y="6" width="12" height="12" rx="2"/>',
  audio: '<circle cx="6" cy="17" r="3"/><circle cx="16" cy="17" r="3"/><path d="M9 17V4h10v13"/><path d="M9 8h10"/>',
  folder: '<path d="M5 4h4l3 3h7a2 2 0 0 1 2 2v8a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2"/>',
  lock: '<rect x="5" y="11" width="14" height="10" rx="2"/><circle cx="12" cy="16" r="1"/><path d="M8 11V7a4 4 0 0 1 8 0v4"/>',
  download: '<path d="M4 17v2a2 2 0 0 0 2 2h12a2 2 0 0 0 2-2v-2"/><path d="m7 11 5 5 5-5"/><path d="M12 4v12"/>',
  upload: '<path d="M4 17v2a2 2 0 0 0 2 2h12a2 2 0 0 0 2-2v-2"/><path d="m7 9 5-5 5 5"/><path d="M12 4v12"/>',
  open: '<path d="M12 6H6a2 2 0 0 0-2 2v10a2 2 0 0 0 2 2h10a2 2 0 0 0 2-2v-6"/><path d="m11 13 9-9"/><path d="M15 4h5v5"/>',
  alert: '<circle cx="12" cy="12" r="9"/><path d="M12 8v4"/><path d="M12 16h.01"/>',
  back: '<path d="M5 12h14"/><path d="m5 12 6 6"/><path d="m5 12 6-6"/>',
} as const;

export type IconName = keyof typeof PATHS;

/** An icon of `size` pixels; decorative (hidden from screen readers): the text next to it says what it is. */
export function icon(name: IconName, size = 20): SafeHtml {
  return html`<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="1.8" stroke-linecap="round" stroke-linejoin="round" aria-hidden="true" focusable="false">${new SafeHtml(PATHS[name])}</svg>`;
}

/** A small dot in a tag's colour (an SVG fill: no inline style needed); colours that are not #hex are left grey. */
export function colorDot(color: string): SafeHtml {
  const fill = /^#[0-9a-fA-F]{3,8}$/.test(color) ? color : 'currentColor';
  return html`<svg width="10" height="10" viewBox="0 0 10 10" aria-hidden="true" focusable="false"><circle cx="5" cy="5" r="5" fill="${fill}"/></svg>`;
}

const ARCHIVES = /(zip|x-7z|x-rar|vnd\.rar|x-tar|gzip|x-gzip|x-bzip2|x-xz|zstd)/;

/** The icon that stands for a file of this MIME type. */
export function fileIconName(type: string): IconName {
  const essence = mimeEssence(type) ?? '';
  if (essence.startsWith('image/')) return 'image';
  if (essence.startsWith('video/')) return 'video';
  if (essence.startsWith('audio/')) return 'audio';
  if (ARCHIVES.test(essence)) return 'archive';
  if (
    mediaKind(essence) === 'text' ||
    essence.startsWith('text/') ||
    essence === 'application/pdf' ||
    essence === 'application/json'
  )
    return 'text';
  return 'file';
}
