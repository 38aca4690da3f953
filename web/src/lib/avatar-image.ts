// Turns a picked image into the base64 data URL PATCH /api/user (one's own) and /api/users/:id (an admin's edit)
// take as `avatar`. The server accepts PNG, JPEG, GIF and WebP up to 1 MiB (src/services/accounts/account.ts); larger
// pictures and other formats are scaled down here in a canvas, so that a phone photo just works. Small GIFs are kept
// as they are (they may be animated).

/** Largest avatar the server accepts, decoded (AVATAR_MAX_BYTES). */
export const AVATAR_MAX_BYTES = 1024 * 1024;
/** Longest side of a scaled avatar, in pixels. */
const AVATAR_SIDE = 512;
const KEPT_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];

function readAsDataUrl(blob: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(new Error('The image could not be read.'));
    reader.readAsDataURL(blob);
  });
}

function loadImage(blob: Blob): Promise<HTMLImageElement> {
  return new Promise((resolve, reject) => {
    const url = URL.createObjectURL(blob);
    const image = new Image();
    image.onload = () => {
      URL.revokeObjectURL(url);
      resolve(image);
    };
    image.onerror = () => {
      URL.revokeObjectURL(url);
      reject(new Error('That file is not an image this browser can read.'));
    };
    image.src = url;
  });
}

/** Decoded size of a base64 data URL. */
export function dataUrlBytes(dataUrl: string): number {
  const payload = dataUrl.slice(dataUrl.indexOf(',') + 1);
  return Math.floor((payload.length * 3) / 4) - (payload.endsWith('==') ? 2 : payload.endsWith('=') ? 1 : 0);
}

function scaled(image: HTMLImageElement, type: string, quality: number): string {
  const ratio = Math.min(1, AVATAR_SIDE / Math.max(image.naturalWidth, image.naturalHeight));
  const canvas = document.createElement('canvas');
  canvas.width = Math.max(1, Math.round(image.naturalWidth * ratio));
  canvas.height = Math.max(1, Math.round(image.naturalHeight * ratio));
  const context = canvas.getContext('2d');
  if (!context) throw new Error('This browser cannot resize images.');
  context.drawImage(image, 0, 0, canvas.width, canvas.height);
  return canvas.toDataURL(type, quality);
}

/** The avatar to send for a picked file; throws an Error with a sentence when it cannot be made one. */
export async function prepareAvatar(file: File): Promise<string> {
  if (!file.type.startsWith('image/')) throw new Error('Choose an image file (PNG, JPEG, GIF or WebP).');
  if (KEPT_TYPES.includes(file.type) && file.size <= AVATAR_MAX_BYTES) {
    const image = await loadImage(file);
    const small = Math.max(image.naturalWidth, image.naturalHeight) <= AVATAR_SIDE;
    if (small || file.type === 'image/gif') return readAsDataUrl(file);
    return scaled(image, 'image/webp', 0.9);
  }
  const image = await loadImage(file);
  // WebP where the browser can write it (toDataURL falls back on PNG otherwise), then JPEG if still too large.
  let dataUrl = scaled(image, 'image/webp', 0.9);
  if (dataUrlBytes(dataUrl) > AVATAR_MAX_BYTES) dataUrl = scaled(image, 'image/jpeg', 0.85);
  if (dataUrlBytes(dataUrl) > AVATAR_MAX_BYTES)
    throw new Error('That image is too large, even scaled down. Try a smaller one.');
  return dataUrl;
}
