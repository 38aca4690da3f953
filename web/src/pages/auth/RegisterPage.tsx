// Register: open registration, or with an invite code (from the invite link /auth/register?code=...).
import { Anchor, Button, PasswordInput, Stack, Text, TextInput } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import { FormError } from '../../components/FormError';
import { errorMessage } from '../../lib/notify';
import { useSession } from '../../lib/session';
import { Link, navigate, useLocation } from '../../router';
import { AuthFrame } from './AuthFrame';

export function RegisterPage() {
  const { server, refresh } = useSession();
  const { search } = useLocation();
  const [code, setCode] = useState(search.get('code') ?? '');
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const open = server?.registrationEnabled ?? false;
  const invites = server?.invitesEnabled ?? false;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (password !== confirm) {
      setError('The two passwords are not the same.');
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await api('/api/auth/register', { method: 'POST', body: { username, password, ...(code ? { code } : {}) } });
      await refresh();
      navigate('/dashboard', { replace: true });
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };

  if (server && !open && !invites) {
    return (
      <AuthFrame title="Registration is closed">
        <Text>This server does not accept new accounts. Ask its administrator for one.</Text>
        <Anchor component={Link} to="/auth/login" mt="md" display="block">
          Back to sign in
        </Anchor>
      </AuthFrame>
    );
  }

  return (
    <AuthFrame title="Create an account" subtitle={!open ? 'This server needs an invite code to register.' : undefined}>
      <form onSubmit={submit}>
        <Stack>
          <FormError message={error} />
          {invites ? (
            <TextInput label="Invite code" required={!open} value={code} onChange={(e) => setCode(e.currentTarget.value)} />
          ) : null}
          <TextInput label="Username" required autoComplete="username" value={username} onChange={(e) => setUsername(e.currentTarget.value)} />
          <PasswordInput label="Password" required autoComplete="new-password" value={password} onChange={(e) => setPassword(e.currentTarget.value)} />
          <PasswordInput label="Repeat the password" required autoComplete="new-password" value={confirm} onChange={(e) => setConfirm(e.currentTarget.value)} />
          <Button type="submit" loading={busy}>
            Register
          </Button>
          <Text size="sm" ta="center">
            Already have an account?{' '}
            <Anchor component={Link} to="/auth/login">
              Sign in
            </Anchor>
          </Text>
        </Stack>
      </form>
    </AuthFrame>
  );
}
