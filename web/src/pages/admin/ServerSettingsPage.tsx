// Server settings (admins only): every key of GET /api/server/settings in groups, with the input its value needs, a
// help text in words, its default and a "Details" line with its technical names; a search box keeps only the
// settings that match; keys locked by environment variables shown disabled. Saving sends only the changed keys; a refused save (1022)
// names each failing field and stores nothing.
import {
  Alert,
  Anchor,
  Button,
  Card,
  Divider,
  Group,
  Paper,
  Skeleton,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { IconDeviceFloppy, IconLock, IconSearch } from '@tabler/icons-react';
import { Fragment, useEffect, useMemo, useState } from 'react';
import { ApiRequestError } from '../../api/client';
import { ErrorAlert } from '../../components/ErrorAlert';
import { FormError } from '../../components/FormError';
import { PageHeader } from '../../components/PageHeader';
import { notifySuccess } from '../../lib/notify';
import { useSession } from '../../lib/session';
import { useApi } from '../../lib/use-api';
import { serverSettings, updateServerSettings, type ServerSettingsAnswer, type SettingValue } from './admin-api';
import { adminErrorMessage, fieldIssues } from './admin-errors';
import { SettingField } from './SettingField';
import {
  defaultText,
  fromDraft,
  groupSettings,
  kindOf,
  labelOf,
  matchesSearch,
  sameDraft,
  toDraft,
  type Draft,
  type SettingKind,
} from './settings-fields';
import { useSubmit } from '../../lib/use-submit';

function draftsOf(answer: ServerSettingsAnswer, kinds: Record<string, SettingKind>): Record<string, Draft> {
  return Object.fromEntries(
    Object.entries(answer.settings).map(([key, value]) => [key, toDraft(kinds[key] ?? 'text', value)]),
  );
}

export function ServerSettingsPage() {
  const { refresh } = useSession();
  const loaded = useApi((signal) => serverSettings(signal), []);
  const answer = loaded.data;
  const kinds = useMemo<Record<string, SettingKind>>(
    () =>
      answer
        ? Object.fromEntries(
            Object.entries(answer.settings).map(([k, v]) => [k, kindOf(k, v, answer.fields[k]?.description ?? '')]),
          )
        : {},
    [answer],
  );
  const saved = useMemo(() => (answer ? draftsOf(answer, kinds) : {}), [answer, kinds]);
  const [drafts, setDrafts] = useState<Record<string, Draft>>({});
  const [errors, setErrors] = useState<Record<string, string>>({});
  const {
    busy,
    error: saveError,
    setError: setSaveError,
    run,
  } = useSubmit((err) => {
    const issues = err instanceof ApiRequestError && err.code === 1022 ? fieldIssues(err) : {};
    if (Object.keys(issues).length === 0) return adminErrorMessage(err);
    setErrors(issues);
    focusFirst(issues);
    const names = Object.keys(issues).map(labelOf).join(', ');
    return `Nothing was saved: ${names} ${Object.keys(issues).length === 1 ? 'is' : 'are'} not valid. See the fields marked in red.`;
  });

  useEffect(() => {
    setDrafts(saved);
    setErrors({});
  }, [saved]);

  // A link to one group (/dashboard/admin/settings#settings-registration) scrolls to it once the page has loaded.
  const hasAnswer = answer !== undefined;
  useEffect(() => {
    if (hasAnswer && window.location.hash.startsWith('#settings-')) {
      document.getElementById(window.location.hash.slice(1))?.scrollIntoView();
    }
  }, [hasAnswer]);

  const locked = new Set<string>(answer?.locked ?? []);
  const changedKeys = Object.keys(saved).filter((key) => !locked.has(key) && !sameDraft(drafts[key], saved[key]));
  const allGroups = answer ? groupSettings(Object.keys(answer.settings)) : [];
  // The search box keeps only the settings whose words match; a setting with an unsaved change stays in sight.
  const [query, setQuery] = useState('');
  const groups = allGroups
    .map((group) => ({
      ...group,
      keys: group.keys.filter(
        (key) => changedKeys.includes(key) || key in errors || matchesSearch(query, key, answer?.fields[key]),
      ),
    }))
    .filter((group) => group.keys.length > 0);

  const change = (key: string, value: Draft) => {
    setDrafts((d) => ({ ...d, [key]: value }));
    setErrors((e) => {
      const { [key]: _gone, ...rest } = e;
      return rest;
    });
  };

  /** Takes the keyboard (and the eye) to the first field that needs correcting. */
  const focusFirst = (invalid: Record<string, string>) => {
    const first = groups.flatMap((g) => g.keys).find((key) => key in invalid);
    if (first) requestAnimationFrame(() => document.getElementById(`setting-${first}`)?.focus());
  };

  const save = async () => {
    const patch: Record<string, SettingValue> = {};
    const problems: Record<string, string> = {};
    for (const key of changedKeys) {
      const result = fromDraft(kinds[key] ?? 'text', drafts[key] ?? '');
      if ('problem' in result) problems[key] = result.problem;
      else patch[key] = result.value;
    }
    setErrors(problems);
    setSaveError(null);
    if (Object.keys(problems).length > 0) {
      setSaveError('Nothing was saved. Correct the fields marked in red.');
      focusFirst(problems);
      return;
    }
    await run(async () => {
      const next = await updateServerSettings(patch);
      loaded.setData(next);
      const count = Object.keys(patch).length;
      notifySuccess(
        count === 1 ? `${labelOf(Object.keys(patch)[0]!)} was saved.` : `${count} settings were saved.`,
        'Settings saved',
      );
      // The site title and the registration switches are part of what every page knows about the server.
      void refresh();
    });
  };

  return (
    <Stack gap="md" pb={changedKeys.length > 0 ? 80 : 0}>
      <PageHeader
        title="Server settings"
        description="They take effect at once, for every user. Settings marked with a lock are set by environment variables."
      />
      {loaded.error && !answer ? <ErrorAlert error={loaded.error} onRetry={loaded.reload} /> : null}
      {!answer && !loaded.error ? (
        <Stack>
          {Array.from({ length: 3 }, (_, i) => (
            <Skeleton key={i} h={180} />
          ))}
        </Stack>
      ) : null}
      <FormError message={saveError} title="The settings were not saved" />
      {answer && answer.locked.length > 0 ? (
        <Alert color="orange" variant="light" icon={<IconLock size={18} />}>
          {answer.locked.length === 1 ? 'One setting is' : `${answer.locked.length} settings are`} set by environment
          variables and cannot be changed here: change the variable and restart Chute.
        </Alert>
      ) : null}
      {answer ? (
        <TextInput
          label="Find a setting"
          placeholder="Such as password, thumbnails or SITE_TITLE"
          leftSection={<IconSearch size={16} aria-hidden />}
          value={query}
          onChange={(e) => setQuery(e.currentTarget.value)}
          type="search"
          maw={420}
        />
      ) : null}
      {answer && query.trim() !== '' ? (
        <Text size="sm" c="dimmed" role="status" data-testid="settings-search-status">
          {groups.length === 0
            ? `No setting matches “${query.trim()}”.`
            : `${groups.reduce((n, g) => n + g.keys.length, 0)} of ${allGroups.reduce((n, g) => n + g.keys.length, 0)} settings match.`}
        </Text>
      ) : null}
      {answer && groups.length > 1 ? (
        <Group gap="xs" wrap="wrap" aria-label="Setting groups" component="nav">
          {groups.map((group) => (
            <Anchor key={group.id} href={`#settings-${group.id}`} size="sm">
              {group.title}
            </Anchor>
          ))}
        </Group>
      ) : null}
      {answer
        ? groups.map((group) => (
            <Card
              withBorder
              key={group.id}
              id={`settings-${group.id}`}
              component="section"
              aria-labelledby={`settings-${group.id}-title`}
              style={{ scrollMarginTop: 72 }}
            >
              <Title order={3} size="h4" id={`settings-${group.id}-title`}>
                {group.title}
              </Title>
              {group.description ? (
                <Text size="sm" c="dimmed">
                  {group.description}
                </Text>
              ) : null}
              <Stack gap="sm" mt="md">
                {group.keys.map((key, index) => (
                  <Fragment key={key}>
                    {index > 0 ? <Divider /> : null}
                    <SettingField
                      settingKey={key}
                      kind={kinds[key] ?? 'text'}
                      description={answer.fields[key]?.description ?? ''}
                      env={answer.fields[key]?.env ?? ''}
                      defaultLabel={defaultText(key, kinds[key] ?? 'text', answer.fields[key]?.default)}
                      locked={locked.has(key)}
                      changed={changedKeys.includes(key)}
                      value={drafts[key] ?? saved[key] ?? ''}
                      error={errors[key]}
                      onChange={(value) => change(key, value)}
                    />
                  </Fragment>
                ))}
              </Stack>
            </Card>
          ))
        : null}
      {changedKeys.length > 0 ? (
        <Paper
          withBorder
          shadow="md"
          p="sm"
          radius="md"
          style={{ position: 'sticky', bottom: 'var(--mantine-spacing-md)', zIndex: 5 }}
          role="region"
          aria-label="Unsaved changes"
        >
          <Group justify="space-between" wrap="wrap" gap="xs">
            <Text size="sm" fw={500}>
              {changedKeys.length === 1 ? '1 unsaved change' : `${changedKeys.length} unsaved changes`}
            </Text>
            <Group gap="xs">
              <Button
                variant="default"
                onClick={() => {
                  setDrafts(saved);
                  setErrors({});
                  setSaveError(null);
                }}
              >
                Discard
              </Button>
              <Button leftSection={<IconDeviceFloppy size={18} />} onClick={() => void save()} loading={busy}>
                Save changes
              </Button>
            </Group>
          </Group>
        </Paper>
      ) : null}
    </Stack>
  );
}
