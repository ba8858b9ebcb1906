/** Types that cross service boundaries. */

/** Who is calling: set once by the gateway's authenticate (DESIGN.md rule 4), read by every action. */
export interface AuthUser {
  id: number;
  isAdmin: boolean;
  keyId: number;
  rssOnly: boolean;
  podcastIds: number[] | null;
}

/**
 * Auth level of a route: none (open), optional (open, but a key is read when sent), basic (HTTP Basic
 * credentials are passed to the action), key (any full key), admin (an admin's key), rss (rssonly keys too).
 */
export type AuthLevel = "none" | "optional" | "basic" | "key" | "admin" | "rss";

export interface RouteDef {
  action: string;
  auth: AuthLevel;
  /** Also accept the key as api_key in the query string (media, feeds) or the JSON body (startup_tasks). */
  keyIn?: "query" | "body";
  /**
   * A multipart/form-data upload with one file in this field: the action gets the file as a stream in
   * ctx.params (ctx.meta.fieldname, filename; the form fields sent before it in ctx.meta.$multipart).
   */
  upload?: string;
}

/** ctx.meta as filled by the gateway. */
export interface GatewayMeta {
  user?: AuthUser | null;
  basic?: { username: string; password: string } | null;
  /** scheme://host the request reached (Host header), for addresses the server hands out. */
  requestOrigin?: string;
  /** The client's address (shared/client-address.ts), set by the gateway for per-address limits. */
  clientIp?: string;
}
