// The account's exports (GET/POST/DELETE /api/user/export): start one (a zip of every file and a JSON of the records,
// made in the background), watch it finish, download it while it is kept (7 days), delete it.
import { Badge, Button, Card, Group, Paper, Skeleton, Stack, Text, Title } from '@mantine/core';
import { IconDownload, IconPackageExport, IconTrash } from '@tabler/icons-react';
import { useEffect, useState } from 'react';
import { ConfirmModal } from '../../components/ConfirmModal';
import { ErrorAlert } from '../../components/ErrorAlert';
import { formatBytes, formatDate } from '../../lib/format';
import { notifyError, notifySuccess } from '../../lib/notify';
import { useApi } from '../../lib/use-api';
import { useLastValue } from '../../lib/use-last-value';
import { settingsErrorObject } from './messages';
import { deleteExport, exportDownloadUrl, listExports, startExport } from './settings-api';

/** How often the list is read again while an export is being made. */
const POLL_MS = 3000;

type AccountExport = Awaited<ReturnType<typeof listExports>>[number];

export function ExportsSection() {
  const exports = useApi((signal) => listExports(signal), []);
  const [starting, setStarting] = useState(false);
  const [deleting, setDeleting] = useState<AccountExport | null>(null);
  const question = useLastValue(deleting);
  const running = exports.data?.some((e) => !e.completed) ?? false;
  const { reload } = exports;

  useEffect(() => {
    if (!running) return;
    const timer = setInterval(reload, POLL_MS);
    return () => clearInterval(timer);
  }, [running, reload]);

  const start = async () => {
    setStarting(true);
    try {
      await startExport();
      notifySuccess('Your export is being made. It appears here when it is ready.');
      reload();
    } catch (err) {
      notifyError(settingsErrorObject(err), 'The export was not started');
    } finally {
      setStarting(false);
    }
  };

  const remove = async () => {
    if (!deleting) return;
    try {
      await deleteExport(deleting.id);
      notifySuccess('The export is deleted.');
    } catch (err) {
      notifyError(settingsErrorObject(err), 'The export was not deleted');
    }
    setDeleting(null);
    reload();
  };

  const data = exports.data;
  return (
    <Card withBorder padding="lg" radius="md">
      <Group justify="space-between" align="flex-start" mb="sm" gap="sm">
        <div>
          <Title order={3} size="h4">
            Export your account
          </Title>
          <Text size="sm" c="dimmed">
            A zip of all your files with a JSON of your folders, tags, short links and file details. It is made in the
            background and kept for 7 days.
          </Text>
        </div>
        <Button leftSection={<IconPackageExport size={16} />} onClick={start} loading={starting}>
          Export my account
        </Button>
      </Group>
      {exports.error && !data ? (
        <ErrorAlert error={exports.error} onRetry={reload} title="Could not load your exports" />
      ) : !data ? (
        <Stack gap="sm" aria-busy>
          <Skeleton h={56} />
        </Stack>
      ) : data.length === 0 ? (
        <Text size="sm" c="dimmed" ta="center" py="sm">
          No exports yet.
        </Text>
      ) : (
        <Stack gap="sm">
          {data.map((e) => (
            <Paper key={e.id} withBorder p="sm" radius="md" data-testid="export-row">
              <Group justify="space-between" wrap="nowrap" gap="sm">
                <div style={{ minWidth: 0 }}>
                  <Group gap={6}>
                    <Text fw={500} size="sm">
                      {formatDate(e.createdAt)}
                    </Text>
                    {e.completed ? null : (
                      <Badge size="sm" variant="light" color="blue">
                        Being made
                      </Badge>
                    )}
                  </Group>
                  <Text size="xs" c="dimmed">
                    {e.files} {e.files === 1 ? 'file' : 'files'}
                    {e.completed ? `, ${formatBytes(Number(e.size))}` : ''}; kept until {formatDate(e.expiresAt)}
                  </Text>
                </div>
                <Group gap="xs" wrap="nowrap">
                  {e.completed ? (
                    <Button
                      component="a"
                      href={exportDownloadUrl(e.id)}
                      download={e.path}
                      size="xs"
                      variant="light"
                      leftSection={<IconDownload size={14} />}
                      aria-label={`Download the export of ${formatDate(e.createdAt)}`}
                    >
                      Download
                    </Button>
                  ) : null}
                  <Button
                    size="xs"
                    variant="light"
                    color="red"
                    leftSection={<IconTrash size={14} />}
                    onClick={() => setDeleting(e)}
                    aria-label={`Delete the export of ${formatDate(e.createdAt)}`}
                  >
                    Delete
                  </Button>
                </Group>
              </Group>
            </Paper>
          ))}
        </Stack>
      )}
      <ConfirmModal
        opened={deleting !== null}
        title="Delete this export?"
        confirmLabel="Delete it"
        onConfirm={remove}
        onClose={() => setDeleting(null)}
      >
        <Text size="sm">
          The zip of {question ? formatDate(question.createdAt) : ''} is deleted. Your files themselves stay.
        </Text>
      </ConfirmModal>
    </Card>
  );
}
