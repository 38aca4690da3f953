// Background jobs (admins only): how many jobs of each kind wait, run, are done or failed (GET /api/server/jobs), and
// each failed one with its last error, to queue again (retry) or delete. The page looks again every few seconds
// while jobs wait or run, so a retried job is seen to finish.
import { Badge, Button, Card, Code, Group, SimpleGrid, Skeleton, Stack, Text } from '@mantine/core';
import { IconCircleCheck, IconRefresh, IconRotateClockwise, IconTrash } from '@tabler/icons-react';
import { useEffect, useState } from 'react';
import { ConfirmModal } from '../../components/ConfirmModal';
import { EmptyCard } from '../../components/EmptyCard';
import { ErrorAlert } from '../../components/ErrorAlert';
import { PageHeader } from '../../components/PageHeader';
import { formatDate } from '../../lib/format';
import { notifyError, notifySuccess } from '../../lib/notify';
import { useApi } from '../../lib/use-api';
import { deleteJob, jobsOverview, retryJob, type Job, type JobsOverview } from './admin-api';

/** What each kind of job does, in words; an unknown kind shows its name. */
const KINDS: Record<string, string> = {
  thumbnail: 'Thumbnail',
  'user-export': 'Export of a user’s files',
  'export-sweep': 'Removing old exports',
  webhook: 'Webhook delivery',
  'discord-webhook': 'Discord message',
};

export const kindLabel = (kind: string) => KINDS[kind] ?? kind;

const STATES = [
  { state: 'queued', label: 'waiting' },
  { state: 'running', label: 'running' },
  { state: 'done', label: 'done' },
  { state: 'failed', label: 'failed' },
] as const;

/** What the job works on, in words: the file or export it names, else its payload as JSON. */
function subjectOf(job: Job): string | null {
  const payload = job.payload as Record<string, unknown> | null;
  if (payload && typeof payload === 'object') {
    if (typeof payload.fileId === 'string') return `File ${payload.fileId}`;
    if (typeof payload.exportId === 'string') return `Export ${payload.exportId}`;
    if (typeof payload.url === 'string') return payload.url;
  }
  if (payload === null || payload === undefined) return null;
  const text = JSON.stringify(payload);
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

function Counts({ overview }: { overview: JobsOverview }) {
  const kinds = [...new Set(overview.counts.map((c) => c.kind))];
  if (kinds.length === 0) {
    return (
      <Text size="sm" c="dimmed">
        No jobs have run yet.
      </Text>
    );
  }
  return (
    <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} spacing="sm">
      {kinds.map((kind) => (
        <Card withBorder key={kind} padding="sm" data-testid={`job-counts-${kind}`}>
          <Text fw={600} size="sm">
            {kindLabel(kind)}
          </Text>
          <Group gap={6} mt={4} wrap="wrap">
            {STATES.map(({ state, label }) => {
              const n = overview.counts.find((c) => c.kind === kind && c.state === state)?.count ?? 0;
              if (n === 0) return null;
              return (
                <Badge key={state} variant="light" color={state === 'failed' ? 'red' : 'gray'}>
                  {n.toLocaleString()} {label}
                </Badge>
              );
            })}
          </Group>
        </Card>
      ))}
    </SimpleGrid>
  );
}

