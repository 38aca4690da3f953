// What the Files page shows when there is nothing to list: how to get started, or how to see everything again.
import { Button } from '@mantine/core';
import { IconFilterOff, IconUpload } from '@tabler/icons-react';
import { EmptyCard } from '../../components/EmptyCard';
import { Link } from '../../router';

export function EmptyState({ filtered, onClearFilters }: { filtered: boolean; onClearFilters: () => void }) {
  return filtered ? (
    <EmptyCard
      testId="files-empty"
      icon={<IconFilterOff size={22} />}
      title="No files match"
      action={
        <Button variant="light" onClick={onClearFilters}>
          Clear filters
        </Button>
      }
    >
      Nothing matches this search and these filters. Try other words, or clear the filters to see all your files.
    </EmptyCard>
  ) : (
    <EmptyCard
      testId="files-empty"
      icon={<IconUpload size={22} />}
      title="No files yet"
      action={
        <Button component={Link} to="/dashboard/upload" leftSection={<IconUpload size={16} />}>
          Upload files
        </Button>
      }
    >
      Files you upload appear here, with their links, views and expiry. Drop a few on the upload page to get started.
    </EmptyCard>
  );
}
