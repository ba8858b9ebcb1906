/**
 * The sessionid cookie of the sync routes (auth "sync"): set by the gateway when a Basic login opens a
 * sync session, cleared by logout.json. gPodder's client library sends credentials only after a 401 and
 * at most three times per session, so it depends on this cookie; the Nextcloud apps keep it too.
 */
import { config } from "./config";

export const SESSION_COOKIE = "sessionid";

/** The Set-Cookie value for a session token; an empty token with maxAge 0 clears the cookie. */
export function sessionCookie(token: string, origin: string, maxAgeSeconds = config.syncSessionDays * 86400): string {
  const secure = origin.startsWith("https:") ? "; Secure" : "";
  return `${SESSION_COOKIE}=${token}; Max-Age=${maxAgeSeconds}; Path=/; HttpOnly; SameSite=Lax${secure}`;
}

/** The session token of a Cookie header, or null. */
export function readSessionCookie(header: string | string[] | undefined): string | null {
  const text = Array.isArray(header) ? header.join("; ") : header ?? "";
  for (const part of text.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) return part.slice(eq + 1).trim() || null;
  }
  return null;
}
