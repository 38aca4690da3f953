// Tags: the person's labels for files, with how many files carry each; create, rename/recolour, delete.
// Files are tagged on the Files page; deleting a tag leaves the files as they are.
import { ActionIcon, Anchor, Card, Divider, Group, Skeleton, Stack, Text, Tooltip } from '@mantine/core';
import { IconPencil, IconPlus, IconTags, IconTrash } from '@tabler/icons-react';
import { useState } from 'react';
import type { Tag } from '../../api/types';
import { ConfirmModal } from '../../components/ConfirmModal';
import { EmptyCard } from '../../components/EmptyCard';
import { ErrorAlert } from '../../components/ErrorAlert';
import { PageHeader } from '../../components/PageHeader';
import { formatDate } from '../../lib/format';
import { notifySuccess } from '../../lib/notify';
import { useApi } from '../../lib/use-api';
import { useLastValue } from '../../lib/use-last-value';
import { Link } from '../../router';
import { deleteTag, listTags, TAG_SWATCHES, tagErrorMessage } from './tag-api';
import { TagFormModal, type TagForm } from './TagFormModal';
import { TagChip } from '../../components/TagChip';
import { IconLabelButton } from '../../components/IconLabelButton';
import { SearchInput } from '../../components/SearchInput';

/** Above this many tags a filter field is shown. */
const FILTER_FROM = 8;

const filesText = (n: number) => (n === 0 ? 'No files' : `${n} ${n === 1 ? 'file' : 'files'}`);

export function TagsPage() {
  const tags = useApi((signal) => listTags(signal), []);
  const [form, setForm] = useState<TagForm | null>(null);
  const [deleting, setDeleting] = useState<Tag | null>(null);
  const [filter, setFilter] = useState('');
  const all = tags.data ?? [];
  const shown = filter.trim() ? all.filter((t) => t.name.toLowerCase().includes(filter.trim().toLowerCase())) : all;
  const newTag = () => setForm({ mode: 'create', color: TAG_SWATCHES[all.length % TAG_SWATCHES.length]! });

  return (
    <Stack gap="md">
      <PageHeader
        title="Tags"
        description="Coloured labels for your files. Tag files on the Files page, then filter by tag there."
        actions={<IconLabelButton icon={IconPlus} label="New tag" onClick={newTag} />}
      />
      {tags.error ? <ErrorAlert error={tags.error} onRetry={tags.reload} title="Could not load your tags" /> : null}
      {!tags.data && tags.loading ? (
        <Stack gap="xs" aria-busy="true" aria-label="Loading tags">
          {Array.from({ length: 4 }, (_, i) => (
            <Skeleton key={i} h={52} />
          ))}
        </Stack>
      ) : null}
      {tags.data && all.length === 0 ? (
        <EmptyCard
          icon={<IconTags size={22} />}
          title="No tags yet"
          action={<IconLabelButton variant="light" icon={IconPlus} label="New tag" onClick={newTag} />}
        >
          Make tags such as “work” or “screenshots”, give each a colour, and put them on files to find them again
          quickly.
        </EmptyCard>
      ) : null}
      {all.length > FILTER_FROM ? (
        <SearchInput label="Filter tags" value={filter} onValue={setFilter} w={{ base: '100%', xs: 300 }} />
      ) : null}
      {all.length > 0 && shown.length === 0 ? (
        <Text size="sm" c="dimmed">
          No tag name has “{filter.trim()}” in it.
        </Text>
      ) : null}
      {shown.length > 0 ? (
        <Card withBorder padding={0}>
          {shown.map((tag, index) => (
            <div key={tag.id}>
              {index > 0 ? <Divider /> : null}
              <Group gap="sm" wrap="nowrap" px="sm" py="xs" data-testid="tag-row">
                <Stack gap={2} style={{ minWidth: 0, flex: 1 }} align="flex-start">
                  <TagChip name={tag.name} color={tag.color} />
                  <Text size="xs" c="dimmed">
                    {tag.files > 0 ? (
                      <Anchor component={Link} to={`/dashboard/files?tags=${encodeURIComponent(tag.id)}`} size="xs">
                        {filesText(tag.files)}
                      </Anchor>
                    ) : (
                      filesText(tag.files)
                    )}{' '}
                    · created {formatDate(tag.createdAt)}
                  </Text>
                </Stack>
                <Group gap={2} wrap="nowrap">
                  <Tooltip label={`Edit tag ${tag.name}`} withArrow>
                    <ActionIcon
                      variant="subtle"
                      color="gray"
                      aria-label={`Edit tag ${tag.name}`}
                      onClick={() => setForm({ mode: 'edit', tag })}
                    >
                      <IconPencil size={16} />
                    </ActionIcon>
                  </Tooltip>
                  <Tooltip label={`Delete tag ${tag.name}`} withArrow>
                    <ActionIcon
                      variant="subtle"
                      color="red"
                      aria-label={`Delete tag ${tag.name}`}
                      onClick={() => setDeleting(tag)}
                    >
                      <IconTrash size={16} />
                    </ActionIcon>
                  </Tooltip>
                </Group>
              </Group>
            </div>
          ))}
        </Card>
      ) : null}

      <TagFormModal
        form={form}
        onClose={() => setForm(null)}
        onSaved={() => {
          setForm(null);
          tags.reload();
        }}
      />
      <DeleteTagModal
        tag={deleting}
        onClose={() => setDeleting(null)}
        onDeleted={() => {
          setDeleting(null);
          tags.reload();
        }}
      />
    </Stack>
  );
}

function DeleteTagModal({
  tag: requested,
  onClose,
  onDeleted,
}: {
  tag: Tag | null;
  onClose: () => void;
  onDeleted: () => void;
}) {
  const tag = useLastValue(requested);
  const remove = async () => {
    if (!tag) return;
    await deleteTag(tag.id);
    notifySuccess(`Tag “${tag.name}” deleted.`);
    onDeleted();
  };
  return (
    <ConfirmModal
      opened={requested !== null}
      title={tag ? `Delete tag “${tag.name}”?` : ''}
      confirmLabel="Delete tag"
      onConfirm={remove}
      failureText={tagErrorMessage}
      onClose={onClose}
    >
      {tag
        ? tag.files === 0
          ? 'No files carry this tag.'
          : `It is taken off the ${filesText(tag.files).toLowerCase()} that carry it; the files themselves stay as they are.`
        : ''}
    </ConfirmModal>
  );
}
