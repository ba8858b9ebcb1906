/**
 * Cookies the server sets: the sessionid of the sync routes (auth "sync"; set by the gateway when a Basic
 * login opens a sync session, cleared by logout.json: gPodder's client library sends credentials only
 * after a 401 and at most three times per session, so it depends on this cookie) and the form token of
 * a Login Flow v2 page (services/auth.parts/login-flow.actions.ts).
 */
import { config } from "./config";

export const SESSION_COOKIE = "sessionid";

/** A Set-Cookie value, HttpOnly on Path=/ (Secure when the server's public origin is https); maxAge 0 clears it. */
export function setCookie(name: string, value: string, origin: string, maxAgeSeconds: number, sameSite: "Lax" | "Strict"): string {
  const secure = origin.startsWith("https:") ? "; Secure" : "";
  return `${name}=${value}; Max-Age=${maxAgeSeconds}; Path=/; HttpOnly; SameSite=${sameSite}${secure}`;
}

/** The Set-Cookie value for a sync session token; an empty token with maxAge 0 clears the cookie. */
export function sessionCookie(token: string, origin: string, maxAgeSeconds = config.syncSessionDays * 86400): string {
  return setCookie(SESSION_COOKIE, token, origin, maxAgeSeconds, "Lax");
}

/** The value of a cookie in a Cookie header, or null. */
export function readCookie(header: string | string[] | undefined, name: string): string | null {
  const text = Array.isArray(header) ? header.join("; ") : (header ?? "");
  for (const part of text.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim() || null;
  }
  return null;
}
