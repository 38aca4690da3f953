// Sign in: username and password, then the TOTP code when the account has one ({totp: true} answer); or a button per
// configured OAuth / OpenID Connect provider, which leaves for the provider and comes back signed in.
import { Anchor, Button, Divider, PasswordInput, PinInput, Stack, Text, TextInput } from '@mantine/core';
import { IconLogin2 } from '@tabler/icons-react';
import { useState, type FormEvent } from 'react';
import { logIn } from './auth-api';
import { FormError } from '../../components/FormError';
import { useSubmit } from '../../lib/use-submit';
import { useSession } from '../../lib/session';
import { Link, navigate, useLocation } from '../../router';
import { AuthFrame } from './AuthFrame';
import { requiredField } from '../../lib/bound';
import { OAUTH_PROVIDER_LABELS, oauthStartUrl } from '../../lib/oauth-providers';

/** Only same-site dashboard paths are followed after sign-in (no open redirect). */
function safeNext(next: string | null): string {
  return next && next.startsWith('/dashboard') && !next.startsWith('//') ? next : '/dashboard';
}

export function LoginPage() {
  const { server, refresh } = useSession();
  const { search } = useLocation();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [needsCode, setNeedsCode] = useState(false);
  const { busy, error, run } = useSubmit();

  const submit = async (event?: FormEvent) => {
    event?.preventDefault();
    await run(async () => {
      const answer = await logIn(needsCode ? { username, password, code } : { username, password });
      if ('totp' in answer) {
        setNeedsCode(true);
        return;
      }
      await refresh();
      navigate(safeNext(search.get('next')), { replace: true });
    });
  };

  return (
    <AuthFrame title="Sign in" subtitle={needsCode ? 'Enter the 6-digit code from your authenticator app.' : undefined}>
      <form onSubmit={submit}>
        <Stack>
          <FormError message={error} />
          {needsCode ? (
            <PinInput
              length={6}
              type="number"
              oneTimeCode
              value={code}
              onChange={setCode}
              aria-label="Authentication code"
              autoFocus
            />
          ) : (
            <>
              <TextInput label="Username" {...requiredField('username', username, setUsername)} autoFocus />
              <PasswordInput label="Password" {...requiredField('current-password', password, setPassword)} />
            </>
          )}
          <Button type="submit" loading={busy}>
            Sign in
          </Button>
          {!needsCode && server && server.oauthProviders.length > 0 ? (
            <>
              <Divider label="or" labelPosition="center" />
              {server.oauthProviders.map((provider) => (
                <Button
                  key={provider}
                  component="a"
                  href={oauthStartUrl(provider)}
                  variant="default"
                  leftSection={<IconLogin2 size={16} />}
                >
                  Sign in with {OAUTH_PROVIDER_LABELS[provider]}
                </Button>
              ))}
            </>
          ) : null}
          {server && (server.registrationEnabled || server.invitesEnabled) ? (
            <Text size="sm" ta="center">
              No account yet?{' '}
              <Anchor component={Link} to="/auth/register">
                Register
              </Anchor>
            </Text>
          ) : null}
        </Stack>
      </form>
    </AuthFrame>
  );
}
