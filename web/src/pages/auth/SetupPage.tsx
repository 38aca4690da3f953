// First run: creates the SUPERADMIN (POST /api/setup, which also signs them in).
import { Button, PasswordInput, Stack, TextInput } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import { FormError } from '../../components/FormError';
import { errorMessage } from '../../lib/notify';
import { useSession } from '../../lib/session';
import { navigate } from '../../router';
import { AuthFrame } from './AuthFrame';

export function SetupPage() {
  const { refresh } = useSession();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (password !== confirm) {
      setError('The two passwords are not the same.');
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await api('/api/setup', { method: 'POST', body: { username, password } });
      await refresh();
      navigate('/dashboard', { replace: true });
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <AuthFrame title="Welcome to Chute" subtitle="Create the first account. It becomes the super administrator of this server.">
      <form onSubmit={submit}>
        <Stack>
          <FormError message={error} />
          <TextInput label="Username" required autoComplete="username" value={username} onChange={(e) => setUsername(e.currentTarget.value)} autoFocus />
          <PasswordInput label="Password" required autoComplete="new-password" value={password} onChange={(e) => setPassword(e.currentTarget.value)} />
          <PasswordInput label="Repeat the password" required autoComplete="new-password" value={confirm} onChange={(e) => setConfirm(e.currentTarget.value)} />
          <Button type="submit" loading={busy}>
            Create the account
          </Button>
        </Stack>
      </form>
    </AuthFrame>
  );
}
