// What the Files page shows when there is nothing to list: how to get started, or how to see everything again.
import { Button, Card, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import { IconFilterOff, IconUpload } from '@tabler/icons-react';
import { Link } from '../../router';

export function EmptyState({ filtered, onClearFilters }: { filtered: boolean; onClearFilters: () => void }) {
  return (
    <Card withBorder padding="xl" data-testid="files-empty">
      <Stack align="center" gap="xs" py="lg">
        <ThemeIcon size={56} radius="xl" variant="light">
          {filtered ? <IconFilterOff size={28} /> : <IconUpload size={28} />}
        </ThemeIcon>
        <Title order={3} size="h4">
          {filtered ? 'No files match' : 'No files yet'}
        </Title>
        <Text c="dimmed" size="sm" ta="center" maw={420}>
          {filtered
            ? 'Nothing matches this search and these filters. Try other words, or clear the filters to see all your files.'
            : 'Files you upload appear here, with their links, views and expiry. Drop a few on the upload page to get started.'}
        </Text>
        {filtered ? (
          <Button variant="light" onClick={onClearFilters} mt="xs">
            Clear filters
          </Button>
        ) : (
          <Button component={Link} to="/dashboard/upload" leftSection={<IconUpload size={16} />} mt="xs">
            Upload files
          </Button>
        )}
      </Stack>
    </Card>
  );
}
