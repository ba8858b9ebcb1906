/**
 * Nextcloud's Login Flow v2, as AntennaPod and other Nextcloud-sync apps run it: the app starts a flow
 * (POST /index.php/login/v2), opens the login page in a browser and polls; the person signs in on the
 * page and grants access, which creates an app password (kind "app") named after the app's user agent;
 * the next poll takes it, once. Flows live in the auth service's store (every gateway replica serves
 * every step) with only hashes of the poll token, the page's address and its form token; the granted
 * app password waits for its poll sealed with the server's secret (shared/secrets.ts), at most 20
 * minutes. The page is CSRF-safe twice over: its form token is stored hashed in the flow and must come
 * back both in the hidden field and in a SameSite=Strict cookie.
 */
import type { ServiceActionsSchema } from "moleculer";
import { config } from "../../shared/config";
import { ConflictError, NotFoundError, TooManyRequestsError, UnauthorizedError } from "../../shared/errors";
import { publicOrigin } from "../../shared/client-address";
import { readCookie, setCookie } from "../../shared/cookies";
import { decryptSecret, encryptSecret, generateApiKey, hashApiKey } from "../../shared/secrets";
import type { Ctx } from "../../shared/service-types";
import type { VerifiedLogin } from "../../shared/contracts/users";
import { checkMfaCode } from "../../shared/contracts/users";
import { LoginFlowPage, LoginFlowPollAnswer, LoginFlowStartAnswer } from "../../shared/contracts/auth";
import { flowGonePage, grantedPage, grantFormPage } from "./login-flow.page";
import type { AttemptDoc, AuthMethods, AuthThis } from "./this";

/** Nextcloud's lifetime of a login flow. */
export const LOGIN_FLOW_SECONDS = 20 * 60;
/**
 * Flow starts need no credentials, so each one counts like a failed login of this name (no username has
 * a space) from the caller's address: at most LOGIN_MAX_FAILURES a minute per address, and stored flows
 * cannot be piled up from one place.
 */
const FLOW_START_ATTEMPT = "login flow";
const FLOW_PATH = "/index.php/login/v2/flow/";

export interface LoginFlowDoc {
  _id: number;
  /** SHA-256 of the app's poll token and of the flow id in the login page's address. */
  poll_hash: string;
  flow_hash: string;
  /** SHA-256 of the form token of the page shown last (hidden field and cookie); null before the page was opened. */
  csrf_hash: string | null;
  /** The app, as its user agent names it: the app password's name. */
  app_name: string;
  expires_at: Date;
  /** Set once the person granted access: who, and the new app password sealed until the poll takes it. */
  granted: { user_id: number; login_name: string; app_password: string } | null;
}

/** ctx.meta of a page: the gateway's, and the status, type and headers moleculer-web answers with. */
const flowParam = { type: "string", min: 1, max: 128 };
const formField = (max: number) => ({ type: "string", max, optional: true });

function answerPage(ctx: Ctx<unknown>, status: number, html: string, headers?: Record<string, string>): string {
  const meta = ctx.meta;
  meta.$statusCode = status;
  meta.$responseType = "text/html; charset=utf-8";
  // Never cached, never framed: the page carries a form token and asks for a password.
  meta.$responseHeaders = {
    "Cache-Control": "no-store",
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
    ...headers,
  };
  return html;
}

// eslint-disable-next-line no-control-regex -- control characters are what it removes
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/g;

/** The app's name from its user agent ("AntennaPod/3.5.0 (Android...)" -> as sent, bounded). */
function appNameOf(userAgent: string | undefined): string {
  const name = (userAgent ?? "").replace(CONTROL_CHARS, "").trim().slice(0, 100);
  return name || "Sync app";
}

