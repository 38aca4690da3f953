// Editing a short link: destination, custom name (cleared: back to its random code), visit limit, enabled, and its
// password kept, changed or removed. Only what changed is sent.
import { PasswordInput, SegmentedControl, Stack, Switch, Text, TextInput } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { FormModal } from '../../components/FormModal';
import { ModalActions } from '../../components/ModalActions';
import { notifySuccess } from '../../lib/notify';
import { useUrlForm } from './use-url-form';
import { checkUrlFields, updateUrl, type ShortUrl, type ShortUrlPatch, type UrlFieldErrors } from './url-api';
import { VisitLimitInput } from './VisitLimitInput';
import { bound } from '../../lib/bound';

type PasswordChoice = 'keep' | 'set' | 'remove';

export function UrlEditModal({
  url,
  onClose,
  onSaved,
}: {
  url: ShortUrl | null;
  onClose: () => void;
  onSaved: (url: ShortUrl) => void;
}) {
  return (
    <FormModal value={url} onClose={onClose} title="Edit short link" formKey={(u) => u.id} size="lg">
      {(u) => <EditForm url={u} onClose={onClose} onSaved={onSaved} />}
    </FormModal>
  );
}

function EditForm({ url, onClose, onSaved }: { url: ShortUrl; onClose: () => void; onSaved: (url: ShortUrl) => void }) {
  const [destination, setDestination] = useState(url.destination);
  const [vanity, setVanity] = useState(url.vanity ?? '');
  const [maxViews, setMaxViews] = useState<number | string>(url.maxViews ?? '');
  const [enabled, setEnabled] = useState(url.enabled);
  const [passwordChoice, setPasswordChoice] = useState<PasswordChoice>(url.passwordProtected ? 'keep' : 'set');
  const [password, setPassword] = useState('');
  const { busy, failure, setFailure, errors, setErrors, run } = useUrlForm();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const checked = checkUrlFields({ destination, vanity });
    const found: UrlFieldErrors = { ...checked.errors };
    if (url.passwordProtected && passwordChoice === 'set' && !password)
      found.password = 'Enter the new password, or keep the current one.';
    setErrors(found);
    setFailure(null);
    if (checked.errors || found.password) return;

    const patch: ShortUrlPatch = {};
    if (checked.destination !== url.destination) patch.destination = checked.destination;
    if (checked.vanity !== url.vanity) patch.vanity = checked.vanity;
    const newMax = typeof maxViews === 'number' ? maxViews : null;
    if (newMax !== url.maxViews) patch.maxViews = newMax;
    if (enabled !== url.enabled) patch.enabled = enabled;
    if (passwordChoice === 'remove') patch.password = null;
    else if (passwordChoice === 'set' && password) patch.password = password;
    if (Object.keys(patch).length === 0) {
      onClose();
      return;
    }
    await run(async () => {
      const saved = await updateUrl(url.id, patch);
      notifySuccess('The short link was saved.');
      onSaved(saved);
    });
  };

  return (
    <form onSubmit={(event) => void submit(event)} noValidate>
      <Stack gap="sm">
        <TextInput
          label="Destination"
          required
          inputMode="url"
          autoComplete="off"
          {...bound(destination, setDestination)}
          error={errors.destination}
          data-autofocus
        />
        <TextInput
          label="Custom name"
          description={`Leave empty to use its random code (${url.code})`}
          autoComplete="off"
          {...bound(vanity, setVanity)}
          error={errors.vanity}
        />
        <VisitLimitInput
          description={`Visited ${url.views} ${url.views === 1 ? 'time' : 'times'} so far. Leave empty for no limit.`}
          value={maxViews}
          onChange={setMaxViews}
          error={errors.maxViews}
        />
        <Switch
          label="Enabled"
          description="A disabled link answers “not found”"
          checked={enabled}
          onChange={(e) => setEnabled(e.currentTarget.checked)}
        />
        {url.passwordProtected ? (
          <Stack gap={6}>
            <Text size="sm" fw={500} id="url-password-choice">
              Password
            </Text>
            <SegmentedControl
              aria-labelledby="url-password-choice"
              value={passwordChoice}
              onChange={(v) => setPasswordChoice(v as PasswordChoice)}
              data={[
                { value: 'keep', label: 'Keep' },
                { value: 'set', label: 'Change' },
                { value: 'remove', label: 'Remove' },
              ]}
            />
            {passwordChoice === 'set' ? (
              <PasswordInput
                label="New password"
                autoComplete="new-password"
                {...bound(password, setPassword)}
                error={errors.password}
              />
            ) : null}
            {passwordChoice === 'remove' ? (
              <Text size="xs" c="dimmed">
                Anyone with the link will be sent straight to the destination.
              </Text>
            ) : null}
          </Stack>
        ) : (
          <PasswordInput
            label="Password"
            description="Optional: visitors must enter it first"
            placeholder="None"
            autoComplete="new-password"
            {...bound(password, setPassword)}
          />
        )}
        <ModalActions failure={failure} failureTitle="Not saved" onCancel={onClose} busy={busy} label="Save" />
      </Stack>
    </form>
  );
}
