// Register: open registration, or with an invite code (from the invite link /auth/register?code=...).
import { Anchor, Text, TextInput } from '@mantine/core';
import { useState } from 'react';
import { register } from './auth-api';
import { useSession } from '../../lib/session';
import { Link, useLocation } from '../../router';
import { AuthFrame } from './AuthFrame';
import { NewAccountForm } from './NewAccountForm';
import { bound } from '../../lib/bound';

export function RegisterPage() {
  const { server } = useSession();
  const { search } = useLocation();
  const [code, setCode] = useState(search.get('code') ?? '');

  const open = server?.registrationEnabled ?? false;
  const invites = server?.invitesEnabled ?? false;

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
      <NewAccountForm
        submitLabel="Register"
        send={(account) => register(account, code)}
        before={invites ? <TextInput label="Invite code" required={!open} {...bound(code, setCode)} /> : null}
        after={
          <Text size="sm" ta="center">
            Already have an account?{' '}
            <Anchor component={Link} to="/auth/login">
              Sign in
            </Anchor>
          </Text>
        }
      />
    </AuthFrame>
  );
}
