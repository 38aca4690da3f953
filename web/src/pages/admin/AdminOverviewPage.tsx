// Server overview (admins only): totals from GET /api/server/stats (users, files, bytes stored, views, short URLs,
// invites), the most common file types and the users storing the most, with the way to the other admin pages; the
// statistics snapshots over time as charts (StatsCharts, GET /api/stats); and, when the update check is on
// (featuresVersionChecking), a note that a newer release is out.
import {
  Alert,
  Anchor,
  Button,
  Card,
  Group,
  Progress,
  SimpleGrid,
  Skeleton,
  Stack,
  Table,
  Text,
  ThemeIcon,
} from '@mantine/core';
import {
  IconDatabase,
  IconEye,
  IconFiles,
  IconLink,
  IconMailPlus,
  IconServerCog,
  IconSparkles,
  IconUsers,
  type Icon,
} from '@tabler/icons-react';
import { ErrorAlert } from '../../components/ErrorAlert';
import { PageHeader } from '../../components/PageHeader';
import { formatBytes } from '../../lib/format';
import { useApi } from '../../lib/use-api';
import { Link } from '../../router';
import { lazy, Suspense } from 'react';
import { serverStats, serverVersion, type ServerStats } from './admin-api';

// The charting library is large: the totals show before it arrives.
const StatsCharts = lazy(() => import('./StatsCharts').then((m) => ({ default: m.StatsCharts })));

const count = (n: number) => n.toLocaleString();

function Stat({
  label,
  value,
  hint,
  icon: StatIcon,
  color,
}: {
  label: string;
  value: string;
  hint?: string;
  icon: Icon;
  color: string;
}) {
  return (
    <Card withBorder padding="md">
      <Group justify="space-between" align="flex-start" wrap="nowrap">
        <div style={{ minWidth: 0 }}>
          <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
            {label}
          </Text>
          <Text fw={700} size="xl" data-testid={`stat-${label}`} style={{ overflowWrap: 'anywhere' }}>
            {value}
          </Text>
          {hint ? (
            <Text size="xs" c="dimmed" data-testid={`stat-hint-${label}`}>
              {hint}
            </Text>
          ) : null}
        </div>
        <ThemeIcon variant="light" color={color} size="lg" radius="md" aria-hidden visibleFrom="sm">
          <StatIcon size={20} />
        </ThemeIcon>
      </Group>
    </Card>
  );
}

function roleHint(stats: ServerStats): string {
  const admins = stats.usersByRole.ADMIN + stats.usersByRole.SUPERADMIN;
  return admins === 1 ? '1 admin' : `${admins} admins`;
}

