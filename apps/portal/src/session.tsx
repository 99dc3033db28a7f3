// The shared session (spec 2 Authentication): read from GET /api/auth/session on load and every five
// minutes (and when the tab comes back), mirrored into localStorage `user_data` {user_id, email,
// roles} (rule 6), cleared on sign-out here or anywhere (rule 5: another suite's sign-out ends the
// server session, and the next refresh sees it). Role checks in the UI are convenience only.
import { createContext, type ComponentChildren } from 'preact';
import { useCallback, useContext, useEffect, useState } from 'preact/hooks';
import { api, bridgeUrl, type Answer } from './api.ts';

/** GET /api/auth/session when signed in (decision F12: from the OpenAPI document). */
export type Session = Extract<Answer<'getSessionWithMembership'>, { authenticated: true }>;

export const REFRESH_MS = 5 * 60_000;
export const USER_DATA_KEY = 'user_data';

interface SessionState {
  session: Session | null | undefined;
  refresh(): Promise<void>;
  signOut(): Promise<void>;
  signInUrl(returnTo?: string): string;
}

const Ctx = createContext<SessionState>({
  session: undefined,
  refresh: async () => {},
  signOut: async () => {},
  signInUrl: () => bridgeUrl('/login'),
});

export function clearLocalData(): void {
  localStorage.removeItem(USER_DATA_KEY);
  sessionStorage.clear();
}

export function SessionProvider({ children }: { children: ComponentChildren }) {
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const refresh = useCallback(async () => {
    try {
      const s = await api<Answer<'getSessionWithMembership'>>('/api/auth/session');
      if (s.authenticated) {
        localStorage.setItem(USER_DATA_KEY, JSON.stringify({ user_id: s.user_id, email: s.email, roles: s.roles }));
        setSession(s);
      } else {
        clearLocalData();
        setSession(null);
      }
    } catch {
      // The bridge is unreachable: keep what we know; the next refresh tries again.
      setSession((s) => (s === undefined ? null : s));
    }
  }, []);
  useEffect(() => {
    void refresh();
    const timer = setInterval(() => void refresh(), REFRESH_MS);
    const onVisible = () => document.visibilityState === 'visible' && void refresh();
    document.addEventListener('visibilitychange', onVisible);
    // Another tab of this suite signed out: follow it.
    const onStorage = (e: StorageEvent) => e.key === USER_DATA_KEY && e.newValue === null && void refresh();
    window.addEventListener('storage', onStorage);
    return () => {
      clearInterval(timer);
      document.removeEventListener('visibilitychange', onVisible);
      window.removeEventListener('storage', onStorage);
    };
  }, [refresh]);
  const signOut = useCallback(async () => {
    try {
      await api('/auth/logout', { method: 'POST' });
    } finally {
      clearLocalData();
      window.location.assign('/');
    }
  }, []);
  const signInUrl = useCallback(
    (returnTo?: string) => bridgeUrl(`/login?returnUrl=${encodeURIComponent(returnTo ?? window.location.href)}`),
    [],
  );
  return <Ctx.Provider value={{ session, refresh, signOut, signInUrl }}>{children}</Ctx.Provider>;
}

export const useSession = () => useContext(Ctx);
export const isAdmin = (s: Session | null | undefined) => !!s?.roles.includes('admin');
export const isActive = (s: Session | null | undefined) => s?.membership_status === 'Active';

/**
 * Decision F35: the one sign-in gate of the admin pages (the console and the Audit page). Its
 * children render only for a signed-in admin; the server checks the role on every call anyway.
 */
export function AdminOnly({ what, children }: { what: 'console' | 'page'; children: ComponentChildren }) {
  const { session, signInUrl } = useSession();
  if (session === undefined) return <p aria-busy="true">Loading…</p>;
  if (!session)
    return (
      <p>
        <a href={signInUrl()}>Sign in</a> as an administrator.
      </p>
    );
  if (!isAdmin(session)) return <p class="note">This {what} is for administrators.</p>;
  return <>{children}</>;
}
