/**
 * The first path segments of the web app's pages (web/src/routes.ts builds its router from them). The gateway
 * answers a GET of "/" or of one of these with the app's index.html, so that a reload or a shared link opens
 * the page; test/unit/web-pages.test.ts checks that none of them is the first segment of an API route.
 */
export const WEB_PAGES = [
  "home",
  "inbox",
  "podcasts",
  "podcast",
  "episode",
  "queue",
  "saved",
  "history",
  "downloads",
  "playlists",
  "search",
  "settings",
  "admin",
  "sign-in",
  "first-run",
  "create-account",
  "forgot-password",
  "oidc-done",
] as const;
export type WebPage = (typeof WEB_PAGES)[number];
