// Passkeys: sign in with the phone, the computer or a security key instead of a password (or as the second step
// after it). Add one under a name, rename it, remove it; each shows when it was last used.
import { Button, Card, Group, Paper, Skeleton, Stack, Text, TextInput, Title } from '@mantine/core';
import { IconKey, IconPencil, IconTrash } from '@tabler/icons-react';
import { useState, type FormEvent } from 'react';
import type { Passkey } from '../../api/types';
import { ConfirmModal } from '../../components/ConfirmModal';
import { ErrorAlert } from '../../components/ErrorAlert';
import { FormError } from '../../components/FormError';
import { FormModal } from '../../components/FormModal';
import { ModalActions } from '../../components/ModalActions';
import { formatDate } from '../../lib/format';
import { notifySuccess } from '../../lib/notify';
import { passkeyErrorMessage, passkeysSupported } from '../../lib/passkeys';
import { useSession } from '../../lib/session';
import { useApi } from '../../lib/use-api';
import { useLastValue } from '../../lib/use-last-value';
import { useSubmit } from '../../lib/use-submit';
import { addPasskey, listPasskeys, removePasskey, renamePasskey } from './security-api';

function AddPasskeyForm({ onAdded }: { onAdded: () => void }) {
  const [name, setName] = useState('');
  const { busy, error, run } = useSubmit(passkeyErrorMessage);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      const added = await addPasskey(name.trim() || 'Passkey');
      notifySuccess(`You can sign in with "${added.name}" now.`, 'Passkey added');
      setName('');
      onAdded();
    });
  };
  return (
    <form onSubmit={submit}>
      <FormError message={error} />
      <Group align="flex-end" gap="xs">
        <TextInput
          label="Name of the new passkey"
          placeholder="e.g. Work laptop, Phone, YubiKey"
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
          maxLength={100}
          style={{ flex: 1, minWidth: 200 }}
        />
        <Button type="submit" leftSection={<IconKey size={16} />} loading={busy}>
          Add a passkey
        </Button>
      </Group>
    </form>
  );
}

function RenameForm({ passkey, onDone, onClose }: { passkey: Passkey; onDone: () => void; onClose: () => void }) {
  const [name, setName] = useState(passkey.name);
  const { busy, error, run } = useSubmit();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      await renamePasskey(passkey.id, name.trim());
      onDone();
      onClose();
    });
  };
  return (
    <form onSubmit={submit}>
      <TextInput
        label="Name"
        value={name}
        onChange={(e) => setName(e.currentTarget.value)}
        maxLength={100}
        required
        data-autofocus
      />
      <ModalActions failure={error} onCancel={onClose} busy={busy} label="Rename" />
    </form>
  );
}

export function PasskeysSection() {
  const { server } = useSession();
  const passkeys = useApi((signal) => listPasskeys(signal), []);
  const [renaming, setRenaming] = useState<Passkey | null>(null);
  const [removing, setRemoving] = useState<Passkey | null>(null);
  const question = useLastValue(removing);

  if (server && !server.mfaPasskeys) {
    return (
      <Card withBorder padding="lg" radius="md">
        <Title order={3} size="h4">
          Passkeys
        </Title>
        <Text size="sm">The administrator has turned passkeys off on this server.</Text>
      </Card>
    );
  }

  const remove = async () => {
    if (!removing) return;
    await removePasskey(removing.id);
    notifySuccess(`"${removing.name}" no longer signs you in.`, 'Passkey removed');
    setRemoving(null);
    passkeys.reload();
  };

  return (
    <Card withBorder padding="lg" radius="md" data-testid="passkeys-section">
      <Title order={3} size="h4">
        Passkeys
      </Title>
      <Text size="sm" c="dimmed" mb="sm">
        Sign in with your fingerprint, face, screen lock or a security key instead of your password. With an
        authenticator app turned on, a passkey also works in place of its code.
      </Text>
      {passkeys.error ? <ErrorAlert error={passkeys.error} onRetry={passkeys.reload} /> : null}
      <Stack gap="xs" mb="md">
        {passkeys.data === undefined && passkeys.loading ? <Skeleton h={56} /> : null}
        {passkeys.data?.length === 0 ? (
          <Text size="sm" c="dimmed">
            No passkeys yet.
          </Text>
        ) : null}
        {passkeys.data?.map((passkey) => (
          <Paper key={passkey.id} withBorder p="sm" radius="md" data-testid="passkey-row">
            <Group justify="space-between" wrap="nowrap" gap="sm">
              <div style={{ minWidth: 0 }}>
                <Text fw={500} size="sm" truncate="end">
                  {passkey.name}
                </Text>
                <Text size="xs" c="dimmed">
                  Added {formatDate(passkey.createdAt)} ·{' '}
                  {passkey.lastUsed ? `last used ${formatDate(passkey.lastUsed)}` : 'never used'}
                </Text>
              </div>
              <Group gap={4} wrap="nowrap">
                <Button
                  size="xs"
                  variant="default"
                  leftSection={<IconPencil size={14} />}
                  onClick={() => setRenaming(passkey)}
                  aria-label={`Rename ${passkey.name}`}
                >
                  Rename
                </Button>
                <Button
                  size="xs"
                  variant="light"
                  color="red"
                  leftSection={<IconTrash size={14} />}
                  onClick={() => setRemoving(passkey)}
                  aria-label={`Remove ${passkey.name}`}
                >
                  Remove
                </Button>
              </Group>
            </Group>
          </Paper>
        ))}
      </Stack>
      {passkeysSupported() ? (
        <AddPasskeyForm onAdded={passkeys.reload} />
      ) : (
        <Text size="sm">This browser cannot use passkeys (they need HTTPS, or localhost).</Text>
      )}
      <FormModal value={renaming} onClose={() => setRenaming(null)} formKey={(p) => p.id} title="Rename passkey">
        {(p) => <RenameForm passkey={p} onDone={passkeys.reload} onClose={() => setRenaming(null)} />}
      </FormModal>
      <ConfirmModal
        opened={removing !== null}
        title="Remove this passkey?"
        confirmLabel="Remove"
        onConfirm={remove}
        onClose={() => setRemoving(null)}
      >
        <Text size="sm">
          &quot;{question?.name}&quot; will no longer sign you in. You can remove it from the device too.
        </Text>
      </ConfirmModal>
    </Card>
  );
}
