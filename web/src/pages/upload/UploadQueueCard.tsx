// The files of this visit: overall progress (bytes, speed, time left) and one row per file with its own progress,
// its link once done, and cancel / retry / remove.
import {
  ActionIcon,
  Alert,
  Anchor,
  Badge,
  Button,
  Card,
  Group,
  Progress,
  Stack,
  Text,
  ThemeIcon,
  Tooltip,
} from '@mantine/core';
import {
  IconAlertTriangle,
  IconCheck,
  IconClock,
  IconCopy,
  IconExternalLink,
  IconLoader2,
  IconRefresh,
  IconTrash,
  IconUpload,
  IconX,
} from '@tabler/icons-react';
import type { ReactNode } from 'react';
import { CopyButton } from '../../components/CopyButton';
import { formatBytes, formatDuration, formatSpeed, plural } from '../../lib/format';
import { uploadWarningText } from './upload-errors';
import type { UploadItem, UploadStatus } from './upload-queue';

export interface QueueActions {
  cancel: (id: string) => void;
  retry: (id: string) => void;
  remove: (id: string) => void;
  cancelAll: () => void;
  clearFinished: () => void;
  copyAll: () => void;
}

interface Totals {
  total: number;
  sent: number;
  speed: number;
  secondsLeft: number;
  done: number;
  failed: number;
  cancelled: number;
  working: number;
  counted: number;
}

function totals(items: UploadItem[]): Totals {
  const counted = items.filter((i) => i.status !== 'cancelled' && i.status !== 'failed');
  const total = counted.reduce((sum, i) => sum + i.file.size, 0);
  const sent = counted.reduce((sum, i) => sum + (i.status === 'done' ? i.file.size : i.sent), 0);
  const speed = items.reduce((sum, i) => sum + (i.status === 'uploading' ? i.speed : 0), 0);
  const left = items.reduce(
    (sum, i) => sum + (i.status === 'queued' || i.status === 'uploading' ? i.file.size - i.sent : 0),
    0,
  );
  return {
    total,
    sent,
    speed,
    secondsLeft: speed > 0 ? left / speed : Number.NaN,
    done: items.filter((i) => i.status === 'done').length,
    failed: items.filter((i) => i.status === 'failed').length,
    cancelled: items.filter((i) => i.status === 'cancelled').length,
    working: items.filter((i) => i.status === 'queued' || i.status === 'uploading').length,
    counted: counted.length,
  };
}

const percent = (part: number, whole: number) => (whole > 0 ? Math.min(100, Math.floor((part / whole) * 100)) : 100);

export function UploadQueueCard({ items, actions }: { items: UploadItem[]; actions: QueueActions }) {
  const t = totals(items);
  const overall = t.counted === 0 ? 0 : percent(t.sent, t.total);
  const finished = t.done + t.failed + t.cancelled;
  const title =
    t.working > 0
      ? `Uploading ${plural(t.counted, 'file')}`
      : t.done > 0
        ? `${plural(t.done, 'file')} uploaded`
        : t.failed > 0
          ? 'Nothing uploaded'
          : 'Uploads cancelled';
  const facts = [
    t.working > 0
      ? `${formatBytes(t.sent)} of ${formatBytes(t.total)}`
      : t.done > 0
        ? `${formatBytes(t.total)} in all`
        : null,
    t.speed > 0 ? formatSpeed(t.speed) : null,
    t.working > 0 && Number.isFinite(t.secondsLeft) ? `${formatDuration(t.secondsLeft)} left` : null,
    t.failed > 0 ? `${t.failed} failed` : null,
    t.cancelled > 0 ? `${t.cancelled} cancelled` : null,
  ].filter(Boolean);

  return (
    <Card withBorder radius="md" padding="md">
      <Group justify="space-between" align="flex-start" gap="sm" mb="xs">
        <div style={{ minWidth: 0 }}>
          <Text fw={600} aria-live="polite" data-testid="upload-summary">
            {title}
          </Text>
          <Text size="sm" c="dimmed">
            {facts.join(' · ') || '\u00a0'}
          </Text>
        </div>
        <Group gap="xs">
          {t.done > 0 ? (
            <Button size="xs" variant="light" leftSection={<IconCopy size={14} />} onClick={actions.copyAll}>
              Copy all links
            </Button>
          ) : null}
          {items.some((i) => i.status === 'queued' || i.status === 'uploading') ? (
            <Button size="xs" variant="default" leftSection={<IconX size={14} />} onClick={actions.cancelAll}>
              Cancel all
            </Button>
          ) : null}
          {finished > 0 ? (
            <Button size="xs" variant="subtle" color="gray" onClick={actions.clearFinished}>
              Clear finished
            </Button>
          ) : null}
        </Group>
      </Group>
      {t.counted > 0 ? (
        <Progress
          value={overall}
          size="md"
          radius="xl"
          aria-label="Overall progress"
          color={t.working === 0 ? 'teal' : undefined}
          animated={t.working > 0}
          striped={t.working > 0}
          mb="md"
        />
      ) : null}
      <Stack component="ul" gap="xs" p={0} m={0} style={{ listStyle: 'none' }} aria-label="Uploads">
        {items.map((item) => (
          <UploadRow key={item.id} item={item} actions={actions} />
        ))}
      </Stack>
    </Card>
  );
}

