// Scoped API tokens (POST/GET/DELETE /api/user/tokens): make one with a name, scopes and an expiry, see its secret
// once (with a copy button), list them with when each was last used, revoke one.
import {
  Alert,
  Badge,
  Button,
  Card,
  Checkbox,
  Group,
  Modal,
  Paper,
  Select,
  Skeleton,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { IconKey, IconPlus, IconTrash } from '@tabler/icons-react';
import { useState, type FormEvent } from 'react';
import { ConfirmModal } from '../../components/ConfirmModal';
import { CopyButton } from '../../components/CopyButton';
import { ErrorAlert } from '../../components/ErrorAlert';
import { ModalActions } from '../../components/ModalActions';
import { formatDate } from '../../lib/format';
import { notifySuccess } from '../../lib/notify';
import { useApi } from '../../lib/use-api';
import {
  createApiToken,
  listApiTokens,
  revokeApiToken,
  SCOPE_CHOICES,
  type ApiToken,
  type CreatedApiToken,
  type TokenScope,
} from './api-tokens-api';
import { settingsError } from './messages';

const EXPIRY_CHOICES = [
  { value: '', label: 'Never' },
  { value: '7', label: 'In 7 days' },
  { value: '30', label: 'In 30 days' },
  { value: '90', label: 'In 90 days' },
  { value: '365', label: 'In a year' },
];

const DAY_MS = 86_400_000;

function scopeLabel(scope: TokenScope): string {
  return SCOPE_CHOICES.find((c) => c.value === scope)?.label ?? scope;
}

/** The secret of a token just made: shown this once, with a copy button. */
export function NewTokenSecret({ created }: { created: CreatedApiToken }) {
  return (
    <Stack gap="xs">
      <Alert color="orange" icon={<IconKey size={18} />} p="sm">
        Copy the token now: it is shown only this once. Whoever has it can do what its scopes allow.
      </Alert>
      <Group gap="xs" align="flex-end" wrap="nowrap">
        <TextInput
          label={`Token “${created.name}”`}
          readOnly
          value={created.token}
          data-testid="new-api-token"
          styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
          style={{ flex: 1, minWidth: 0 }}
          onFocus={(e) => e.currentTarget.select()}
        />
        <CopyButton
          value={created.token}
          what="token"
          variant="default"
          size={36}
          iconSize={18}
          notice="The token is on your clipboard."
        />
      </Group>
    </Stack>
  );
}

function CreateTokenModal({
  opened,
  onClose,
  onCreated,
}: {
  opened: boolean;
  onClose: () => void;
  onCreated: (created: CreatedApiToken) => void;
}) {
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<string[]>(['upload']);
  const [expiry, setExpiry] = useState('');
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setFailure(null);
    try {
      const created = await createApiToken({
        name: name.trim(),
        scopes: scopes as TokenScope[],
        ...(expiry ? { expiresAt: new Date(Date.now() + Number(expiry) * DAY_MS).toISOString() } : {}),
      });
      setName('');
      setScopes(['upload']);
      setExpiry('');
      onCreated(created);
    } catch (err) {
      setFailure(settingsError(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal opened={opened} onClose={onClose} title="New API token" centered>
      <form onSubmit={(e) => void submit(e)}>
        <Stack gap="sm">
          <TextInput
            label="Name"
            description="What uses it, so that you know which one to revoke."
            placeholder="ShareX on the office PC"
            required
            maxLength={100}
            value={name}
            onChange={(e) => setName(e.currentTarget.value)}
            data-autofocus
          />
          <Checkbox.Group label="Scopes" description="What the token may do." value={scopes} onChange={setScopes}>
            <Stack gap={6} mt={6}>
              {SCOPE_CHOICES.map((choice) => (
                <Checkbox
                  key={choice.value}
                  value={choice.value}
                  label={choice.label}
                  description={choice.description}
                />
              ))}
            </Stack>
          </Checkbox.Group>
          <Select
            label="Expires"
            data={EXPIRY_CHOICES}
            value={expiry}
            onChange={(v) => setExpiry(v ?? '')}
            allowDeselect={false}
          />
          <ModalActions
            failure={failure}
            onCancel={onClose}
            busy={busy}
            label="Make token"
            disabled={name.trim() === '' || scopes.length === 0}
          />
        </Stack>
      </form>
    </Modal>
  );
}

function TokenRow({ token, onRevoke }: { token: ApiToken; onRevoke: () => void }) {
  const expired = token.expiresAt !== null && Date.parse(token.expiresAt) <= Date.now();
  return (
    <Paper withBorder p="sm" radius="md" data-testid="api-token-row">
      <Group justify="space-between" wrap="nowrap" gap="sm" align="center">
        <div style={{ minWidth: 0 }}>
          <Group gap={6}>
            <Text fw={500} size="sm">
              {token.name}
            </Text>
            {token.scopes.map((s) => (
              <Badge key={s} size="sm" variant="light">
                {scopeLabel(s)}
              </Badge>
            ))}
            {expired ? (
              <Badge size="sm" color="red" variant="light">
                Expired
              </Badge>
            ) : null}
          </Group>
          <Text size="xs" c="dimmed">
            Made {formatDate(token.createdAt)} · last used {token.lastUsedAt ? formatDate(token.lastUsedAt) : 'never'} ·{' '}
            {token.expiresAt ? `${expired ? 'expired' : 'expires'} ${formatDate(token.expiresAt)}` : 'never expires'}
          </Text>
        </div>
        <Button
          variant="subtle"
          color="red"
          size="xs"
          leftSection={<IconTrash size={14} />}
          onClick={onRevoke}
          aria-label={`Revoke ${token.name}`}
        >
          Revoke
        </Button>
      </Group>
    </Paper>
  );
}

export function ApiTokensSection() {
  const tokens = useApi((signal) => listApiTokens(signal), []);
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<CreatedApiToken | null>(null);
  const [revoking, setRevoking] = useState<ApiToken | null>(null);

  const revoke = async () => {
    if (!revoking) return;
    await revokeApiToken(revoking.id);
    notifySuccess(`“${revoking.name}” no longer works.`, 'Token revoked');
    setRevoking(null);
    tokens.reload();
  };

  return (
    <Card withBorder padding="lg" radius="md">
      <Group justify="space-between" align="flex-start" mb="sm">
        <div>
          <Title order={3} size="h4">
            Scoped API tokens
          </Title>
          <Text size="sm" c="dimmed">
            Tokens that can do only some things (for example only upload) and may expire: for an uploader on a shared
            machine or a script. Each is sent like the API token and can be revoked on its own.
          </Text>
        </div>
        <Button leftSection={<IconPlus size={16} />} onClick={() => setCreating(true)}>
          New token
        </Button>
      </Group>
      {created ? (
        <Paper withBorder p="sm" radius="md" mb="sm">
          <NewTokenSecret created={created} />
          <Group justify="flex-end" mt="xs">
            <Button variant="default" size="xs" onClick={() => setCreated(null)}>
              Done, I have copied it
            </Button>
          </Group>
        </Paper>
      ) : null}
      {tokens.error ? (
        <ErrorAlert error={tokens.error} onRetry={tokens.reload} />
      ) : tokens.loading && !tokens.data ? (
        <Skeleton height={56} radius="md" />
      ) : tokens.data && tokens.data.length > 0 ? (
        <Stack gap="xs">
          {tokens.data.map((t) => (
            <TokenRow key={t.id} token={t} onRevoke={() => setRevoking(t)} />
          ))}
        </Stack>
      ) : (
        <Text size="sm" c="dimmed">
          You have no scoped tokens yet.
        </Text>
      )}
      <CreateTokenModal
        opened={creating}
        onClose={() => setCreating(false)}
        onCreated={(c) => {
          setCreating(false);
          setCreated(c);
          tokens.reload();
        }}
      />
      <ConfirmModal
        opened={revoking !== null}
        title={`Revoke “${revoking?.name ?? ''}”?`}
        confirmLabel="Revoke token"
        onConfirm={revoke}
        onClose={() => setRevoking(null)}
      >
        <Text size="sm">It stops working at once: whatever uses it has to be given another token.</Text>
      </ConfirmModal>
    </Card>
  );
}