function FailedJob({ job, onRetry, onDelete }: { job: Job; onRetry: () => void; onDelete: () => void }) {
  const [retrying, setRetrying] = useState(false);
  const subject = subjectOf(job);
  return (
    <Card withBorder component="li" data-testid={`failed-job-${job.id}`}>
      <Stack gap={6}>
        <Group justify="space-between" wrap="wrap" gap="xs">
          <div style={{ minWidth: 0 }}>
            <Text fw={600}>{kindLabel(job.kind)}</Text>
            {subject ? (
              <Text size="sm" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
                {subject}
              </Text>
            ) : null}
          </div>
          <Group gap="xs">
            <Button
              size="xs"
              variant="light"
              leftSection={<IconRotateClockwise size={16} />}
              loading={retrying}
              aria-label={`Retry ${kindLabel(job.kind)} job ${job.id}`}
              onClick={() => {
                setRetrying(true);
                void retryJob(job.id)
                  .then(() => {
                    notifySuccess('The job is queued again.', 'Retrying');
                    onRetry();
                  })
                  .catch((err: unknown) => notifyError(err, 'The job was not queued again'))
                  .finally(() => setRetrying(false));
              }}
            >
              Retry
            </Button>
            <Button
              size="xs"
              variant="light"
              color="red"
              leftSection={<IconTrash size={16} />}
              aria-label={`Delete ${kindLabel(job.kind)} job ${job.id}`}
              onClick={onDelete}
            >
              Delete
            </Button>
          </Group>
        </Group>
        <Code block style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
          {job.lastError ?? 'No error was recorded.'}
        </Code>
        <Text size="xs" c="dimmed">
          Failed {formatDate(job.updatedAt)} after {job.attempts} of {job.maxAttempts} attempts; queued{' '}
          {formatDate(job.createdAt)}.
        </Text>
      </Stack>
    </Card>
  );
}

export function JobsPage() {
  const overview = useApi((signal) => jobsOverview(signal), []);
  const [deleting, setDeleting] = useState<Job | null>(null);
  const data = overview.data;
  const busy = data?.counts.some((c) => (c.state === 'queued' || c.state === 'running') && c.count > 0) ?? false;
  const { reload } = overview;
  // The Refresh button spins only for a refresh asked for, not for the look every few seconds.
  const [refreshing, setRefreshing] = useState(false);
  useEffect(() => {
    if (!overview.loading) setRefreshing(false);
  }, [overview.loading]);

  // While jobs wait or run, look again every few seconds.
  useEffect(() => {
    if (!busy) return;
    const timer = setInterval(reload, 3000);
    return () => clearInterval(timer);
  }, [busy, reload]);

  return (
    <Stack gap="md">
      <PageHeader
        title="Background jobs"
        description="Thumbnails, exports and webhook deliveries run in the background; a job that failed three times stays here with its error."
        actions={
          <Button
            variant="default"
            leftSection={<IconRefresh size={16} />}
            onClick={() => {
              setRefreshing(true);
              reload();
            }}
            loading={refreshing && overview.loading}
          >
            Refresh
          </Button>
        }
      />
      {overview.error ? <ErrorAlert error={overview.error} onRetry={reload} /> : null}
      {data ? <Counts overview={data} /> : <Skeleton h={80} />}
      <Text fw={600} component="h3" size="lg">
        Failed jobs
      </Text>
      {!data ? (
        <Skeleton h={140} />
      ) : data.failed.length === 0 ? (
        <EmptyCard icon={<IconCircleCheck size={26} />} title="No failed jobs" testId="no-failed-jobs">
          Every job has finished or is still being tried. A job that fails three times shows here.
        </EmptyCard>
      ) : (
        <Stack component="ul" gap="sm" p={0} m={0} style={{ listStyle: 'none' }} aria-label="Failed jobs">
          {data.failed.map((job) => (
            <FailedJob key={job.id} job={job} onRetry={reload} onDelete={() => setDeleting(job)} />
          ))}
        </Stack>
      )}
      <ConfirmModal
        opened={deleting !== null}
        title="Delete this job?"
        confirmLabel="Delete job"
        onClose={() => setDeleting(null)}
        onConfirm={async () => {
          if (!deleting) return;
          await deleteJob(deleting.id);
          notifySuccess(`${kindLabel(deleting.kind)} job deleted.`);
          setDeleting(null);
          reload();
        }}
      >
        {deleting
          ? `The ${kindLabel(deleting.kind).toLowerCase()} job${subjectOf(deleting) ? ` for ${subjectOf(deleting)}` : ''} ` +
            'is removed from the queue and will not be tried again. What it worked on stays as it is.'
          : ''}
      </ConfirmModal>
    </Stack>
  );
}
