// Confirms deleting a user, and whether their files and short URLs go with them (otherwise they stay, owner-less).
import { Checkbox, Text } from '@mantine/core';
import { useEffect, useState } from 'react';
import type { User } from '../../api/types';
import { ConfirmModal } from '../../components/ConfirmModal';
import { formatBytes } from '../../lib/format';
import { notifySuccess } from '../../lib/notify';
import { deleteUser, type UserUsage } from './admin-api';
import { adminErrorMessage } from './admin-errors';

export function DeleteUserModal({
  opened,
  target,
  usage,
  onClose,
  onDeleted,
}: {
  opened: boolean;
  target: User | null;
  usage: UserUsage | undefined;
  onClose: () => void;
  onDeleted: (user: User) => void;
}) {
  const [withContent, setWithContent] = useState(false);

  useEffect(() => {
    if (opened) setWithContent(false);
  }, [opened]);

  const confirm = async () => {
    if (!target) return;
    const result = await deleteUser(target.id, withContent);
    const content = withContent ? ` with ${result.deletedFiles} file(s) and ${result.deletedUrls} short URL(s)` : '';
    notifySuccess(`${target.username} was deleted${content}.`, 'User deleted');
    onDeleted(target);
    onClose();
  };

  const content = usage
    ? `${usage.files} file(s) (${formatBytes(usage.storageUsed)}) and ${usage.urls} short URL(s)`
    : 'their files and short URLs';

  return (
    <ConfirmModal
      opened={opened}
      title={target ? `Delete ${target.username}?` : ''}
      confirmLabel="Delete user"
      onConfirm={confirm}
      failureText={adminErrorMessage}
      onClose={onClose}
    >
      <Text size="sm">
        {target?.username} will no longer be able to sign in, and their sessions and API token stop working. This cannot
        be undone.
      </Text>
      <Checkbox
        label={`Also delete ${content}`}
        description={
          withContent
            ? 'Their files are removed from storage and their links stop working.'
            : 'Otherwise they stay online, without an owner.'
        }
        checked={withContent}
        onChange={(e) => setWithContent(e.currentTarget.checked)}
      />
    </ConfirmModal>
  );
}
