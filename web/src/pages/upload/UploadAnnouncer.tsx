// What a screen reader says while files go up: a polite live region that gets one sentence when a file starts, and
// one when it ends (its name and its link, or what went wrong). The visible list is not a live region: its bars and
// speeds change every moment and would be read out without end.
import { VisuallyHidden } from '@mantine/core';
import { useEffect, useRef, useState } from 'react';
import type { UploadItem } from './upload-queue';

function sentenceOf(item: UploadItem, name: string): string | null {
  switch (item.status) {
    case 'uploading':
      return `Uploading ${name}.`;
    case 'done':
      return item.link ? `${name} uploaded: ${item.link.url}` : `${name} uploaded.`;
    case 'failed':
      return `${name} failed: ${item.error ?? 'the upload did not finish.'}`;
    case 'cancelled':
      return `${name} cancelled.`;
    default:
      return null;
  }
}

/** Sentences kept in the region: enough for a batch, few enough to stay short. */
const KEPT = 8;

export function UploadAnnouncer({ items }: { items: UploadItem[] }) {
  const said = useRef(new Map<string, string>());
  const [sentences, setSentences] = useState<Array<{ key: string; text: string }>>([]);

  useEffect(() => {
    const added: Array<{ key: string; text: string }> = [];
    for (const item of items) {
      const text = sentenceOf(item, item.file.name || 'Unnamed file');
      if (!text || said.current.get(item.id) === text) continue;
      said.current.set(item.id, text);
      added.push({ key: `${item.id}:${item.status}:${said.current.size}:${Date.now()}`, text });
    }
    if (added.length > 0) setSentences((before) => [...before, ...added].slice(-KEPT));
  }, [items]);

  return (
    <VisuallyHidden role="status" aria-live="polite" data-testid="upload-announcer">
      {sentences.map((s) => (
        <p key={s.key}>{s.text}</p>
      ))}
    </VisuallyHidden>
  );
}
