// Real media files for the tests, made on the spot: photos with sharp (with EXIF GPS when asked), videos with
// Debian's ffmpeg, and hostile files (a truncated MP4, a PNG decompression bomb, text named as an image).
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createDeflate } from 'node:zlib';
import sharp from 'sharp';
import { pngChunk } from './fixtures.js';

const run = promisify(execFile);

/** A JPEG photo of `width` x `height` (a gradient), with an EXIF GPS position when `gps` is given. */
export async function photo(
  width = 800,
  height = 600,
  options: { gps?: { latitude: string; longitude: string }; format?: 'jpeg' | 'png' } = {},
): Promise<Buffer> {
  const pixels = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) pixels.set([(x * 255) / width, (y * 255) / height, 128], (y * width + x) * 3);
  }
  let image = sharp(pixels, { raw: { width, height, channels: 3 } });
  if (options.gps) {
    image = image.withExif({
      IFD0: { Make: 'ChuteTestCamera', Model: 'T1' },
      IFD3: {
        GPSLatitudeRef: 'N',
        GPSLatitude: options.gps.latitude,
        GPSLongitudeRef: 'E',
        GPSLongitude: options.gps.longitude,
      },
    });
  }
  return options.format === 'png' ? image.png().toBuffer() : image.jpeg({ quality: 90 }).toBuffer();
}

/** Whether a JPEG's bytes still carry an EXIF GPS block (read back by sharp). */
export async function hasGps(bytes: Buffer): Promise<boolean> {
  const { exif } = await sharp(bytes).metadata();
  if (!exif) return false;
  // The GPS IFD is pointed at by tag 0x8825 in IFD0; its presence in the raw EXIF is what a reader finds.
  return exif.includes(Buffer.from([0x88, 0x25])) || exif.includes(Buffer.from([0x25, 0x88]));
}

/** An MP4 video (H.264 if the ffmpeg build has it, else MPEG-4 part 2) of `seconds` seconds. */
export async function mp4Video(seconds = 3): Promise<Buffer> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'chute-test-video-'));
  try {
    const out = path.join(dir, 'video.mp4');
    await run('ffmpeg', [
      ...['-nostdin', '-hide_banner', '-loglevel', 'error', '-f', 'lavfi'],
      ...['-i', `testsrc=duration=${seconds}:size=320x240:rate=10`],
      ...['-c:v', 'mpeg4', '-pix_fmt', 'yuv420p', out],
    ]);
    return await readFile(out);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The first third of an MP4 (its index, written last, is gone). */
export async function truncatedMp4(): Promise<Buffer> {
  const whole = await mp4Video(3);
  return whole.subarray(0, Math.floor(whole.length / 3));
}

/**
 * A real PNG decompression bomb: `side` x `side` grey pixels (400 million with the default), all zero, so that the file
 * is about a megabyte while decoding it would take gigabytes.
 */
export async function pngBomb(side = 20_000): Promise<Buffer> {
  const chunk = pngChunk;
  const header = Buffer.alloc(13);
  header.writeUInt32BE(side, 0);
  header.writeUInt32BE(side, 4);
  header.set([8, 0, 0, 0, 0], 8); // 8-bit greyscale
  const deflate = createDeflate({ level: 9 });
  const compressed: Buffer[] = [];
  deflate.on('data', (c: Buffer) => compressed.push(c));
  const done = new Promise<void>((resolve, reject) => {
    deflate.on('end', resolve);
    deflate.on('error', reject);
  });
  const row = Buffer.alloc(side + 1); // filter byte 0, then zeros
  const rowsPerWrite = 64;
  const block = Buffer.concat(Array.from({ length: rowsPerWrite }, () => row));
  for (let y = 0; y < side; y += rowsPerWrite) {
    const rows = Math.min(rowsPerWrite, side - y);
    if (!deflate.write(rows === rowsPerWrite ? block : block.subarray(0, rows * row.length))) {
      await new Promise((resolve) => deflate.once('drain', resolve));
    }
  }
  deflate.end();
  await done;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', Buffer.concat(compressed)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
