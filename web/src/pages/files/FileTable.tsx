// The table view: one row per file (name, type, size, views, uploaded, expiry, favourite), sortable by clicking a
// column's header; the name opens the detail panel.
import { Box, Checkbox, Group, Skeleton, Table, Text, Tooltip, UnstyledButton, VisuallyHidden } from '@mantine/core';
import { IconArrowDown, IconArrowUp, IconArrowsSort, IconEyeOff, IconLock } from '@tabler/icons-react';
import { FileThumb } from '../../components/FileThumb';
import { OriginalName } from '../../components/OriginalName';
import { TagChip } from '../../components/TagChip';
import { fileKind, KIND_LABELS } from '../../lib/file-kind';
import { formatBytes, formatDate } from '../../lib/format';
import { FavoriteButton } from './FavoriteButton';
import type { FileListProps } from './FileGallery';
import classes from './files.module.css';
import type { SortField, SortOrder } from './types';

interface TableProps extends FileListProps {
  sortBy: SortField;
  order: SortOrder;
  onSort: (field: SortField) => void;
  allSelected: boolean;
  someSelected: boolean;
  onToggleAll: () => void;
}

function SortableHeader({
  field,
  label,
  sortBy,
  order,
  onSort,
}: { field: SortField; label: string } & Pick<TableProps, 'sortBy' | 'order' | 'onSort'>) {
  const active = sortBy === field;
  const Icon = !active ? IconArrowsSort : order === 'asc' ? IconArrowUp : IconArrowDown;
  return (
    <Table.Th aria-sort={active ? (order === 'asc' ? 'ascending' : 'descending') : undefined}>
      <UnstyledButton className={classes.sortHeader} onClick={() => onSort(field)}>
        {label}
        <Icon size={14} aria-hidden style={{ opacity: active ? 1 : 0.4 }} />
      </UnstyledButton>
    </Table.Th>
  );
}

export function FileTable(props: TableProps) {
  const { files, selected, onToggleSelected, onOpen, onToggleFavorite, allSelected, someSelected, onToggleAll } = props;
  const header = (field: SortField, label: string) => (
    <SortableHeader field={field} label={label} sortBy={props.sortBy} order={props.order} onSort={props.onSort} />
  );
  return (
    <Table.ScrollContainer minWidth={880}>
      <Table highlightOnHover verticalSpacing="xs" data-testid="file-table">
        <Table.Thead>
          <Table.Tr>
            <Table.Th w={40}>
              <Checkbox
                aria-label="Select all files on this page"
                checked={allSelected}
                indeterminate={!allSelected && someSelected}
                onChange={onToggleAll}
              />
            </Table.Th>
            {header('name', 'Name')}
            {header('type', 'Type')}
            {header('size', 'Size')}
            {header('views', 'Views')}
            {header('createdAt', 'Uploaded')}
            {header('deletesAt', 'Expires')}
            {header('favorite', 'Favourite')}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {files.map((file) => (
            <Table.Tr
              key={file.id}
              bg={selected.has(file.id) ? 'var(--mantine-primary-color-light)' : undefined}
              data-testid="file-row"
              data-file-name={file.name}
            >
              <Table.Td>
                <Checkbox
                  aria-label={`Select ${file.name}`}
                  checked={selected.has(file.id)}
                  onChange={() => onToggleSelected(file)}
                />
              </Table.Td>
              <Table.Td maw={360}>
                <UnstyledButton className={classes.nameButton} onClick={() => onOpen(file)}>
                  <Group gap="sm" wrap="nowrap">
                    <FileThumb file={file} size={40} iconSize={20} />
                    <Box miw={0}>
                      <Group gap={4} wrap="nowrap">
                        {file.password ? (
                          <IconLock size={14} aria-label="Password protected" style={{ flex: 'none' }} />
                        ) : null}
                        {file.private ? <IconEyeOff size={14} aria-label="Private" style={{ flex: 'none' }} /> : null}
                        <Text size="sm" fw={500} truncate className={classes.nameText} title={file.name}>
                          <VisuallyHidden>Open </VisuallyHidden>
                          {file.name}
                        </Text>
                      </Group>
                      <OriginalName file={file} />
                    </Box>
                  </Group>
                </UnstyledButton>
                {file.tags.length > 0 ? (
                  <Group gap={4} mt={4} ml={52}>
                    {file.tags.map((tag) => (
                      <TagChip key={tag.id} name={tag.name} color={tag.color} size="sm" />
                    ))}
                  </Group>
                ) : null}
              </Table.Td>
              <Table.Td>
                <Tooltip label={file.type} openDelay={300}>
                  <Text size="sm">{KIND_LABELS[fileKind(file.type)]}</Text>
                </Tooltip>
              </Table.Td>
              <Table.Td>
                <Text size="sm" style={{ whiteSpace: 'nowrap' }}>
                  {formatBytes(file.size)}
                </Text>
              </Table.Td>
              <Table.Td>
                <Text size="sm">
                  {file.views.toLocaleString()}
                  {file.maxViews !== null ? ` / ${file.maxViews.toLocaleString()}` : ''}
                </Text>
              </Table.Td>
              <Table.Td>
                <Text size="sm" style={{ whiteSpace: 'nowrap' }}>
                  {formatDate(file.createdAt)}
                </Text>
              </Table.Td>
              <Table.Td>
                <Text size="sm" c={file.deletesAt ? undefined : 'dimmed'} style={{ whiteSpace: 'nowrap' }}>
                  {file.deletesAt ? formatDate(file.deletesAt) : 'Never'}
                </Text>
              </Table.Td>
              <Table.Td>
                <FavoriteButton file={file} onToggle={() => onToggleFavorite(file)} />
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

export function TableSkeleton({ rows }: { rows: number }) {
  return (
    <Table aria-busy="true" aria-label="Loading files">
      <Table.Tbody>
        {Array.from({ length: rows }, (_, i) => (
          <Table.Tr key={i}>
            <Table.Td w={40}>
              <Skeleton h={18} w={18} />
            </Table.Td>
            <Table.Td>
              <Group gap="sm" wrap="nowrap">
                <Skeleton h={40} w={40} />
                <Skeleton h={12} w="60%" />
              </Group>
            </Table.Td>
            <Table.Td>
              <Skeleton h={12} w={60} />
            </Table.Td>
            <Table.Td>
              <Skeleton h={12} w={60} />
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
