// Profile: the avatar, the username and the password, each saved on its own with PATCH /api/user.
import {
  Avatar,
  Button,
  Card,
  FileButton,
  Group,
  PasswordInput,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { IconPhoto, IconTrash } from '@tabler/icons-react';
import { useEffect, useState, type FormEvent } from 'react';
import { ConfirmModal } from '../../components/ConfirmModal';
import { FormError } from '../../components/FormError';
import { prepareAvatar } from '../../lib/avatar-image';
import { notifyError, notifySuccess } from '../../lib/notify';
import { useSession, useUser } from '../../lib/session';
import { settingsError, settingsErrorObject } from './messages';
import { updateUser } from './settings-api';
import { useSubmit } from '../../lib/use-submit';
import { requiredField } from '../../lib/bound';
import { PasswordStrengthMeter } from '../../components/PasswordStrengthMeter';
import { passwordLengthProblem, passwordRules } from '../../lib/password-strength';

function AvatarCard() {
  const user = useUser();
  const { refresh } = useSession();
  const [pending, setPending] = useState<string | null>(null);
  const { busy: preparing, run: run2 } = useSubmit((err) => {
    notifyError(err, 'That image cannot be used');
    return null;
  });
  const { busy: saving, run } = useSubmit((err) => {
    notifyError(settingsErrorObject(err), 'The avatar was not saved');
    return null;
  });
  const [confirmRemove, setConfirmRemove] = useState(false);

  const pick = async (file: File | null) => {
    if (!file) return;
    await run2(async () => {
      setPending(await prepareAvatar(file));
    });
  };

  const save = async (avatar: string | null) => {
    await run(async () => {
      await updateUser({ avatar });
      await refresh();
      setPending(null);
      setConfirmRemove(false);
      notifySuccess(avatar === null ? 'Your avatar was removed.' : 'Your new avatar is saved.');
    });
  };

  const shown = pending ?? user.avatar ?? null;
  return (
    <Card withBorder padding="lg" radius="md">
      <Title order={3} size="h4" mb="xs">
        Avatar
      </Title>
      <Group align="center" gap="md">
        <Avatar
          src={shown}
          size={80}
          radius={80}
          alt={pending ? 'New avatar (not saved yet)' : 'Your avatar'}
          data-testid="avatar-preview"
        >
          {user.username.slice(0, 2).toUpperCase()}
        </Avatar>
        <Stack gap="xs" style={{ flex: '1 1 170px', minWidth: 0 }}>
          {pending ? (
            <>
              <Text size="sm">This is how your new avatar looks. Save it?</Text>
              <Group gap="xs">
                <Button size="sm" onClick={() => void save(pending)} loading={saving}>
                  Save avatar
                </Button>
                <Button size="sm" variant="default" onClick={() => setPending(null)} disabled={saving}>
                  Cancel
                </Button>
              </Group>
            </>
          ) : (
            <>
              <Text size="sm" c="dimmed">
                PNG, JPEG, GIF or WebP. Large pictures are scaled down to 512 pixels.
              </Text>
              <Group gap="xs">
                <FileButton onChange={(file) => void pick(file)} accept="image/*">
                  {(props) => (
                    <Button
                      {...props}
                      size="sm"
                      variant="light"
                      leftSection={<IconPhoto size={16} />}
                      loading={preparing}
                    >
                      {user.avatar ? 'Change avatar' : 'Upload an avatar'}
                    </Button>
                  )}
                </FileButton>
                {user.avatar ? (
                  <Button
                    size="sm"
                    variant="subtle"
                    color="red"
                    leftSection={<IconTrash size={16} />}
                    onClick={() => setConfirmRemove(true)}
                  >
                    Remove
                  </Button>
                ) : null}
              </Group>
            </>
          )}
        </Stack>
      </Group>
      <ConfirmModal
        opened={confirmRemove}
        title="Remove your avatar?"
        confirmLabel="Remove avatar"
        busy={saving}
        onConfirm={() => void save(null)}
        onClose={() => setConfirmRemove(false)}
      >
        <Text size="sm">Your initials are shown instead. You can upload a new picture at any time.</Text>
      </ConfirmModal>
    </Card>
  );
}

function UsernameCard() {
  const user = useUser();
  const { refresh } = useSession();
  const [username, setUsername] = useState(user.username);
  const { busy: saving, error, setError, run } = useSubmit(settingsError);

  useEffect(() => setUsername(user.username), [user.username]);

  const trimmed = username.trim();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!trimmed) {
      setError('Enter a username.');
      return;
    }
    await run(async () => {
      await updateUser({ username: trimmed });
      await refresh();
      notifySuccess(`You are now ${trimmed}. Use this name when you sign in.`, 'Username changed');
    });
  };

  return (
    <Card withBorder padding="lg" radius="md" component="form" onSubmit={submit}>
      <Title order={3} size="h4" mb="xs">
        Username
      </Title>
      <Stack gap="sm">
        <TextInput
          label="Username"
          description="You sign in with this name."
          autoComplete="username"
          maxLength={128}
          value={username}
          error={error}
          onChange={(e) => {
            setUsername(e.currentTarget.value);
            setError(null);
          }}
        />
        <Group justify="flex-end">
          <Button type="submit" loading={saving} disabled={trimmed === user.username}>
            Save username
          </Button>
        </Group>
      </Stack>
    </Card>
  );
}

