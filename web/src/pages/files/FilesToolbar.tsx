// The controls above the list: search (what and where), sort and order, favourite, tag and folder filters, and the
// gallery/table switch. Every change goes to the query string through the page's onChange. On a phone the sort and
// filters fold away behind a "Filters" button (with the number of filters in use).
import {
  ActionIcon,
  Badge,
  Box,
  Button,
  Center,
  Collapse,
  Group,
  MultiSelect,
  SegmentedControl,
  Select,
  Stack,
  TextInput,
  Tooltip,
  VisuallyHidden,
} from '@mantine/core';
import { useDisclosure, useMediaQuery } from '@mantine/hooks';
import type { ReactNode } from 'react';
import {
  IconAdjustmentsHorizontal,
  IconLayoutGrid,
  IconList,
  IconSearch,
  IconSortAscending,
  IconSortDescending,
  IconX,
} from '@tabler/icons-react';
import type { Folder, Tag } from '../../api/types';
import type { FileQuery } from './use-file-query';
import { SEARCH_FIELDS, SEARCH_LABELS, SORT_FIELDS, SORT_LABELS } from './types';

export type FilesView = 'gallery' | 'table';

export interface FilesToolbarProps {
  query: FileQuery;
  searchText: string;
  onSearchText: (text: string) => void;
  tags: Tag[] | undefined;
  folders: Folder[] | undefined;
  folderLabel: (folder: Folder) => string;
  view: FilesView;
  onView: (view: FilesView) => void;
  onChange: (patch: Partial<FileQuery>) => void;
  filtered: boolean;
  onClearFilters: () => void;
}

function ViewSwitch({
  view,
  onView,
  compact,
}: {
  view: FilesView;
  onView: (view: FilesView) => void;
  compact: boolean;
}) {
  const option = (value: FilesView, text: string, icon: ReactNode) => ({
    value,
    label: (
      <Center style={{ gap: 6 }}>
        {icon}
        {compact ? <VisuallyHidden>{text}</VisuallyHidden> : <span>{text}</span>}
      </Center>
    ),
  });
  return (
    <SegmentedControl
      aria-label="View"
      value={view}
      onChange={(value) => onView(value as FilesView)}
      data={[
        option('gallery', 'Gallery', <IconLayoutGrid size={16} aria-hidden />),
        option('table', 'Table', <IconList size={16} aria-hidden />),
      ]}
    />
  );
}

