// Two-step sign-in with an authenticator app (TOTP): scan the QR code (or type the key), confirm with a code, then
// keep the recovery codes, shown this once. While it is on: new recovery codes, or turning it off, each with a code.
import { Alert, Badge, Button, Card, Group, Image, SimpleGrid, Stack, Text, TextInput, Title } from '@mantine/core';
import { IconDownload, IconShieldCheck } from '@tabler/icons-react';
import { useState, type FormEvent } from 'react';
import type { ApiAnswer } from '../../api/client';
import { CopyButton } from '../../components/CopyButton';
import { FormError } from '../../components/FormError';
import { ModalActions } from '../../components/ModalActions';
import { FormModal } from '../../components/FormModal';
import { notifySuccess } from '../../lib/notify';
import { useSession, useUser } from '../../lib/session';
import { useSubmit } from '../../lib/use-submit';
import { settingsError } from './messages';
import { disableTotp, enableTotp, newTotpSecret, regenerateRecoveryCodes } from './security-api';

type TotpSetup = ApiAnswer<'/api/user/mfa/totp', 'get'>;

/** The recovery codes, shown once: copy them, download them as a text file. */
export function RecoveryCodes({
  codes,
  siteTitle,
  onDone,
}: {
  codes: string[];
  siteTitle: string;
  onDone: () => void;
}) {
  const text = `${siteTitle} recovery codes (each works once in place of a code)\n\n${codes.join('\n')}\n`;
  const download = () => {
    const url = URL.createObjectURL(new Blob([text], { type: 'text/plain' }));
    const link = document.createElement('a');
    link.href = url;
    link.download = `${siteTitle.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-recovery-codes.txt`;
    link.click();
    URL.revokeObjectURL(url);
  };
  return (
    <Alert color="yellow" title="Save your recovery codes" mt="md">
      <Text size="sm" mb="sm">
        If you lose your phone, each of these codes signs you in once instead of a code from the app. They are shown
        only now: copy or download them and keep them somewhere safe.
      </Text>
      <SimpleGrid cols={{ base: 1, xs: 2 }} spacing={4} data-testid="recovery-codes" mb="sm">
        {codes.map((code) => (
          <Text key={code} ff="monospace" size="sm">
            {code}
          </Text>
        ))}
      </SimpleGrid>
      <Group gap="xs">
        <CopyButton value={codes.join('\n')} what="recovery codes" label="Copy codes" />
        <Button size="xs" variant="light" leftSection={<IconDownload size={16} />} onClick={download}>
          Download
        </Button>
        <Button size="xs" variant="default" onClick={onDone}>
          I have saved them
        </Button>
      </Group>
    </Alert>
  );
}

