// An icon for a file's type. The folder views show icons rather than thumbnails on purpose: loading an image through
// /raw counts a view, and would use up files with a view limit, just by opening the folder.
import { ThemeIcon } from '@mantine/core';
import {
  IconFile,
  IconFileCode,
  IconFileMusic,
  IconFileSpreadsheet,
  IconFileText,
  IconFileTypePdf,
  IconFileZip,
  IconMovie,
  IconPhoto,
} from '@tabler/icons-react';

function iconFor(type: string) {
  if (type.startsWith('image/')) return { icon: IconPhoto, color: 'grape' };
  if (type.startsWith('video/')) return { icon: IconMovie, color: 'pink' };
  if (type.startsWith('audio/')) return { icon: IconFileMusic, color: 'orange' };
  if (type === 'application/pdf') return { icon: IconFileTypePdf, color: 'red' };
  if (/zip|tar|gzip|x-7z|x-rar|compressed/.test(type)) return { icon: IconFileZip, color: 'yellow' };
  if (/spreadsheet|csv|excel/.test(type)) return { icon: IconFileSpreadsheet, color: 'green' };
  if (/json|javascript|typescript|xml|x-sh|x-python|html|css/.test(type)) return { icon: IconFileCode, color: 'cyan' };
  if (type.startsWith('text/')) return { icon: IconFileText, color: 'blue' };
  return { icon: IconFile, color: 'gray' };
}

export function FileTypeIcon({ type, size = 36 }: { type: string; size?: number }) {
  const { icon: Icon, color } = iconFor(type);
  return (
    <ThemeIcon size={size} variant="light" color={color} radius="md" aria-hidden>
      <Icon size={Math.round(size * 0.55)} />
    </ThemeIcon>
  );
}
