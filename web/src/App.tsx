// Which page a path shows, and who may see it: the setup page while the server is in first-time setup, the sign-in
// pages for visitors, the dashboard shell for signed-in users, and the admin pages for ADMIN and SUPERADMIN.
import { Center, Loader } from '@mantine/core';
import { lazy, Suspense, useEffect, type ComponentType } from 'react';
import { isAdmin } from './api/types';
import { ErrorAlert } from './components/ErrorAlert';
import { Shell } from './layout/Shell';
import { useSession } from './lib/session';
import { LoginPage } from './pages/auth/LoginPage';
import { RegisterPage } from './pages/auth/RegisterPage';
import { SetupPage } from './pages/auth/SetupPage';
import { HomePage } from './pages/HomePage';
import { navigate, useLocation } from './router';

/**
 * Pages other than the overview load when first opened (the sign-in pages and the overview are in the first
 * bundle), so a visit downloads only what it shows.
 */
function page<K extends string>(load: () => Promise<Record<K, ComponentType>>, name: K): ComponentType {
  return lazy<ComponentType>(async () => ({ default: (await load())[name] }));
}

const UploadPage = page(() => import('./pages/upload/UploadPage'), 'UploadPage');
const FilesPage = page(() => import('./pages/files/FilesPage'), 'FilesPage');
const UrlsPage = page(() => import('./pages/urls/UrlsPage'), 'UrlsPage');
const FoldersPage = page(() => import('./pages/folders/FoldersPage'), 'FoldersPage');
const TagsPage = page(() => import('./pages/tags/TagsPage'), 'TagsPage');
const SettingsPage = page(() => import('./pages/settings/SettingsPage'), 'SettingsPage');
const AdminOverviewPage = page(() => import('./pages/admin/AdminOverviewPage'), 'AdminOverviewPage');
const UsersPage = page(() => import('./pages/admin/UsersPage'), 'UsersPage');
const InvitesPage = page(() => import('./pages/invites/InvitesPage'), 'InvitesPage');
const ServerSettingsPage = page(() => import('./pages/admin/ServerSettingsPage'), 'ServerSettingsPage');
const JobsPage = page(() => import('./pages/admin/JobsPage'), 'JobsPage');
const ServerActionsPage = page(() => import('./pages/admin/ServerActionsPage'), 'ServerActionsPage');

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
  '/dashboard/admin/jobs': { component: JobsPage, admin: true },
  '/dashboard/admin/actions': { component: ServerActionsPage, admin: true },
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
        <ErrorAlert
          title="Chute is not answering"
          error={new Error('Could not reach the server. Reload the page to try again.')}
        />
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
      <Suspense
        fallback={
          <Center py="xl">
            <Loader aria-label="Loading" />
          </Center>
        }
      >
        <Component />
      </Suspense>
    </Shell>
  );
}