function TurnOnForm({ onCodes }: { onCodes: (codes: string[]) => void }) {
  const { refresh } = useSession();
  const [setup, setSetup] = useState<TotpSetup | null>(null);
  const [code, setCode] = useState('');
  const { busy, error, run } = useSubmit(settingsError);

  const start = () => run(async () => setSetup(await newTotpSecret()));
  const confirm = (event: FormEvent) => {
    event.preventDefault();
    if (!setup) return;
    void run(async () => {
      const answer = await enableTotp(setup.secret, code.trim());
      onCodes(answer.recoveryCodes);
      notifySuccess('You will be asked for a code from your app when you sign in.', 'Two-step sign-in is on');
      await refresh();
    });
  };

  if (!setup) {
    return (
      <>
        <FormError message={error} />
        <Group>
          <Button leftSection={<IconShieldCheck size={16} />} onClick={start} loading={busy}>
            Set up an authenticator app
          </Button>
        </Group>
      </>
    );
  }
  return (
    <form onSubmit={confirm}>
      <Stack gap="sm">
        <Text size="sm">
          1. Scan this QR code with an authenticator app (Aegis, Google Authenticator, 1Password, Bitwarden ...).
        </Text>
        <Image src={setup.qrcode} alt="QR code for your authenticator app" w={192} h={192} />
        <Text size="sm">Or type this key into the app:</Text>
        <Group gap="xs" wrap="nowrap">
          <TextInput
            readOnly
            value={setup.secret}
            aria-label="Key for your authenticator app"
            data-testid="totp-secret"
            styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
            style={{ flex: 1, minWidth: 0 }}
          />
          <CopyButton value={setup.secret} what="key" variant="default" size={36} iconSize={18} />
        </Group>
        <TextInput
          label="2. Enter the 6-digit code the app shows"
          value={code}
          onChange={(e) => setCode(e.currentTarget.value)}
          inputMode="numeric"
          autoComplete="one-time-code"
          maxLength={8}
          required
        />
        <FormError message={error} />
        <Group>
          <Button type="submit" loading={busy}>
            Turn on
          </Button>
          <Button variant="default" onClick={() => setSetup(null)} disabled={busy}>
            Cancel
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

type CodeAction = 'off' | 'recovery';

/** Asks for a code (or a recovery code) before turning TOTP off or making new recovery codes. */
function CodeModal({
  action,
  onClose,
  onCodes,
}: {
  action: CodeAction | null;
  onClose: () => void;
  onCodes: (codes: string[]) => void;
}) {
  const { refresh } = useSession();
  return (
    <FormModal
      value={action}
      onClose={onClose}
      formKey={(a) => a}
      title={(a) => (a === 'off' ? 'Turn off two-step sign-in?' : 'Make new recovery codes?')}
    >
      {(a) => <CodeForm action={a} onClose={onClose} onCodes={onCodes} refresh={refresh} />}
    </FormModal>
  );
}

function CodeForm({
  action,
  onClose,
  onCodes,
  refresh,
}: {
  action: CodeAction;
  onClose: () => void;
  onCodes: (codes: string[]) => void;
  refresh: () => Promise<void>;
}) {
  const [code, setCode] = useState('');
  const { busy, error, run } = useSubmit(settingsError);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      if (action === 'off') {
        await disableTotp(code.trim());
        notifySuccess('Signing in needs only your password now.', 'Two-step sign-in is off');
        await refresh();
      } else {
        onCodes((await regenerateRecoveryCodes(code.trim())).recoveryCodes);
      }
      onClose();
    });
  };
  return (
    <form onSubmit={submit}>
      <Text size="sm" mb="sm">
        {action === 'off'
          ? 'Your account will be protected by your password alone. Your recovery codes stop working.'
          : 'Your current recovery codes stop working; the new ones are shown once.'}
      </Text>
      <TextInput
        label="Code from your authenticator app, or a recovery code"
        value={code}
        onChange={(e) => setCode(e.currentTarget.value)}
        autoComplete="one-time-code"
        required
        data-autofocus
      />
      <ModalActions
        failure={error}
        onCancel={onClose}
        busy={busy}
        label={action === 'off' ? 'Turn off' : 'Make new codes'}
        danger={action === 'off'}
      />
    </form>
  );
}

export function TotpSection() {
  const user = useUser();
  const { server } = useSession();
  const [codes, setCodes] = useState<string[] | null>(null);
  const [action, setAction] = useState<CodeAction | null>(null);
  const allowed = server?.mfaTotpEnabled ?? true;

  return (
    <Card withBorder padding="lg" radius="md" data-testid="totp-section">
      <Group justify="space-between" align="flex-start" gap="sm">
        <div>
          <Title order={3} size="h4">
            Authenticator app
          </Title>
          <Text size="sm" c="dimmed" mb="sm">
            Two-step sign-in: after your password, a 6-digit code from an app on your phone.
          </Text>
        </div>
        {user.totpEnabled ? (
          <Badge color="teal" variant="light">
            On
          </Badge>
        ) : (
          <Badge color="gray" variant="light">
            Off
          </Badge>
        )}
      </Group>
      {user.totpEnabled ? (
        <Group gap="xs">
          {allowed ? (
            <>
              <Button variant="default" onClick={() => setAction('recovery')}>
                New recovery codes
              </Button>
              <Button variant="light" color="red" onClick={() => setAction('off')}>
                Turn off
              </Button>
            </>
          ) : (
            <Text size="sm">The administrator has turned these settings off; your codes are still asked for.</Text>
          )}
        </Group>
      ) : allowed ? (
        <TurnOnForm onCodes={setCodes} />
      ) : (
        <Text size="sm">The administrator has turned authenticator apps off on this server.</Text>
      )}
      {codes ? (
        <RecoveryCodes codes={codes} siteTitle={server?.siteTitle ?? 'Chute'} onDone={() => setCodes(null)} />
      ) : null}
      <CodeModal action={action} onClose={() => setAction(null)} onCodes={setCodes} />
    </Card>
  );
}
