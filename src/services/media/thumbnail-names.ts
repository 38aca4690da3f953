// The names of thumbnails: where a file's thumbnail is kept in the datasource and the public name it is served under.
// A leaf module: the deletion of bytes, the File shape and the webhooks name thumbnails without needing the job that
// makes them.

/** Where the thumbnail of the bytes under `storageKey` is kept. */
export function thumbnailKeyOf(storageKey: string): string {
  return `${storageKey}.thumbnail.webp`;
}

/** The name under which a file's thumbnail is served publicly: /raw/.thumbnail.<fileId>.webp (Zipline's names). */
export function publicThumbnailName(fileId: string): string {
  return `.thumbnail.${fileId}.webp`;
}

const PUBLIC_NAME = /^\.thumbnail\.([A-Za-z0-9_-]{1,64})\.webp$/;

/** The file id of a public thumbnail name, or null when `name` is not one. */
export function fileIdOfThumbnailName(name: string): string | null {
  return PUBLIC_NAME.exec(name)?.[1] ?? null;
}
