// Create a user, or edit one: username, password, role (only the roles the signed-in admin may give), avatar and
// quota. An edit sends only what changed.
import {
  Avatar,
  Button,
  Divider,
  FileButton,
  Group,
  Modal,
  PasswordInput,
  Select,
  Stack,
  Text,
  TextInput,
} from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { useEffect, useState, type FormEvent } from 'react';
import { ApiRequestError } from '../../api/client';
import type { Role, User } from '../../api/types';
import { ModalActions } from '../../components/ModalActions';
import { prepareAvatar } from '../../lib/avatar-image';
import { errorMessage, notifySuccess } from '../../lib/notify';
import { createUser, updateUser, type NewUser, type UserInput } from './admin-api';
import { adminErrorMessage, fieldIssues } from './admin-errors';
import { NO_QUOTA, QuotaFields, quotaForm, quotaInput, quotaProblems, type QuotaForm } from './QuotaFields';
import { canEditQuota, grantableRoles, ROLE_LABELS } from './roles';
import { useSubmit } from '../../lib/use-submit';
import { useSession } from '../../lib/session';
import { PasswordStrengthMeter } from '../../components/PasswordStrengthMeter';
import { passwordLengthProblem, passwordRefusal, passwordRules } from '../../lib/password-strength';

type FieldErrors = Partial<Record<'username' | 'password' | 'role' | 'avatar' | keyof QuotaForm, string>>;

/** Puts an API error on the field it is about, or returns it for the alert at the foot of the form. */
function errorsOf(err: unknown): { fields: FieldErrors; form: string | null } {
  const message = adminErrorMessage(err);
  if (!(err instanceof ApiRequestError)) return { fields: {}, form: message };
  switch (err.code) {
    case 1039:
    case 1040:
      return { fields: { username: message }, form: null };
    case 3007:
    case 3008:
    case 3015:
      return { fields: { role: message }, form: null };
    case 1056:
      return { fields: { maxBytes: message }, form: null };
    case 1057:
      return { fields: { maxFiles: message }, form: null };
    case 1000: {
      const refusal = passwordRefusal(err);
      if (refusal) return { fields: { password: refusal }, form: null };
      const issues = fieldIssues(err);
      const known = ['username', 'password', 'avatar', 'maxBytes', 'maxFiles', 'maxUrls'];
      const fields: FieldErrors = {};
      for (const [field, text] of Object.entries(issues))
        if (known.includes(field)) fields[field as keyof FieldErrors] = text;
      return Object.keys(fields).length > 0 ? { fields, form: null } : { fields: {}, form: message };
    }
    default:
      return { fields: {}, form: message };
  }
}

