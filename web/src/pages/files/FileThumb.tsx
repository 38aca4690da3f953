// A file's thumbnail: the picture itself for images (lazy, from the owner's copy of the bytes), else a type icon.
import { Center, Image } from '@mantine/core';
import { useState } from 'react';
import type { FileItem } from '../../api/types';
import { fileKind, KindIcon, ownerRawUrl, THUMBNAIL_MAX_BYTES } from './file-kind';

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

/** Fills its parent (give the parent a size or an AspectRatio). */
export function FileThumb({ file, iconSize = 40 }: { file: Pick<FileItem, 'id' | 'type' | 'size'>; iconSize?: number }) {
  const [failed, setFailed] = useState(false);
  const kind = fileKind(file.type);
  if (kind === 'image' && !failed && file.size > 0 && file.size <= THUMBNAIL_MAX_BYTES) {
    return (
      <Image
        src={ownerRawUrl(file.id)}
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
    <Center w="100%" h="100%" bg={`var(--mantine-color-${color}-light)`} c={`var(--mantine-color-${color}-light-color)`}>
      <KindIcon type={file.type} size={iconSize} stroke={1.5} />
    </Center>
  );
}
