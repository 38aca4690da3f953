// Files: the signed-in user's files as a gallery or a table, paged, sorted, searched and filtered on the server
// (GET /api/user/files) with everything kept in the query string; several can be selected for bulk actions, and one
// opens in a detail panel. Only one page of files is ever loaded, so 100,000 files list as fast as 10.
import { Box, Button, Checkbox, Group, Loader, Stack, Text } from '@mantine/core';
import { useLocalStorage } from '@mantine/hooks';
import { IconUpload } from '@tabler/icons-react';
import { useCallback, useEffect, useState } from 'react';
import type { FileItem } from '../../api/types';
import { ErrorAlert } from '../../components/ErrorAlert';
import { PageHeader } from '../../components/PageHeader';
import { useFolderPaths } from '../../lib/folder-paths';
import { plural } from '../../lib/format';
import { useApi } from '../../lib/use-api';
import { Link } from '../../router';
import { BulkActions } from './BulkActions';
import { EmptyState } from './EmptyState';
import { FileDetail } from './FileDetail';
import { listFiles, updateFile } from './files-api';
import { listFolders } from '../folders/folder-api';
import { listTags } from '../tags/tag-api';
import { FileGallery, GallerySkeleton } from './FileGallery';
import { FileTable, TableSkeleton } from './FileTable';
import { FilesPager } from './FilesPager';
import { FilesToolbar, type FilesView } from './FilesToolbar';
import { notifyFileError } from './messages';
import type { SortField } from './types';
import { isFiltered, useFileQuery, useSearchText, writeFileQuery } from './use-file-query';