function PasswordCard() {
  const user = useUser();
  const { server, refresh } = useSession();
  const rules = passwordRules(server);
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [repeat, setRepeat] = useState('');
  const [noPasswordYet, setNoPasswordYet] = useState(false);
  const {
    busy: saving,
    error,
    setError,
    run,
  } = useSubmit((err) => {
    if ((err as { code?: number }).code === 1068) setNoPasswordYet(true);
    return settingsError(err);
  });

  const mismatch = repeat !== '' && next !== repeat;
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!next) {
      setError('Enter the new password.');
      return;
    }
    const tooShortOrLong = passwordLengthProblem(next, rules.min, rules.max);
    if (tooShortOrLong) {
      setError(tooShortOrLong);
      return;
    }
    if (next !== repeat) {
      setError('The new password and its repetition are not the same.');
      return;
    }
    await run(async () => {
      await updateUser(noPasswordYet ? { password: next } : { password: next, currentPassword: current });
      setCurrent('');
      setNext('');
      setRepeat('');
      setNoPasswordYet(false);
      await refresh();
      notifySuccess('Use the new password the next time you sign in.', 'Password changed');
    });
  };

  return (
    <Card withBorder padding="lg" radius="md" component="form" onSubmit={submit}>
      <Title order={3} size="h4" mb="xs">
        Password
      </Title>
      {/* Lets password managers file the new password under the right account. */}
      <input type="text" name="username" autoComplete="username" value={user.username} readOnly hidden />
      <Stack gap="sm">
        <FormError message={error} p="xs" />
        {noPasswordYet ? null : (
          <PasswordInput label="Current password" {...requiredField('current-password', current, setCurrent)} />
        )}
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
          <Stack gap={6}>
            <PasswordInput
              label="New password"
              description={rules.description}
              {...requiredField('new-password', next, setNext)}
            />
            <PasswordStrengthMeter
              password={next}
              minLength={rules.min}
              userInputs={[user.username, server?.siteTitle ?? '']}
            />
          </Stack>
          <PasswordInput
            label="Repeat the new password"
            {...requiredField('new-password', repeat, setRepeat)}
            error={mismatch ? 'Not the same as the new password.' : null}
          />
        </SimpleGrid>
        <Group justify="flex-end">
          <Button type="submit" loading={saving} disabled={!next || !repeat || (!noPasswordYet && !current)}>
            Change password
          </Button>
        </Group>
      </Stack>
    </Card>
  );
}

export function ProfileSection() {
  return (
    <Stack gap="md">
      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="md">
        <AvatarCard />
        <UsernameCard />
      </SimpleGrid>
      <PasswordCard />
    </Stack>
  );
}
