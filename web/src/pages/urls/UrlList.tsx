// The short links as a table on wide screens and as cards on a phone: the link (open, copy), where it leads, visits,
// its state, and edit/delete.
import { ActionIcon, Anchor, Badge, Card, Group, Stack, Table, Text, Tooltip } from '@mantine/core';
import { IconLock, IconPencil, IconTrash } from '@tabler/icons-react';
import { CopyButton } from '../../components/CopyButton';
import { ListTable } from '../../components/ListTable';
import { formatDate } from '../../lib/format';
import { visitsText, type ShortUrl } from './url-api';

interface ListProps {
  urls: ShortUrl[];
  phone: boolean;
  onEdit: (url: ShortUrl) => void;
  onDelete: (url: ShortUrl) => void;
}

/** The visible part of a short link: host and path without the scheme; on a phone only the path. */
function shortText(url: ShortUrl, phone = false): string {
  if (phone) {
    try {
      return decodeURIComponent(new URL(url.url).pathname);
    } catch {
      // not a URL we can take apart: show it whole
    }
  }
  return url.url.replace(/^https?:\/\//, '');
}

/** The short link itself, opening in a new tab. */
function ShortLink({ url, phone = false }: { url: ShortUrl; phone?: boolean }) {
  return (
    <Anchor href={url.url} target="_blank" rel="noreferrer" fw={600} size="sm" style={{ overflowWrap: 'anywhere' }}>
      {shortText(url, phone)}
    </Anchor>
  );
}

function StateBadges({ url }: { url: ShortUrl }) {
  const usedUp = url.maxViews !== null && url.views >= url.maxViews;
  return (
    <Group gap={4} wrap="wrap">
      {!url.enabled ? (
        <Badge color="gray" variant="light">
          Disabled
        </Badge>
      ) : null}
      {url.passwordProtected ? (
        <Badge color="violet" variant="light" leftSection={<IconLock size={11} />}>
          Password
        </Badge>
      ) : null}
      {usedUp ? (
        <Badge color="orange" variant="light">
          Limit reached
        </Badge>
      ) : null}
      {url.enabled && !url.passwordProtected && !usedUp ? (
        <Badge color="teal" variant="dot">
          Active
        </Badge>
      ) : null}
    </Group>
  );
}

function RowActions({ url, onEdit, onDelete }: { url: ShortUrl } & Pick<ListProps, 'onEdit' | 'onDelete'>) {
  const name = url.vanity ?? url.code;
  return (
    <Group gap={2} wrap="nowrap" justify="flex-end">
      <CopyButton value={url.url} what={`short link ${name}`} />
      <Tooltip label={`Edit ${name}`} withArrow>
        <ActionIcon variant="subtle" color="gray" aria-label={`Edit ${name}`} onClick={() => onEdit(url)}>
          <IconPencil size={16} />
        </ActionIcon>
      </Tooltip>
      <Tooltip label={`Delete ${name}`} withArrow>
        <ActionIcon variant="subtle" color="red" aria-label={`Delete ${name}`} onClick={() => onDelete(url)}>
          <IconTrash size={16} />
        </ActionIcon>
      </Tooltip>
    </Group>
  );
}

export function UrlList({ urls, phone, onEdit, onDelete }: ListProps) {
  if (phone) {
    return (
      <Stack gap="xs">
        {urls.map((url) => (
          <Card key={url.id} withBorder padding="sm" data-testid="url-item">
            <Group justify="space-between" wrap="nowrap" align="flex-start" gap="xs">
              <Stack gap={2} style={{ minWidth: 0 }}>
                <ShortLink url={url} phone />
                <Text size="xs" c="dimmed" truncate="end" title={url.destination}>
                  → {url.destination}
                </Text>
              </Stack>
              <RowActions url={url} onEdit={onEdit} onDelete={onDelete} />
            </Group>
            <Group justify="space-between" mt={6} gap="xs">
              <StateBadges url={url} />
              <Text size="xs" c="dimmed">
                {visitsText(url)} {url.maxViews === null && url.views === 1 ? 'visit' : 'visits'}
              </Text>
            </Group>
          </Card>
        ))}
      </Stack>
    );
  }
  return (
    <ListTable
      columns={['Short link', 'Destination', { label: 'Visits', align: 'right' }, 'State', 'Created']}
      minWidth={760}
      nativeScroll
    >
      {urls.map((url) => (
        <Table.Tr key={url.id} data-testid="url-item">
          <Table.Td maw={260}>
            <ShortLink url={url} />
          </Table.Td>
          <Table.Td maw={340}>
            <Text size="sm" truncate="end" title={url.destination}>
              {url.destination}
            </Text>
          </Table.Td>
          <Table.Td ta="right" style={{ whiteSpace: 'nowrap' }}>
            {visitsText(url)}
          </Table.Td>
          <Table.Td>
            <StateBadges url={url} />
          </Table.Td>
          <Table.Td style={{ whiteSpace: 'nowrap' }}>
            <Text size="sm" c="dimmed">
              {formatDate(url.createdAt)}
            </Text>
          </Table.Td>
          <Table.Td>
            <RowActions url={url} onEdit={onEdit} onDelete={onDelete} />
          </Table.Td>
        </Table.Tr>
      ))}
    </ListTable>
  );
}
