// The API token: hidden until asked for, copied with one click, regenerated (PATCH /api/user/token) after a warning
// that everything using the old one stops working.
import { ActionIcon, Alert, Button, Card, Group, List, Text, TextInput, Title, Tooltip } from '@mantine/core';
import { IconEye, IconEyeOff, IconRefresh } from '@tabler/icons-react';
import { useState } from 'react';
import { regenerateToken } from './settings-api';
import { ConfirmModal } from '../../components/ConfirmModal';
import { CopyButton } from '../../components/CopyButton';
import { notifyError, notifySuccess } from '../../lib/notify';
import { useSession } from '../../lib/session';
import { settingsErrorObject } from './messages';

export function TokenSection() {
  const { token, refresh } = useSession();
  const [shown, setShown] = useState(false);
  const [confirming, setConfirming] = useState(false);

  const regenerate = async () => {
    try {
      await regenerateToken();
      await refresh();
      setShown(true);
      setConfirming(false);
      notifySuccess('Update your uploaders and scripts with the new token.', 'New API token made');
    } catch (err) {
      notifyError(settingsErrorObject(err), 'The token was not regenerated');
    }
  };

  const value = token ?? '';
  return (
    <Card withBorder padding="lg" radius="md">
      <Title order={3} size="h4">
        API token
      </Title>
      <Text size="sm" c="dimmed" mb="sm">
        Apps and scripts (ShareX, Flameshot, curl) upload as you with this token in the authorization header. Anyone who
        has it can do so too: keep it secret.
      </Text>
      <Group gap="xs" align="flex-end" wrap="nowrap">
        <TextInput
          label="Your API token"
          readOnly
          value={shown ? value : '•'.repeat(32)}
          data-testid="api-token"
          styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
          style={{ flex: 1, minWidth: 0 }}
          onFocus={(e) => shown && e.currentTarget.select()}
        />
        <Tooltip label={shown ? 'Hide the token' : 'Show the token'}>
          <ActionIcon
            variant="default"
            size={36}
            aria-label={shown ? 'Hide the token' : 'Show the token'}
            onClick={() => setShown((s) => !s)}
          >
            {shown ? <IconEyeOff size={18} /> : <IconEye size={18} />}
          </ActionIcon>
        </Tooltip>
        <CopyButton
          value={value}
          what="token"
          variant="default"
          size={36}
          iconSize={18}
          notice="The API token is on your clipboard."
          disabled={!value}
        />
      </Group>
      <Group justify="flex-end" mt="md">
        <Button variant="light" color="red" leftSection={<IconRefresh size={16} />} onClick={() => setConfirming(true)}>
          Regenerate token
        </Button>
      </Group>
      <ConfirmModal
        opened={confirming}
        title="Make a new API token?"
        confirmLabel="Regenerate token"
        onConfirm={regenerate}
        onClose={() => setConfirming(false)}
      >
        <Alert color="orange" p="sm">
          <Text size="sm">
            The current token stops working at once. Everything that uses it has to be given the new one:
          </Text>
          <List size="sm" mt={4}>
            <List.Item>ShareX and other uploader configurations,</List.Item>
            <List.Item>the Flameshot/curl script,</List.Item>
            <List.Item>any other script or integration.</List.Item>
          </List>
        </Alert>
        <Text size="sm" mt="sm">
          Your browser sessions stay signed in. Download fresh uploader configurations afterwards.
        </Text>
      </ConfirmModal>
    </Card>
  );
}
