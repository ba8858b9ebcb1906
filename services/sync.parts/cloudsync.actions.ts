/**
 * cloudsync: a Nextcloud account through Login Flow v2
 * (https://docs.nextcloud.com/server/latest/developer_manual/client_apis/LoginFlow/index.html#login-flow-v2):
 * the server starts the flow, the user approves it in their browser, and the poll hands over an app
 * password, which is stored sealed and used with the gpoddersync app's API.
 */
import type { ServiceActionsSchema, ServiceMethods } from "moleculer";
import { BadRequestError } from "../../shared/errors";
import { fetchUrl, OutboundHttpError, Rights, rightsOf, type FetchResult } from "../../shared/http";
import type { Ctx } from "../../shared/service-types";
import { syncError } from "./model";
import { AddCloudsyncAnswer, CloudsyncLoginAnswer, SyncRunAnswer } from "../../shared/contracts/sync";
import type { LoginPoll, SyncThis } from "./this";

const id = { type: "number", integer: true, positive: true, convert: true };
const POLL_EVERY_MS = 5_000;
/** Nextcloud drops a login flow after 20 minutes. */
const POLL_FOR_MS = 20 * 60_000;

/** What Nextcloud's login flow answers (the start, then the poll), as far as it is read; each field is checked where read. */
interface LoginFlowJson {
  login?: string;
  poll?: { token?: string; endpoint?: string };
  server?: string;
  loginName?: string;
  appPassword?: string;
}

function jsonOf(body: Buffer | null): LoginFlowJson | null {
  try {
    return JSON.parse(body?.toString("utf8") || "null") as LoginFlowJson | null; // its fields are checked by the callers
  } catch {
    throw new BadRequestError("The server did not answer like Nextcloud");
  }
}

export const cloudsyncActions: ServiceActionsSchema = {
  /** Starts a login flow: the client opens login_url; then add_cloudsync_server with the poll token. */
  initiate_cloudsync_login: {
    params: { user_id: id, cloudsync_url: { type: "url", max: 2000 } },
    response: CloudsyncLoginAnswer,
    async handler(this: SyncThis, ctx: Ctx<{ user_id: number; cloudsync_url: string }>): Promise<CloudsyncLoginAnswer> {
      const base = ctx.params.cloudsync_url.replace(/\/+$/, "");
      const res = await fetchUrl(`${base}/index.php/login/v2`, {
        method: "POST",
        accept: "application/json",
        timeoutMs: 15_000,
        maxBytes: 64 * 1024,
        rights: rightsOf(ctx.meta.user),
      }).catch((err) => {
        throw syncError(err);
      });
      const flow = jsonOf(res.body);
      if (!flow?.poll?.token || !flow?.poll?.endpoint || !flow?.login) throw new BadRequestError("The server did not start a Nextcloud login flow");
      return {
        login_url: flow.login,
        token: flow.poll.token,
        poll_endpoint: flow.poll.endpoint,
        login: flow.login,
        poll: { token: flow.poll.token, endpoint: flow.poll.endpoint },
      };
    },
  },
  /** POST /api/data/add_cloudsync_server: stores the account once the user approved; until then it keeps polling in the background. */
  add_cloudsync_server: {
    params: { user_id: id, token: { type: "string", min: 1, max: 1000 }, poll_endpoint: { type: "url", max: 2000 }, cloudsync_url: { type: "url", max: 2000 } },
    response: AddCloudsyncAnswer,
    async handler(this: SyncThis, ctx: Ctx<LoginPoll>): Promise<AddCloudsyncAnswer> {
      const p = ctx.params;
      if (new URL(p.poll_endpoint).host !== new URL(p.cloudsync_url).host) throw new BadRequestError("poll_endpoint must be on the cloudsync server");
      const rights = rightsOf(ctx.meta.user);
      if (await this.pollLogin(p, rights)) return { detail: "Cloudsync server added", status: "connected" };
      const started = Date.now();
      this.stopPolling(p.user_id);
      const poll = async () => {
        const done = await this.pollLogin(p, rights).catch(() => false);
        if (done || Date.now() - started > POLL_FOR_MS) this.stopPolling(p.user_id);
      };
      const timer = setInterval(() => void poll(), POLL_EVERY_MS);
      timer.unref();
      this.loginPolls.set(p.user_id, timer);
      return { detail: "Waiting for the login to be approved in Nextcloud", status: "pending" };
    },
  },
  refresh_cloudsync_subscriptions: {
    idempotent: false,
    params: {},
    response: SyncRunAnswer,
    async handler(this: SyncThis, ctx: Ctx): Promise<SyncRunAnswer> {
      return this.queueSync(ctx, ctx.meta.user!.id, { force: false, subscriptions_only: true, type: "nextcloud" });
    },
  },
};

export const cloudsyncMethods: ServiceMethods = {
  /** One poll: true when the login was approved and the account stored; false while pending (HTTP 404). */
  async pollLogin(this: SyncThis, p: LoginPoll, rights: Rights): Promise<boolean> {
    let res: FetchResult;
    try {
      res = await fetchUrl(p.poll_endpoint, {
        method: "POST",
        body: new URLSearchParams({ token: p.token }).toString(),
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        accept: "application/json",
        timeoutMs: 15_000,
        maxBytes: 64 * 1024,
        rights,
      });
    } catch (err) {
      if (err instanceof OutboundHttpError && err.status === 404) return false;
      throw syncError(err);
    }
    const got = jsonOf(res.body);
    if (!got?.loginName || !got?.appPassword) throw new BadRequestError("The Nextcloud login flow answered without an app password");
    const server = got.server && new URL(got.server).host === new URL(p.cloudsync_url).host ? got.server : p.cloudsync_url;
    await this.saveAccount(p.user_id, "nextcloud", server, got.loginName, got.appPassword, rights);
    return true;
  },
  stopPolling(this: SyncThis, user_id: number): void {
    clearInterval(this.loginPolls.get(user_id));
    this.loginPolls.delete(user_id);
  },
};
