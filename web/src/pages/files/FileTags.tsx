// The tags of one file in the detail panel: remove one with its ×, add one by name (a new name creates the tag).
// A file without tags says so; "No tags yet", with how to make one, only when the user has no tags at all.
import { Autocomplete, Button, Group, Stack, Text } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import { useState, type FormEvent } from 'react';
import type { FileItem, FileTag, Tag } from '../../api/types';
import { TagChip } from '../../components/TagChip';
import { createTag } from '../tags/tag-api';
import { setFileTag } from './files-api';
import { notifyFileError } from './messages';
import { useSubmit } from '../../lib/use-submit';

/** What a file without tags says: whether the user has tags to pick from decides the hint. */
function noTagsText(tags: Tag[] | undefined): string {
  if (tags === undefined) return 'No tags on this file.';
  if (tags.length === 0)
    return 'No tags yet. Type a name below to create your first tag: tags group files across folders and filter the list.';
  return 'No tags on this file. Pick one of your tags below, or type a new name to create one.';
}

export function FileTags({
  file,
  tags,
  onChanged,
  onTagCreated,
}: {
  file: FileItem;
  /** All the user's tags (undefined while loading). */
  tags: Tag[] | undefined;
  onChanged: (tags: FileTag[]) => void;
  /** A new tag was created: the page reloads its tag list. */
  onTagCreated: () => void;
}) {
  const [text, setText] = useState('');
  const { busy, run } = useSubmit((err) => {
    notifyFileError(err, 'Could not add the tag');
    return null;
  });
  const onFile = new Set(file.tags.map((t) => t.id));
  const available = (tags ?? []).filter((t) => !onFile.has(t.id));

  async function add(name: string) {
    const wanted = name.trim();
    if (!wanted) return;
    await run(async () => {
      let tag: Pick<Tag, 'id'> | undefined = (tags ?? []).find((t) => t.name.toLowerCase() === wanted.toLowerCase());
      if (!tag) {
        tag = await createTag({ name: wanted });
        onTagCreated();
      }
      onChanged(await setFileTag(file.id, tag.id, true));
      setText('');
    });
  }

  async function remove(tag: FileTag) {
    try {
      onChanged(await setFileTag(file.id, tag.id, false));
    } catch (err) {
      notifyFileError(err, 'Could not remove the tag');
    }
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    void add(text);
  }

  return (
    <Stack gap={6}>
      <Text size="sm" fw={500}>
        Tags
      </Text>
      {file.tags.length > 0 ? (
        <Group gap={6} data-testid="file-tags">
          {file.tags.map((tag) => (
            <TagChip key={tag.id} name={tag.name} color={tag.color} onRemove={() => void remove(tag)} />
          ))}
        </Group>
      ) : (
        <Text size="xs" c="dimmed">
          {noTagsText(tags)}
        </Text>
      )}
      <form onSubmit={submit}>
        <Group gap="xs" wrap="nowrap">
          <Autocomplete
            style={{ flex: 1 }}
            aria-label="Add a tag"
            placeholder={available.length > 0 ? 'Pick a tag or type a new name' : 'Type a new tag name'}
            data={available.map((t) => t.name)}
            value={text}
            onChange={setText}
            onOptionSubmit={(value) => void add(value)}
            maxLength={64}
            comboboxProps={{ withinPortal: true }}
          />
          <Button
            type="submit"
            variant="default"
            loading={busy}
            disabled={!text.trim()}
            leftSection={<IconPlus size={14} />}
          >
            Add
          </Button>
        </Group>
      </form>
    </Stack>
  );
}
