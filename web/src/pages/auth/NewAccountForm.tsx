// The form that makes an account and signs in with it, for the first account (setup) and for a registration: a
// username and a password typed twice (with the server's minimum length and a strength meter), then the dashboard.
import { Button, PasswordInput, Stack, TextInput } from '@mantine/core';
import { useState, type FormEvent, type ReactNode } from 'react';
import { FormError } from '../../components/FormError';
import { useSubmit } from '../../lib/use-submit';
import { useSession } from '../../lib/session';
import { navigate } from '../../router';
import { requiredField } from '../../lib/bound';
import { PasswordStrengthMeter } from '../../components/PasswordStrengthMeter';
import { passwordLengthProblem, passwordRefusal, passwordRules } from '../../lib/password-strength';
import { errorMessage } from '../../lib/notify';

export function NewAccountForm({
  send,
  submitLabel,
  before,
  after,
  autoFocus,
}: {
  /** Creates the account and signs in with it (POST /api/setup, POST /api/auth/register). */
  send: (account: { username: string; password: string }) => Promise<unknown>;
  submitLabel: string;
  /** Fields above the username (the invite code). */
  before?: ReactNode;
  /** Under the button (a link to sign in instead). */
  after?: ReactNode;
  /** Focus the username field (when it is the first field of the page). */
  autoFocus?: boolean;
}) {
  const { server, refresh } = useSession();
  const rules = passwordRules(server);
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const { busy, error, setError, run } = useSubmit((err) => passwordRefusal(err) ?? errorMessage(err));

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const tooShortOrLong = passwordLengthProblem(password, rules.min, rules.max);
    if (tooShortOrLong) {
      setError(tooShortOrLong);
      return;
    }
    if (password !== confirm) {
      setError('The two passwords are not the same.');
      return;
    }
    await run(async () => {
      await send({ username, password });
      await refresh();
      navigate('/dashboard', { replace: true });
    });
  };

  return (
    <form onSubmit={submit}>
      <Stack>
        <FormError message={error} />
        {before}
        <TextInput label="Username" {...requiredField('username', username, setUsername)} autoFocus={autoFocus} />
        <Stack gap={6}>
          <PasswordInput
            label="Password"
            description={rules.description}
            {...requiredField('new-password', password, setPassword)}
          />
          <PasswordStrengthMeter
            password={password}
            minLength={rules.min}
            userInputs={[username, server?.siteTitle ?? '']}
          />
        </Stack>
        <PasswordInput label="Repeat the password" {...requiredField('new-password', confirm, setConfirm)} />
        <Button type="submit" loading={busy}>
          {submitLabel}
        </Button>
        {after}
      </Stack>
    </form>
  );
}
