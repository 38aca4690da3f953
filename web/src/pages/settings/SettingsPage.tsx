// The user's own settings, one tab each (the tab is kept in ?tab= so that a reload or a shared link opens it):
// profile, view and embed settings, sign-in security (authenticator app, passkeys), sessions, linked sign-in
// providers, the API token and scoped tokens, uploader configurations to download, and exports of the account.
import { Stack, Tabs } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import {
  IconApi,
  IconDevices,
  IconDownload,
  IconLink,
  IconPackageExport,
  IconPhotoCog,
  IconShieldLock,
  IconUser,
} from '@tabler/icons-react';
import { PageHeader } from '../../components/PageHeader';
import { setSearch, useLocation } from '../../router';
import { ApiTokensSection } from './ApiTokensSection';
import { ExportsSection } from './ExportsSection';
import { LinkedAccountsSection } from './LinkedAccountsSection';
import { PasskeysSection } from './PasskeysSection';
import { ProfileSection } from './ProfileSection';
import { SessionsSection } from './SessionsSection';
import { TokenSection } from './TokenSection';
import { TotpSection } from './TotpSection';
import { UploadersSection } from './UploadersSection';
import { ViewSettingsSection } from './ViewSettingsSection';

const TABS = [
  { value: 'profile', label: 'Profile', icon: <IconUser size={16} />, panel: <ProfileSection /> },
  { value: 'view', label: 'View & embeds', icon: <IconPhotoCog size={16} />, panel: <ViewSettingsSection /> },
  {
    value: 'security',
    label: 'Sign-in security',
    icon: <IconShieldLock size={16} />,
    panel: (
      <Stack>
        <TotpSection />
        <PasskeysSection />
      </Stack>
    ),
  },
  { value: 'sessions', label: 'Sessions', icon: <IconDevices size={16} />, panel: <SessionsSection /> },
  { value: 'linked', label: 'Linked accounts', icon: <IconLink size={16} />, panel: <LinkedAccountsSection /> },
  {
    value: 'token',
    label: 'API tokens',
    icon: <IconApi size={16} />,
    panel: (
      <Stack gap="md">
        <TokenSection />
        <ApiTokensSection />
      </Stack>
    ),
  },
  { value: 'uploaders', label: 'Uploaders', icon: <IconDownload size={16} />, panel: <UploadersSection /> },
  { value: 'export', label: 'Export', icon: <IconPackageExport size={16} />, panel: <ExportsSection /> },
] as const;

export function SettingsPage() {
  const { search } = useLocation();
  const asked = search.get('tab');
  const tab = TABS.some((t) => t.value === asked) ? asked! : 'profile';
  // Eight tabs do not fit one row beside the navigation: on a wide screen they stand in a column at the left; below
  // that they wrap, as pills, which read as a set of buttons rather than a broken underline.
  const wide = useMediaQuery('(min-width: 75em)');

  return (
    <Stack gap={0} maw={1200}>
      <PageHeader
        title="Settings"
        description="Your profile, how your links look, where and how you sign in, your uploaders, and a copy of your account."
      />
      <Tabs
        variant={wide ? 'default' : 'pills'}
        orientation={wide ? 'vertical' : 'horizontal'}
        value={tab}
        onChange={(value) => setSearch({ tab: value === 'profile' ? null : value })}
        keepMounted={false}
      >
        <Tabs.List mb={wide ? 0 : 'md'} mr={wide ? 'lg' : 0} style={wide ? { flexShrink: 0 } : undefined}>
          {TABS.map((t) => (
            <Tabs.Tab key={t.value} value={t.value} leftSection={t.icon}>
              {t.label}
            </Tabs.Tab>
          ))}
        </Tabs.List>
        {TABS.map((t) => (
          <Tabs.Panel key={t.value} value={t.value} style={{ minWidth: 0 }}>
            {t.panel}
          </Tabs.Panel>
        ))}
      </Tabs>
    </Stack>
  );
}