export const loginFlowActions: ServiceActionsSchema = {
  /** POST /index.php/login/v2: a new flow; the app opens `login` in a browser and polls `poll.endpoint` with `poll.token`. */
  login_flow_start: {
    params: {},
    response: LoginFlowStartAnswer,
    async handler(this: AuthThis, ctx: Ctx): Promise<LoginFlowStartAnswer> {
      await this.beginAttempt(FLOW_START_ATTEMPT, ctx.meta.clientIp);
      const pollToken = generateApiKey();
      const flowId = generateApiKey();
      const doc: LoginFlowDoc = {
        _id: await this.nextId("login_flows"),
        poll_hash: hashApiKey(pollToken),
        flow_hash: hashApiKey(flowId),
        csrf_hash: null,
        app_name: appNameOf(ctx.meta.headers?.["user-agent"]),
        expires_at: new Date(Date.now() + LOGIN_FLOW_SECONDS * 1000),
        granted: null,
      };
      await this.stores.login_flows.insert(doc);
      const origin = publicOrigin(ctx.meta);
      return { poll: { token: pollToken, endpoint: `${origin}/index.php/login/v2/poll` }, login: `${origin}${FLOW_PATH}${flowId}` };
    },
  },
  /** POST /index.php/login/v2/poll token=...: 404 until access is granted, then once {server, loginName, appPassword}. */
  login_flow_poll: {
    params: { token: { type: "string", min: 1, max: 256 } },
    response: LoginFlowPollAnswer,
    async handler(this: AuthThis, ctx: Ctx<{ token: string }>): Promise<LoginFlowPollAnswer> {
      const flow: LoginFlowDoc | null = await this.stores.login_flows.findOne({ poll_hash: hashApiKey(ctx.params.token) });
      if (!flow || !flow.granted || this.flowExpired(flow)) throw new NotFoundError("No access granted for this token");
      // Once: of two polls at the same time only the one that removes the flow gets the password.
      if ((await this.stores.login_flows.removeMany({ _id: flow._id })) !== 1) throw new NotFoundError("No access granted for this token");
      const appPassword = decryptSecret(flow.granted.app_password);
      // Sealed with another server secret (it changed since the grant): the app starts the flow again.
      if (appPassword === null) throw new NotFoundError("The granted app password cannot be read any more: sign in again");
      return { server: publicOrigin(ctx.meta), loginName: flow.granted.login_name, appPassword };
    },
  },
  /** GET /index.php/login/v2/flow/{flow}: the sign-in page, with a new form token. */
  login_flow_page: {
    idempotent: true,
    params: { flow: flowParam },
    response: LoginFlowPage,
    async handler(this: AuthThis, ctx: Ctx<{ flow: string }>): Promise<string> {
      const flow = await this.openFlow(ctx.params.flow);
      if (!flow) return answerPage(ctx, 404, flowGonePage(config.serviceName));
      return this.formAnswer(ctx, flow, 200, {});
    },
  },
  /**
   * POST /index.php/login/v2/flow/{flow} (the page's form): checks the form token, then the username and
   * password (and the MFA code when MFA is on) with get_key's login limits, and grants access.
   */
  login_flow_grant: {
    params: { flow: flowParam, csrf: formField(128), user: formField(255), password: formField(1024), mfa_code: formField(16) },
    response: LoginFlowPage,
    async handler(this: AuthThis, ctx: Ctx<{ flow: string; csrf?: string; user?: string; password?: string; mfa_code?: string }>): Promise<string> {
      const p = ctx.params;
      const flow: LoginFlowDoc | null = await this.openFlow(p.flow);
      if (!flow) return answerPage(ctx, 404, flowGonePage(config.serviceName));
      const cookie = readCookie(ctx.meta.headers?.cookie, this.flowCookieName(flow));
      if (!p.csrf || !flow.csrf_hash || hashApiKey(p.csrf) !== flow.csrf_hash || cookie !== p.csrf) {
        this.logger.warn("login flow form refused: form token missing or wrong", { flow_id: flow._id });
        return this.formAnswer(ctx, flow, 403, { error: "This form has expired or did not come from this page. Please sign in again." });
      }
      const username = (p.user ?? "").trim().toLowerCase();
      const again = (status: number, error: string) => this.formAnswer(ctx, flow, status, { error, username, csrf: p.csrf });
      if (!username || !p.password) return again(401, "Enter your username and password.");
      let checked: { login: VerifiedLogin; attempt: AttemptDoc };
      try {
        checked = await this.checkPassword(ctx, username, p.password, "login flow sign-in failed");
      } catch (err) {
        if (err instanceof TooManyRequestsError) return again(429, "Too many failed sign-ins. Wait a minute, then try again.");
        if (err instanceof UnauthorizedError) return again(401, "Wrong username or password.");
        throw err;
      }
      const { login, attempt } = checked;
      if (login.mfa_enabled) {
        const code = (p.mfa_code ?? "").trim();
        if (!code) return again(401, "Your account has two-factor authentication on: enter the code from your authenticator app.");
        if (!(await checkMfaCode(ctx, { user_id: login.user_id, mfa_code: code }))) {
          this.logger.warn("login flow MFA code refused", { username, address: attempt.address });
          return again(401, "Wrong two-factor code. Enter the current code from your authenticator app.");
        }
      }
      await this.forgetAttempt(attempt._id);
      let issued: { key: string; doc: { _id: number } };
      try {
        issued = await this.issueKey(login.user_id, "app", false, null, { name: flow.app_name });
      } catch (err) {
        if (err instanceof ConflictError) return again(409, `${err.message} (in the web app's settings).`);
        throw err;
      }
      const { key, doc } = issued;
      const granted = { user_id: login.user_id, login_name: username, app_password: encryptSecret(key) };
      // A second tab granting the same flow at the same moment: only one grant is kept, the other key goes.
      if (!(await this.stores.login_flows.updateMany({ _id: flow._id, granted: null }, { $set: { granted, csrf_hash: null } }))) {
        await this.removeKeys({ _id: doc._id });
        return answerPage(ctx, 404, flowGonePage(config.serviceName));
      }
      this.logger.info("login flow granted: app password created", { user_id: login.user_id, api_id: doc._id });
      const clear = setCookie(this.flowCookieName(flow), "", publicOrigin(ctx.meta), 0, "Strict");
      return answerPage(ctx, 200, grantedPage(config.serviceName, flow.app_name, username), { "Set-Cookie": clear });
    },
  },
};

