// Creates an invite (expiry and how many accounts it may create), then shows its link, ready to copy.
import { Button, Group, Modal, NumberInput, Select, Stack, Text, TextInput } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { useEffect, useState, type FormEvent } from 'react';
import { CopyButton } from '../../components/CopyButton';
import { ModalActions } from '../../components/ModalActions';
import { EXPIRY_FROM_NOW, readExpiryDate } from '../../lib/expiry';
import { notifySuccess } from '../../lib/notify';
import { adminErrorMessage } from '../admin/admin-errors';
import { createInvite, inviteLink, type Invite } from './invite-api';
import { useSubmit } from '../../lib/use-submit';
import { bound } from '../../lib/bound';

export function CreateInviteModal({
  opened,
  onClose,
  onCreated,
}: {
  opened: boolean;
  onClose: () => void;
  onCreated: (invite: Invite) => void;
}) {
  const phone = useMediaQuery('(max-width: 36em)');
  const [expiry, setExpiry] = useState('7d');
  const [date, setDate] = useState('');
  const [maxUses, setMaxUses] = useState<number | ''>(1);
  const [dateError, setDateError] = useState<string | null>(null);
  const { busy, error, setError, run } = useSubmit(adminErrorMessage);
  const [created, setCreated] = useState<Invite | null>(null);

  useEffect(() => {
    if (!opened) return;
    setExpiry('7d');
    setDate('');
    setMaxUses(1);
    setError(null);
    setDateError(null);
    setCreated(null);
  }, [opened, setError]);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    setDateError(null);
    let expiresAt: string | null = expiry === 'never' ? null : expiry;
    if (expiry === 'custom') {
      const when = readExpiryDate(date);
      if (when === 'missing' || when === 'past') {
        setDateError(
          when === 'missing' ? 'Choose the date and time the invite stops working.' : 'Choose a moment in the future.',
        );
        return;
      }
      expiresAt = when.toISOString();
    }
    await run(async () => {
      const invite = await createInvite({ expiresAt, maxUses: maxUses === '' ? null : maxUses });
      setCreated(invite);
      onCreated(invite);
      notifySuccess(`Invite ${invite.code} is ready to share.`, 'Invite created');
    });
  };

  return (
    <Modal
      opened={opened}
      onClose={onClose}
      title={created ? 'Invite created' : 'Create an invite'}
      fullScreen={phone}
      centered
    >
      {created ? (
        <Stack>
          <Text size="sm">
            Send this link to the person you invite. It opens the registration page with the code filled in.
          </Text>
          <TextInput
            label="Invite link"
            value={inviteLink(created.code)}
            readOnly
            onFocus={(e) => e.currentTarget.select()}
            data-testid="new-invite-link"
          />
          <Group justify="flex-end">
            <CopyButton value={inviteLink(created.code)} label="Copy link" size="sm" />
            <Button onClick={onClose}>Done</Button>
          </Group>
        </Stack>
      ) : (
        <form onSubmit={submit} noValidate>
          <Stack>
            <Select
              label="Expires"
              data={[...EXPIRY_FROM_NOW]}
              value={expiry}
              onChange={(v) => v && setExpiry(v)}
              allowDeselect={false}
            />
            {expiry === 'custom' ? (
              <TextInput
                type="datetime-local"
                label="Expiry date and time"
                {...bound(date, setDate)}
                error={dateError}
              />
            ) : null}
            <NumberInput
              label="Accounts it may create"
              description="Empty: any number, until it expires or is deleted."
              min={1}
              allowDecimal={false}
              allowNegative={false}
              value={maxUses}
              onChange={(v) => setMaxUses(typeof v === 'number' ? v : v === '' ? '' : Number(v))}
            />
            <ModalActions failure={error} onCancel={onClose} busy={busy} label="Create invite" />
          </Stack>
        </form>
      )}
    </Modal>
  );
}
