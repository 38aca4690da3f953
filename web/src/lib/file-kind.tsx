// What kind of file a MIME type is (for icons and previews), and the addresses of a file's bytes for its owner.
import {
  IconFile,
  IconFileCode,
  IconFileMusic,
  IconFileText,
  IconFileTypePdf,
  IconFileZip,
  IconMovie,
  IconPhoto,
  type IconProps,
} from '@tabler/icons-react';

export type FileKind = 'image' | 'video' | 'audio' | 'text' | 'code' | 'pdf' | 'archive' | 'other';

const CODE_TYPES = /(json|javascript|typescript|xml|yaml|toml|x-sh|x-python|x-c|x-java|x-rust|x-go|sql|html|css)/;
const ARCHIVE_TYPES = /(zip|x-tar|gzip|x-7z|x-rar|x-bzip|x-xz|zstd)/;

export function fileKind(type: string): FileKind {
  const t = type.toLowerCase();
  if (t.startsWith('image/')) return 'image';
  if (t.startsWith('video/')) return 'video';
  if (t.startsWith('audio/')) return 'audio';
  if (t === 'application/pdf') return 'pdf';
  if (ARCHIVE_TYPES.test(t)) return 'archive';
  if (CODE_TYPES.test(t)) return 'code';
  if (t.startsWith('text/')) return 'text';
  return 'other';
}

/** Whether the first bytes can be shown as text in the detail panel. */
export const isTextual = (type: string): boolean => ['text', 'code'].includes(fileKind(type));

const ICONS = {
  image: IconPhoto,
  video: IconMovie,
  audio: IconFileMusic,
  text: IconFileText,
  code: IconFileCode,
  pdf: IconFileTypePdf,
  archive: IconFileZip,
  other: IconFile,
} as const;

export const KIND_LABELS: Record<FileKind, string> = {
  image: 'Image',
  video: 'Video',
  audio: 'Audio',
  text: 'Text',
  code: 'Code',
  pdf: 'PDF',
  archive: 'Archive',
  other: 'File',
};

export function KindIcon({ type, ...props }: { type: string } & IconProps) {
  const Icon = ICONS[fileKind(type)];
  return <Icon aria-hidden {...props} />;
}

/**
 * The owner's copy of the bytes (GET /api/user/files/:id/raw): unlike the public /raw/<name>, it counts no view,
 * asks no password and never uses up a file with max views, so thumbnails and previews are free to load it.
 */
export const ownerRawUrl = (id: string): string => `/api/user/files/${encodeURIComponent(id)}/raw`;
/** The small WebP the server made of an image or video (FileItem.thumbnail says whether there is one). */
export const ownerThumbnailUrl = (id: string): string => `/api/user/files/${encodeURIComponent(id)}/thumbnail`;
export const ownerDownloadUrl = (id: string): string => `${ownerRawUrl(id)}?download`;

/** Images above this size show their icon in the gallery instead of loading the whole picture as a thumbnail. */
export const THUMBNAIL_MAX_BYTES = 15 * 1024 * 1024;
