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
        {brand.logo_url ? <img src={brand.logo_url} alt="" class="logo" onError={(e) => (e.currentTarget.hidden = true)} /> : null}
        <span>{brand.name}</span>
      </a>
      <nav aria-label="Main">
        <ul>
          {[
            ...NAV,
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
    <LocationProvider scope={APP_LINK}>
      <SessionProvider>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <Header />
        <main id="main" tabIndex={-1}>
          <ErrorBoundary>
            <Router>{[...ROUTES.map((r) => <Page key={r.path} path={r.path} route={r} />), <NotFound key="404" default />]}</Router>
          </ErrorBoundary>
        </main>
        <footer class="foot">
          <a href={bridgeUrl('/activity')}>Activity</a> · <a href={bridgeUrl('/preferences')}>Email preferences</a>
        </footer>
      </SessionProvider>
    </LocationProvider>
  );
}
