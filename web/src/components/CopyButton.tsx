// A button that copies a link (or a token) to the clipboard (lib/clipboard.ts, so also on plain http://), says
// "Copied" for a moment, and says in words when the browser would not let it.
import { ActionIcon, Button, Tooltip, type ButtonProps } from '@mantine/core';
import { IconCheck, IconCopy } from '@tabler/icons-react';
import { useEffect, useRef, useState } from 'react';
import { copyText } from '../lib/clipboard';
import { notifyError, notifySuccess } from '../lib/notify';

/** Copies text; `copied` is true for two seconds after it worked; a failure is told in a toast. */
export function useCopy(what = 'link'): { copied: boolean; copy: (text: string) => Promise<boolean> } {
  const [copied, setCopied] = useState(false);
  const timer = useRef<number | undefined>(undefined);
  useEffect(() => () => window.clearTimeout(timer.current), []);
  const copy = async (text: string) => {
    const ok = await copyText(text);
    if (ok) {
      setCopied(true);
      window.clearTimeout(timer.current);
      timer.current = window.setTimeout(() => setCopied(false), 2000);
    } else {
      notifyError(
        new Error(`The browser did not allow copying. Select the ${what} and copy it yourself.`),
        'Not copied',
      );
    }
    return ok;
  };
  return { copied, copy };
}

interface CopyButtonProps {
  value: string;
  /** What is copied: the icon button is named "Copy the <what>". */
  what?: string;
  /** A labelled button ("Copy link") instead of an icon button. */
  label?: string;
  /** A toast once it is copied, for a copy whose "Copied" is easy to miss. */
  notice?: string;
  disabled?: boolean;
  /** The icon button's look (default: subtle, gray) and size, to sit with the controls next to it. */
  variant?: string;
  size?: ButtonProps['size'] | number;
  iconSize?: number;
}

export function CopyButton({
  value,
  what = 'link',
  label,
  notice,
  disabled,
  variant,
  size,
  iconSize = 16,
}: CopyButtonProps) {
  const { copied, copy } = useCopy(what);
  const onClick = async () => {
    if ((await copy(value)) && notice) notifySuccess(notice);
  };
  const icon = copied ? <IconCheck size={iconSize} /> : <IconCopy size={iconSize} />;
  if (label) {
    return (
      <Button
        size={typeof size === 'number' ? undefined : (size ?? 'xs')}
        variant={variant ?? 'light'}
        color={copied ? 'teal' : undefined}
        leftSection={icon}
        disabled={disabled}
        onClick={() => void onClick()}
      >
        {copied ? 'Copied' : label}
      </Button>
    );
  }
  return (
    <Tooltip label={copied ? 'Copied' : `Copy the ${what}`} withArrow>
      <ActionIcon
        variant={variant ?? 'subtle'}
        size={size}
        color={copied ? 'teal' : 'gray'}
        aria-label={`Copy the ${what}`}
        disabled={disabled}
        onClick={() => void onClick()}
      >
        {icon}
      </ActionIcon>
    </Tooltip>
  );
}
