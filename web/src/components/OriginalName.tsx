// A file's original name (what it was called on the uploader's device), shown in small text under its link name
// wherever files are listed, so that a random link name is never all a person sees. Nothing when the upload did not
// keep it or it is the link name itself.
import { Text, VisuallyHidden, type TextProps } from '@mantine/core';
import type { FileItem } from '../api/types';

/** The original name worth showing beside the link name, or null. */
export function shownOriginalName(file: Pick<FileItem, 'name' | 'originalName'>): string | null {
  return file.originalName && file.originalName !== file.name ? file.originalName : null;
}

export function OriginalName({ file, ...props }: { file: Pick<FileItem, 'name' | 'originalName'> } & TextProps) {
  const original = shownOriginalName(file);
  if (original === null) return null;
  return (
    <Text size="xs" c="dimmed" truncate="end" title={original} data-testid="original-name" {...props}>
      <VisuallyHidden>Original name: </VisuallyHidden>
      {original}
    </Text>
  );
}
