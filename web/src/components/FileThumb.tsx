// A file's thumbnail for its owner: the small WebP the server made of an image or video when there is one, else the
// picture itself for small images (lazy, from the owner's copy of the bytes, which counts no view and asks no
// password), else an icon of its kind. Used by the Files and Folders pages.
import { Box, Center, Image } from '@mantine/core';
import { useState } from 'react';
import type { FileItem } from '../api/types';
import { fileKind, KindIcon, ownerRawUrl, ownerThumbnailUrl, THUMBNAIL_MAX_BYTES } from '../lib/file-kind';

const KIND_COLORS = {
  image: 'grape',
  video: 'red',
  audio: 'orange',
  text: 'blue',
  code: 'teal',
  pdf: 'pink',
  archive: 'yellow',
  other: 'gray',
} as const;

/**
 * Fills its parent (give the parent a size or an AspectRatio), or, with `size`, a rounded square of that many
 * pixels for a row of a list.
 */
export function FileThumb({
  file,
  iconSize = 40,
  size,
}: {
  file: Pick<FileItem, 'id' | 'type' | 'size'> & { thumbnail?: FileItem['thumbnail'] };
  iconSize?: number;
  size?: number;
}) {
  const [failed, setFailed] = useState(false);
  if (size !== undefined) {
    return (
      <Box
        w={size}
        h={size}
        style={{ flex: `0 0 ${size}px`, borderRadius: 'var(--mantine-radius-sm)', overflow: 'hidden' }}
      >
        <FileThumb file={file} iconSize={iconSize} />
      </Box>
    );
  }
  const kind = fileKind(file.type);
  const picture = file.thumbnail
    ? ownerThumbnailUrl(file.id)
    : kind === 'image' && file.size > 0 && file.size <= THUMBNAIL_MAX_BYTES
      ? ownerRawUrl(file.id)
      : null;
  if (picture !== null && !failed) {
    return (
      <Image
        src={picture}
        alt=""
        loading="lazy"
        decoding="async"
        fit="cover"
        w="100%"
        h="100%"
        onError={() => setFailed(true)}
        data-testid="file-thumbnail"
      />
    );
  }
  const color = KIND_COLORS[kind];
  return (
    <Center
      w="100%"
      h="100%"
      bg={`var(--mantine-color-${color}-light)`}
      c={`var(--mantine-color-${color}-light-color)`}
    >
      <KindIcon type={file.type} size={iconSize} stroke={1.5} />
    </Center>
  );
}
