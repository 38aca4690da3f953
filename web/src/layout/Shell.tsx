// The signed-in frame: header (menu button on phones, site title, theme, user menu) and the navigation.
import {
  AppShell,
  Avatar,
  Burger,
  Group,
  Menu,
  NavLink,
  ScrollArea,
  Text,
  UnstyledButton,
  VisuallyHidden,
} from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import {
  IconAdjustments,
  IconFiles,
  IconFolder,
  IconGauge,
  IconHome,
  IconLink,
  IconListCheck,
  IconLogout,
  IconMailPlus,
  IconServerCog,
  IconSettings,
  IconTags,
  IconTool,
  IconUpload,
  IconUsers,
} from '@tabler/icons-react';
import type { ReactNode } from 'react';
import { isAdmin } from '../api/types';
import { Link, navigate, useLocation } from '../router';
import { useSession, useUser } from '../lib/session';
import { ThemeToggle } from './ThemeToggle';

interface NavItem {
  to: string;
  label: string;
  icon: ReactNode;
  /** Only for ADMIN and SUPERADMIN. */
  admin?: boolean;
}

export const NAV: NavItem[] = [
  { to: '/dashboard', label: 'Overview', icon: <IconHome size={18} /> },
  { to: '/dashboard/upload', label: 'Upload', icon: <IconUpload size={18} /> },
  { to: '/dashboard/files', label: 'Files', icon: <IconFiles size={18} /> },
  { to: '/dashboard/urls', label: 'URLs', icon: <IconLink size={18} /> },
  { to: '/dashboard/folders', label: 'Folders', icon: <IconFolder size={18} /> },
  { to: '/dashboard/tags', label: 'Tags', icon: <IconTags size={18} /> },
  { to: '/dashboard/settings', label: 'Settings', icon: <IconSettings size={18} /> },
  { to: '/dashboard/admin', label: 'Server overview', icon: <IconGauge size={18} />, admin: true },
  { to: '/dashboard/admin/users', label: 'Users', icon: <IconUsers size={18} />, admin: true },
  { to: '/dashboard/admin/invites', label: 'Invites', icon: <IconMailPlus size={18} />, admin: true },
  { to: '/dashboard/admin/settings', label: 'Server settings', icon: <IconServerCog size={18} />, admin: true },
  { to: '/dashboard/admin/actions', label: 'Server actions', icon: <IconTool size={18} />, admin: true },
  { to: '/dashboard/admin/jobs', label: 'Background jobs', icon: <IconListCheck size={18} />, admin: true },
];

function isActive(pathname: string, to: string): boolean {
  if (to === '/dashboard' || to === '/dashboard/admin') return pathname === to;
  return pathname === to || pathname.startsWith(`${to}/`);
}

export function Shell({ children }: { children: ReactNode }) {
  const [opened, { toggle, close }] = useDisclosure();
  const { pathname } = useLocation();
  const { server, signOut } = useSession();
  const user = useUser();
  const items = NAV.filter((item) => !item.admin || isAdmin(user));

  return (
    <AppShell
      header={{ height: 56 }}
      navbar={{ width: 230, breakpoint: 'sm', collapsed: { mobile: !opened } }}
      padding="md"
    >
      {/* The first stop of the Tab key: past the header and the navigation, straight to the page. */}
      <a href="#main-content" className="chute-skip-link">
        Skip to main content
      </a>
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap">
            <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label="Open the menu" />
            <Link to="/dashboard" style={{ textDecoration: 'none', color: 'inherit' }}>
              <Text fw={700} size="lg" truncate>
                {server?.siteTitle ?? 'Chute'}
              </Text>
            </Link>
          </Group>
          <Group gap="xs" wrap="nowrap">
            <ThemeToggle />
            <Menu position="bottom-end" withArrow>
              <Menu.Target>
                <UnstyledButton data-testid="account-menu">
                  {/* Named by what it shows (the user name), so that speech input finds it by what is read. */}
                  <Group gap={6} wrap="nowrap">
                    <Avatar src={user.avatar ?? null} radius="xl" size={32} alt="" aria-hidden />
                    <Text size="sm" visibleFrom="xs" maw={140} truncate>
                      {user.username}
                    </Text>
                    <VisuallyHidden>account menu</VisuallyHidden>
                  </Group>
                </UnstyledButton>
              </Menu.Target>
              <Menu.Dropdown>
                <Menu.Label>Signed in as {user.username}</Menu.Label>
                <Menu.Item leftSection={<IconAdjustments size={16} />} onClick={() => navigate('/dashboard/settings')}>
                  Settings
                </Menu.Item>
                <Menu.Item
                  color="red"
                  leftSection={<IconLogout size={16} />}
                  onClick={() => void signOut().then(() => navigate('/auth/login'))}
                >
                  Sign out
                </Menu.Item>
              </Menu.Dropdown>
            </Menu>
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" aria-label="Main">
        <AppShell.Section grow component={ScrollArea}>
          {items.map((item) => (
            <NavLink
              key={item.to}
              href={item.to}
              label={item.label}
              leftSection={item.icon}
              active={isActive(pathname, item.to)}
              onClick={(event) => {
                event.preventDefault();
                close();
                navigate(item.to);
              }}
            />
          ))}
        </AppShell.Section>
      </AppShell.Navbar>
      <AppShell.Main id="main-content" tabIndex={-1} style={{ outline: 'none' }}>
        {children}
      </AppShell.Main>
    </AppShell>
  );
}
