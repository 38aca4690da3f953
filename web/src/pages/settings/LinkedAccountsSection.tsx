// Linked sign-in providers: for each provider the server offers (and any still linked after an admin removed it),
// whether it is linked and as whom. Linking leaves for the provider (GET /api/auth/oauth/<provider>?state=link) and
// comes back here; unlinking asks first (DELETE /api/auth/oauth), and the server refuses to remove the only way in.
import { Badge, Button, Card, Group, Paper, Stack, Text, Title } from '@mantine/core';
import { IconLink, IconUnlink } from '@tabler/icons-react';
import { useState } from 'react';
import type { OAuthProviderKind } from '../../api/types';
import { ConfirmModal } from '../../components/ConfirmModal';
import { formatDate } from '../../lib/format';
import { notifySuccess } from '../../lib/notify';
import { OAUTH_PROVIDER_LABELS, oauthStartUrl } from '../../lib/oauth-providers';
import { useSession } from '../../lib/session';
import { settingsError } from './messages';
import { unlinkProvider } from './settings-api';

const ORDER: OAuthProviderKind[] = ['DISCORD', 'GITHUB', 'GOOGLE', 'OIDC'];

export function LinkedAccountsSection() {
  const { server, user, refresh } = useSession();
  const [unlinking, setUnlinking] = useState<OAuthProviderKind | null>(null);
  const links = user?.oauthProviders ?? [];
  const offered = new Set<OAuthProviderKind>([...(server?.oauthProviders ?? []), ...links.map((l) => l.provider)]);
  const providers = ORDER.filter((p) => offered.has(p));

  const unlink = async () => {
    if (!unlinking) return;
    await unlinkProvider(unlinking);
    await refresh();
    notifySuccess(`${OAUTH_PROVIDER_LABELS[unlinking]} is unlinked.`);
    setUnlinking(null);
  };

  return (
    <Card withBorder padding="lg" radius="md">
      <Title order={3} size="h4">
        Linked accounts
      </Title>
      <Text size="sm" c="dimmed" mb="sm">
        Sign in with an account you already have elsewhere. Linking takes you to the provider and back here.
      </Text>
      {providers.length === 0 ? (
        <Text size="sm" c="dimmed" ta="center" py="sm">
          This server offers no sign-in providers. An administrator can set them up in the server settings.
        </Text>
      ) : (
        <Stack gap="sm">
          {providers.map((provider) => {
            const link = links.find((l) => l.provider === provider);
            const label = OAUTH_PROVIDER_LABELS[provider];
            return (
              <Paper key={provider} withBorder p="sm" radius="md" data-testid={`linked-${provider.toLowerCase()}`}>
                <Group justify="space-between" wrap="nowrap" gap="sm">
                  <div style={{ minWidth: 0 }}>
                    <Group gap={6}>
                      <Text fw={500} size="sm">
                        {label}
                      </Text>
                      {link ? (
                        <Badge size="sm" variant="light" color="teal">
                          Linked
                        </Badge>
                      ) : null}
                    </Group>
                    <Text size="xs" c="dimmed" truncate="end">
                      {link ? `As ${link.username}, since ${formatDate(link.createdAt)}` : 'Not linked'}
                    </Text>
                  </div>
                  {link ? (
                    <Button
                      size="xs"
                      variant="light"
                      color="red"
                      leftSection={<IconUnlink size={14} />}
                      style={{ flexShrink: 0 }}
                      onClick={() => setUnlinking(provider)}
                    >
                      Unlink
                    </Button>
                  ) : server?.oauthProviders.includes(provider) ? (
                    <Button
                      size="xs"
                      variant="light"
                      component="a"
                      href={oauthStartUrl(provider, true)}
                      leftSection={<IconLink size={14} />}
                      style={{ flexShrink: 0 }}
                    >
                      Link {label}
                    </Button>
                  ) : null}
                </Group>
              </Paper>
            );
          })}
        </Stack>
      )}
      <ConfirmModal
        opened={unlinking !== null}
        title={`Unlink ${unlinking ? OAUTH_PROVIDER_LABELS[unlinking] : ''}?`}
        confirmLabel="Unlink"
        onConfirm={unlink}
        onClose={() => setUnlinking(null)}
        failureText={settingsError}
      >
        <Text size="sm">You will no longer be able to sign in with it. You can link it again later.</Text>
      </ConfirmModal>
    </Card>
  );
}
