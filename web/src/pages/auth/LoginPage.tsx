// Sign in: username and password, then the second step when the account has TOTP ({totp: true} answer): the 6-digit
// code, a recovery code, or one of the account's passkeys. Or a passkey alone, without username and password, or a
// button per configured OAuth / OpenID Connect provider, which leaves for the provider and comes back signed in.
// The 6-digit code is sent as soon as its last digit is typed (Enter then sends nothing more); a wrong one empties the
// boxes for the next try. *Use another account* goes back to the username and password.
import { Anchor, Button, Divider, PasswordInput, PinInput, Stack, Text, TextInput } from '@mantine/core';
import { IconKey, IconLogin2 } from '@tabler/icons-react';
import { useRef, useState, type FormEvent } from 'react';
import { logIn, logInWithPasskey, passkeyAssertion } from './auth-api';
import { FormError } from '../../components/FormError';
import { useSubmit } from '../../lib/use-submit';
import { useSession } from '../../lib/session';
import { Link, navigate, useLocation } from '../../router';
import { AuthFrame } from './AuthFrame';
import { requiredField } from '../../lib/bound';
import { OAUTH_PROVIDER_LABELS, oauthStartUrl } from '../../lib/oauth-providers';
import { passkeyErrorMessage, passkeysSupported } from '../../lib/passkeys';

/** Only same-site dashboard paths are followed after sign-in (no open redirect). */
function safeNext(next: string | null): string {
  return next && next.startsWith('/dashboard') && !next.startsWith('//') ? next : '/dashboard';
}

/** The digits of an authenticator app's code. */
const CODE_LENGTH = 6;

/** The second step the account asked for: which ways it offers, and which one the person is using. */
interface SecondStep {
  passkey: boolean;
  recovery: boolean;
}

export function LoginPage() {
  const { server, refresh } = useSession();
  const { search } = useLocation();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [step, setStep] = useState<SecondStep | null>(null);
  const { busy, running, error, setError, run } = useSubmit<'password' | 'passkey'>(passkeyErrorMessage);
  /** The first box of the code (the PinInput's ref). */
  const pinRef = useRef<HTMLInputElement>(null);
  const offerPasskeys = Boolean(server?.mfaPasskeys) && passkeysSupported();

  const signedIn = async () => {
    await refresh();
    navigate(safeNext(search.get('next')), { replace: true });
  };

  /** Sends the password, with the second step's code once there is one; run() sends nothing while a try is on. */
  const send = (secondCode: string | null) =>
    run(async () => {
      let answer: Awaited<ReturnType<typeof logIn>>;
      try {
        answer = await logIn(secondCode === null ? { username, password } : { username, password, code: secondCode });
      } catch (err) {
        // A wrong authenticator code is not sent again by a later Enter: the boxes are emptied for the next code.
        if (secondCode !== null && step && !step.recovery) {
          setCode('');
          pinRef.current?.focus();
        }
        throw err;
      }
      if ('totp' in answer) {
        setStep({ passkey: Boolean(answer.passkey) && offerPasskeys, recovery: false });
        return;
      }
      await signedIn();
    }, 'password');

  const submit = async (event?: FormEvent) => {
    event?.preventDefault();
    if (step && !step.recovery && code.length < CODE_LENGTH) {
      // Enter after the code went by itself, or before it is whole: nothing to send. An earlier refusal stays shown.
      if (!error) setError(`Enter the ${CODE_LENGTH} digits from your authenticator app.`);
      pinRef.current?.focus();
      return;
    }
    await send(step ? code.trim() : null);
  };

  /** The last digit typed (or the whole code pasted or filled in by the phone): the code goes at once. */
  const codeComplete = (value: string) => {
    if (value.length === CODE_LENGTH) void send(value);
  };

  /** Back to the first step, for another account: nothing of this one is kept. */
  const switchAccount = () => {
    setStep(null);
    setCode('');
    setUsername('');
    setPassword('');
    setError(null);
  };

  const secondStepWithPasskey = () =>
    run(async () => {
      await logIn({ username, password, passkey: await passkeyAssertion() });
      await signedIn();
    }, 'passkey');

  const passkeyOnly = () =>
    run(async () => {
      await logInWithPasskey();
      await signedIn();
    }, 'passkey');

  const subtitle = !step
    ? undefined
    : step.recovery
      ? 'Enter one of your recovery codes. Each works once.'
      : 'Enter the 6-digit code from your authenticator app.';

  return (
    <AuthFrame title="Sign in" subtitle={subtitle}>
      <form onSubmit={submit}>
        <Stack>
          <FormError message={error} />
          {step === null ? (
            <>
              <TextInput label="Username" {...requiredField('username', username, setUsername)} autoFocus />
              <PasswordInput label="Password" {...requiredField('current-password', password, setPassword)} />
            </>
          ) : step.recovery ? (
            <TextInput
              label="Recovery code"
              placeholder="xxxxx-xxxxx"
              value={code}
              onChange={(e) => setCode(e.currentTarget.value)}
              autoComplete="off"
              required
              autoFocus
            />
          ) : (
            <PinInput
              ref={pinRef}
              length={CODE_LENGTH}
              type="number"
              oneTimeCode
              value={code}
              onChange={setCode}
              onComplete={codeComplete}
              aria-label="Authentication code"
              // Each box is named for a screen reader too (Mantine names all six "PinInput" otherwise).
              getInputProps={(index) => ({ 'aria-label': `Digit ${index + 1} of ${CODE_LENGTH}` })}
              autoFocus
            />
          )}
          <Button type="submit" loading={running === 'password'} disabled={busy}>
            Sign in
          </Button>
          {step ? (
            <Stack gap={4} align="center">
              <Anchor
                component="button"
                type="button"
                size="sm"
                onClick={() => {
                  setCode('');
                  setStep({ ...step, recovery: !step.recovery });
                }}
              >
                {step.recovery ? 'Use a code from your authenticator app' : 'Use a recovery code'}
              </Anchor>
              {step.passkey ? (
                <Button
                  variant="default"
                  leftSection={<IconKey size={16} />}
                  onClick={secondStepWithPasskey}
                  loading={running === 'passkey'}
                  disabled={busy}
                  mt="xs"
                >
                  Use a passkey instead
                </Button>
              ) : null}
              <Anchor component="button" type="button" size="sm" mt="xs" onClick={switchAccount} disabled={busy}>
                Use another account
              </Anchor>
            </Stack>
          ) : offerPasskeys || (server?.oauthProviders.length ?? 0) > 0 ? (
            <>
              <Divider label="or" labelPosition="center" />
              {offerPasskeys ? (
                <Button
                  variant="default"
                  leftSection={<IconKey size={16} />}
                  onClick={passkeyOnly}
                  loading={running === 'passkey'}
                  disabled={busy}
                >
                  Sign in with a passkey
                </Button>
              ) : null}
              {(server?.oauthProviders ?? []).map((provider) => (
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
