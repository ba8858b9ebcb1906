/**
 * Credentials of the sync routes (auth "sync", checked by the gateway): the account password in HTTP
 * Basic (get_key's login limits; refused when MFA is on), app passwords (keys of kind "app" that open
 * only the sync routes), and sync sessions (keys of kind "session" behind the sessionid cookie), with
 * gPodder's login.json and logout.json.
 */
import type { ServiceActionsSchema } from "moleculer";
import { config } from "../../shared/config";
import { UnauthorizedError } from "../../shared/errors";
import { publicOrigin } from "../../shared/client-address";
import { sessionCookie } from "../../shared/cookies";
import type { AuthUser } from "../../shared/types";
import type { Ctx } from "../../shared/service-types";
import type { UserAuthInfo } from "../../shared/contracts/users";
import { getAuthInfo } from "../../shared/contracts/users";
import type { AuthThis } from "./this";
import { AppPasswordAnswer, SyncSessionAnswer } from "../../shared/contracts/auth";

const userIdParam = { type: "number", integer: true, positive: true, convert: true };

export const syncActions: ServiceActionsSchema = {
  /** POST /api/data/create_app_password: a new app password (shown once), for sync apps only. */
  create_app_password: {
    params: { user_id: userIdParam, name: { type: "string", trim: true, min: 1, max: 100, optional: true } },
    response: AppPasswordAnswer,
    async handler(this: AuthThis, ctx: Ctx<{ user_id: number; name?: string }>): Promise<AppPasswordAnswer> {
      const name = ctx.params.name ?? "App password";
      const { key, doc } = await this.issueKey(ctx.params.user_id, "app", false, null, { name });
      this.logger.info("app password created", { user_id: doc.user_id, api_id: doc._id });
      return { app_password: key, api_id: doc._id, name };
    },
  },
  /** POST /api/2/auth/{username}/login.json: the gateway has checked the credentials and set the session cookie. */
  sync_session_login: {
    params: { username: { type: "string", max: 255 } },
    response: SyncSessionAnswer,
    handler(this: AuthThis, ctx: Ctx<{ username: string }>): SyncSessionAnswer {
      // Set by the gateway on every sync route (auth "sync").
      return { username: ctx.meta.syncUsername! };
    },
  },
  /** POST /api/2/auth/{username}/logout.json: ends the session of this request and clears its cookie. */
  sync_session_logout: {
    params: { username: { type: "string", max: 255 } },
    response: SyncSessionAnswer,
    async handler(this: AuthThis, ctx: Ctx<{ username: string }>): Promise<SyncSessionAnswer> {
      if (ctx.meta.syncSession) await this.removeKeys({ key_hash: ctx.meta.syncSession, kind: "session" });
      const meta = ctx.meta;
      meta.$responseHeaders = { "Set-Cookie": sessionCookie("", publicOrigin(ctx.meta), 0) };
      return { username: ctx.meta.syncUsername! };
    },
  },

  // --- Internal actions (the gateway's sync level) ---

  /**
   * The account password sent in HTTP Basic to a sync route: counted like a get_key login (429 past the
   * limits), refused when the user has MFA on (then only app passwords open the sync routes).
   */
  sync_login: {
    visibility: "public",
    params: { username: { type: "string", min: 1, max: 255 }, password: { type: "string", max: 1024 } },
    async handler(this: AuthThis, ctx: Ctx<{ username: string; password: string }>): Promise<AuthUser> {
      const username = ctx.params.username.toLowerCase();
      const { login, attempt } = await this.checkPassword(ctx, username, ctx.params.password, "sync login failed");
      // Still counted as a failure: with MFA on the password alone opens nothing.
      if (login.mfa_enabled) {
        this.logger.warn("sync login with the account password refused: MFA is on", { username, address: attempt.address });
        throw new UnauthorizedError("MFA is on for this account: sync apps sign in with an app password");
      }
      await this.forgetAttempt(attempt._id);
      const [owner]: UserAuthInfo[] = await getAuthInfo(ctx, { user_ids: [login.user_id] });
      if (!owner) throw new UnauthorizedError("Invalid username or password");
      return this.callerOf(owner, null);
    },
  },
  /**
   * A new sync session of a user the gateway has just authenticated (app_password_id: with that app
   * password, whose revocation ends it): its token goes into the sessionid cookie.
   */
  open_sync_session: {
    visibility: "public",
    params: { user_id: userIdParam, app_password_id: { ...userIdParam, optional: true } },
    async handler(this: AuthThis, ctx: Ctx<{ user_id: number; app_password_id?: number }>): Promise<{ token: string }> {
      const expires_at = new Date(Date.now() + config.syncSessionDays * 86400_000);
      const { key } = await this.issueKey(ctx.params.user_id, "session", false, null, { expires_at, opened_by: ctx.params.app_password_id });
      return { token: key };
    },
  },
};
