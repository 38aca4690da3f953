// Users (admins only): one page of accounts at a time with what each stores, search and role filter in the query
// string, and creating, editing (role, quota, password, avatar) and deleting accounts within the role rules.
import {
  ActionIcon,
  Avatar,
  Badge,
  Button,
  Card,
  Group,
  Pagination,
  Progress,
  Select,
  Skeleton,
  Stack,
  Table,
  Text,
  TextInput,
  Tooltip,
} from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { IconPencil, IconSearch, IconTrash, IconUserPlus, IconUsers } from '@tabler/icons-react';
import { useEffect, useState, type MouseEvent } from 'react';
import type { Role, User } from '../../api/types';
import { EmptyCard } from '../../components/EmptyCard';
import { ErrorAlert } from '../../components/ErrorAlert';
import { ListTable } from '../../components/ListTable';
import { PageHeader } from '../../components/PageHeader';
import { formatBytes, formatDate } from '../../lib/format';
import { useSession, useUser } from '../../lib/session';
import { useApi } from '../../lib/use-api';
import { setSearch, useLocation } from '../../router';
import { listUsers, usersUsage, type UserUsage } from './admin-api';
import { DeleteUserModal } from './DeleteUserModal';
import { quotaSummary } from './QuotaFields';
import { cannotDeleteReason, cannotEditReason, RoleBadge, ROLE_LABELS } from './roles';
import { UserFormModal } from './UserFormModal';
import { bound } from '../../lib/bound';

const PER_PAGE = 20;

function UserName({ user, self }: { user: User; self: boolean }) {
  return (
    <Group gap="sm" wrap="nowrap">
      <Avatar src={user.avatar ?? null} radius="xl" size={36} alt="">
        {user.username.slice(0, 2).toUpperCase()}
      </Avatar>
      <div style={{ minWidth: 0 }}>
        <Group gap={6} wrap="nowrap">
          <Text fw={600} size="sm" truncate>
            {user.username}
          </Text>
          {self ? (
            <Badge size="xs" variant="outline">
              you
            </Badge>
          ) : null}
        </Group>
      </div>
    </Group>
  );
}

/** Bytes stored, against the byte quota when there is one. */
function Storage({ user, usage }: { user: User; usage: UserUsage | undefined }) {
  if (!usage) return <Skeleton h={14} w={70} />;
  const limit =
    user.quota?.filesQuota === 'BY_BYTES' && user.quota.maxBytes !== null ? Number(user.quota.maxBytes) : null;
  if (limit === null) return <Text size="sm">{formatBytes(usage.storageUsed)}</Text>;
  const percent = limit === 0 ? 100 : Math.min(100, (usage.storageUsed / limit) * 100);
  return (
    <Stack gap={4} miw={110}>
      <Text size="sm">
        {formatBytes(usage.storageUsed)}{' '}
        <Text span c="dimmed" size="xs">
          of {formatBytes(limit)}
        </Text>
      </Text>
      <Progress
        value={percent}
        size="sm"
        color={percent >= 90 ? 'red' : 'blue'}
        aria-label={`${Math.round(percent)}% of the quota used`}
      />
    </Stack>
  );
}

function Files({ user, usage }: { user: User; usage: UserUsage | undefined }) {
  if (!usage) return <Skeleton h={14} w={30} />;
  const limit = user.quota?.filesQuota === 'BY_FILES' ? user.quota.maxFiles : null;
  return (
    <Text size="sm">
      {usage.files}
      {limit !== null ? (
        <Text span c="dimmed" size="xs">
          {' '}
          / {limit}
        </Text>
      ) : null}
    </Text>
  );
}

/**
 * Edit and delete, each shown disabled (with the reason in its tooltip) when the role rules forbid it. They stay
 * focusable (aria-disabled rather than disabled), so that the reason is reachable by keyboard and pointer alike.
 */