export function FilesPage() {
  const query = useFileQuery();
  const [view, setView] = useLocalStorage<FilesView>({
    key: 'chute.files.view',
    defaultValue: 'gallery',
    getInitialValueInEffect: false,
  });
  const [selected, setSelected] = useState<Set<string>>(() => new Set());
  const [searchText, setSearchText] = useSearchText(query.q);

  const tagKey = query.tags.join(',');
  const list = useApi(
    (signal) => listFiles({ ...query, tags: tagKey }, signal),
    [query.page, query.perpage, query.sortBy, query.order, query.field, query.q, query.favorite, tagKey, query.folder],
  );
  const tags = useApi((signal) => listTags(signal), []);
  const folders = useApi((signal) => listFolders('all', signal), []);
  const folderLabel = useFolderPaths(folders.data);

  // A new search or filter starts a new selection; turning pages keeps it.
  const filterKey = [query.q, query.field, query.favorite, tagKey, query.folder].join('|');
  useEffect(() => setSelected(new Set()), [filterKey]);

  // Past the last page (after deletions, or an old address): go to the last one.
  const pages = list.data?.pages ?? 0;
  useEffect(() => {
    if (list.data && pages > 0 && query.page > pages) writeFileQuery({ page: pages });
  }, [list.data, pages, query.page]);

  const files = list.data?.page ?? [];
  const filtered = isFiltered(query);
  const { setData: setList, reload: reloadList } = list;

  const replaceFile = useCallback(
    (next: FileItem) =>
      setList((prev) => (prev ? { ...prev, page: prev.page.map((f) => (f.id === next.id ? next : f)) } : prev!)),
    [setList],
  );

  const clearFilters = useCallback(() => {
    setSearchText('');
    writeFileQuery({ q: '', favorite: null, tags: [], folder: null, page: 1 });
  }, [setSearchText]);

  const toggleSelected = useCallback((file: FileItem) => {
    setSelected((prev) => {
      const next = new Set(prev);
      if (next.has(file.id)) next.delete(file.id);
      else next.add(file.id);
      return next;
    });
  }, []);

  const pageSelected = files.length > 0 && files.every((f) => selected.has(f.id));
  const somePageSelected = files.some((f) => selected.has(f.id));
  const togglePage = () =>
    setSelected((prev) => {
      const next = new Set(prev);
      for (const f of files) {
        if (pageSelected) next.delete(f.id);
        else next.add(f.id);
      }
      return next;
    });

  async function toggleFavorite(file: FileItem) {
    try {
      const next = await updateFile(file.id, { favorite: !file.favorite });
      // Under a favourite filter the file leaves the list; otherwise it changes in place.
      if (query.favorite !== null || query.sortBy === 'favorite') reloadList();
      else replaceFile(next);
    } catch (err) {
      notifyFileError(err, 'Could not change the favourite');
    }
  }

  const sortByColumn = (field: SortField) =>
    writeFileQuery(
      field === query.sortBy
        ? { order: query.order === 'asc' ? 'desc' : 'asc', page: 1 }
        : { sortBy: field, order: field === 'name' || field === 'type' ? 'asc' : 'desc', page: 1 },
    );

  const openFile = (file: FileItem) => writeFileQuery({ file: file.id });
  const total = list.data?.total ?? 0;
  const first = (query.page - 1) * query.perpage + 1;
  const last = Math.min(query.page * query.perpage, total);

  let content;
  if (!list.data) {
    content = list.error ? null : view === 'gallery' ? (
      <GallerySkeleton count={Math.min(query.perpage, 12)} />
    ) : (
      <TableSkeleton rows={8} />
    );
  } else if (total === 0) {
    content = <EmptyState filtered={filtered} onClearFilters={clearFilters} />;
  } else {
    const listProps = {
      files,
      selected,
      onToggleSelected: toggleSelected,
      onOpen: openFile,
      onToggleFavorite: (f: FileItem) => void toggleFavorite(f),
    };
    content = (
      <Box style={{ opacity: list.loading ? 0.6 : 1, transition: 'opacity 120ms' }} aria-busy={list.loading}>
        {view === 'gallery' ? (
          <FileGallery {...listProps} />
        ) : (
          <FileTable
            {...listProps}
            sortBy={query.sortBy}
            order={query.order}
            onSort={sortByColumn}
            allSelected={pageSelected}
            someSelected={somePageSelected}
            onToggleAll={togglePage}
          />
        )}
      </Box>
    );
  }

  return (
    <Stack gap={0}>
      <PageHeader
        title="Files"
        description={
          list.data
            ? `${plural(list.data.total, filtered ? 'matching file' : 'file')}`
            : 'Your uploads, their links and settings.'
        }
        actions={
          <Button component={Link} to="/dashboard/upload" leftSection={<IconUpload size={16} />}>
            Upload
          </Button>
        }
      />
      {list.data && total === 0 && !filtered ? null : (
        <FilesToolbar
          query={query}
          searchText={searchText}
          onSearchText={setSearchText}
          tags={tags.data}
          folders={folders.data}
          folderLabel={folderLabel}
          view={view}
          onView={setView}
          onChange={writeFileQuery}
          filtered={filtered}
          onClearFilters={clearFilters}
        />
      )}
      {selected.size > 0 ? (
        <BulkActions
          ids={[...selected]}
          folders={folders.data}
          folderLabel={folderLabel}
          onClear={() => setSelected(new Set())}
          onDone={() => {
            setSelected(new Set());
            reloadList();
            folders.reload();
          }}
        />
      ) : null}
      {list.error ? <ErrorAlert error={list.error} onRetry={reloadList} title="Could not load your files" /> : null}
      {list.data && total > 0 ? (
        <Group justify="space-between" mb="xs" gap="xs" mih={28}>
          <Group gap="sm">
            {view === 'gallery' ? (
              <Checkbox
                size="sm"
                label="Select page"
                checked={pageSelected}
                indeterminate={!pageSelected && somePageSelected}
                onChange={togglePage}
              />
            ) : null}
            <Text size="sm" c="dimmed" data-testid="files-range">
              {first.toLocaleString()}–{last.toLocaleString()} of {total.toLocaleString()}
            </Text>
          </Group>
          {list.loading ? <Loader size="xs" aria-label="Loading" /> : null}
        </Group>
      ) : null}
      {content}
      {list.data && total > 0 ? <FilesPager page={query.page} pages={pages} perpage={query.perpage} /> : null}
      <FileDetail
        fileId={query.file}
        initial={files.find((f) => f.id === query.file)}
        tags={tags.data}
        folders={folders.data}
        folderLabel={folderLabel}
        onClose={() => writeFileQuery({ file: null })}
        onChanged={(next) => {
          replaceFile(next);
          if (next.tags.some((t) => !tags.data?.some((known) => known.id === t.id))) tags.reload();
        }}
        onDeleted={(id) => {
          writeFileQuery({ file: null });
          setSelected((prev) => {
            const next = new Set(prev);
            next.delete(id);
            return next;
          });
          reloadList();
        }}
        onTagCreated={tags.reload}
      />
    </Stack>
  );
}
