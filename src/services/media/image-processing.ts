// Image processing at upload (POST /api/upload): removing metadata (EXIF GPS position and the rest) and compressing
// to JPEG, PNG or WebP at a quality, as asked by the x-service-remove-gps and x-service-image-compression-* headers
// or the filesRemoveGpsMetadata setting. The upload streams to a temp file first, sharp reads it sequentially within
// its pixel limit and writes a second temp file, which streams into the datasource: memory stays flat however large
// the image. An image sharp cannot read is stored as it came (the answer says the compression failed).
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FormatEnum, Sharp } from 'sharp';
import { loadSharp } from '../../lib/lazy-modules.js';
import type { ObjectInfo } from '../../storage/datasource.js';
import { imageInputOptions, SHARP_TIMEOUT_SECONDS } from './decode.js';

export const COMPRESSION_TYPES = ['jpg', 'png', 'webp'] as const;
export type CompressionType = (typeof COMPRESSION_TYPES)[number];

export interface ImageProcessingOptions {
  /** Store the image without its metadata (EXIF, with its GPS position; XMP; IPTC). */
  removeGps: boolean;
  /** Re-encode at this quality (0-100) in this format, or null. */
  compression: { percent: number; type: CompressionType } | null;
}

/** What processing did to one file, as the upload's answer tells it. */
export interface ImageProcessingOutcome {
  removedGps?: true;
  compressed?: { mimetype: string; ext: string; failed?: true };
  /** The stored type and extension, when compression changed them. */
  type?: string;
  extension?: string;
}

/** Types whose metadata and pixels sharp can rewrite (animations and vector images are left as they are). */
const PROCESSED_TYPES = new Map<string, 'jpeg' | 'png' | 'webp' | 'tiff' | 'avif' | 'heif'>([
  ['image/jpeg', 'jpeg'],
  ['image/png', 'png'],
  ['image/webp', 'webp'],
  ['image/tiff', 'tiff'],
  ['image/avif', 'avif'],
  ['image/heic', 'heif'],
  ['image/heif', 'heif'],
]);

const COMPRESSED = {
  jpg: { mimetype: 'image/jpeg', ext: '.jpg' },
  png: { mimetype: 'image/png', ext: '.png' },
  webp: { mimetype: 'image/webp', ext: '.webp' },
} as const;

/** Whether an upload of `type` with these options is processed at all. */
export function wantsImageProcessing(type: string, options: ImageProcessingOptions | undefined): boolean {
  return options !== undefined && PROCESSED_TYPES.has(type) && (options.removeGps || options.compression !== null);
}

function encoder(image: Sharp, type: string, compression: ImageProcessingOptions['compression']): Sharp {
  if (compression) {
    const quality = Math.max(1, compression.percent);
    if (compression.type === 'jpg') return image.jpeg({ quality, mozjpeg: true });
    if (compression.type === 'webp') return image.webp({ quality });
    return image.png({ compressionLevel: 9, quality, palette: quality < 100 });
  }
  // Metadata only: the same format, at a quality that keeps what the photo looked like.
  const format = PROCESSED_TYPES.get(type)!;
  if (format === 'jpeg') return image.jpeg({ quality: 92 });
  if (format === 'webp') return image.webp({ quality: 92 });
  return image.toFormat(format as keyof FormatEnum);
}

/**
 * Stores `body` (already limited in size by the caller) through `put`, processed as asked, by way of temp files in a
 * folder of their own in `tmpDir` (removed afterwards). Resolves with what was stored and what processing did; an
 * image sharp cannot read is stored unchanged.
 */
export async function putProcessedImage(
  tmpDir: string,
  body: Readable,
  type: string,
  options: ImageProcessingOptions,
  put: (body: Readable, contentType: string) => Promise<ObjectInfo>,
): Promise<{ info: ObjectInfo; outcome: ImageProcessingOutcome }> {
  await mkdir(tmpDir, { recursive: true });
  const dir = await mkdtemp(path.join(tmpDir, 'image-'));
  try {
    const original = path.join(dir, 'original');
    await pipeline(body, createWriteStream(original));
    const processed = path.join(dir, 'processed');
    try {
      // Turned as its EXIF orientation said, since that tag goes with the rest of the metadata; the colour profile
      // stays (it is not personal data, and colours would shift without it).
      const sharp = await loadSharp();
      const image = sharp(original, imageInputOptions()).rotate().keepIccProfile();
      await encoder(image, type, options.compression).timeout({ seconds: SHARP_TIMEOUT_SECONDS }).toFile(processed);
    } catch {
      const info = await put(createReadStream(original), type);
      const format = PROCESSED_TYPES.get(type)!;
      const ext = `.${format === 'jpeg' ? 'jpg' : format}`;
      return { info, outcome: options.compression ? { compressed: { mimetype: type, ext, failed: true } } : {} };
    }
    const target = options.compression ? COMPRESSED[options.compression.type] : null;
    const info = await put(createReadStream(processed), target?.mimetype ?? type);
    const outcome: ImageProcessingOutcome = { removedGps: true };
    if (target) Object.assign(outcome, { compressed: { ...target }, type: target.mimetype, extension: target.ext });
    return { info, outcome };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
