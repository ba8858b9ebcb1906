/** Answers of the auth service's routes: login, keys, the RSS key. */
import { action, event } from "./call";
import { Nullable, PlainText, Type, type Static } from "./answers";
import type { AuthUser } from "../types";

/** get_key: the key, or (MFA on) a session token for verify_mfa_and_get_key. */
export const GetKeyAnswer = Type.Object({
  status: Type.Union([Type.Literal("success"), Type.Literal("mfa_required")]),
  retrieved_key: Nullable(Type.String()),
  mfa_required: Type.Boolean(),
  user_id: Type.Integer(),
  mfa_session_token: Nullable(Type.String()),
});
export type GetKeyAnswer = Static<typeof GetKeyAnswer>;
export const VerifyMfaKeyAnswer = Type.Object({
  status: Type.Union([Type.Literal("success"), Type.Literal("invalid_code"), Type.Literal("session_expired"), Type.Literal("invalid_session")]),
  retrieved_key: Nullable(Type.String()),
  verified: Type.Boolean(),
});
export type VerifyMfaKeyAnswer = Static<typeof VerifyMfaKeyAnswer>;
export const VerifyKeyAnswer = Type.Object({ status: Type.String() });
export type VerifyKeyAnswer = Static<typeof VerifyKeyAnswer>;
export const GetUserAnswer = Type.Object({ status: Type.String(), retrieved_id: Type.Integer() });
export type GetUserAnswer = Static<typeof GetUserAnswer>;
/** create_api_key: the new key, shown once. */
export const CreateApiKeyAnswer = Type.Object({
  api_key: Type.String(),
  api_id: Type.Integer(),
  rssonly: Type.Boolean(),
  podcast_ids: Nullable(Type.Array(Type.Integer())),
});
export type CreateApiKeyAnswer = Static<typeof CreateApiKeyAnswer>;
/** get_api_info: the keys (never the key itself), as the web client's APIInfo reads them. */
export const ApiInfoAnswer = Type.Object({
  api_info: Type.Array(
    Type.Object({
      apikeyid: Type.Integer(),
      userid: Type.Integer(),
      username: Type.String(),
      lastfourdigits: Type.String(),
      created: Type.String({ format: "date-time" }),
      podcastids: Type.Array(Type.Integer()),
      rssonly: Type.Boolean(),
      kind: Type.String(),
      /** An app password's name (the app it was made for); null for other keys. */
      name: Nullable(Type.String()),
    }),
  ),
});
export type ApiInfoAnswer = Static<typeof ApiInfoAnswer>;
export const RssKeyAnswer = Type.Object({ rss_key: Type.String() });
export type RssKeyAnswer = Static<typeof RssKeyAnswer>;
/** create_app_password: a password for sync apps only (the sync routes), shown once. */
export const AppPasswordAnswer = Type.Object({ app_password: Type.String(), api_id: Type.Integer(), name: Type.String() });
export type AppPasswordAnswer = Static<typeof AppPasswordAnswer>;
/** gPodder API v2 login.json / logout.json: the account signed in or out (clients read only the status and the sessionid cookie). */
export const SyncSessionAnswer = Type.Object({ username: Type.String() });
export type SyncSessionAnswer = Static<typeof SyncSessionAnswer>;
/** Nextcloud Login Flow v2 start: the page the app opens in a browser, and where and with what it polls. */
export const LoginFlowStartAnswer = Type.Object({
  poll: Type.Object({ token: Type.String(), endpoint: Type.String({ format: "uri" }) }),
  login: Type.String({ format: "uri" }),
});
export type LoginFlowStartAnswer = Static<typeof LoginFlowStartAnswer>;
/** Nextcloud Login Flow v2 poll, once access is granted (404 before): the server's address, the login name and the new app password. */
export const LoginFlowPollAnswer = Type.Object({ server: Type.String({ format: "uri" }), loginName: Type.String(), appPassword: Type.String() });
export type LoginFlowPollAnswer = Static<typeof LoginFlowPollAnswer>;
/** The Login Flow v2 page a person signs in on (the form, the granted page, or the page of a flow gone; 401/403/404/409/429 carry the form again). */
export const LoginFlowPage = PlainText("The sign-in page of the login flow (a plain HTML form)", "text/html");

// --- Calls to the auth service and its events (shared/contracts/call.ts) ---

/** Who an API key (by its hash) belongs to; null for no live key. Cached on the auth node (and in Redis). */
export const resolveKey = action<{ key_hash: string }, AuthUser | null>("auth.resolve_key");
/** A new login key for a user another service has authenticated (the OIDC callback). */
export const issueLoginKey = action<{ user_id: number }, { key: string }>("auth.issue_login_key");
/** Broadcast: these keys are gone, so every auth node drops their cached lookups. */
export const keysRemoved = event<{ key_hashes: string[] }>("auth.keys_removed");
/** Counts an attempt at another service's secret (a reset code) under the login limits: 429 when limited (the address from ctx.meta). */
export const beginAttempt = action<{ username: string }, { attempt_id: string }>("auth.begin_attempt");
/** The attempt matched: it no longer counts as a failure. */
export const attemptSucceeded = action<{ attempt_id: string }, void>("auth.attempt_succeeded");
/** A new sync session of a user the gateway has authenticated (with that app password, whose revocation ends it): the sessionid cookie's token. */
export const openSyncSession = action<{ user_id: number; app_password_id?: number }, { token: string }>("auth.open_sync_session");
/** The account password in HTTP Basic on a sync route, counted like a get_key login; refused with MFA on. */
export const syncLogin = action<{ username: string; password: string }, AuthUser>("auth.sync_login");
