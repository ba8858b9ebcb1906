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
}

/** ctx.meta as filled by the gateway. */
export interface GatewayMeta {
  user?: AuthUser | null;
  basic?: { username: string; password: string } | null;
  /** scheme://host the request reached (Host header), for addresses the server hands out. */
  requestOrigin?: string;
}

/** users.get_auth_info result: what the auth service needs to know about a key's owner. */
export interface UserAuthInfo {
  id: number;
  isAdmin: boolean;
  username: string;
}

/** users.oidc_login params: who the OIDC provider says logged in. */
export interface OidcLoginParams {
  email: string;
  username: string;
  fullname: string;
  grant_admin: boolean;
}

/** users.oidc_login result: the account logged into, created at this first login or found by email. */
export interface OidcLoginResult {
  user_id: number;
  created: boolean;
}

/** users.verify_password result. */
export interface VerifiedLogin {
  user_id: number;
  mfa_enabled: boolean;
}

/**
 * Events of the users service: `user.created` (emitted once per service group for a new account),
 * `user.removed` (emitted once per service group: each service deletes that
 * user's data) and `user.rights_changed` (broadcast: the admin flag changed or the user is gone, so cached key
 * lookups must go).
 */
export interface UserEvent {
  user_id: number;
}

/** notifications.send_mail params: one plain-text mail, sent with the admin's email settings. */
export interface SendMailParams {
  to: string;
  subject: string;
  text: string;
}