export function UserFormModal({
  opened,
  onClose,
  actor,
  target,
  onSaved,
}: {
  opened: boolean;
  onClose: () => void;
  actor: User;
  /** null: create a new user. */
  target: User | null;
  onSaved: (user: User) => void;
}) {
  const phone = useMediaQuery('(max-width: 36em)');
  const { server } = useSession();
  const rules = passwordRules(server);
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [role, setRole] = useState<Role>('USER');
  const [quota, setQuota] = useState<QuotaForm>(NO_QUOTA);
  /** undefined: unchanged; null: removed; a data URL: the new picture. */
  const [avatar, setAvatar] = useState<string | null | undefined>(undefined);
  const [errors, setErrors] = useState<FieldErrors>({});
  const {
    busy,
    error: formError,
    setError: setFormError,
    run,
  } = useSubmit((err) => {
    const found = errorsOf(err);
    setErrors(found.fields);
    return found.form;
  });

  useEffect(() => {
    if (!opened) return;
    setUsername(target?.username ?? '');
    setPassword('');
    setRole(target?.role ?? 'USER');
    setQuota(quotaForm(target?.quota));
    setAvatar(undefined);
    setErrors({});
    setFormError(null);
  }, [opened, target, setFormError]);

  /** Editing a field takes its error away. */
  const clear = (...fields: Array<keyof FieldErrors>) =>
    setErrors((e) =>
      fields.some((f) => e[f])
        ? Object.fromEntries(Object.entries(e).filter(([k]) => !fields.includes(k as keyof FieldErrors)))
        : e,
    );
  const changeQuota = (next: QuotaForm) => {
    setQuota(next);
    clear(...(Object.keys(next) as Array<keyof QuotaForm>).filter((k) => next[k] !== quota[k]));
  };

  const self = target !== null && target.id === actor.id;
  const roles = [...new Set<Role>([...(target ? [target.role] : []), ...grantableRoles(actor)])];
  const quotaEditable = target === null || canEditQuota(actor, target);
  const shownAvatar = avatar === undefined ? (target?.avatar ?? null) : avatar;

  const chooseAvatar = async (file: File | null) => {
    if (!file) return;
    try {
      setAvatar(await prepareAvatar(file));
      setErrors((e) => ({ ...e, avatar: undefined }));
    } catch (err) {
      setErrors((e) => ({ ...e, avatar: errorMessage(err) }));
    }
  };

  /** The request body: everything for a new user, only the changes for an edit (null when nothing changed). */
  const body = (): UserInput | null => {
    const newQuota = quotaInput(quota);
    if (!target) {
      return {
        username: username.trim(),
        password,
        role,
        ...(newQuota ? { quota: newQuota } : {}),
        ...(avatar ? { avatar } : {}),
      };
    }
    const edit: UserInput = {};
    if (username.trim() !== target.username) edit.username = username.trim();
    if (password !== '') edit.password = password;
    if (role !== target.role) edit.role = role;
    if (avatar !== undefined) edit.avatar = avatar;
    if (quotaEditable && JSON.stringify(newQuota) !== JSON.stringify(quotaInput(quotaForm(target.quota))))
      edit.quota = newQuota;
    return Object.keys(edit).length > 0 ? edit : null;
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const local: FieldErrors = { ...quotaProblems(quota) };
    if (username.trim() === '') local.username = 'Enter a username.';
    if (!target && password === '') local.password = 'Enter a password.';
    else if (password !== '') {
      const tooShortOrLong = passwordLengthProblem(password, rules.min, rules.max);
      if (tooShortOrLong) local.password = tooShortOrLong;
    }
    setErrors(local);
    setFormError(null);
    if (Object.keys(local).length > 0) return;
    const input = body();
    if (input === null) {
      onClose();
      return;
    }
    await run(async () => {
      const { user } = target ? await updateUser(target.id, input) : await createUser(input as NewUser);
      notifySuccess(
        target ? `${user.username} was updated.` : `${user.username} can now sign in.`,
        target ? 'Saved' : 'User created',
      );
      onSaved(user);
      onClose();
    });
  };

  return (
    <Modal
      opened={opened}
      onClose={onClose}
      title={target ? `Edit ${target.username}` : 'Create a user'}
      fullScreen={phone}
      size="lg"
      centered
    >
      <form onSubmit={submit} noValidate>
        <Stack>
          {target ? (
            <Group gap="sm" wrap="nowrap">
              <Avatar src={shownAvatar} size={56} radius="xl" alt="">
                {(username || target.username).slice(0, 2).toUpperCase()}
              </Avatar>
              <Stack gap={4}>
                <Group gap="xs">
                  <FileButton accept="image/*" onChange={(file) => void chooseAvatar(file)}>
                    {(props) => (
                      <Button {...props} size="xs" variant="default">
                        Choose a picture
                      </Button>
                    )}
                  </FileButton>
                  {shownAvatar ? (
                    <Button size="xs" variant="subtle" color="red" onClick={() => setAvatar(null)}>
                      Remove picture
                    </Button>
                  ) : null}
                </Group>
                <Text size="xs" c={errors.avatar ? 'red' : 'dimmed'} role={errors.avatar ? 'alert' : undefined}>
                  {errors.avatar ?? 'PNG, JPEG, GIF or WebP. Large pictures are scaled down to 512 pixels.'}
                </Text>
              </Stack>
            </Group>
          ) : null}
          <TextInput
            label="Username"
            required
            autoComplete="off"
            data-autofocus
            value={username}
            onChange={(e) => {
              setUsername(e.currentTarget.value);
              clear('username');
            }}
            error={errors.username}
            maxLength={128}
          />
          <PasswordInput
            label={target ? 'New password' : 'Password'}
            required={!target}
            autoComplete="new-password"
            value={password}
            onChange={(e) => {
              setPassword(e.currentTarget.value);
              clear('password');
            }}
            error={errors.password}
            description={
              target
                ? self
                  ? `Leave empty to keep your password. A new one: at least ${rules.min} characters.`
                  : `Leave empty to keep the current password. A new one (at least ${rules.min} characters) signs ` +
                    'them out everywhere.'
                : rules.description
            }
          />
          <PasswordStrengthMeter password={password} minLength={rules.min} userInputs={[username]} />
          <Select
            label="Role"
            data={roles.map((r) => ({ value: r, label: ROLE_LABELS[r] }))}
            value={role}
            onChange={(value) => {
              if (value) setRole(value as Role);
              clear('role');
            }}
            allowDeselect={false}
            disabled={roles.length < 2}
            error={errors.role}
            description={
              actor.role !== 'SUPERADMIN'
                ? 'Only a super administrator can make someone an administrator.'
                : role === 'SUPERADMIN' && target?.role !== 'SUPERADMIN'
                  ? 'Super administrators manage everything, and nobody else can change or delete them.'
                  : undefined
            }
          />
          <Divider label="Quota" labelPosition="left" />
          {quotaEditable ? (
            <QuotaFields value={quota} onChange={changeQuota} errors={errors} />
          ) : (
            <Text size="sm" c="dimmed">
              Only a super administrator can change their own quota.
            </Text>
          )}
          <ModalActions failure={formError} onCancel={onClose} busy={busy} label={target ? 'Save' : 'Create user'} />
        </Stack>
      </form>
    </Modal>
  );
}
