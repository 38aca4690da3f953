// A button with an icon before its label, written on one line where it is used.
import { Button, type ButtonProps } from '@mantine/core';
import type { Icon } from '@tabler/icons-react';

export function IconLabelButton({
  icon: ButtonIcon,
  iconSize = 16,
  label,
  onClick,
  ...props
}: ButtonProps & { icon: Icon; iconSize?: number; label: string; onClick?: () => void }) {
  return (
    <Button leftSection={<ButtonIcon size={iconSize} />} onClick={onClick} {...props}>
      {label}
    </Button>
  );
}
