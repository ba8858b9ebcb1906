/** Navigation outside components (after sign-in, on an expired key): preact-iso's router follows history. */
import { WEB_PAGES, type WebPage } from "../../shared/web-pages";

export { WEB_PAGES, type WebPage };

export function navigate(url: string, replace = false): void {
  if (replace) history.replaceState(null, "", url);
  else history.pushState(null, "", url);
  dispatchEvent(new PopStateEvent("popstate"));
}

/** Where the person was (path and query), for "Sign in" to go back to. */
export function here(): string {
  return location.pathname + location.search;
}

/** The pages that open without a session (signing in and what leads to it). */
export const PUBLIC_PAGES: string[] = ["sign-in", "first-run", "create-account", "forgot-password", "oidc-done"];

/** A local path to return to after sign-in: never another origin, never a sign-in page itself. */
export function safeNext(next: string | null): string {
  if (!next || !next.startsWith("/") || next.startsWith("//")) return "/";
  const first = next.split(/[/?#]/)[1];
  return PUBLIC_PAGES.includes(first) ? "/" : next;
}
