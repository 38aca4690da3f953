// Who is signed in, and what the server says about itself: loaded once, refreshed after sign-in, profile changes
// and sign-out. Pages read it with useSession().
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { ApiRequestError } from '../api/client';
import { getCurrentUser, getPublicServerInfo, logOut } from '../pages/auth/auth-api';
import type { CurrentUser, PublicServerInfo, User } from '../api/types';

interface SessionState {
  /** null while loading the first time */
  server: PublicServerInfo | null;
  user: User | null;
  token: string | null;
  loading: boolean;
  /** Reloads the server info and the current user (after sign-in, profile edits, token regeneration). */
  refresh: () => Promise<void>;
  signOut: () => Promise<void>;
}

const SessionContext = createContext<SessionState | null>(null);

export function SessionProvider({ children }: { children: ReactNode }) {
  const [server, setServer] = useState<PublicServerInfo | null>(null);
  const [current, setCurrent] = useState<CurrentUser | null>(null);
  const [loading, setLoading] = useState(true);

  // The server's state and the user are set together, once both are known: the server's state alone (setup done,
  // no user yet) would show the sign-in page for a moment after the first account is made.
  const refresh = useCallback(async () => {
    const info = await getPublicServerInfo();
    let user: CurrentUser | null = null;
    if (!info.firstSetup) {
      try {
        user = await getCurrentUser();
      } catch (err) {
        if (!(err instanceof ApiRequestError && err.status === 401)) {
          setServer(info);
          throw err;
        }
      }
    }
    setServer(info);
    setCurrent(user);
  }, []);

  useEffect(() => {
    refresh()
      .catch(() => undefined)
      .finally(() => setLoading(false));
  }, [refresh]);

  const signOut = useCallback(async () => {
    await logOut().catch(() => undefined);
    setCurrent(null);
  }, []);

  useEffect(() => {
    if (server) document.title = server.siteTitle;
  }, [server]);

  const value = useMemo<SessionState>(
    () => ({ server, user: current?.user ?? null, token: current?.token ?? null, loading, refresh, signOut }),
    [server, current, loading, refresh, signOut],
  );
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionState {
  const state = useContext(SessionContext);
  if (!state) throw new Error('useSession() outside <SessionProvider>');
  return state;
}

/** The signed-in user (pages under the dashboard shell are only rendered when there is one). */
export function useUser(): User {
  const { user } = useSession();
  if (!user) throw new Error('useUser() without a signed-in user');
  return user;
}
