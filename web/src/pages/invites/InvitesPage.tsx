// Invites (admins only, /dashboard/admin/invites): codes that let someone register while registration is closed.
// List them with their uses, expiry and creator; create one and copy its link; delete one.
import {
  ActionIcon,
  Alert,
  Anchor,
  Badge,
  Button,
  Card,
  Group,
  Skeleton,
  Stack,
  Table,
  Text,
  Tooltip,
} from '@mantine/core';
import { IconMailPlus, IconTrash } from '@tabler/icons-react';
import { useState } from 'react';
import { ConfirmModal } from '../../components/ConfirmModal';
import { CopyButton } from '../../components/CopyButton';
import { EmptyCard } from '../../components/EmptyCard';
import { ErrorAlert } from '../../components/ErrorAlert';
import { ListTable } from '../../components/ListTable';
import { PageHeader } from '../../components/PageHeader';
import { formatDate } from '../../lib/format';
import { notifySuccess } from '../../lib/notify';
import { useSession } from '../../lib/session';
import { useApi } from '../../lib/use-api';
import { Link } from '../../router';
import { adminErrorMessage } from '../admin/admin-errors';
import { CreateInviteModal } from './CreateInviteModal';
import { deleteInvite, inviteLink, inviteState, listInvites, type Invite, type InviteState } from './invite-api';

const STATE_BADGES: Record<InviteState, { label: string; color: string }> = {
  active: { label: 'Active', color: 'teal' },
  expired: { label: 'Expired', color: 'gray' },
  'used-up': { label: 'Used up', color: 'gray' },
};

function StateBadge({ invite }: { invite: Invite }) {
  const state = STATE_BADGES[inviteState(invite)];
  return (
    <Badge color={state.color} variant="light" radius="sm">
      {state.label}
    </Badge>
  );
}

const usesText = (invite: Invite) =>
  invite.maxUses === null ? `${invite.uses} of unlimited` : `${invite.uses} of ${invite.maxUses}`;
const expiryText = (invite: Invite) => (invite.expiresAt === null ? 'Never' : formatDate(invite.expiresAt));

function InviteActions({ invite, onDelete }: { invite: Invite; onDelete: () => void }) {
  return (
    <Group gap={4} wrap="nowrap" justify="flex-end">
      <CopyButton
        value={inviteLink(invite.code)}
        what={`link of invite ${invite.code}`}
        iconSize={18}
        notice="The invite link is in your clipboard."
      />
      <Tooltip label={`Delete invite ${invite.code}`}>
        <ActionIcon variant="subtle" color="red" onClick={onDelete} aria-label={`Delete invite ${invite.code}`}>
          <IconTrash size={18} />
        </ActionIcon>
      </Tooltip>
    </Group>
  );
}

function Code({ invite }: { invite: Invite }) {
  return (
    <Text ff="monospace" fw={600} size="sm">
      {invite.code}
    </Text>
  );
}

