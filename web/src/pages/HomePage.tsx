// Overview: the user's totals (GET /api/user/stats) and their most recent files (GET /api/user/recent).
import { Anchor, Card, Group, SimpleGrid, Skeleton, Stack, Table, Text } from '@mantine/core';
import { getStats, recentFiles } from './home-api';
import { ErrorAlert } from '../components/ErrorAlert';
import { PageHeader } from '../components/PageHeader';
import { OriginalName } from '../components/OriginalName';
import { formatBytes, formatDate } from '../lib/format';
import { useUser } from '../lib/session';
import { useApi } from '../lib/use-api';
import { Link } from '../router';

function Stat({ label, value }: { label: string; value: string }) {
  return (
    <Card withBorder padding="md">
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      <Text fw={700} size="xl" style={{ overflowWrap: 'anywhere' }}>
        {value}
      </Text>
    </Card>
  );
}

export function HomePage() {
  const user = useUser();
  const stats = useApi((signal) => getStats(signal), []);
  const recent = useApi((signal) => recentFiles(5, signal), []);

  return (
    <Stack>
      <PageHeader title={`Hello, ${user.username}`} description="Your files and links at a glance." />
      {stats.error ? <ErrorAlert error={stats.error} onRetry={stats.reload} /> : null}
      <SimpleGrid cols={{ base: 2, sm: 3, lg: 6 }}>
        {stats.data ? (
          <>
            <Stat label="Files" value={String(stats.data.filesUploaded)} />
            <Stat label="Storage used" value={formatBytes(stats.data.storageUsed)} />
            <Stat label="File views" value={String(stats.data.views)} />
            <Stat label="Favourites" value={String(stats.data.favoriteFiles)} />
            <Stat label="Short URLs" value={String(stats.data.urlsCreated)} />
            <Stat label="URL visits" value={String(stats.data.urlViews)} />
          </>
        ) : (
          Array.from({ length: 6 }, (_, i) => <Skeleton key={i} h={76} />)
        )}
      </SimpleGrid>
      <Card withBorder>
        <Group justify="space-between" mb="xs">
          <Text fw={600}>Recent files</Text>
          <Anchor component={Link} to="/dashboard/files" size="sm">
            All files
          </Anchor>
        </Group>
        {recent.error ? <ErrorAlert error={recent.error} onRetry={recent.reload} /> : null}
        {recent.data && recent.data.length === 0 ? (
          <Text c="dimmed" size="sm">
            Nothing yet.{' '}
            <Anchor component={Link} to="/dashboard/upload">
              Upload a file
            </Anchor>{' '}
            to get a link.
          </Text>
        ) : null}
        {recent.data && recent.data.length > 0 ? (
          // On a phone the type, size and date go under the name, so that nothing needs scrolling sideways.
          <Table data-testid="recent-files" layout="fixed">
            <Table.Thead visibleFrom="sm">
              <Table.Tr>
                <Table.Th>Name</Table.Th>
                <Table.Th w="22%">Type</Table.Th>
                <Table.Th w="14%">Size</Table.Th>
                <Table.Th w="22%">Uploaded</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {recent.data.map((file) => (
                <Table.Tr key={file.id}>
                  <Table.Td style={{ overflowWrap: 'anywhere' }}>
                    <Anchor href={file.url} target="_blank" rel="noreferrer">
                      {file.name}
                    </Anchor>
                    <OriginalName file={file} truncate={false} />
                    <Text size="xs" c="dimmed" hiddenFrom="sm">
                      <span style={{ whiteSpace: 'nowrap' }}>{formatBytes(file.size)}</span> ·{' '}
                      <span style={{ whiteSpace: 'nowrap' }}>{formatDate(file.createdAt)}</span> · {file.type}
                    </Text>
                  </Table.Td>
                  <Table.Td visibleFrom="sm" style={{ overflowWrap: 'anywhere' }}>
                    {file.type}
                  </Table.Td>
                  <Table.Td visibleFrom="sm" style={{ whiteSpace: 'nowrap' }}>
                    {formatBytes(file.size)}
                  </Table.Td>
                  <Table.Td visibleFrom="sm">{formatDate(file.createdAt)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        ) : null}
      </Card>
    </Stack>
  );
}