const STATUS: Record<UploadStatus, { label: string; color: string; icon: ReactNode }> = {
  queued: { label: 'Waiting', color: 'gray', icon: <IconClock size={18} /> },
  uploading: { label: 'Uploading', color: 'blue', icon: <IconUpload size={18} /> },
  done: { label: 'Done', color: 'teal', icon: <IconCheck size={18} /> },
  failed: { label: 'Failed', color: 'red', icon: <IconAlertTriangle size={18} /> },
  cancelled: { label: 'Cancelled', color: 'gray', icon: <IconX size={18} /> },
};

function detailOf(item: UploadItem): string {
  const size = formatBytes(item.file.size);
  switch (item.status) {
    case 'queued':
      return `${size} · waiting for a free slot${item.chunked ? ' · will go in chunks, resumable' : ''}`;
    case 'uploading': {
      const parts = [`${formatBytes(item.sent)} of ${size}`];
      if (item.speed > 0)
        parts.push(formatSpeed(item.speed), `${formatDuration((item.file.size - item.sent) / item.speed)} left`);
      if (item.chunk) parts.push(`chunk ${item.chunk.index} of ${item.chunk.count}`);
      return parts.join(' · ');
    }
    case 'done':
      return `${size}${item.chunked ? ` · sent in chunks (resumable)` : ''}`;
    case 'failed':
      return size;
    case 'cancelled':
      return `${size} · cancelled, nothing was kept`;
  }
}

function UploadRow({ item, actions }: { item: UploadItem; actions: QueueActions }) {
  const status = STATUS[item.status];
  const name = item.file.name || 'Unnamed file';
  const progress = item.status === 'done' ? 100 : percent(item.sent, item.file.size);
  const showProgress = item.status === 'uploading' || item.status === 'queued';

  return (
    <Card component="li" withBorder radius="md" padding="sm" aria-label={name}>
      <Group wrap="nowrap" align="flex-start" gap="sm">
        <ThemeIcon variant="light" color={status.color} size={34} radius="md" visibleFrom="xs" aria-hidden>
          {item.status === 'uploading' && item.sent === 0 ? <IconLoader2 size={18} /> : status.icon}
        </ThemeIcon>
        <Stack gap={6} style={{ flex: 1, minWidth: 0 }}>
          <Group justify="space-between" wrap="nowrap" gap="xs">
            <Text fw={500} size="sm" truncate title={name} style={{ minWidth: 0 }}>
              {name}
            </Text>
            <Badge variant="light" color={status.color} size="sm" data-testid="upload-status" style={{ flexShrink: 0 }}>
              {item.status === 'uploading' ? `${progress}%` : status.label}
            </Badge>
          </Group>
          {showProgress ? (
            <Progress value={progress} size="sm" radius="xl" color={status.color} aria-label={`Progress of ${name}`} />
          ) : null}
          <Group justify="space-between" wrap="nowrap" gap="xs" align="center" mih={22}>
            <Text size="xs" c="dimmed" style={{ minWidth: 0 }}>
              {detailOf(item)}
            </Text>
            <Group gap={4} wrap="nowrap" style={{ flexShrink: 0 }}>
              <RowActions item={item} name={name} actions={actions} />
            </Group>
          </Group>
          {item.status === 'failed' && item.error ? (
            <Text size="sm" c="red" role="alert">
              {item.error}
            </Text>
          ) : null}
          {item.status === 'done' && item.link?.warnings?.length ? (
            <Alert color="orange" variant="light" p="xs" data-testid="upload-warning">
              <Text size="sm">{item.link.warnings.map(uploadWarningText).join(' ')}</Text>
            </Alert>
          ) : null}
          {item.status === 'done' && item.link ? (
            <Group gap={4} wrap="nowrap">
              <Anchor
                href={item.link.url}
                target="_blank"
                rel="noopener noreferrer"
                size="sm"
                truncate
                style={{ minWidth: 0 }}
                data-testid="upload-link"
              >
                {item.link.url}
              </Anchor>
              <CopyButton value={item.link.url} what={`link of ${name}`} />
              <Tooltip label={`Open ${name}`} withArrow>
                <ActionIcon
                  component="a"
                  href={item.link.url}
                  target="_blank"
                  rel="noopener noreferrer"
                  variant="subtle"
                  color="gray"
                  aria-label={`Open ${name}`}
                >
                  <IconExternalLink size={16} />
                </ActionIcon>
              </Tooltip>
            </Group>
          ) : null}
        </Stack>
      </Group>
    </Card>
  );
}

function RowActions({ item, name, actions }: { item: UploadItem; name: string; actions: QueueActions }) {
  if (item.status === 'queued' || item.status === 'uploading') {
    return (
      <Tooltip label={`Cancel the upload of ${name}`} withArrow>
        <ActionIcon
          variant="subtle"
          color="gray"
          aria-label={`Cancel the upload of ${name}`}
          onClick={() => actions.cancel(item.id)}
        >
          <IconX size={16} />
        </ActionIcon>
      </Tooltip>
    );
  }
  if (item.status === 'failed' || item.status === 'cancelled') {
    return (
      <>
        <Tooltip label={`Remove ${name} from the list`} withArrow>
          <ActionIcon
            variant="subtle"
            color="gray"
            aria-label={`Remove ${name} from the list`}
            onClick={() => actions.remove(item.id)}
          >
            <IconTrash size={16} />
          </ActionIcon>
        </Tooltip>
        <Button
          size="compact-xs"
          variant="light"
          leftSection={<IconRefresh size={12} />}
          onClick={() => actions.retry(item.id)}
        >
          Retry
        </Button>
      </>
    );
  }
  return null;
}
