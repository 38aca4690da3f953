// Where the user is signed in (GET /api/user/sessions): this browser first, then the others, each of which can be
// signed out (DELETE /api/user/sessions {sessionId}), or all of them at once ({all: true}, with rotateToken to
// replace the API token as well).
import { Badge, Button, Card, Checkbox, Group, Paper, Skeleton, Stack, Text, Title, Tooltip } from '@mantine/core';
import { IconDeviceDesktop, IconDeviceMobile, IconLogout, IconTerminal2 } from '@tabler/icons-react';
import { useState } from 'react';
import { ConfirmModal } from '../../components/ConfirmModal';
import { ErrorAlert } from '../../components/ErrorAlert';
import { formatDate } from '../../lib/format';
import { notifyError, notifySuccess } from '../../lib/notify';
import { useApi } from '../../lib/use-api';
import { useLastValue } from '../../lib/use-last-value';
import { settingsErrorObject } from './messages';
import type { SessionInfo } from './types';
import { listSessions, revokeSessions } from './settings-api';

const TOOLS = ['curl', 'ShareX', 'Flameshot', 'Wget', 'Node.js', 'Python', 'Postman'];

/** "Chrome on Linux", "curl", "An unknown browser on Windows": the server's reading of the User-Agent in words. */
export function describeSession(session: Pick<SessionInfo, 'client' | 'device'>): string {
  const client = session.client && session.client !== 'Unknown' ? session.client : null;
  const device = session.device && session.device !== 'Unknown' ? session.device : null;
  if (client && device) return `${client} on ${device}`;
  if (client) return client;
  if (device) return `A browser on ${device}`;
  return 'An unknown browser or app';
}

function SessionIcon({ session }: { session: SessionInfo }) {
  if (TOOLS.includes(session.client)) return <IconTerminal2 size={22} aria-hidden />;
  if (['iPhone', 'Android', 'iPad'].includes(session.device)) return <IconDeviceMobile size={22} aria-hidden />;
  return <IconDeviceDesktop size={22} aria-hidden />;
}

function SessionRow({
  session,
  current,
  onRevoke,
}: {
  session: SessionInfo;
  current?: boolean;
  onRevoke?: () => void;
}) {
  const words = describeSession(session);
  return (
    <Paper withBorder p="sm" radius="md" data-testid="session-row" aria-current={current ? 'true' : undefined}>
      <Group justify="space-between" wrap="nowrap" gap="sm" align="center">
        <Group gap="sm" wrap="nowrap" style={{ minWidth: 0 }}>
          <SessionIcon session={session} />
          <div style={{ minWidth: 0 }}>
            <Group gap={6}>
              <Text fw={500} size="sm">
                {words}
              </Text>
              {current ? (
                <Badge size="sm" variant="light" color="teal">
                  This browser
                </Badge>
              ) : null}
            </Group>
            <Text size="xs" c="dimmed">
              Signed in {formatDate(session.createdAt)}
            </Text>
            {session.ua ? (
              <Tooltip label={session.ua} multiline w={320} openDelay={300}>
                <Text size="xs" c="dimmed" truncate="end" maw={520} tabIndex={0}>
                  {session.ua}
                </Text>
              </Tooltip>
            ) : null}
          </div>
        </Group>
        {onRevoke ? (
          <Button
            size="xs"
            variant="light"
            color="red"
            onClick={onRevoke}
            style={{ flexShrink: 0 }}
            aria-label={`Sign out ${words}, signed in ${formatDate(session.createdAt)}`}
          >
            Sign out
          </Button>
        ) : null}
      </Group>
    </Paper>
  );
}

export function SessionsSection() {
  const sessions = useApi((signal) => listSessions(signal), []);
  const [revoking, setRevoking] = useState<SessionInfo | 'all' | null>(null);
  const [rotateToken, setRotateToken] = useState(false);
  // What the dialog asks about, kept while it fades out after the answer.
  const question = useLastValue(revoking) ?? 'all';

  const revoke = async () => {
    if (!revoking) return;
    try {
      sessions.setData(
        await revokeSessions(revoking === 'all' ? { all: true, rotateToken } : { sessionId: revoking.id }),
      );
      notifySuccess(
        revoking === 'all'
          ? `Every other session is signed out.${rotateToken ? ' Your API token was replaced.' : ''}`
          : `${describeSession(revoking)} is signed out.`,
      );
      setRotateToken(false);
      setRevoking(null);
    } catch (err) {
      notifyError(settingsErrorObject(err), 'The session was not signed out');
      sessions.reload();
      setRevoking(null);
    }
  };

  const data = sessions.data;
  return (
    <Card withBorder padding="lg" radius="md">
      <Group justify="space-between" align="flex-start" mb="sm" gap="sm">
        <div>
          <Title order={3} size="h4">
            Sessions
          </Title>
          <Text size="sm" c="dimmed">
            The browsers and apps signed in to your account. Sign out any you do not recognise, then change your
            password.
          </Text>
        </div>
        {data && data.other.length > 0 ? (
          <Button variant="light" color="red" leftSection={<IconLogout size={16} />} onClick={() => setRevoking('all')}>
            Sign out all other sessions
          </Button>
        ) : null}
      </Group>
      {sessions.error && !data ? (
        <ErrorAlert error={sessions.error} onRetry={sessions.reload} title="Could not load your sessions" />
      ) : !data ? (
        <Stack gap="sm" aria-busy>
          <Skeleton h={64} />
          <Skeleton h={64} />
        </Stack>
      ) : (
        <Stack gap="sm">
          {data.current ? <SessionRow session={data.current} current /> : null}
          {data.other.map((s) => (
            <SessionRow key={s.id} session={s} onRevoke={() => setRevoking(s)} />
          ))}
          {data.other.length === 0 ? (
            <Text size="sm" c="dimmed" ta="center" py="sm">
              You are not signed in anywhere else.
            </Text>
          ) : null}
        </Stack>
      )}
      <ConfirmModal
        opened={revoking !== null}
        title={question === 'all' ? 'Sign out all other sessions?' : 'Sign out this session?'}
        confirmLabel={question === 'all' ? 'Sign them out' : 'Sign it out'}
        onConfirm={revoke}
        onClose={() => setRevoking(null)}
      >
        <Text size="sm">
          {question === 'all'
            ? `${data?.other.length ?? 0} other ${data?.other.length === 1 ? 'session is' : 'sessions are'} signed out at once. This browser stays signed in.`
            : `${describeSession(question)}, signed in ${formatDate(question.createdAt)}, is signed out at once and has to sign in again.`}
        </Text>
        {question === 'all' ? (
          <Checkbox
            mt="sm"
            label="Also replace my API token"
            description="Apps that use it (ShareX, scripts) stop working until you give them the new one."
            checked={rotateToken}
            onChange={(e) => setRotateToken(e.currentTarget.checked)}
          />
        ) : (
          <Text size="sm" c="dimmed" mt="xs">
            Apps that use your API token (ShareX, scripts) are not affected: regenerate the token to stop them.
          </Text>
        )}
      </ConfirmModal>
    </Card>
  );
}
