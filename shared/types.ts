/** Types that cross service boundaries. */

/** Who is calling: set once by the gateway's authenticate (house rule 4, docs/architecture.md), read by every action. */
export interface AuthUser {
  id: number;
  isAdmin: boolean;
  keyId: number;
  rssOnly: boolean;
  podcastIds: number[] | null;
  /**
   * What the caller signed in with: a key's kind (api_keys.kind), or "password" (the account password
   * in HTTP Basic on a sync route). "app" (app passwords) and "session" (the sessionid cookie of a sync
   * login) open only the sync routes. Absent on callers a service makes up for itself (a full key).
   */
  kind?: CredentialKind;
  /** The account's username (stored lower case): the sync routes' {username}. */
  username?: string;
  /** Sync sessions: when they end (ms since the epoch), checked at every use, so a cached lookup cannot outlive it. */
  expiresAt?: number;
  /** The user's own switch of the sync server (GET/PUT /api/data/user/sync_server); off: sync routes answer 403. */
  syncServer?: boolean;
}

/** Kinds of stored API keys: login (get_key), user (create_api_key), rss (get_rss_key), app (app passwords), session (sync sessions). */
export type KeyKind = "login" | "user" | "rss" | "app" | "session";
export type CredentialKind = KeyKind | "password";
/** Credentials that open the sync routes (auth "sync") and nothing else. */
export const SYNC_ONLY_KINDS: readonly CredentialKind[] = ["app", "session"];

/**
 * Auth level of a route: none (open), optional (open, but a key is read when sent), basic (HTTP Basic
 * credentials are passed to the action), key (any full key), admin (an admin's key), rss (rssonly keys too),
 * sync (the gPodder / Nextcloud sync routes: HTTP Basic with the account password or an app password, or
 * the sessionid cookie of an earlier sync login; a {username} in the path must be the caller's).
 */
export type AuthLevel = "none" | "optional" | "basic" | "key" | "admin" | "rss" | "sync";

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
  /**
   * The request body is read as JSON (json) or as text (text, arriving as params.body) whatever its content
   * type: gPodder's client library labels its JSON as form data, and sends the simple API's txt and OPML so.
   */
  body?: "json" | "text";
  /**
   * A device's upload of its whole history (a phone's first sync: 100,000 episode actions in one request):
   * the body may be as large as SYNC_MAX_BODY_SIZE instead of MAX_BODY_SIZE.
   */
  largeBody?: true;
  /** Request headers the action reads (lower-case names), passed in ctx.meta.headers: a page's cookie, an app's user agent. */
  headers?: string[];
  /** /api/openapi.json's one-line summary of a route the API documents do not describe (shared/api-docs.json wins): what it does, in which protocol. */
  summary?: string;
  /**
   * PinePods' clients' words (gpodder, nextcloud, youtube, ntfy, gotify) are read in the params and added to the
   * answer beside the documents' neutral ones (shared/client-names.ts): the clients' paths (api.routes.ts'
   * CLIENT_ALIASES) and the documented routes whose fields the clients send in their words.
   */
  clientNames?: true;
}

/** ctx.meta as filled by the gateway. */
export interface GatewayMeta {
  user?: AuthUser | null;
  basic?: { username: string; password: string } | null;
  /** scheme://host the request reached (Host header), for addresses the server hands out. */
  requestOrigin?: string;
  /** The client's address (shared/client-address.ts), set by the gateway for per-address limits. */
  clientIp?: string;
  /** The request headers a route names in RouteDef.headers (absent ones left out). */
  headers?: Record<string, string>;
  /** On sync routes: the caller's username, lower case (the gPodder API's {username}). */
  syncUsername?: string;
  /** On sync routes: the hash of the caller's sync session (logout.json drops it). */
  syncSession?: string;
  /** Set by an action, read by moleculer-web: the answer's status, content type and headers. */
  $statusCode?: number;
  $responseType?: string;
  $responseHeaders?: Record<string, string | number>;
  /** Media routes: the request's method (HEAD answers no body) and Range header (shared/range.ts). */
  method?: string;
  range?: string;
  /** The request's Accept-Encoding, for answers the action compresses itself (backups, feeds). */
  acceptEncoding?: string;
  /** RSS routes: the feed key of the URL (rss service). */
  feedKey?: string;
  /** Upload routes (moleculer-web's multipart alias): the form fields and the file's field name, name and type. */
  $multipart?: Record<string, string>;
  fieldname?: string;
  filename?: string;
  mimetype?: string;
}
