// MIME types: validating what clients send, and deciding how a stored file may be shown by a browser. The stored
// type is the uploader's claim; it never makes a browser run content on our origin (see servingPolicy).

const MIME_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/;

/** The essence of a MIME type (no parameters, lower case), or null when it is not one. */
export function mimeEssence(value: string | undefined | null): string | null {
  const essence = (value ?? '').split(';')[0]!.trim().toLowerCase();
  return MIME_TYPE.test(essence) ? essence : null;
}

/** Passive types a browser may show inline: it renders them, it never runs them. */
const INLINE_TYPES = new Set([
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'image/avif',
  'image/apng',
  'image/bmp',
  'image/x-icon',
  'image/vnd.microsoft.icon',
  'application/pdf',
  'text/plain',
]);

/** Text shown inline as text/plain (source, data): never as what it claims to be. */
const TEXT_AS_PLAIN = new Set(['text/markdown', 'text/csv', 'application/json', 'text/x-log']);

export interface ServingPolicy {
  /** Content-Type to send. */
  contentType: string;
  /** Whether a browser may show it in the page (otherwise it is an attachment). */
  inline: boolean;
}

/**
 * How a file of `type` is served: images, audio, video, PDF and plain text inline with their type; a few text
 * formats inline as text/plain; everything else (HTML, SVG, XML, JavaScript, unknown) as an attachment. Every answer
 * also carries `Content-Security-Policy: sandbox` and nosniff, so even an attachment opened in place runs nothing.
 */
/** The Content-Security-Policy of every answer carrying uploaded bytes: they never run as a page of ours. */
export const UPLOADED_BYTES_CSP =
  "sandbox; default-src 'none'; img-src 'self' data:; media-src 'self'; style-src 'unsafe-inline'";

export function servingPolicy(type: string): ServingPolicy {
  const essence = mimeEssence(type) ?? 'application/octet-stream';
  if (essence === 'text/plain' || TEXT_AS_PLAIN.has(essence))
    return { contentType: 'text/plain; charset=utf-8', inline: true };
  if (INLINE_TYPES.has(essence) || essence.startsWith('video/') || essence.startsWith('audio/')) {
    return { contentType: essence, inline: true };
  }
  return { contentType: essence, inline: false };
}

/** What the view page can show inline. */
export type MediaKind = 'image' | 'video' | 'audio' | 'text' | 'other';

export function mediaKind(type: string): MediaKind {
  const essence = mimeEssence(type) ?? '';
  const policy = servingPolicy(essence);
  if (!policy.inline) return 'other';
  if (essence.startsWith('image/')) return 'image';
  if (essence.startsWith('video/')) return 'video';
  if (essence.startsWith('audio/')) return 'audio';
  if (policy.contentType.startsWith('text/plain')) return 'text';
  return 'other';
}
