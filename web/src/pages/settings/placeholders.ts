// The {file.*} template variables of the view page text and the embed texts, filled exactly as the server fills them
// (fillPlaceholders in src/pages/view-page.ts), and sample files to preview them with.
import type { UserViewSettings } from '../../api/types';
import { formatBytes } from '../../lib/format';

export interface SampleFile {
  kind: 'image' | 'video' | 'text';
  name: string;
  originalName: string;
  size: string;
  type: string;
  views: number;
  createdAt: string;
  /** Where the sample sits and how it is tagged, shown when the view settings show folders and tags. */
  folder: string;
  tags: string[];
}

/** A fixed moment for the samples, so that the preview does not change while nothing is typed. */
const UPLOADED_AT = new Date(Date.now() - 3_600_000).toISOString();

export const SAMPLE_FILES: Record<SampleFile['kind'], SampleFile> = {
  image: {
    kind: 'image',
    name: 'Xy7kP2.png',
    originalName: 'holiday.png',
    size: formatBytes(1_468_006),
    type: 'image/png',
    views: 12,
    createdAt: UPLOADED_AT,
    folder: 'Holiday',
    tags: ['beach', 'summer'],
  },
  video: {
    kind: 'video',
    name: 'Qm3vT8.mp4',
    originalName: 'clip.mp4',
    size: formatBytes(26_004_684),
    type: 'video/mp4',
    views: 3,
    createdAt: UPLOADED_AT,
    folder: 'Holiday',
    tags: ['family'],
  },
  text: {
    kind: 'text',
    name: 'Lp9sW1.txt',
    originalName: 'notes.txt',
    size: formatBytes(2_150),
    type: 'text/plain',
    views: 1,
    createdAt: UPLOADED_AT,
    folder: 'Notes',
    tags: ['todo'],
  },
};

export const PLACEHOLDERS: Array<{ key: string; meaning: string }> = [
  { key: 'file.name', meaning: 'the name in the link' },
  { key: 'file.originalName', meaning: 'the name it was uploaded with' },
  { key: 'file.size', meaning: `its size, such as ${formatBytes(1_468_006)}` },
  { key: 'file.type', meaning: 'its type, such as image/png' },
  { key: 'file.views', meaning: 'how often it was viewed' },
  { key: 'file.createdAt', meaning: 'when it was uploaded (ISO 8601)' },
];

/** The template with the sample file's values; unknown {file.x} stay as written, like on the server. */
export function fillPlaceholders(template: string, file: SampleFile): string {
  const values: Record<string, string> = {
    'file.name': file.name,
    'file.originalName': file.originalName,
    'file.size': file.size,
    'file.type': file.type,
    'file.views': String(file.views),
    'file.createdAt': file.createdAt,
  };
  return template.replace(/\{(file\.[a-zA-Z]+)\}/g, (whole, key: string) => values[key] ?? whole);
}

/** The folder and tags line of the embed card, as the server writes it (embedDetails in src/pages/view-page.ts). */
export function embedDetails(view: Pick<UserViewSettings, 'showFolder' | 'showTags'>, file: SampleFile): string | null {
  const parts: string[] = [];
  if (view.showFolder) parts.push(`Folder: ${file.folder}`);
  if (view.showTags && file.tags.length > 0) parts.push(`Tags: ${file.tags.join(', ')}`);
  return parts.length > 0 ? parts.join(' · ') : null;
}

/** The embed colour the server puts in theme-color: only #rgb to #rrggbbaa hex. */
export function isEmbedColor(value: string): boolean {
  return /^#[0-9a-fA-F]{3,8}$/.test(value);
}
