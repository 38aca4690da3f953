// The small forms of the detail panel, each saved on its own: the served name, the password, max views and expiry.
// Failures are shown under the field that caused them, in words.
import { Button, Group, NumberInput, PasswordInput, Stack, Text, TextInput } from '@mantine/core';
import { useEffect, useState, type FormEvent } from 'react';
import { ApiRequestError } from '../../api/client';
import type { FileItem } from '../../api/types';
import { EXPIRY_PRESETS, localInputValue, readExpiryDate } from '../../lib/expiry';
import { formatDate } from '../../lib/format';
import { errorMessage } from '../../lib/notify';
import { useSubmit } from '../../lib/use-submit';
import classes from './files.module.css';
import { notifySuccess } from './messages';

export type PatchFile = (body: Record<string, unknown>) => Promise<FileItem>;

interface FormProps {
  file: FileItem;
  patch: PatchFile;
}

const NAME_ERRORS: Record<number, string> = {
  1007: 'A name cannot contain slashes or control characters.',
  1009: 'That name is not allowed. Use letters, digits, dots, dashes and underscores.',
  1014: 'Another file already has that name. Choose a different one.',
};

/** A failure in words: the form's own sentence for the codes it knows, else the API's. */
const inWords =
  (messages: Record<number, string> = {}) =>
  (err: unknown): string =>
    err instanceof ApiRequestError && messages[err.code] ? messages[err.code]! : errorMessage(err);

export function RenameForm({ file, patch }: FormProps) {
  const [name, setName] = useState(file.name);
  const { busy, error, setError, run } = useSubmit(inWords(NAME_ERRORS));
  useEffect(() => {
    setName(file.name);
    setError(null);
  }, [file.id, file.name, setError]);

  async function submit(event: FormEvent) {
    event.preventDefault();
    const wanted = name.trim();
    if (!wanted) return setError('Enter a name.');
    if (await run(() => patch({ name: wanted }))) notifySuccess(`Renamed to ${wanted}. The old link no longer works.`);
  }

  return (
    <form onSubmit={(e) => void submit(e)}>
      <Stack gap={6}>
        <TextInput
          label="Name"
          description="The name in the link. Renaming changes the link."
          value={name}
          onChange={(e) => {
            setName(e.currentTarget.value);
            setError(null);
          }}
          error={error}
          maxLength={1024}
        />
        <Group justify="flex-end">
          <Button type="submit" size="xs" loading={busy} disabled={name.trim() === file.name}>
            Rename
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

export function PasswordForm({ file, patch }: FormProps) {
  const [password, setPassword] = useState('');
  const { running: busy, error, setError, run } = useSubmit<'set' | 'clear'>(inWords());
  useEffect(() => {
    setPassword('');
    setError(null);
  }, [file.id, setError]);

  async function save(value: string | null) {
    if (await run(() => patch({ password: value }), value === null ? 'clear' : 'set')) {
      setPassword('');
      notifySuccess(
        value === null
          ? 'The password was removed: anyone with the link can open the file.'
          : 'The file now asks for the password.',
      );
    }
  }

  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        if (password) void save(password);
      }}
    >
      <Stack gap={6}>
        <PasswordInput
          label={file.password ? 'New password' : 'Password'}
          description={
            file.password
              ? 'The file asks for a password. Enter a new one to change it.'
              : 'Visitors must enter it to open the file.'
          }
          value={password}
          onChange={(e) => {
            setPassword(e.currentTarget.value);
            setError(null);
          }}
          error={error}
          maxLength={1024}
          autoComplete="new-password"
        />
        <Group justify="flex-end" gap={6}>
          {file.password ? (
            <Button variant="light" color="red" size="xs" loading={busy === 'clear'} onClick={() => void save(null)}>
              Remove the password
            </Button>
          ) : null}
          <Button type="submit" size="xs" loading={busy === 'set'} disabled={!password}>
            {file.password ? 'Change the password' : 'Set the password'}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

export function MaxViewsForm({ file, patch }: FormProps) {
  const [value, setValue] = useState<string | number>(file.maxViews ?? '');
  const { busy, error, setError, run } = useSubmit(inWords());
  useEffect(() => {
    setValue(file.maxViews ?? '');
    setError(null);
  }, [file.id, file.maxViews, setError]);

  async function save(next: number | null) {
    if (await run(() => patch({ maxViews: next })))
      notifySuccess(
        next === null ? 'No view limit any more.' : `The file is deleted after ${next.toLocaleString()} views.`,
      );
  }

  const parsed = typeof value === 'number' ? value : value === '' ? null : Number(value);
  const unchanged = parsed === file.maxViews;
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        if (parsed === null || (Number.isInteger(parsed) && parsed >= 1)) void save(parsed);
        else setError('Enter a whole number of at least 1, or leave it empty for no limit.');
      }}
    >
      <Stack gap={6}>
        <NumberInput
          label="Max views"
          description={`Viewed ${file.views.toLocaleString()} times. The file is deleted after this many views; empty: no limit.`}
          placeholder="No limit"
          min={1}
          max={2_147_483_647}
          allowDecimal={false}
          allowNegative={false}
          value={value}
          onChange={(v) => {
            setValue(v);
            setError(null);
          }}
          error={error}
        />
        <Group justify="flex-end">
          <Button type="submit" size="xs" loading={busy} disabled={unchanged}>
            Save the limit
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** An ISO date as the value of a datetime-local input. */
const toLocalInput = (iso: string | null): string => (iso ? localInputValue(new Date(iso)) : '');

export function ExpiryForm({ file, patch }: FormProps) {
  const [value, setValue] = useState(toLocalInput(file.deletesAt));
  const { running: busy, error, setError, run } = useSubmit<'set' | 'clear'>(inWords());
  useEffect(() => {
    setValue(toLocalInput(file.deletesAt));
    setError(null);
  }, [file.id, file.deletesAt, setError]);

  async function save(value: string | null) {
    const at = value === null ? null : readExpiryDate(value);
    if (at === 'missing' || at === 'past') {
      setError('Choose a moment in the future.');
      return;
    }
    const deletesAt = at === null ? null : at.toISOString();
    if (await run(() => patch({ deletesAt }), at === null ? 'clear' : 'set'))
      notifySuccess(
        at === null
          ? 'The file is kept until you delete it.'
          : `The file will be deleted on ${formatDate(at.toISOString())}.`,
      );
  }

  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        if (value) void save(value);
      }}
    >
      <Stack gap={6}>
        <TextInput
          classNames={{ input: classes.dateInput }}
          type="datetime-local"
          label="Delete on"
          description={file.deletesAt ? `Deleted on ${formatDate(file.deletesAt)}.` : 'Kept until you delete it.'}
          value={value}
          onChange={(e) => {
            setValue(e.currentTarget.value);
            setError(null);
          }}
          error={error}
        />
        <Group gap={6} wrap="wrap">
          <Text size="xs" c="dimmed">
            From now:
          </Text>
          {EXPIRY_PRESETS.map((preset) => (
            <Button
              key={preset.value}
              size="compact-xs"
              variant="default"
              onClick={() => setValue(localInputValue(new Date(Date.now() + preset.ms)))}
            >
              {preset.label}
            </Button>
          ))}
        </Group>
        <Group justify="flex-end" gap={6}>
          {file.deletesAt ? (
            <Button size="xs" variant="light" color="red" loading={busy === 'clear'} onClick={() => void save(null)}>
              Never delete
            </Button>
          ) : null}
          <Button
            type="submit"
            size="xs"
            loading={busy === 'set'}
            disabled={!value || value === toLocalInput(file.deletesAt)}
          >
            Save the expiry
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