export function FilesToolbar(props: FilesToolbarProps) {
  const { query, onChange } = props;
  const phone = useMediaQuery('(max-width: 48em)') ?? false;
  const [filtersOpen, filters] = useDisclosure(false);
  const orderLabel =
    query.order === 'asc' ? 'Ascending order: switch to descending' : 'Descending order: switch to ascending';
  const favoriteValue = query.favorite === true ? 'true' : query.favorite === false ? 'false' : 'all';
  const activeFilters =
    (query.favorite !== null ? 1 : 0) + (query.tags.length > 0 ? 1 : 0) + (query.folder !== null ? 1 : 0);

  const search = (
    <TextInput
      style={{ flex: phone ? undefined : '1 1 200px' }}
      aria-label="Search files"
      placeholder={`Search by ${SEARCH_LABELS[query.field].toLowerCase()}…`}
      type="search"
      leftSection={<IconSearch size={16} aria-hidden />}
      value={props.searchText}
      onChange={(event) => props.onSearchText(event.currentTarget.value)}
      rightSection={
        props.searchText ? (
          <ActionIcon
            variant="subtle"
            color="gray"
            size="sm"
            aria-label="Clear the search"
            onClick={() => props.onSearchText('')}
          >
            <IconX size={14} />
          </ActionIcon>
        ) : null
      }
    />
  );
  const searchIn = (
    <Select
      style={{ flex: phone ? undefined : '0 1 160px' }}
      aria-label="Search in"
      allowDeselect={false}
      data={SEARCH_FIELDS.map((f) => ({ value: f, label: `In ${SEARCH_LABELS[f].toLowerCase()}` }))}
      value={query.field}
      onChange={(value) => value && onChange({ field: value as FileQuery['field'], page: 1 })}
    />
  );
  const sort = (
    <Group gap={4} wrap="nowrap" style={{ flex: phone ? undefined : '0 1 240px' }}>
      <Select
        style={{ flex: 1 }}
        aria-label="Sort by"
        allowDeselect={false}
        data={SORT_FIELDS.map((f) => ({ value: f, label: `Sort: ${SORT_LABELS[f]}` }))}
        value={query.sortBy}
        onChange={(value) => value && onChange({ sortBy: value as FileQuery['sortBy'], page: 1 })}
      />
      <Tooltip label={orderLabel}>
        <ActionIcon
          variant="default"
          size="input-sm"
          aria-label={orderLabel}
          onClick={() => onChange({ order: query.order === 'asc' ? 'desc' : 'asc', page: 1 })}
        >
          {query.order === 'asc' ? <IconSortAscending size={18} /> : <IconSortDescending size={18} />}
        </ActionIcon>
      </Tooltip>
    </Group>
  );
  const favorite = (
    <SegmentedControl
      aria-label="Favourites"
      fullWidth={phone}
      value={favoriteValue}
      onChange={(value) => onChange({ favorite: value === 'all' ? null : value === 'true', page: 1 })}
      data={[
        { value: 'all', label: 'All' },
        { value: 'true', label: 'Favourites' },
        { value: 'false', label: 'Others' },
      ]}
    />
  );
  const tagFilter = (
    <MultiSelect
      style={{ flex: phone ? undefined : '1 1 180px', maxWidth: phone ? undefined : 320 }}
      aria-label="Filter by tags"
      placeholder={props.tags && props.tags.length === 0 ? 'No tags yet' : query.tags.length ? undefined : 'Any tag'}
      disabled={props.tags !== undefined && props.tags.length === 0}
      data={(props.tags ?? []).map((t) => ({ value: t.id, label: t.name }))}
      value={query.tags.filter((id) => !props.tags || props.tags.some((t) => t.id === id))}
      onChange={(value) => onChange({ tags: value, page: 1 })}
      clearable
      searchable
      nothingFoundMessage="No such tag"
    />
  );
  const folderFilter = (
    <Select
      style={{ flex: phone ? undefined : '1 1 160px', maxWidth: phone ? undefined : 260 }}
      aria-label="Folder"
      placeholder={props.folders && props.folders.length === 0 ? 'No folders yet' : 'Any folder'}
      disabled={props.folders !== undefined && props.folders.length === 0 && query.folder === null}
      data={(props.folders ?? []).map((f) => ({ value: f.id, label: props.folderLabel(f) }))}
      value={query.folder}
      onChange={(value) => onChange({ folder: value, page: 1 })}
      clearable
      searchable
      nothingFoundMessage="No such folder"
    />
  );
  const clear = props.filtered ? (
    <Button variant="subtle" size="sm" leftSection={<IconX size={14} />} onClick={props.onClearFilters}>
      Clear filters
    </Button>
  ) : null;

  if (phone) {
    return (
      <Stack gap="xs" mb="md">
        {search}
        <Group gap="xs" justify="space-between" wrap="nowrap">
          <Button
            variant="default"
            leftSection={<IconAdjustmentsHorizontal size={16} />}
            rightSection={
              activeFilters > 0 ? (
                <Badge size="sm" circle>
                  {activeFilters}
                </Badge>
              ) : null
            }
            onClick={filters.toggle}
            aria-expanded={filtersOpen}
          >
            Sort and filter
          </Button>
          <ViewSwitch view={props.view} onView={props.onView} compact />
        </Group>
        <Collapse in={filtersOpen}>
          <Box pb={4}>
            <Stack gap="xs">
              {searchIn}
              {sort}
              {favorite}
              {tagFilter}
              {folderFilter}
              {clear}
            </Stack>
          </Box>
        </Collapse>
      </Stack>
    );
  }
  return (
    <Stack gap="xs" mb="md">
      <Group gap="xs" wrap="nowrap">
        {search}
        {searchIn}
        <ViewSwitch view={props.view} onView={props.onView} compact={false} />
      </Group>
      <Group gap="xs" wrap="wrap">
        {sort}
        {favorite}
        {tagFilter}
        {folderFilter}
        {clear}
      </Group>
    </Stack>
  );
}