export const loginFlowMethods: Pick<AuthMethods, "flowExpired" | "openFlow" | "flowCookieName" | "formAnswer"> = {
  flowExpired(this: AuthThis, flow: LoginFlowDoc): boolean {
    return new Date(flow.expires_at).getTime() <= Date.now();
  },
  /** The flow of a login page's address while it waits for the person: unknown, expired and granted ones are gone. */
  async openFlow(this: AuthThis, flowId: string): Promise<LoginFlowDoc | null> {
    const flow: LoginFlowDoc | null = await this.stores.login_flows.findOne({ flow_hash: hashApiKey(flowId) });
    return flow && !flow.granted && !this.flowExpired(flow) ? flow : null;
  },
  /** One cookie per flow: two flows open in one browser keep their own form tokens. */
  flowCookieName(this: AuthThis, flow: LoginFlowDoc): string {
    return `login_flow_${flow._id}`;
  },
  /** The form page: with the submitted token again (a retry), or a new one stored in the flow and set as its cookie. */
  async formAnswer(
    this: AuthThis,
    ctx: Ctx<{ flow: string }>,
    flow: LoginFlowDoc,
    status: number,
    opts: { error?: string; username?: string; csrf?: string },
  ): Promise<string> {
    let csrf = opts.csrf;
    const headers: Record<string, string> = {};
    if (!csrf) {
      csrf = generateApiKey();
      await this.stores.login_flows.updateMany({ _id: flow._id }, { $set: { csrf_hash: hashApiKey(csrf) } });
      const maxAge = Math.max(0, Math.floor((new Date(flow.expires_at).getTime() - Date.now()) / 1000));
      headers["Set-Cookie"] = setCookie(this.flowCookieName(flow), csrf, publicOrigin(ctx.meta), maxAge, "Strict");
    }
    const page = grantFormPage({
      serviceName: config.serviceName,
      appName: flow.app_name,
      action: ctx.params.flow,
      csrf,
      username: opts.username,
      error: opts.error,
    });
    return answerPage(ctx, status, page, headers);
  },
};
