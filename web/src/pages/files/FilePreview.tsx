// The preview at the top of the detail panel: images, video and audio inline, the first lines of text files, an icon
// for the rest. Everything comes from the owner's copy of the bytes, so looking counts no view.
import { Box, Center, Code, Loader, Stack, Text } from '@mantine/core';
import { useEffect, useState } from 'react';
import type { FileItem } from '../../api/types';
import { fileKind, isTextual, KindIcon, ownerRawUrl } from '../../lib/file-kind';
import { readFileStart } from './files-api';
import { errorMessage } from '../../lib/notify';
import classes from './files.module.css';

/** How much of a text file the preview reads, and how many of its lines it shows. */
const TEXT_PREVIEW_BYTES = 8 * 1024;
const TEXT_PREVIEW_LINES = 40;

interface TextPreview {
  text: string;
  truncated: boolean;
}

function useTextPreview(file: Pick<FileItem, 'id' | 'size' | 'type'>): {
  preview: TextPreview | null;
  error: string | null;
} {
  const [preview, setPreview] = useState<TextPreview | null>(null);
  const [error, setError] = useState<string | null>(null);
  const wanted = isTextual(file.type) && file.size > 0;
  useEffect(() => {
    setPreview(null);
    setError(null);
    if (!wanted) return;
    const controller = new AbortController();
    readFileStart(file.id, TEXT_PREVIEW_BYTES, controller.signal)
      .then((text) => {
        const lines = text.split('\n');
        setPreview({
          text: lines.slice(0, TEXT_PREVIEW_LINES).join('\n'),
          truncated: lines.length > TEXT_PREVIEW_LINES || file.size > TEXT_PREVIEW_BYTES,
        });
      })
      .catch((err: unknown) => {
        if (!controller.signal.aborted) setError(errorMessage(err));
      });
    return () => controller.abort();
  }, [file.id, file.size, wanted]);
  return { preview, error };
}

export function FilePreview({ file }: { file: Pick<FileItem, 'id' | 'name' | 'size' | 'type'> }) {
  const kind = fileKind(file.type);
  const { preview, error } = useTextPreview(file);
  const src = ownerRawUrl(file.id);

  if (kind === 'image') {
    return (
      <img
        className={classes.previewMedia}
        src={src}
        alt={`Preview of ${file.name}`}
        data-testid="file-preview-image"
      />
    );
  }
  if (kind === 'video') {
    return (
      <video className={classes.previewMedia} src={src} controls preload="metadata" aria-label={`Video ${file.name}`} />
    );
  }
  if (kind === 'audio') {
    return <audio src={src} controls preload="metadata" style={{ width: '100%' }} aria-label={`Audio ${file.name}`} />;
  }
  if (isTextual(file.type)) {
    if (file.size === 0)
      return (
        <Text c="dimmed" size="sm">
          This file is empty.
        </Text>
      );
    if (error)
      return (
        <Text c="red" size="sm">
          The preview could not be loaded: {error}
        </Text>
      );
    if (!preview) {
      return (
        <Center h={80}>
          <Loader size="sm" aria-label="Loading the preview" />
        </Center>
      );
    }
    return (
      <Stack gap={4}>
        <Code block className={classes.previewText} data-testid="file-preview-text">
          {preview.text}
        </Code>
        {preview.truncated ? (
          <Text size="xs" c="dimmed">
            The first lines only. Download the file to see all of it.
          </Text>
        ) : null}
      </Stack>
    );
  }
  return (
    <Box className={classes.thumbBox} p="xl" style={{ borderRadius: 'var(--mantine-radius-md)' }}>
      <Stack align="center" gap="xs">
        <KindIcon type={file.type} size={56} stroke={1.3} />
        <Text size="sm" c="dimmed">
          No preview for this type of file.
        </Text>
      </Stack>
    </Box>
  );
}
