/**
 * The app's shell: skip link, header, the navigation landmark "Main", the page (each loaded on demand) and the
 * region "Player", which stays while the person moves between pages. Without a session only the sign-in pages
 * open; any other address goes to "Sign in" (or to "Create the first admin" on a new server) and back.
 */
import { useEffect, useState } from "preact/hooks";
import { ErrorBoundary, LocationProvider, Route, Router, lazy, useLocation } from "preact-iso";
import { session } from "./session";
import { api, errorText, ok } from "./api";
import { navigate, here, PUBLIC_PAGES } from "./router";
import { Player } from "./player";
import { signOut } from "./sign-out";
import { applyTheme } from "./theme";
import { InboxLabel } from "./components/inbox-count";

const Home = lazy(() => import("./pages/home"));
const Podcasts = lazy(() => import("./pages/podcasts"));
const Podcast = lazy(() => import("./pages/podcast"));
const Episode = lazy(() => import("./pages/episode"));
const Queue = lazy(() => import("./pages/queue"));
const Inbox = lazy(() => import("./pages/inbox"));
const Saved = lazy(() => import("./pages/saved"));
const History = lazy(() => import("./pages/history"));
const Downloads = lazy(() => import("./pages/downloads"));
const Playlists = lazy(() => import("./pages/playlists"));
const Search = lazy(() => import("./pages/search"));
const Settings = lazy(() => import("./pages/settings"));
const Admin = lazy(() => import("./pages/admin"));
const SignIn = lazy(() => import("./pages/sign-in"));
const FirstRun = lazy(() => import("./pages/first-run"));
const CreateAccount = lazy(() => import("./pages/create-account"));
const ForgotPassword = lazy(() => import("./pages/forgot-password"));
const OidcDone = lazy(() => import("./pages/oidc-done"));
const NotFound = lazy(() => import("./pages/not-found"));

const NAV: [string, string][] = [
  ["/", "Home"],
  ["/inbox", "Inbox"],
  ["/podcasts", "Podcasts"],
  ["/queue", "Queue"],
  ["/saved", "Saved"],
  ["/history", "History"],
  ["/downloads", "Downloads"],
  ["/playlists", "Playlists"],
  ["/search", "Search"],
  ["/settings", "Settings"],
];

function isCurrent(path: string, href: string): boolean {
  if (href === "/") return path === "/" || path === "/home";
  return path === href || path.startsWith(href + "/");
}

function Nav() {
  const { path } = useLocation();
  const links = session.value?.is_admin ? [...NAV, ["/admin", "Admin"] as [string, string]] : NAV;
  return (
    <nav aria-label="Main" class="nav">
      <ul>
        {links.map(([href, label]) => (
          <li key={href}>
            <a href={href} aria-current={isCurrent(path, href) ? "page" : undefined}>
              {href === "/inbox" ? <InboxLabel /> : label}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

function PageFailed({ message }: { message: string }) {
  return (
    <div role="alert">
      <h1>This page could not be shown</h1>
      <p>{message}</p>
      <p>If the server was updated since this tab opened, reloading gets its new version.</p>
      <button type="button" onClick={() => location.reload()}>
        Reload
      </button>
    </div>
  );
}

function Shell() {
  const { path } = useLocation();
  const first = path.split("/")[1];
  const signedIn = !!session.value;
  const isPublic = PUBLIC_PAGES.includes(first);
  // A page that failed to render, or whose code did not load (a server updated since this tab opened).
  const [failed, setFailed] = useState<string | null>(null);
  useEffect(() => setFailed(null), [path]);

  useEffect(() => {
    if (signedIn || isPublic) return;
    // A new server has no admin yet: its first page creates one.
    ok(api.GET("/api/data/self_service_status")).then(
      (s) => navigate(s.first_admin_created ? `/sign-in?next=${encodeURIComponent(here())}` : "/first-run", true),
      () => navigate(`/sign-in?next=${encodeURIComponent(here())}`, true),
    );
  }, [signedIn, isPublic]);

  useEffect(() => applyTheme(), [signedIn]);

  if (!signedIn && !isPublic) return <main id="main" />;
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      {signedIn && (
        <header class="top">
          <a class="brand" href="/">
            Podcasts
          </a>
          <span class="muted who">{session.value!.username}</span>
          <button type="button" class="link" onClick={() => void signOut()}>
            Sign out
          </button>
        </header>
      )}
      <div class={signedIn ? "layout" : "layout public"}>
        {signedIn && <Nav />}
        <main id="main" tabIndex={-1}>
          <ErrorBoundary onError={(err) => setFailed(errorText(err))}>
            {failed ? <PageFailed message={failed} /> : null}
            {/* A new router at sign-in and sign-out: the old one would keep showing the previous page (which
                needs a session) while the next page's code loads. */}
            {!failed && (
              <Router key={signedIn ? "in" : "out"}>
                <Route path="/" component={Home} />
                <Route path="/home" component={Home} />
                <Route path="/podcasts" component={Podcasts} />
                <Route path="/podcast/:id" component={Podcast} />
                <Route path="/episode/:id" component={Episode} />
                <Route path="/inbox" component={Inbox} />
                <Route path="/queue" component={Queue} />
                <Route path="/saved" component={Saved} />
                <Route path="/history" component={History} />
                <Route path="/downloads" component={Downloads} />
                <Route path="/playlists" component={Playlists} />
                <Route path="/playlists/:id" component={Playlists} />
                <Route path="/search" component={Search} />
                <Route path="/settings" component={Settings} />
                <Route path="/settings/:section" component={Settings} />
                <Route path="/admin" component={Admin} />
                <Route path="/admin/:section" component={Admin} />
                <Route path="/sign-in" component={SignIn} />
                <Route path="/first-run" component={FirstRun} />
                <Route path="/create-account" component={CreateAccount} />
                <Route path="/forgot-password" component={ForgotPassword} />
                <Route path="/oidc-done" component={OidcDone} />
                <Route default component={NotFound} />
              </Router>
            )}
          </ErrorBoundary>
        </main>
      </div>
      {signedIn && <Player />}
    </>
  );
}

export function App() {
  return (
    <LocationProvider>
      <Shell />
    </LocationProvider>
  );
}
