// Which page a path shows, and who may see it: the setup page while the server is in first-time setup, the sign-in
// pages for visitors, the dashboard shell for signed-in users, and the admin pages for ADMIN and SUPERADMIN.
import { Center, Loader } from '@mantine/core';
import { useEffect, type ComponentType } from 'react';
import { isAdmin } from './api/types';
import { ErrorAlert } from './components/ErrorAlert';
import { Shell } from './layout/Shell';
import { useSession } from './lib/session';
import { AdminOverviewPage } from './pages/admin/AdminOverviewPage';
import { ServerSettingsPage } from './pages/admin/ServerSettingsPage';
import { UsersPage } from './pages/admin/UsersPage';
import { LoginPage } from './pages/auth/LoginPage';
import { RegisterPage } from './pages/auth/RegisterPage';
import { SetupPage } from './pages/auth/SetupPage';
import { FilesPage } from './pages/files/FilesPage';
import { FoldersPage } from './pages/folders/FoldersPage';
import { HomePage } from './pages/HomePage';
import { InvitesPage } from './pages/invites/InvitesPage';
import { SettingsPage } from './pages/settings/SettingsPage';
import { TagsPage } from './pages/tags/TagsPage';
import { UploadPage } from './pages/upload/UploadPage';
import { UrlsPage } from './pages/urls/UrlsPage';
import { navigate, useLocation } from './router';

interface Page {
  component: ComponentType;
  admin?: boolean;
}

/** Dashboard pages by exact path (a page reads its own query string for filters and selections). */
const PAGES: Record<string, Page> = {
  '/dashboard': { component: HomePage },
  '/dashboard/upload': { component: UploadPage },
  '/dashboard/files': { component: FilesPage },
  '/dashboard/urls': { component: UrlsPage },
  '/dashboard/folders': { component: FoldersPage },
  '/dashboard/tags': { component: TagsPage },
  '/dashboard/settings': { component: SettingsPage },
  '/dashboard/admin': { component: AdminOverviewPage, admin: true },
  '/dashboard/admin/users': { component: UsersPage, admin: true },
  '/dashboard/admin/invites': { component: InvitesPage, admin: true },
  '/dashboard/admin/settings': { component: ServerSettingsPage, admin: true },
};

function Redirect({ to }: { to: string }) {
  useEffect(() => navigate(to, { replace: true }), [to]);
  return null;
}

function NotFound() {
  return <ErrorAlert title="Page not found" error={new Error('There is no page at this address.')} />;
}

export function App() {
  const { server, user, loading } = useSession();
  const { pathname } = useLocation();
  const path = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;

  if (loading) {
    return (
      <Center mih="100dvh">
        <Loader aria-label="Loading" />
      </Center>
    );
  }
  if (!server) {
    return (
      <Center mih="100dvh" p="md">
        <ErrorAlert title="Chute is not answering" error={new Error('Could not reach the server. Reload the page to try again.')} />
      </Center>
    );
  }
  if (server.firstSetup) return path === '/auth/setup' ? <SetupPage /> : <Redirect to="/auth/setup" />;
  if (path === '/auth/setup') return <Redirect to={user ? '/dashboard' : '/auth/login'} />;
  if (path === '/auth/login') return user ? <Redirect to="/dashboard" /> : <LoginPage />;
  if (path === '/auth/register') return user ? <Redirect to="/dashboard" /> : <RegisterPage />;
  if (!user) return <Redirect to={`/auth/login?next=${encodeURIComponent(pathname + window.location.search)}`} />;

  const page = PAGES[path];
  const Component = page && (!page.admin || isAdmin(user)) ? page.component : NotFound;
  return (
    <Shell>
      <Component />
    </Shell>
  );
}
