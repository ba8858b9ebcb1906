/**
 * The auth service's `this` (services/auth.service.ts and every part of it): its stores and documents, and
 * its methods (the service file's and login-flow.actions.ts'), so each part sees what it calls of another.
 */
import type { UserAuthInfo, VerifiedLogin } from "../../shared/contracts/users";
import type { Ctx, DbThis, Query } from "../../shared/service-types";
import type { AuthUser, KeyKind } from "../../shared/types";
import type { LoginFlowDoc } from "./login-flow.actions";

/**
 * A stored API key. kind "login" keys come from get_key; "user" keys from create_api_key; "rss" keys from
 * get_rss_key; "app" keys (app passwords) from create_app_password and the Nextcloud login flow; "session"
 * keys are sync sessions (the sessionid cookie), never listed.
 */
export interface ApiKeyDoc {
  _id: number;
  user_id: number;
  key_hash: string;
  last4: string;
  kind: KeyKind;
  rssonly: boolean;
  podcast_ids: number[] | null;
  created_at: Date;
  /** App passwords: what the user or the login flow named it after (the app's user agent). */
  name?: string;
  /** Sync sessions: when the cookie stops opening anything (the store removes the record then). */
  expires_at?: Date;
  /** Sync sessions: the app password they were opened with (revoking it ends them too). */
  opened_by?: number;
}

/**
 * A login, MFA code or reset code attempt, stored before the secret is checked (so that concurrent
 * guesses count too) and removed again when it succeeds: what remains are the failures of the window.
 * They live in this service's store, MongoDB with several auth replicas, so every replica counts them.
 */
export interface AttemptDoc {
  /** Random, not from a sequence: a flood of attempts must not run an int32 counter out. */
  _id: string;
  /** The username or e-mail address tried. */
  username: string;
  address: string;
  at: Date;
}

/** Second login step with MFA on: a single-use token from get_key, stored only as its hash. */
export interface MfaSessionDoc {
  _id: number;
  token_hash: string;
  user_id: number;
  /** Wrong codes count as failed logins of this username (the per-minute limits of beginAttempt). */
  username: string;
  attempts: number;
  expires_at: Date;
  /** Kept past expiry so that a late attempt answers session_expired rather than invalid_session. */
  purge_at: Date;
}

/** What a key may carry beyond its owner and kind (app passwords, sync sessions). */
export type KeyExtra = Pick<ApiKeyDoc, "name" | "expires_at" | "opened_by">;

export interface AuthMethods {
  beginAttempt(username: string, address?: string): Promise<AttemptDoc>;
  forgetAttempt(id: string): Promise<void>;
  checkPassword(ctx: Ctx<unknown>, username: string, password: string, failure: string): Promise<{ login: VerifiedLogin; attempt: AttemptDoc }>;
  callerOf(owner: UserAuthInfo, key: ApiKeyDoc | null): AuthUser;
  issueKey(userId: number, kind: KeyKind, rssonly: boolean, podcastIds: number[] | null, extra?: KeyExtra): Promise<{ key: string; doc: ApiKeyDoc }>;
  createMfaSession(userId: number, username: string): Promise<string>;
  retireOldKeys(userId: number, kind: KeyKind): Promise<void>;
  removeKeys(query: Query): Promise<void>;
  dropKeys(keys: ApiKeyDoc[]): Promise<void>;
  forgetKeys(hashes: string[]): Promise<void>;
  // login-flow.actions.ts
  flowExpired(flow: LoginFlowDoc): boolean;
  openFlow(flowId: string): Promise<LoginFlowDoc | null>;
  flowCookieName(flow: LoginFlowDoc): string;
  formAnswer(ctx: Ctx<{ flow: string }>, flow: LoginFlowDoc, status: number, opts: { error?: string; username?: string; csrf?: string }): Promise<string>;
}

export type AuthThis = DbThis<ApiKeyDoc, { login_failures: AttemptDoc; mfa_sessions: MfaSessionDoc; login_flows: LoginFlowDoc }> & AuthMethods;