function FileTypes({ stats }: { stats: ServerStats }) {
  if (stats.filesByType.length === 0) {
    return (
      <Text size="sm" c="dimmed">
        No files yet. Once people upload, the most common types show here.
      </Text>
    );
  }
  const listed = stats.filesByType.reduce((sum, t) => sum + t.files, 0);
  const others = stats.files - listed;
  const top = stats.filesByType[0]!.files;
  return (
    <Table.ScrollContainer minWidth={300}>
      <Table verticalSpacing={6}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Type</Table.Th>
            <Table.Th ta="right">Files</Table.Th>
            <Table.Th ta="right">Size</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {stats.filesByType.map((t) => (
            <Table.Tr key={t.type}>
              <Table.Td>
                <Text size="sm" ff="monospace" truncate maw={260}>
                  {t.type}
                </Text>
                <Progress value={(t.files / top) * 100} size={4} mt={4} aria-hidden />
              </Table.Td>
              <Table.Td ta="right">{count(t.files)}</Table.Td>
              <Table.Td ta="right">{formatBytes(t.bytes)}</Table.Td>
            </Table.Tr>
          ))}
          {others > 0 ? (
            <Table.Tr>
              <Table.Td>
                <Text size="sm" c="dimmed">
                  Other types
                </Text>
              </Table.Td>
              <Table.Td ta="right">{count(others)}</Table.Td>
              <Table.Td />
            </Table.Tr>
          ) : null}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

function TopUsers({ stats }: { stats: ServerStats }) {
  if (stats.topUsers.length === 0) {
    return (
      <Text size="sm" c="dimmed">
        Nobody stores anything yet.
      </Text>
    );
  }
  return (
    <Stack gap="sm">
      {stats.topUsers.map((u) => {
        const share = stats.storageUsed === 0 ? 0 : (u.storageUsed / stats.storageUsed) * 100;
        return (
          <div key={u.id}>
            <Group justify="space-between" wrap="nowrap" gap="xs">
              <Text size="sm" fw={500} truncate>
                {u.username}
              </Text>
              <Text size="sm" c="dimmed" style={{ whiteSpace: 'nowrap' }}>
                {formatBytes(u.storageUsed)} · {count(u.files)} files
              </Text>
            </Group>
            <Progress
              value={share}
              size="sm"
              mt={4}
              aria-label={`${u.username}: ${Math.round(share)}% of all storage`}
            />
          </div>
        );
      })}
    </Stack>
  );
}

/** The other admin pages, linked from the overview's header. */
const ADMIN_LINKS = [
  { to: '/dashboard/admin/users', icon: IconUsers, label: 'Users' },
  { to: '/dashboard/admin/invites', icon: IconMailPlus, label: 'Invites' },
  { to: '/dashboard/admin/settings', icon: IconServerCog, label: 'Settings' },
];

export function AdminOverviewPage() {
  const stats = useApi((signal) => serverStats(signal), []);
  const data = stats.data;
  // A failed update check (6001) is no reason to worry an admin on this page: it shows nothing then.
  const version = useApi((signal) => serverVersion(signal), []);
  const update = version.data?.update;

  return (
    <Stack gap="md">
      <PageHeader
        title="Server overview"
        description="Everything stored on this server, by everyone."
        actions={
          <Group gap="xs" visibleFrom="sm">
            {ADMIN_LINKS.map(({ to, icon: LinkIcon, label }) => (
              <Button key={to} component={Link} to={to} variant="light" leftSection={<LinkIcon size={16} />}>
                {label}
              </Button>
            ))}
          </Group>
        }
      />
      {stats.error ? <ErrorAlert error={stats.error} onRetry={stats.reload} /> : null}
      {update?.available ? (
        <Alert color="blue" icon={<IconSparkles size={18} />} title="Update available" data-testid="update-available">
          Chute {update.latest} is out; this server runs {version.data?.version}.{' '}
          {update.url ? (
            <Anchor href={update.url} target="_blank" rel="noreferrer">
              What is new
            </Anchor>
          ) : null}
        </Alert>
      ) : null}
      <SimpleGrid cols={{ base: 2, sm: 3, lg: 6 }} spacing="sm">
        {data ? (
          <>
            <Stat label="Users" value={count(data.users)} hint={roleHint(data)} icon={IconUsers} color="blue" />
            <Stat
              label="Files"
              value={count(data.files)}
              hint={data.ownerlessFiles > 0 ? `${count(data.ownerlessFiles)} without owner` : undefined}
              icon={IconFiles}
              color="teal"
            />
            <Stat
              label="Storage used"
              value={formatBytes(data.storageUsed)}
              hint={data.files > 0 ? `${formatBytes(data.storageUsed / data.files)} per file` : undefined}
              icon={IconDatabase}
              color="grape"
            />
            <Stat label="File views" value={count(data.fileViews)} icon={IconEye} color="orange" />
            <Stat
              label="Short URLs"
              value={count(data.urls)}
              hint={`${count(data.urlViews)} visit${data.urlViews === 1 ? '' : 's'}`}
              icon={IconLink}
              color="cyan"
            />
            <Stat label="Invites" value={count(data.invites)} icon={IconMailPlus} color="pink" />
          </>
        ) : (
          Array.from({ length: 6 }, (_, i) => <Skeleton key={i} h={92} />)
        )}
      </SimpleGrid>
      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="md">
        <Card withBorder>
          <Text fw={600} mb="xs">
            Files by type
          </Text>
          {data ? <FileTypes stats={data} /> : <Skeleton h={160} />}
        </Card>
        <Card withBorder>
          <Group justify="space-between" mb="xs">
            <Text fw={600}>Who stores the most</Text>
            <Anchor component={Link} to="/dashboard/admin/users" size="sm">
              All users
            </Anchor>
          </Group>
          {data ? <TopUsers stats={data} /> : <Skeleton h={160} />}
        </Card>
      </SimpleGrid>
      <Suspense fallback={<Skeleton h={260} />}>
        <StatsCharts schedule={data?.snapshots} />
      </Suspense>
    </Stack>
  );
}
