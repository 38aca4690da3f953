// Copying a link to the clipboard, also where the Clipboard API is missing (plain http:// on a LAN address is not a
// secure context): then through a hidden text field and the old copy command. Used by the URLs and Folders pages.
import { ActionIcon, Button, Tooltip } from '@mantine/core';
import { IconCheck, IconCopy } from '@tabler/icons-react';
import { useEffect, useRef, useState } from 'react';
import { notifyError } from '../../lib/notify';

export async function copyText(text: string): Promise<boolean> {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // fall through to the old way
  }
  const field = document.createElement('textarea');
  field.value = text;
  field.setAttribute('readonly', '');
  field.style.position = 'fixed';
  field.style.opacity = '0';
  document.body.appendChild(field);
  field.select();
  let copied = false;
  try {
    copied = document.execCommand('copy');
  } catch {
    copied = false;
  }
  field.remove();
  return copied;
}

/** Copies `text`; says so for a moment, or says in words that the browser would not let it. */
export function useCopy(): { copied: boolean; copy: (text: string) => Promise<boolean> } {
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
      notifyError(new Error('The browser did not allow copying. Select the link and copy it yourself.'), 'Not copied');
    }
    return ok;
  };
  return { copied, copy };
}

/** An icon button (or a small labelled button with `label`) that copies a link. */
export function CopyLinkButton({ value, what = 'link', label }: { value: string; what?: string; label?: string }) {
  const { copied, copy } = useCopy();
  const icon = copied ? <IconCheck size={16} /> : <IconCopy size={16} />;
  if (label) {
    return (
      <Button size="xs" variant="light" color={copied ? 'teal' : undefined} leftSection={icon} onClick={() => void copy(value)}>
        {copied ? 'Copied' : label}
      </Button>
    );
  }
  return (
    <Tooltip label={copied ? 'Copied' : `Copy the ${what}`} withArrow>
      <ActionIcon variant="subtle" color={copied ? 'teal' : 'gray'} aria-label={`Copy the ${what}`} onClick={() => void copy(value)}>
        {icon}
      </ActionIcon>
    </Tooltip>
  );
}
