// The star of a file: shows and toggles whether it is a favourite.
import { ActionIcon, Tooltip } from '@mantine/core';
import { IconStar, IconStarFilled } from '@tabler/icons-react';
import type { FileItem } from '../../api/types';

export function FavoriteButton({
  file,
  onToggle,
  variant = 'subtle',
  className,
}: {
  file: Pick<FileItem, 'name' | 'favorite'>;
  onToggle: () => void;
  variant?: 'subtle' | 'default';
  className?: string;
}) {
  const label = file.favorite ? `Remove ${file.name} from favourites` : `Add ${file.name} to favourites`;
  return (
    <Tooltip label={label} openDelay={400}>
      <ActionIcon
        className={className}
        variant={variant}
        color={file.favorite ? 'yellow' : 'gray'}
        aria-label={label}
        aria-pressed={file.favorite}
        onClick={onToggle}
      >
        {file.favorite ? <IconStarFilled size={18} color="var(--mantine-color-yellow-5)" /> : <IconStar size={18} />}
      </ActionIcon>
    </Tooltip>
  );
}
