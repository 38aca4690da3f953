// The foot of the list: how many files a page shows, and the pages.
import { Group, Pagination, Select } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { PER_PAGE_OPTIONS, writeFileQuery } from './use-file-query';

export function FilesPager({ page, pages, perpage }: { page: number; pages: number; perpage: number }) {
  const phone = useMediaQuery('(max-width: 36em)');
  return (
    <Group justify="space-between" mt="md" gap="sm">
      <Select
        aria-label="Files per page"
        w={150}
        size="sm"
        allowDeselect={false}
        data={PER_PAGE_OPTIONS.map((n) => ({ value: String(n), label: `${n} per page` }))}
        value={String(perpage)}
        onChange={(value) => value && writeFileQuery({ perpage: Number(value), page: 1 })}
      />
      <Pagination
        total={pages}
        value={Math.min(page, Math.max(pages, 1))}
        onChange={(next) => {
          writeFileQuery({ page: next });
          window.scrollTo({ top: 0 });
        }}
        siblings={phone ? 0 : 1}
        boundaries={1}
        size={phone ? 'sm' : 'md'}
        getItemProps={(n) => ({ 'aria-label': `Page ${n}` })}
        getControlProps={(control) => ({ 'aria-label': `${control.charAt(0).toUpperCase()}${control.slice(1)} page` })}
      />
    </Group>
  );
}
