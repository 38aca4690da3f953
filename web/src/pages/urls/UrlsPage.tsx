// URLs: shorten a link, and the caller's short links (GET /api/user/urls, paged and searched by the server), with
// edit and delete. The search and the page number live in the query string (?q=, ?page=).
import { Group, Pagination, Skeleton, Stack, Text, TextInput } from '@mantine/core';
import { useDebouncedValue, useMediaQuery } from '@mantine/hooks';
import { IconLink, IconSearch } from '@tabler/icons-react';
import { useEffect, useRef, useState } from 'react';
import { ConfirmModal } from '../../components/ConfirmModal';
import { EmptyCard } from '../../components/EmptyCard';
import { ErrorAlert } from '../../components/ErrorAlert';
import { PageHeader } from '../../components/PageHeader';
import { notifySuccess } from '../../lib/notify';
import { useApi } from '../../lib/use-api';
import { useLastValue } from '../../lib/use-last-value';
import { setSearch, useLocation } from '../../router';
import { ShortenForm } from './ShortenForm';
import { deleteUrl, listUrls, urlErrorMessage, URLS_PER_PAGE, type ShortUrl } from './url-api';
import { UrlEditModal } from './UrlEditModal';
import { UrlList } from './UrlList';
import { bound } from '../../lib/bound';

export function UrlsPage() {
  const { search } = useLocation();
  const page = Math.max(1, Number(search.get('page')) || 1);
  const query = search.get('q') ?? '';
  const [searchText, setSearchText] = useState(query);
  const [debouncedSearch] = useDebouncedValue(searchText.trim(), 300);
  const phone = useMediaQuery('(max-width: 47.99em)', false, { getInitialValueInEffect: false });
  const [editing, setEditing] = useState<ShortUrl | null>(null);
  const [deleting, setDeleting] = useState<ShortUrl | null>(null);

  // Typing settles into the address (and back to page 1); only a change of the typed text does that.
  const lastSearch = useRef(debouncedSearch);
  useEffect(() => {
    if (debouncedSearch === lastSearch.current) return;
    lastSearch.current = debouncedSearch;
    setSearch({ q: debouncedSearch, page: null });
  }, [debouncedSearch]);

  const list = useApi((signal) => listUrls({ page, search: query }, signal), [page, query]);
  const data = list.data;

  // A page left empty by a delete (or an old bookmark past the end): show the last page there is.
  useEffect(() => {
    if (data && data.page.length === 0 && page > 1 && data.pages > 0) setSearch({ page: data.pages });
  }, [data, page]);

  const replaceUrl = (saved: ShortUrl) =>
    list.setData((previous) =>
      previous ? { ...previous, page: previous.page.map((u) => (u.id === saved.id ? saved : u)) } : previous!,
    );

  const onCreated = () => {
    setSearchText('');
    if (page === 1 && !query) list.reload();
    else setSearch({ q: null, page: null });
  };

  return (
    <Stack gap="md">
      <PageHeader title="URLs" description="Short links that lead to any web address. Every visit is counted." />
      <ShortenForm onCreated={onCreated} />

      <Group justify="space-between" align="flex-end" gap="sm">
        <Text fw={600}>
          Your short links
          {data ? (
            <Text span c="dimmed" fw={400} size="sm">
              {' '}
              ({data.total})
            </Text>
          ) : null}
        </Text>
        <TextInput
          aria-label="Search short links"
          placeholder="Search links and destinations"
          leftSection={<IconSearch size={16} />}
          {...bound(searchText, setSearchText)}
          w={{ base: '100%', xs: 300 }}
          type="search"
        />
      </Group>

      {list.error ? (
        <ErrorAlert error={list.error} onRetry={list.reload} title="Could not load your short links" />
      ) : null}
      {!data && list.loading ? (
        <Stack gap="xs" aria-busy="true" aria-label="Loading short links">
          {Array.from({ length: 4 }, (_, i) => (
            <Skeleton key={i} h={phone ? 86 : 48} />
          ))}
        </Stack>
      ) : null}
      {data && data.page.length === 0 && data.total === 0 ? (
        <EmptyState searching={query !== ''} query={query} />
      ) : null}
      {data && data.page.length > 0 ? (
        <div style={{ opacity: list.loading ? 0.6 : 1, transition: 'opacity 120ms' }}>
          <UrlList urls={data.page} phone={phone} onEdit={setEditing} onDelete={setDeleting} />
        </div>
      ) : null}
      {data && data.pages > 1 ? (
        <Group justify="space-between" gap="xs">
          <Text size="sm" c="dimmed">
            {(page - 1) * URLS_PER_PAGE + 1}–{Math.min(page * URLS_PER_PAGE, data.total)} of {data.total}
          </Text>
          <Pagination
            total={data.pages}
            value={Math.min(page, data.pages)}
            onChange={(p) => setSearch({ page: p === 1 ? null : p })}
            size="sm"
            siblings={phone ? 0 : 1}
            getControlProps={(control) => ({ 'aria-label': `${control} page` })}
          />
        </Group>
      ) : null}

      <UrlEditModal
        url={editing}
        onClose={() => setEditing(null)}
        onSaved={(saved) => {
          replaceUrl(saved);
          setEditing(null);
        }}
      />
      <DeleteUrlModal
        url={deleting}
        onClose={() => setDeleting(null)}
        onDeleted={() => {
          setDeleting(null);
          list.reload();
        }}
      />
    </Stack>
  );
}

function EmptyState({ searching, query }: { searching: boolean; query: string }) {
  return searching ? (
    <EmptyCard icon={<IconSearch size={22} />} title="No short links match">
      Nothing has “{query}” in its link, custom name or destination.
    </EmptyCard>
  ) : (
    <EmptyCard icon={<IconLink size={22} />} title="No short links yet">
      Paste a long address into “Destination” above and press Shorten. ShareX and other tools can shorten links too,
      with your API token.
    </EmptyCard>
  );
}

function DeleteUrlModal({
  url: requested,
  onClose,
  onDeleted,
}: {
  url: ShortUrl | null;
  onClose: () => void;
  onDeleted: () => void;
}) {
  const url = useLastValue(requested);
  const remove = async () => {
    if (!url) return;
    await deleteUrl(url.id);
    notifySuccess('The short link was deleted.');
    onDeleted();
  };
  return (
    <ConfirmModal
      opened={requested !== null}
      title="Delete this short link?"
      confirmLabel="Delete"
      onConfirm={remove}
      failureText={urlErrorMessage}
      onClose={onClose}
    >
      {url ? (
        <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
          <b>{url.url}</b> will stop working at once, for everyone who has it. Its {url.views}{' '}
          {url.views === 1 ? 'visit is' : 'visits are'} forgotten. This cannot be undone.
        </Text>
      ) : null}
    </ConfirmModal>
  );
}