function RowActions({
  actor,
  user,
  onEdit,
  onDelete,
}: {
  actor: User;
  user: User;
  onEdit: () => void;
  onDelete: () => void;
}) {
  const editBlocked = cannotEditReason(actor, user);
  const deleteBlocked = cannotDeleteReason(actor, user);
  const blockable = (reason: string | null, action: () => void) =>
    reason === null
      ? { onClick: action }
      : { 'data-disabled': true, 'aria-disabled': true, onClick: (e: MouseEvent) => e.preventDefault() };
  return (
    <Group gap={4} wrap="nowrap" justify="flex-end">
      <Tooltip label={editBlocked ? `Edit ${user.username}: ${editBlocked}` : `Edit ${user.username}`}>
        <ActionIcon variant="subtle" aria-label={`Edit ${user.username}`} {...blockable(editBlocked, onEdit)}>
          <IconPencil size={18} />
        </ActionIcon>
      </Tooltip>
      <Tooltip label={deleteBlocked ? `Delete ${user.username}: ${deleteBlocked}` : `Delete ${user.username}`}>
        <ActionIcon
          variant="subtle"
          color="red"
          aria-label={`Delete ${user.username}`}
          {...blockable(deleteBlocked, onDelete)}
        >
          <IconTrash size={18} />
        </ActionIcon>
      </Tooltip>
    </Group>
  );
}