export function InvitesPage() {
  const { server } = useSession();
  const invites = useApi((signal) => listInvites(signal), []);
  const [creating, setCreating] = useState(false);
  const [removal, setRemoval] = useState<{ opened: boolean; invite: Invite | null }>({ opened: false, invite: null });
  const enabled = server?.invitesEnabled ?? false;
  const list = invites.data ?? [];
  const askDelete = (invite: Invite) => setRemoval({ opened: true, invite });

  const remove = async () => {
    const invite = removal.invite;
    if (!invite) return;
    await deleteInvite(invite.id);
    invites.setData((prev) => (prev ?? []).filter((i) => i.id !== invite.id));
    notifySuccess(`Invite ${invite.code} no longer works.`, 'Invite deleted');
    setRemoval((r) => ({ ...r, opened: false }));
  };

  return (
    <Stack gap="md">
      <PageHeader
        title="Invites"
        description="Codes that let someone create an account, even while registration is closed."
        actions={
          <Button leftSection={<IconMailPlus size={18} />} onClick={() => setCreating(true)} disabled={!enabled}>
            Create invite
          </Button>
        }
      />
      {server && !enabled ? (
        <Alert color="yellow" title="Invites are turned off">
          New invites cannot be made and existing ones do not work. Turn on <b>Invites</b> in the{' '}
          <Anchor component={Link} to="/dashboard/admin/settings#settings-registration" inherit>
            server settings
          </Anchor>{' '}
          to use them.
        </Alert>
      ) : null}
      {server?.registrationEnabled ? (
        <Alert color="blue" variant="light">
          Registration is open: anyone can create an account without an invite.
        </Alert>
      ) : null}
      {invites.error ? <ErrorAlert error={invites.error} onRetry={invites.reload} /> : null}
      {invites.loading && !invites.data ? (
        <Stack gap="xs">
          {Array.from({ length: 3 }, (_, i) => (
            <Skeleton key={i} h={48} />
          ))}
        </Stack>
      ) : null}
      {invites.data && list.length === 0 ? (
        <EmptyCard icon={<IconMailPlus size={22} />} title="No invites yet">
          {enabled
            ? 'Create one and send its link to the person you want to invite.'
            : 'Turn invites on first, then create one here.'}
        </EmptyCard>
      ) : null}
      {list.length > 0 ? (
        <>
          <ListTable
            columns={['Code', 'Status', 'Used', 'Expires', 'Created by', 'Created']}
            minWidth={720}
            visibleFrom="sm"
          >
            {list.map((invite) => (
              <Table.Tr key={invite.id} data-testid={`invite-row-${invite.code}`}>
                <Table.Td>
                  <Code invite={invite} />
                </Table.Td>
                <Table.Td>
                  <StateBadge invite={invite} />
                </Table.Td>
                <Table.Td>
                  <Text size="sm">{usesText(invite)}</Text>
                </Table.Td>
                <Table.Td>
                  <Text size="sm">{expiryText(invite)}</Text>
                </Table.Td>
                <Table.Td>
                  <Text size="sm">{invite.inviter?.username ?? 'A deleted user'}</Text>
                </Table.Td>
                <Table.Td>
                  <Text size="sm">{formatDate(invite.createdAt)}</Text>
                </Table.Td>
                <Table.Td>
                  <InviteActions invite={invite} onDelete={() => askDelete(invite)} />
                </Table.Td>
              </Table.Tr>
            ))}
          </ListTable>
          <Stack gap="sm" hiddenFrom="sm">
            {list.map((invite) => (
              <Card withBorder padding="sm" key={invite.id} data-testid={`invite-card-${invite.code}`}>
                <Group justify="space-between" wrap="nowrap">
                  <Group gap="xs" wrap="nowrap">
                    <Code invite={invite} />
                    <StateBadge invite={invite} />
                  </Group>
                  <InviteActions invite={invite} onDelete={() => askDelete(invite)} />
                </Group>
                <Text size="xs" c="dimmed" mt={6}>
                  Used {usesText(invite)} · expires {invite.expiresAt === null ? 'never' : formatDate(invite.expiresAt)}
                </Text>
                <Text size="xs" c="dimmed">
                  By {invite.inviter?.username ?? 'a deleted user'}, {formatDate(invite.createdAt)}
                </Text>
              </Card>
            ))}
          </Stack>
        </>
      ) : null}

      <CreateInviteModal
        opened={creating}
        onClose={() => setCreating(false)}
        onCreated={(invite) => invites.setData((prev) => [invite, ...(prev ?? [])])}
      />
      <ConfirmModal
        opened={removal.opened}
        title={`Delete invite ${removal.invite?.code ?? ''}?`}
        confirmLabel="Delete invite"
        onConfirm={remove}
        failureText={adminErrorMessage}
        onClose={() => setRemoval((r) => ({ ...r, opened: false }))}
      >
        Its link stops working at once. Accounts already created with it stay.
      </ConfirmModal>
    </Stack>
  );
}
