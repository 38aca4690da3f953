// The site's own files that Zipline serves and its clients and browsers ask for: /robots.txt, the web manifest
// (/manifest.json) and the icons (/favicon.ico, /favicon-<size>x<size>.png), drawn from the dashboard's icon. The PNGs
// are rendered once per size with sharp and kept in memory (a few kilobytes).
import { loadSharp } from '../../lib/lazy-modules.js';
import type { Settings } from '../operations/settings.js';

/** The dashboard's icon (web/public/assets/favicon.svg): the same drawing, kept here so the server needs no build. */
export const FAVICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#1c7ed6"/>' +
  '<path d="M9 8h14l-4 8h4L12 26l3-8h-5z" fill="#fff"/></svg>';

/** The PNG sizes Zipline serves as /favicon-<size>x<size>.png and lists in its manifest. */
export const FAVICON_SIZES = [16, 32, 64, 128, 512] as const;
export type FaviconSize = (typeof FAVICON_SIZES)[number];

/** The sizes packed into /favicon.ico. */
const ICO_SIZES: FaviconSize[] = [16, 32, 64];

/** robots.txt as Zipline's (every crawler kept away), or null while the setting is off. */
export function robotsTxt(settings: Settings): string | null {
  return settings.siteRobotsTxt ? 'User-Agent: *\nDisallow: /\n' : null;
}

/** The web manifest as Zipline's, or null while the setting is off. */
export function webManifest(settings: Settings): Record<string, unknown> | null {
  if (!settings.sitePwaEnabled) return null;
  return {
    name: settings.sitePwaTitle ?? settings.siteTitle,
    short_name: settings.sitePwaShortName ?? settings.siteTitle,
    description: settings.sitePwaDescription ?? settings.siteTitle,
    theme_color: settings.sitePwaThemeColor,
    background_color: settings.sitePwaBackgroundColor,
    start_url: '/',
    display: 'standalone',
    icons: FAVICON_SIZES.map((size) => ({
      src: `/favicon-${size}x${size}.png`,
      sizes: `${size}x${size}`,
      type: 'image/png',
    })),
  };
}

const rendered = new Map<number, Promise<Buffer>>();

/** The icon as a PNG of `size` pixels square. */
export function faviconPng(size: FaviconSize): Promise<Buffer> {
  let png = rendered.get(size);
  if (!png) {
    // Drawn at the density that makes the 32-unit drawing `size` pixels wide, so that no pixel is scaled.
    png = loadSharp().then((sharp) =>
      sharp(Buffer.from(FAVICON_SVG), { density: (72 * size) / 32 })
        .resize(size, size)
        .png()
        .toBuffer(),
    );
    png.catch(() => rendered.delete(size));
    rendered.set(size, png);
  }
  return png;
}

/** /favicon.ico: an ICO file holding PNG images (read by every browser since 2007) of 16, 32 and 64 pixels. */
export async function faviconIco(): Promise<Buffer> {
  const images = await Promise.all(ICO_SIZES.map((size) => faviconPng(size)));
  const header = Buffer.alloc(6 + 16 * images.length);
  header.writeUInt16LE(0, 0); // reserved
  header.writeUInt16LE(1, 2); // an icon
  header.writeUInt16LE(images.length, 4);
  let offset = header.length;
  images.forEach((image, i) => {
    const entry = 6 + 16 * i;
    const size = ICO_SIZES[i]!;
    header.writeUInt8(size >= 256 ? 0 : size, entry); // width
    header.writeUInt8(size >= 256 ? 0 : size, entry + 1); // height
    header.writeUInt16LE(1, entry + 4); // colour planes
    header.writeUInt16LE(32, entry + 6); // bits per pixel
    header.writeUInt32LE(image.length, entry + 8);
    header.writeUInt32LE(offset, entry + 12);
    offset += image.length;
  });
  return Buffer.concat([header, ...images]);
}
