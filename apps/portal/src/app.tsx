// The frame around every page: the header (brand, menu, sign-in), the routes of routes.tsx, and a
// footer linking the bridge's own pages (/activity, /preferences: server-rendered, they work from an
// email without JavaScript, decision F2).
import { ErrorBoundary, LocationProvider, Router, useLocation } from 'preact-iso';
import { useEffect } from 'preact/hooks';
import { useBrand } from './brand.ts';
import { APP_LINK, NAV, ROUTES } from './routes.tsx';
import { isAdmin, SessionProvider, useSession } from './session.tsx';
import { bridgeUrl } from './api.ts';

function Header() {
  const brand = useBrand();
  const { session, signOut, signInUrl } = useSession();
  const { path } = useLocation();
  return (
    <header class="top">
      <a class="brand" href="/">
        {/* Decision F4: a logo that fails to load is hidden and the name stands alone. */}
        {brand.logo_url ? (
          <img src={brand.logo_url} alt="" class="logo" onError={(e) => (e.currentTarget.hidden = true)} />
        ) : null}
        <span>{brand.name}</span>
      </a>
      <nav aria-label="Main">
        <ul>
          {[
            ...NAV,
            // The console's links only for admins; the bridge refuses its API to anyone else whatever the menu shows.
            ...(isAdmin(session)
              ? [
                  { href: '/admin', label: 'Admin' },
                  { href: '/admin/audit', label: 'Audit' },
                ]
              : []),
          ].map((n) => (
            <li key={n.href}>
              <a href={n.href} aria-current={path === n.href || path.startsWith(`${n.href}/`) ? 'page' : undefined}>
                {n.label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <div class="who">
        {/* Nothing until the session is known, so a signed-in member never sees "Sign in" flash first. */}
        {session === undefined ? null : session ? (
          <button id="signout" type="button" class="link" onClick={() => void signOut()}>
            Sign out
          </button>
        ) : (
          <>
            <a href={signInUrl()}>Sign in</a>
            <a class="button small" href="/join">
              Join
            </a>
          </>
        )}
      </div>
    </header>
  );
}

/** The tab's title names the page (browser history, tabs and screen readers read it), then the DAO. */
function Titled({ title, children }: { title: string; children: preact.ComponentChildren }) {
  const brand = useBrand();
  useEffect(() => {
    document.title = `${title} · ${brand.name}`;
  }, [title, brand.name]);
  return <>{children}</>;
}

/** One route: preact-iso matches `path` and passes the URL's parameters as `params`. */
function Page({ route, params }: { route: (typeof ROUTES)[number]; path: string; params?: Record<string, string> }) {
  return (
    <Titled title={route.title}>
      <route.component {...(params ?? {})} />
    </Titled>
  );
}

function NotFound(_: { default?: boolean }) {
  return (
    <Titled title="Not found">
      <h1>Page not found</h1>
      <p>
        There is nothing at this address. <a href="/">Go home</a>.
      </p>
    </Titled>
  );
}

export function App() {
  return (
    // preact-iso routes only the app's own links in the page; any other link loads from the server.
    <LocationProvider scope={APP_LINK}>
      <SessionProvider>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <Header />
        {/* Focusable, so the skip link moves the keyboard's focus past the menu, not only the view. */}
        <main id="main" tabIndex={-1}>
          <ErrorBoundary>
            <Router>
              {[...ROUTES.map((r) => <Page key={r.path} path={r.path} route={r} />), <NotFound key="404" default />]}
            </Router>
          </ErrorBoundary>
        </main>
        <footer class="foot">
          {/* bridgeUrl: on another origin than the bridge (decision F11) these are the bridge's, not the app's. */}
          <a href={bridgeUrl('/activity')}>Activity</a> · <a href={bridgeUrl('/preferences')}>Email preferences</a>
        </footer>
      </SessionProvider>
    </LocationProvider>
  );
}
