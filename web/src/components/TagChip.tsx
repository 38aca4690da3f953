// A tag drawn as a chip, with one look wherever tags are shown (the Files gallery and table, the file panel, the Tags
// page and the tag form's preview): filled with the tag's own colour, the name in black or white, whichever reads
// better on it (the theme's autoContrast), in both colour schemes. Only the size differs: small in lists.
import { Badge, CloseButton, type MantineStyleProp } from '@mantine/core';

export function TagChip({
  name,
  color,
  size = 'lg',
  more = 0,
  onRemove,
  style,
}: {
  name: string;
  /** The tag's colour (#rrggbb). */
  color: string;
  /** 'sm' in the file lists, 'lg' where a tag stands on its own. */
  size?: 'sm' | 'lg';
  /** How many more tags the file has than this one (a card shows one chip and "+2"). */
  more?: number;
  /** Shows a × that takes the tag off (named "Remove tag <name>"). */
  onRemove?: () => void;
  style?: MantineStyleProp;
}) {
  return (
    <Badge
      data-testid="tag-chip"
      color={color}
      autoContrast
      variant="filled"
      tt="none"
      radius="sm"
      size={size}
      maw="100%"
      title={name}
      style={style}
      pr={onRemove ? 3 : undefined}
      rightSection={
        onRemove ? (
          <CloseButton
            size="xs"
            variant="transparent"
            aria-label={`Remove tag ${name}`}
            onClick={onRemove}
            // The × is drawn in the chip's own text colour, not the page's grey.
            style={{ color: 'inherit' }}
          />
        ) : undefined
      }
    >
      {name}
      {more > 0 ? ` +${more}` : ''}
    </Badge>
  );
}
