// Server actions (admins only): Zipline's maintenance buttons, each asked for in a dialog that says what will happen
// (with the files it would remove, where the API can list them), then run with a spinner, and its answer kept in the
// card: clear temporary files, clear zero-byte files, read the sizes again, make thumbnails (with their progress
// from the job queue), remove orphaned bytes; and for the SUPERADMIN the instance export and import.
import {
  Alert,
  Anchor,
  Button,
  Card,
  Checkbox,
  FileInput,
  Group,
  List,
  Modal,
  Progress,
  Radio,
  SimpleGrid,
  Skeleton,
  Stack,
  Table,
  Text,
  Title,
} from '@mantine/core';
import {
  IconDatabaseExport,
  IconDatabaseImport,
  IconFileOff,
  IconPhoto,
  IconRuler2,
  IconTrash,
  IconTrashX,
} from '@tabler/icons-react';
import { useEffect, useState, type ReactNode } from 'react';
import { ErrorAlert } from '../../components/ErrorAlert';
import { ModalActions } from '../../components/ModalActions';
import { PageHeader } from '../../components/PageHeader';
import { formatBytes } from '../../lib/format';
import { errorMessage } from '../../lib/notify';
import { useUser } from '../../lib/session';
import { useApi } from '../../lib/use-api';
import { Link } from '../../router';
import {
  clearOrphanedFiles,
  clearTemp,
  clearZeroByteFiles,
  EXPORT_URL,
  exportCounts,
  importExport,
  jobsOverview,
  orphanedFiles,
  queueThumbnails,
  requerySizes,
  zeroByteFiles,
  type ImportResult,
} from './admin-api';

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString()} ${n === 1 ? one : many}`;

/** At most this many names of what an action would remove are listed in its dialog. */
const LISTED = 10;

function NameList({ names, total, what }: { names: string[]; total: number; what: string }) {
  if (total === 0) return <Text size="sm">There are no {what} now: nothing would be removed.</Text>;
  return (
    <Stack gap={4}>
      <Text size="sm">
        {plural(total, what.replace(/s$/, ''), what)} would be removed{total > LISTED ? `, among them` : ''}:
      </Text>
      <List size="sm" spacing={2} style={{ overflowWrap: 'anywhere' }}>
        {names.slice(0, LISTED).map((name) => (
          <List.Item key={name}>{name}</List.Item>
        ))}
      </List>
      {total > LISTED ? (
        <Text size="sm" c="dimmed">
          and {plural(total - LISTED, 'more')}.
        </Text>
      ) : null}
    </Stack>
  );
}

interface ActionProps {
  id: string;
  title: string;
  icon: ReactNode;
  /** What it does, for the card. */
  description: string;
  buttonLabel: string;
  /** The dialog's question and what it shows before the action (a list, choices); opened tells it to load. */
  confirmTitle: string;
  confirmBody: (opened: boolean) => ReactNode;
  confirmLabel: string;
  danger?: boolean;
  /** Runs the action; what it answers is shown in the card. */
  run: () => Promise<ReactNode>;
  disabled?: boolean;
  /** Below the result: progress of what the action started. */
  after?: ReactNode;
}

/** One action: a card with its button, the dialog that asks, and what the last run answered. */
function ServerAction(props: ActionProps) {
  const [opened, setOpened] = useState(false);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const [result, setResult] = useState<ReactNode>(null);

  const confirm = async () => {
    setBusy(true);
    setFailure(null);
    try {
      const answer = await props.run();
      setResult(answer);
      setOpened(false);
    } catch (err) {
      setFailure(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Card
      withBorder
      component="section"
      aria-labelledby={`action-${props.id}-title`}
      data-testid={`action-${props.id}`}
    >
      <Stack gap="xs" h="100%">
        <Group gap="xs" wrap="nowrap" align="center">
          {props.icon}
          <Title order={3} size="h5" id={`action-${props.id}-title`}>
            {props.title}
          </Title>
        </Group>
        <Text size="sm" c="dimmed" style={{ flexGrow: 1 }}>
          {props.description}
        </Text>
        <Group>
          <Button
            variant="light"
            color={props.danger ? 'red' : undefined}
            disabled={props.disabled}
            onClick={() => {
              setFailure(null);
              setOpened(true);
            }}
          >
            {props.buttonLabel}
          </Button>
        </Group>
        {result ? (
          <Alert color="teal" variant="light" title="Done" role="status" data-testid={`action-${props.id}-result`}>
            {result}
          </Alert>
        ) : null}
        {props.after}
      </Stack>
      <Modal opened={opened} onClose={() => !busy && setOpened(false)} title={props.confirmTitle} centered>
        <Stack gap="md">
          {props.confirmBody(opened)}
          {busy ? <Progress value={100} animated striped aria-label={`${props.title}: running`} /> : null}
          <ModalActions
            failure={failure}
            onCancel={() => setOpened(false)}
            busy={busy}
            label={props.confirmLabel}
            danger={props.danger}
            onConfirm={() => void confirm()}
          />
        </Stack>
      </Modal>
    </Card>
  );
}

/** Loads a preview while the dialog is open. */
function Preview<T>({ load, render }: { load: (signal: AbortSignal) => Promise<T>; render: (data: T) => ReactNode }) {
  const state = useApi(load, []);
  if (state.error) return <ErrorAlert error={state.error} onRetry={state.reload} />;
  if (state.data === undefined) return <Skeleton h={60} />;
  return <>{render(state.data)}</>;
}

/** The thumbnail jobs still waiting or running, looked at every two seconds until none are left. */
function ThumbnailProgress({ queued, startedAt }: { queued: number; startedAt: number }) {
  const [left, setLeft] = useState<{ waiting: number; failed: number } | null>(null);
  useEffect(() => {
    let stopped = false;
    const look = async () => {
      const overview = await jobsOverview();
      const count = (state: string) =>
        overview.counts.find((c) => c.kind === 'thumbnail' && c.state === state)?.count ?? 0;
      if (stopped) return;
      const waiting = count('queued') + count('running');
      setLeft({ waiting, failed: overview.failed.filter((j) => j.kind === 'thumbnail').length });
      if (waiting > 0) timer = setTimeout(() => void look().catch(() => undefined), 2000);
    };
    let timer = setTimeout(() => void look().catch(() => undefined), 500);
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [startedAt]);
  if (queued === 0) return null;
  const waiting = Math.min(left?.waiting ?? queued, queued);
  const done = queued - waiting;
  return (
    <Stack gap={4} data-testid="thumbnail-progress">
      <Progress value={(done / queued) * 100} aria-label="Thumbnails made" />
      <Text size="xs" c="dimmed">
        {waiting === 0 ? `All ${plural(queued, 'thumbnail')} are through the queue.` : `${done} of ${queued} made.`}{' '}
        {left && left.failed > 0 ? (
          <Anchor component={Link} to="/dashboard/admin/jobs" size="xs">
            {plural(left.failed, 'failed job')}
          </Anchor>
        ) : null}
      </Text>
    </Stack>
  );
}

function ImportResultView({ result }: { result: ImportResult }) {
  const made = Object.entries(result.imported).filter(([, n]) => typeof n === 'number' && n > 0);
  return (
    <Stack gap={4}>
      <Text size="sm">
        {made.length === 0
          ? 'Nothing new was made.'
          : `Made ${made.map(([kind, n]) => `${plural(n as number, kind.replace(/s$/, ''), kind)}`).join(', ')}.`}{' '}
        {result.settings ? 'The settings were taken.' : ''}
      </Text>
      {result.skipped.length > 0 ? (
        <>
          <Text size="sm">{plural(result.skipped.length, 'record was', 'records were')} left out:</Text>
          <List size="sm" style={{ overflowWrap: 'anywhere' }}>
            {result.skipped.slice(0, LISTED).map((s) => (
              <List.Item key={`${s.kind}-${s.id}`}>
                {s.kind} {s.id}: {s.reason}
              </List.Item>
            ))}
          </List>
          {result.skipped.length > LISTED ? (
            <Text size="sm">and {plural(result.skipped.length - LISTED, 'more')}.</Text>
          ) : null}
        </>
      ) : null}
    </Stack>
  );
}

function ExportCountsTable({ counts }: { counts: Record<string, number> }) {
  return (
    <Table withRowBorders={false} verticalSpacing={2}>
      <Table.Tbody>
        {Object.entries(counts).map(([kind, n]) => (
          <Table.Tr key={kind}>
            <Table.Td>{kind.charAt(0).toUpperCase() + kind.slice(1)}</Table.Td>
            <Table.Td ta="right">{n.toLocaleString()}</Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

function InstanceActions() {
  const [file, setFile] = useState<File | null>(null);
  return (
    <>
      <ServerAction
        id="export"
        title="Export the instance"
        icon={<IconDatabaseExport size={20} aria-hidden />}
        description="Downloads every record (users, files' records, folders, tags, short URLs, invites, settings) as one JSON file in Zipline v4's format. File contents are not included: back up the uploads folder for them."
        buttonLabel="Export..."
        confirmTitle="Download an export of the instance?"
        confirmBody={(opened) =>
          opened ? (
            <Stack gap="xs">
              <Text size="sm">The export holds:</Text>
              <Preview load={(signal) => exportCounts(signal)} render={(c) => <ExportCountsTable counts={c} />} />
              <Text size="sm" c="dimmed">
                It contains password hashes and sign-in keys: keep it as safe as the database.
              </Text>
            </Stack>
          ) : null
        }
        confirmLabel="Download export"
        run={async () => {
          const link = document.createElement('a');
          link.href = EXPORT_URL;
          link.download = '';
          document.body.append(link);
          link.click();
          link.remove();
          return 'The download has started; your browser saves the file.';
        }}
      />
      <ServerAction
        id="import"
        title="Import an export"
        icon={<IconDatabaseImport size={20} aria-hidden />}
        description="Adds the records of an export of Chute or Zipline v4 to this server, all or nothing. Records that clash with existing ones (a taken user name, file name or code) are left out and listed."
        buttonLabel="Import..."
        confirmTitle="Import an export?"
        confirmBody={() => (
          <Stack gap="xs">
            <FileInput
              label="Export file"
              description="A .json file from Export the instance here, or from Zipline v4"
              accept="application/json,.json"
              value={file}
              onChange={setFile}
              clearable
            />
            {file ? (
              <Text size="sm">
                {file.name} ({formatBytes(file.size)}) is read in this browser and sent to the server in one request.
                Copy the uploads folder into this server's storage for the files' contents.
              </Text>
            ) : null}
          </Stack>
        )}
        confirmLabel="Import"
        run={async () => {
          if (!file) throw new Error('Choose the export file first.');
          let body: unknown;
          try {
            body = JSON.parse(await file.text());
          } catch {
            throw new Error(`${file.name} is not a JSON file.`);
          }
          const result = await importExport(body as Parameters<typeof importExport>[0]);
          return <ImportResultView result={result} />;
        }}
      />
    </>
  );
}

export function ServerActionsPage() {
  const user = useUser();
  const [requery, setRequery] = useState({ forceUpdate: false, forceDelete: false });
  const [rerun, setRerun] = useState('missing');
  const [thumbnails, setThumbnails] = useState<{ queued: number; startedAt: number } | null>(null);

  return (
    <Stack gap="md">
      <PageHeader
        title="Server actions"
        description="Maintenance for the whole server. Each action asks first and says what it did."
      />
      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="md">
        <ServerAction
          id="clear-temp"
          title="Clear temporary files"
          icon={<IconTrash size={20} aria-hidden />}
          description="Removes data no upload needs any more: chunked uploads left idle past their timeout and temporary files a crash left behind. Uploads in progress keep theirs."
          buttonLabel="Clear temporary files..."
          confirmTitle="Clear temporary files?"
          confirmBody={() => (
            <Text size="sm">
              Chunked uploads that can still continue are kept; a temporary file goes once nothing has written to it for
              an hour.
            </Text>
          )}
          confirmLabel="Clear temporary files"
          danger
          run={async () => (await clearTemp()).status}
        />
        <ServerAction
          id="clear-zeros"
          title="Clear zero-byte files"
          icon={<IconFileOff size={20} aria-hidden />}
          description="Deletes every file of 0 bytes, of every user, as their owners deleting them would."
          buttonLabel="Clear zero-byte files..."
          confirmTitle="Delete the files of 0 bytes?"
          confirmBody={(opened) =>
            opened ? (
              <Preview
                load={(signal) => zeroByteFiles(signal)}
                render={(d) => (
                  <NameList names={d.files.map((f) => f.name)} total={d.files.length} what="zero-byte files" />
                )}
              />
            ) : null
          }
          confirmLabel="Delete them"
          danger
          run={async () => (await clearZeroByteFiles()).status}
        />
        <ServerAction
          id="requery"
          title="Read file sizes again"
          icon={<IconRuler2 size={20} aria-hidden />}
          description="Asks the storage for the real size of the files recorded with 0 bytes (or of all of them) and corrects the records, the usage and the quotas."
          buttonLabel="Read sizes again..."
          confirmTitle="Read the files' sizes from storage again?"
          confirmBody={() => (
            <Stack gap="xs">
              <Checkbox
                label="Every file, not only those recorded with 0 bytes"
                description="Takes longer on a large server."
                checked={requery.forceUpdate}
                onChange={(e) => setRequery((r) => ({ ...r, forceUpdate: e.currentTarget.checked }))}
              />
              <Checkbox
                label="Delete the records of files whose contents are missing"
                description="Otherwise they are only counted in the answer."
                checked={requery.forceDelete}
                onChange={(e) => setRequery((r) => ({ ...r, forceDelete: e.currentTarget.checked }))}
              />
            </Stack>
          )}
          confirmLabel="Read sizes"
          danger={requery.forceDelete}
          run={async () => (await requerySizes(requery)).status}
        />
        <ServerAction
          id="thumbnails"
          title="Make thumbnails"
          icon={<IconPhoto size={20} aria-hidden />}
          description="Queues a thumbnail for each image and video that has none, or for all of them again. They are made in the background; the progress shows here and failures on the Background jobs page."
          buttonLabel="Make thumbnails..."
          confirmTitle="Make thumbnails?"
          confirmBody={() => (
            <Radio.Group value={rerun} onChange={setRerun} label="Which files">
              <Stack gap={6} mt={6}>
                <Radio value="missing" label="Only images and videos without a thumbnail" />
                <Radio value="all" label="Every image and video again (after a change of ffmpeg or sharp)" />
              </Stack>
            </Radio.Group>
          )}
          confirmLabel="Queue thumbnails"
          run={async () => {
            const answer = await queueThumbnails(rerun === 'all');
            setThumbnails({ queued: answer.queued, startedAt: Date.now() });
            return answer.queued === 0
              ? 'Every image and video has its thumbnail: nothing to do.'
              : `Queued ${plural(answer.queued, 'thumbnail')}.`;
          }}
          after={thumbnails ? <ThumbnailProgress {...thumbnails} /> : null}
        />
        <ServerAction
          id="orphaned"
          title="Remove orphaned contents"
          icon={<IconTrashX size={20} aria-hidden />}
          description="Removes stored contents that no file refers to any more: what a bulk deletion that kept the contents left in storage."
          buttonLabel="Remove orphaned contents..."
          confirmTitle="Remove the orphaned contents?"
          confirmBody={(opened) =>
            opened ? (
              <Preview
                load={(signal) => orphanedFiles(signal)}
                render={(d) => (
                  <NameList
                    names={d.files.map(
                      (f) => `${f.key}${f.size === null ? ' (already gone)' : `, ${formatBytes(f.size)}`}`,
                    )}
                    total={d.files.length}
                    what="orphaned contents"
                  />
                )}
              />
            ) : null
          }
          confirmLabel="Remove them"
          danger
          run={async () => (await clearOrphanedFiles()).status}
        />
      </SimpleGrid>
      <Title order={3} size="h4">
        Export and import
      </Title>
      {user.role === 'SUPERADMIN' ? (
        <SimpleGrid cols={{ base: 1, md: 2 }} spacing="md">
          <InstanceActions />
        </SimpleGrid>
      ) : (
        <Text size="sm" c="dimmed" data-testid="export-superadmin-only">
          Only the super administrator can export or import the whole instance.
        </Text>
      )}
    </Stack>
  );
}
