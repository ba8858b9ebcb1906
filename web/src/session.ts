/**
 * Who is signed in: the key sign-in issued, kept in this origin's localStorage (the CSP lets no script of
 * another origin run here, and the page sends the key to this server only). Cleared at sign-out and when the
 * server answers 401 (the key was revoked or expired): the page then goes to "Sign in" and back.
 */
import { signal } from "@preact/signals";

export interface Session {
  key: string;
  user_id: number;
  username: string;
  is_admin: boolean;
}

const STORAGE = "podcast-server.session";

function stored(): Session | null {
  try {
    // What setSession wrote, unless the storage was changed by hand: the two fields every page needs are checked.
    const s = JSON.parse(localStorage.getItem(STORAGE) ?? "null") as Partial<Session> | null;
    return s && typeof s.key === "string" && Number.isInteger(s.user_id) ? (s as Session) : null;
  } catch {
    return null;
  }
}

export const session = signal<Session | null>(stored());

export function setSession(s: Session | null): void {
  session.value = s;
  if (s) localStorage.setItem(STORAGE, JSON.stringify(s));
  else localStorage.removeItem(STORAGE);
}

/** The signed-in user, for pages that only render when there is one (the app shell guarantees it). */
export function me(): Session {
  const s = session.value;
  if (!s) throw new Error("not signed in");
  return s;
}
