// The gallery view: a grid of cards with a thumbnail (or type icon), name and original name, size and date, a
// checkbox to select and a star; the card itself opens the detail panel.
import {
  AspectRatio,
  Box,
  Card,
  Checkbox,
  Group,
  SimpleGrid,
  Skeleton,
  Stack,
  Text,
  Tooltip,
  UnstyledButton,
  VisuallyHidden,
} from '@mantine/core';
import { IconEyeOff, IconLock } from '@tabler/icons-react';
import type { FileItem } from '../../api/types';
import { FileThumb } from '../../components/FileThumb';
import { OriginalName } from '../../components/OriginalName';
import { TagChip } from '../../components/TagChip';
import { formatBytes } from '../../lib/format';
import { FavoriteButton } from './FavoriteButton';
import classes from './files.module.css';

export interface FileListProps {
  files: FileItem[];
  selected: ReadonlySet<string>;
  onToggleSelected: (file: FileItem) => void;
  onOpen: (file: FileItem) => void;
  onToggleFavorite: (file: FileItem) => void;
}

const GRID_COLS = { base: 2, xs: 3, md: 4, lg: 6 };

/** "Mar 4" this year, "Mar 4, 2023" before. */
export function shortDate(iso: string): string {
  const date = new Date(iso);
  const thisYear = date.getFullYear() === new Date().getFullYear();
  return date.toLocaleDateString(
    undefined,
    thisYear ? { month: 'short', day: 'numeric' } : { year: 'numeric', month: 'short', day: 'numeric' },
  );
}

export function FileGallery({ files, selected, onToggleSelected, onOpen, onToggleFavorite }: FileListProps) {
  return (
    <SimpleGrid cols={GRID_COLS} spacing="sm" data-testid="file-gallery">
      {files.map((file) => {
        const isSelected = selected.has(file.id);
        return (
          <Card
            key={file.id}
            withBorder
            padding={0}
            className={classes.card}
            data-selected={isSelected || undefined}
            data-testid="file-card"
            data-file-name={file.name}
          >
            <Box className={`${classes.overlay} ${classes.check}`}>
              <Checkbox
                aria-label={`Select ${file.name}`}
                checked={isSelected}
                onChange={() => onToggleSelected(file)}
              />
            </Box>
            <FavoriteButton
              className={`${classes.overlay} ${classes.star}`}
              variant="default"
              file={file}
              onToggle={() => onToggleFavorite(file)}
            />
            <UnstyledButton className={classes.open} onClick={() => onOpen(file)}>
              <AspectRatio ratio={4 / 3} className={classes.thumbBox}>
                <FileThumb file={file} iconSize={44} />
              </AspectRatio>
              <Stack gap={2} p="xs">
                <Group gap={4} wrap="nowrap">
                  {file.password ? (
                    <Tooltip label="Password protected">
                      <IconLock size={14} aria-label="Password protected" style={{ flex: 'none' }} />
                    </Tooltip>
                  ) : null}
                  {file.private ? (
                    <Tooltip label="Private: only share links open it">
                      <IconEyeOff size={14} aria-label="Private" style={{ flex: 'none' }} />
                    </Tooltip>
                  ) : null}
                  <Text size="sm" fw={500} truncate title={file.name}>
                    <VisuallyHidden>Open </VisuallyHidden>
                    {file.name}
                  </Text>
                </Group>
                <OriginalName file={file} mt={-2} />
                <Group gap={6} wrap="nowrap" justify="space-between">
                  <Text size="xs" c="dimmed" truncate>
                    {formatBytes(file.size)} · {shortDate(file.createdAt)}
                  </Text>
                  {file.tags.length > 0 ? (
                    <TagChip
                      name={file.tags[0]!.name}
                      color={file.tags[0]!.color}
                      size="sm"
                      more={file.tags.length - 1}
                      style={{ flex: 'none', maxWidth: '50%' }}
                    />
                  ) : null}
                </Group>
              </Stack>
            </UnstyledButton>
          </Card>
        );
      })}
    </SimpleGrid>
  );
}

export function GallerySkeleton({ count }: { count: number }) {
  return (
    <SimpleGrid cols={GRID_COLS} spacing="sm" aria-busy="true" aria-label="Loading files">
      {Array.from({ length: count }, (_, i) => (
        <Card key={i} withBorder padding={0}>
          <AspectRatio ratio={4 / 3}>
            <Skeleton radius={0} />
          </AspectRatio>
          <Stack gap={6} p="xs">
            <Skeleton h={12} w="80%" />
            <Skeleton h={10} w="50%" />
          </Stack>
        </Card>
      ))}
    </SimpleGrid>
  );
}
