// The "Share links" section of the file detail panel: whether the file is private (served only to its owner and
// through share links), the file's share links with copy and revoke, and a form for a new one with its own
// password, view limit and expiry (src/routes/files/file-shares.ts).
import {
  ActionIcon,
  Button,
  Group,
  NumberInput,
  PasswordInput,
  Select,
  Stack,
  Switch,
  Text,
  Tooltip,
} from '@mantine/core';
import { IconLink, IconTrash } from '@tabler/icons-react';
import { useEffect, useState, type FormEvent } from 'react';
import type { FileItem } from '../../api/types';
import { CopyButton } from '../../components/CopyButton';
import { EXPIRY_FROM_NOW } from '../../lib/expiry';
import { formatDate } from '../../lib/format';
import { useSubmit } from '../../lib/use-submit';
import { createShare, listShares, revokeShare, type FileShare } from './files-api';
import { notifyFileError, notifySuccess } from './messages';
import type { PatchFile } from './FileEditForms';

const SHARE_EXPIRY = EXPIRY_FROM_NOW.filter((choice) => choice.value !== 'custom');

function describeShare(share: FileShare): string {
  const parts = [share.passwordProtected ? 'Password' : 'No password'];
  parts.push(share.maxViews === null ? `${share.views} views` : `${share.views} of ${share.maxViews} views`);
  parts.push(share.expiresAt ? `expires ${formatDate(share.expiresAt)}` : 'never expires');
  return parts.join(' · ');
}

export function FileShares({ file, patch }: { file: FileItem; patch: PatchFile }) {
  const [shares, setShares] = useState<FileShare[] | null>(null);
  const [privacyBusy, setPrivacyBusy] = useState(false);
  const [password, setPassword] = useState('');
  const [maxViews, setMaxViews] = useState<string | number>('');
  const [expiry, setExpiry] = useState<string>('never');
  const { busy, error, run } = useSubmit();

  useEffect(() => {
    const controller = new AbortController();
    listShares(file.id, controller.signal)
      .then(setShares)
      .catch((err: unknown) => {
        if (!controller.signal.aborted) notifyFileError(err, 'Could not load the share links');
      });
    return () => controller.abort();
  }, [file.id]);

  async function togglePrivate(next: boolean) {
    setPrivacyBusy(true);
    try {
      await patch({ private: next });
      notifySuccess(next ? 'Only you and share links can open the file now.' : 'The file link works for anyone again.');
    } catch (err) {
      notifyFileError(err);
    } finally {
      setPrivacyBusy(false);
    }
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    const views = typeof maxViews === 'number' && maxViews > 0 ? maxViews : null;
    const made = await run(async () => {
      const share = await createShare(file.id, {
        ...(password ? { password } : {}),
        maxViews: views,
        expiresAt: expiry === 'never' ? null : expiry,
      });
      setShares((current) => [share, ...(current ?? [])]);
    });
    if (made) {
      setPassword('');
      setMaxViews('');
      setExpiry('never');
      notifySuccess('The share link is ready: copy it from the list.');
    }
  }

  async function revoke(share: FileShare) {
    try {
      await revokeShare(file.id, share.id);
      setShares((current) => (current ?? []).filter((s) => s.id !== share.id));
      notifySuccess('The share link no longer works.');
    } catch (err) {
      notifyFileError(err, 'Could not revoke the share link');
    }
  }

  return (
    <Stack gap="sm" data-testid="file-shares">
      <Switch
        label="Private"
        description="Only you can open the file's own link; everyone else needs a share link."
        checked={file.private}
        disabled={privacyBusy}
        onChange={(e) => void togglePrivate(e.currentTarget.checked)}
      />
      {shares === null ? (
        <Text size="sm" c="dimmed">
          Loading share links…
        </Text>
      ) : shares.length === 0 ? (
        <Text size="sm" c="dimmed">
          No share links yet.
        </Text>
      ) : (
        <Stack gap={6} component="ul" style={{ listStyle: 'none', padding: 0, margin: 0 }} aria-label="Share links">
          {shares.map((share) => (
            <Group key={share.id} component="li" gap="xs" wrap="nowrap" data-testid={`share-${share.id}`}>
              <IconLink size={16} style={{ flex: 'none' }} />
              <Stack gap={0} style={{ minWidth: 0, flex: 1 }}>
                <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
                  {share.url}
                </Text>
                <Text size="xs" c="dimmed">
                  {describeShare(share)}
                </Text>
              </Stack>
              <CopyButton
                value={share.url}
                label="Copy"
                size="xs"
                iconSize={14}
                notice="The share link is on your clipboard."
              />
              <Tooltip label="Revoke">
                <ActionIcon
                  variant="subtle"
                  color="red"
                  aria-label="Revoke share link"
                  onClick={() => void revoke(share)}
                >
                  <IconTrash size={16} />
                </ActionIcon>
              </Tooltip>
            </Group>
          ))}
        </Stack>
      )}
      <form onSubmit={(e) => void submit(e)} aria-label="New share link">
        <Stack gap={6}>
          <Group grow align="flex-start">
            <PasswordInput
              label="Link password"
              placeholder="None"
              value={password}
              onChange={(e) => setPassword(e.currentTarget.value)}
              maxLength={1024}
              autoComplete="new-password"
            />
            <NumberInput label="Most views" placeholder="Unlimited" min={1} value={maxViews} onChange={setMaxViews} />
            <Select
              label="Link expires"
              data={SHARE_EXPIRY.map((c) => ({ value: c.value, label: c.label }))}
              value={expiry}
              onChange={(value) => setExpiry(value ?? 'never')}
              allowDeselect={false}
              comboboxProps={{ withinPortal: true }}
            />
          </Group>
          {error ? (
            <Text size="sm" c="red" role="alert">
              {error}
            </Text>
          ) : null}
          <Group justify="flex-end">
            <Button type="submit" size="xs" loading={busy}>
              Create share link
            </Button>
          </Group>
        </Stack>
      </form>
    </Stack>
  );
}