export function UsersPage() {
  const actor = useUser();
  const { refresh } = useSession();
  const { search } = useLocation();
  const page = Math.max(1, Number(search.get('page')) || 1);
  const role = (search.get('role') ?? '') as Role | '';
  const [query, setQuery] = useState(search.get('q') ?? '');
  const [debounced] = useDebouncedValue(query.trim(), 300);
  // The modals keep their user while they close, so that their text does not change during the animation.
  const [form, setForm] = useState<{ opened: boolean; target: User | null }>({ opened: false, target: null });
  const [removal, setRemoval] = useState<{ opened: boolean; target: User | null }>({ opened: false, target: null });
  const edit = (target: User | null) => setForm({ opened: true, target });
  const remove = (target: User) => setRemoval({ opened: true, target });

  useEffect(() => {
    if (debounced !== (search.get('q') ?? '')) setSearch({ q: debounced, page: null });
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [debounced]);

  const list = useApi(
    (signal) => listUsers({ page, perpage: PER_PAGE, search: debounced, role: role || undefined }, signal),
    [page, debounced, role],
  );
  // Reloaded with every load of the list, so that a deletion or a new quota shows fresh numbers.
  const usage = useApi((signal) => usersUsage(list.data?.users.map((u) => u.id) ?? [], signal), [list.data]);
  const usageOf = (id: string) => usage.data?.usage.find((u) => u.userId === id);

  const saved = (user: User) => {
    list.reload();
    if (user.id === actor.id) void refresh();
  };

  const users = list.data?.users ?? [];
  const filtered = debounced !== '' || role !== '';

  return (
    <Stack gap="md">
      <PageHeader
        title="Users"
        description="Everyone with an account: their role, quota and what they store."
        actions={
          <Button leftSection={<IconUserPlus size={18} />} onClick={() => edit(null)}>
            Create user
          </Button>
        }
      />
      <Group gap="sm" wrap="wrap" align="flex-end">
        <TextInput
          label="Search"
          placeholder="Part of a username"
          leftSection={<IconSearch size={16} />}
          {...bound(query, setQuery)}
          style={{ flex: '1 1 220px' }}
        />
        <Select
          label="Role"
          placeholder="Every role"
          clearable
          data={(Object.keys(ROLE_LABELS) as Role[]).map((r) => ({ value: r, label: ROLE_LABELS[r] }))}
          value={role || null}
          onChange={(value) => setSearch({ role: value, page: null })}
          style={{ flex: '0 1 220px' }}
        />
      </Group>

      {list.error ? <ErrorAlert error={list.error} onRetry={list.reload} /> : null}

      {list.loading && !list.data ? (
        <Stack gap="xs">
          {Array.from({ length: 5 }, (_, i) => (
            <Skeleton key={i} h={52} />
          ))}
        </Stack>
      ) : null}

      {list.data && users.length === 0 ? (
        <EmptyCard icon={<IconUsers size={22} />} title={filtered ? 'No user matches' : 'No users yet'}>
          {filtered ? 'Try another part of the name, or every role.' : 'Create an account, or send someone an invite.'}
        </EmptyCard>
      ) : null}

      {users.length > 0 ? (
        <>
          <ListTable columns={['User', 'Role', 'Quota', 'Files', 'Storage', 'Created']} minWidth={760} visibleFrom="sm">
            {users.map((user) => (
              <Table.Tr key={user.id} data-testid={`user-row-${user.username}`}>
                <Table.Td>
                  <UserName user={user} self={user.id === actor.id} />
                </Table.Td>
                <Table.Td>
                  <RoleBadge role={user.role} />
                </Table.Td>
                <Table.Td>
                  <Text size="sm">{quotaSummary(user.quota)}</Text>
                </Table.Td>
                <Table.Td>
                  <Files user={user} usage={usageOf(user.id)} />
                </Table.Td>
                <Table.Td>
                  <Storage user={user} usage={usageOf(user.id)} />
                </Table.Td>
                <Table.Td>
                  <Text size="sm">{formatDate(user.createdAt)}</Text>
                </Table.Td>
                <Table.Td>
                  <RowActions actor={actor} user={user} onEdit={() => edit(user)} onDelete={() => remove(user)} />
                </Table.Td>
              </Table.Tr>
            ))}
          </ListTable>

          <Stack gap="sm" hiddenFrom="sm">
            {users.map((user) => (
              <Card withBorder key={user.id} data-testid={`user-card-${user.username}`} padding="sm">
                <Group justify="space-between" wrap="nowrap" align="flex-start">
                  <UserName user={user} self={user.id === actor.id} />
                  <RowActions actor={actor} user={user} onEdit={() => edit(user)} onDelete={() => remove(user)} />
                </Group>
                <Group gap="xs" mt="xs">
                  <RoleBadge role={user.role} />
                  <Text size="xs" c="dimmed">
                    since {formatDate(user.createdAt)}
                  </Text>
                </Group>
                <Group mt="xs" gap="lg" align="flex-start" wrap="nowrap">
                  <Stack gap={2}>
                    <Text size="xs" c="dimmed">
                      Files
                    </Text>
                    <Files user={user} usage={usageOf(user.id)} />
                  </Stack>
                  <Stack gap={2} style={{ flex: 1 }}>
                    <Text size="xs" c="dimmed">
                      Storage
                    </Text>
                    <Storage user={user} usage={usageOf(user.id)} />
                  </Stack>
                </Group>
                <Text size="xs" c="dimmed" mt="xs">
                  Quota: {quotaSummary(user.quota)}
                </Text>
              </Card>
            ))}
          </Stack>
        </>
      ) : null}

      {list.data && list.data.pages > 1 ? (
        <Group justify="space-between" wrap="wrap">
          <Text size="sm" c="dimmed">
            {list.data.total} users
          </Text>
          <Pagination
            total={list.data.pages}
            value={page}
            onChange={(p) => setSearch({ page: p === 1 ? null : p })}
            getControlProps={(control) => ({ 'aria-label': `${control} page` })}
            getItemProps={(p) => ({ 'aria-label': `Page ${p}` })}
          />
        </Group>
      ) : null}

      <UserFormModal
        opened={form.opened}
        onClose={() => setForm((f) => ({ ...f, opened: false }))}
        actor={actor}
        target={form.target}
        onSaved={saved}
      />
      <DeleteUserModal
        opened={removal.opened}
        target={removal.target}
        usage={removal.target ? usageOf(removal.target.id) : undefined}
        onClose={() => setRemoval((r) => ({ ...r, opened: false }))}
        onDeleted={() => list.reload()}
      />
    </Stack>
  );
}
