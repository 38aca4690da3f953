// Chunked uploads the server is still assembling that this page did not start (an earlier visit, another device, an
// uploader app), followed until they are COMPLETE; failed ones say why and can be dismissed.
import { ActionIcon, Anchor, Badge, Card, Group, Loader, Stack, Text, Tooltip } from '@mantine/core';
import { IconX } from '@tabler/icons-react';
import { useEffect, useRef, useState } from 'react';
import { dismissIncompleteFiles, listIncompleteFiles, type AssemblyStatus, type IncompleteFile } from './upload-api';
import { formatBytes } from '../../lib/format';
import { notifyError } from '../../lib/notify';

const POLL_MS = 2000;

const STATUS_WORDS: Record<AssemblyStatus, { label: string; color: string }> = {
  PENDING: { label: 'Waiting', color: 'gray' },
  PROCESSING: { label: 'Assembling', color: 'violet' },
  COMPLETE: { label: 'Complete', color: 'teal' },
  FAILED: { label: 'Failed', color: 'red' },
};

export function EarlierAssemblies({ tracked }: { tracked: Set<string> }) {
  const [records, setRecords] = useState<IncompleteFile[]>([]);
  /** Records seen unfinished on this page: they stay shown once finished, until dismissed. */
  const [followed, setFollowed] = useState<Set<string>>(new Set());
  const [dismissed, setDismissed] = useState<Set<string>>(new Set());
  const trackedRef = useRef(tracked);
  trackedRef.current = tracked;

  useEffect(() => {
    let stopped = false;
    let timer: number | undefined;
    const controller = new AbortController();
    const load = async () => {
      let busy = false;
      try {
        const list = await listIncompleteFiles(controller.signal);
        if (stopped) return;
        const unfinished = list.filter(
          (r) => (r.status === 'PENDING' || r.status === 'PROCESSING') && !trackedRef.current.has(r.id),
        );
        busy = unfinished.length > 0;
        setRecords(list);
        setFollowed((previous) => {
          const next = new Set(previous);
          for (const r of unfinished) next.add(r.id);
          return next.size === previous.size ? previous : next;
        });
      } catch {
        // Nothing shown: this list is a courtesy; the uploads of this visit report their own state.
      }
      if (!stopped && busy) timer = window.setTimeout(() => void load(), POLL_MS);
    };
    void load();
    return () => {
      stopped = true;
      controller.abort();
      window.clearTimeout(timer);
    };
  }, []);

  const visible = records.filter((r) => !tracked.has(r.id) && !dismissed.has(r.id) && followed.has(r.id));
  if (visible.length === 0) return null;

  const dismiss = (record: IncompleteFile) => {
    setDismissed((d) => new Set(d).add(record.id));
    if (record.status === 'COMPLETE' || record.status === 'FAILED') {
      dismissIncompleteFiles([record.id]).catch((err: unknown) => notifyError(err, 'Could not dismiss it'));
    }
  };

  return (
    <Card withBorder radius="md" padding="md">
      <Text fw={600}>Files being assembled</Text>
      <Text size="sm" c="dimmed" mb="sm">
        Large uploads from earlier: all their chunks arrived, and the server is putting them together.
      </Text>
      <Stack component="ul" gap="xs" p={0} m={0} style={{ listStyle: 'none' }} aria-label="Files being assembled">
        {visible.map((record) => {
          const words = STATUS_WORDS[record.status];
          const finished = record.status === 'COMPLETE' || record.status === 'FAILED';
          return (
            <Group
              component="li"
              key={record.id}
              justify="space-between"
              wrap="nowrap"
              gap="sm"
              aria-label={record.metadata.name}
            >
              <div style={{ minWidth: 0 }}>
                {record.status === 'COMPLETE' && record.metadata.url ? (
                  <Anchor
                    href={record.metadata.url}
                    target="_blank"
                    rel="noopener noreferrer"
                    size="sm"
                    truncate
                    display="block"
                  >
                    {record.metadata.name}
                  </Anchor>
                ) : (
                  <Text size="sm" truncate>
                    {record.metadata.name}
                  </Text>
                )}
                <Text size="xs" c={record.status === 'FAILED' ? 'red' : 'dimmed'}>
                  {record.status === 'FAILED'
                    ? `Could not be assembled${record.metadata.error ? `: ${record.metadata.error}` : ''}. Upload it again.`
                    : `${formatBytes(record.metadata.size)} · ${record.chunksTotal} chunks`}
                </Text>
              </div>
              <Group gap={4} wrap="nowrap">
                {!finished ? <Loader size="xs" aria-hidden /> : null}
                <Badge variant="light" color={words.color} size="sm">
                  {words.label}
                </Badge>
                {finished ? (
                  <Tooltip label={`Dismiss ${record.metadata.name}`} withArrow>
                    <ActionIcon
                      variant="subtle"
                      color="gray"
                      aria-label={`Dismiss ${record.metadata.name}`}
                      onClick={() => dismiss(record)}
                    >
                      <IconX size={16} />
                    </ActionIcon>
                  </Tooltip>
                ) : null}
              </Group>
            </Group>
          );
        })}
      </Stack>
    </Card>
  );
}
