/**
 * The podsync routes: a user's gPodder v2 account (stored with a sealed password, never returned),
 * its devices, statistics, test-connection and sync. Routes without user_id act for the caller.
 */
import type { Context, ServiceActionsSchema, ServiceMethods } from "moleculer";
import { config } from "../../shared/config";
import { ConflictError, NotFoundError } from "../../shared/errors";
import { rightsOf } from "../../shared/http";
import { encryptSecret } from "../../shared/secrets";
import type { AuthUser } from "../../shared/types";
import { GpodderClient } from "./gpodder";
import type { SyncJobPayload } from "../../shared/contracts/sync";
import { DEVICE_ID, syncError, SyncSettingsDoc, SyncSummary } from "./model";
import { AddPodsyncAnswer, CheckPodsyncAnswer, PodsyncSettingsAnswer, PodsyncStatusAnswer, PodsyncToggleAnswer, SetDefaultDeviceAnswer, SyncDevice, SyncDevicesAnswer, SyncRunAnswer, SyncStatisticsAnswer, TestConnectionAnswer, VerifyPodsyncAnswer } from "../../shared/contracts/sync";

type Ctx = Context<any, { user: AuthUser }>;
const id = { type: "number", integer: true, positive: true, convert: true };
const account = {
  podsync_url: { type: "url", max: 2000 },
  podsync_username: { type: "string", trim: true, min: 1, max: 255 },
  podsync_password: { type: "string", min: 1, max: 1024 },
};
const DEVICE_TYPES = ["desktop", "laptop", "mobile", "server", "other"];

export const podsyncActions: ServiceActionsSchema = {
  /** POST /api/data/add_podsync_server: checked by logging in before it is stored. */
  add_podsync_server: {
    params: account,
    response: AddPodsyncAnswer,
    async handler(this: any, ctx: Ctx) {
      const user_id = ctx.meta.user.id;
      const rights = rightsOf(ctx.meta.user);
      await this.verifyLogin({ url: ctx.params.podsync_url, username: ctx.params.podsync_username, password: ctx.params.podsync_password, rights });
      await this.saveAccount(user_id, "gpodder", ctx.params.podsync_url, ctx.params.podsync_username, ctx.params.podsync_password, rights);
      return { detail: "Sync server added", success: true, status: "success" };
    },
  },
  /** POST /api/data/verify_podsync_auth: logs in with the given account, stores nothing. */
  verify_podsync_auth: {
    params: account,
    response: VerifyPodsyncAnswer,
    async handler(this: any, ctx: Ctx) {
      await this.verifyLogin({ url: ctx.params.podsync_url, username: ctx.params.podsync_username, password: ctx.params.podsync_password, rights: rightsOf(ctx.meta.user) });
      return { valid: true, status: "success", message: "Login to the sync server succeeded" };
    },
  },
  check_podsync_settings: {
    params: { user_id: id },
    response: CheckPodsyncAnswer,
    async handler(this: any, ctx: Ctx) {
      return { data: !!(await this.adapter.findOne({ _id: ctx.params.user_id })) };
    },
  },
  get_podsync_settings: {
    params: { user_id: id },
    response: PodsyncSettingsAnswer,
    async handler(this: any, ctx: Ctx) {
      const s: SyncSettingsDoc | null = await this.adapter.findOne({ _id: ctx.params.user_id });
      // data: the address as the web client shows it; the password or token never leaves the server.
      if (!s) return { sync_type: "None", enabled: false, server_url: null, username: null, device_id: null, last_sync: null, data: { podsyncurl: "", podsynctoken: "" } };
      return {
        sync_type: s.sync_type, enabled: s.enabled, server_url: s.server_url, username: s.username, device_id: s.device_id,
        last_sync: s.last_sync ? new Date(s.last_sync).toISOString() : null, data: { podsyncurl: s.server_url, podsynctoken: "" },
      };
    },
  },
  podsync_status: {
    params: {},
    response: PodsyncStatusAnswer,
    async handler(this: any, ctx: Ctx) {
      const s: SyncSettingsDoc | null = await this.adapter.findOne({ _id: ctx.meta.user.id });
      return {
        enabled: !!s?.enabled, sync_type: s?.sync_type ?? "None", server_url: s?.server_url ?? null,
        last_sync: s?.last_sync ? new Date(s.last_sync).toISOString() : null, last_status: s?.last_status ?? "never", last_error: s?.last_error ?? null, last_result: s?.last_result ?? null,
        podsync_enabled: !!s?.enabled, external_enabled: !!s, external_url: s?.server_url ?? null, api_url: config.apiUrl || null,
      };
    },
  },
  podsync_toggle: {
    params: { enabled: { type: "boolean", convert: true } },
    response: PodsyncToggleAnswer,
    async handler(this: any, ctx: Ctx) {
      const s = await this.settingsOf(ctx.meta.user.id);
      await this.adapter.updateMany({ _id: s._id }, { $set: { enabled: ctx.params.enabled } });
      return {
        enabled: ctx.params.enabled, detail: `Sync ${ctx.params.enabled ? "enabled" : "disabled"}`,
        sync_type: s.sync_type, podsync_enabled: ctx.params.enabled, external_enabled: true, external_url: s.server_url, api_url: config.apiUrl || null,
      };
    },
  },
  default_device: {
    params: {},
    response: SyncDevice,
    async handler(this: any, ctx: Ctx) {
      const s = await this.settingsOf(ctx.meta.user.id, "gpodder");
      const devices = await this.remoteDevices(s);
      return devices.find((d: SyncDevice) => d.id === s.device_id) ?? device(s, { id: s.device_id, type: "server" });
    },
  },
  devices: {
    params: {},
    response: SyncDevicesAnswer,
    async handler(this: any, ctx: Ctx) {
      return this.remoteDevices(await this.settingsOf(ctx.meta.user.id, "gpodder"));
    },
  },
  user_devices: {
    params: { user_id: id },
    response: SyncDevicesAnswer,
    async handler(this: any, ctx: Ctx) {
      return this.remoteDevices(await this.settingsOf(ctx.params.user_id, "gpodder"));
    },
  },
  create_device: {
    params: {
      device_name: { type: "string", trim: true, pattern: DEVICE_ID, messages: { stringPattern: "device_name may hold letters, digits, '.', '-' and '_' (at most 64)" } },
      device_type: { type: "string", trim: true, lowercase: true, enum: DEVICE_TYPES, optional: true, default: "other" },
      device_caption: { type: "string", trim: true, max: 255, optional: true, nullable: true },
    },
    response: SyncDevice,
    async handler(this: any, ctx: Ctx) {
      const s = await this.settingsOf(ctx.meta.user.id, "gpodder");
      const p = ctx.params;
      await this.remote(s, (gp: GpodderClient) => gp.saveDevice(p.device_name, p.device_caption || p.device_name, p.device_type));
      return device(s, { id: p.device_name, caption: p.device_caption, type: p.device_type });
    },
  },
  /** POST /api/podsync/set_default/{device_id}: a new device starts from its full subscription list. */
  set_default_device: {
    params: { device_id: { type: "string", pattern: DEVICE_ID, messages: { stringPattern: "Not a device id" } } },
    response: SetDefaultDeviceAnswer,
    async handler(this: any, ctx: Ctx) {
      const s = await this.settingsOf(ctx.meta.user.id, "gpodder");
      const devices = await this.remoteDevices(s);
      if (!devices.some((d: any) => d.id === ctx.params.device_id)) throw new NotFoundError("No such device on the sync server");
      await this.adapter.updateMany({ _id: s._id }, { $set: { device_id: ctx.params.device_id, subs_since: 0, remote_feeds: [] } });
      return { detail: "Default device set", device_id: ctx.params.device_id };
    },
  },
  podsync_statistics: {
    params: {},
    response: SyncStatisticsAnswer,
    async handler(this: any, ctx: Ctx) {
      return this.statistics(await this.settingsOf(ctx.meta.user.id, "gpodder"));
    },
  },
  test_connection: {
    params: {},
    response: TestConnectionAnswer,
    async handler(this: any, ctx: Ctx) {
      const s = await this.settingsOf(ctx.meta.user.id, "gpodder");
      const devices = await this.remoteDevices(s);
      return { success: true, message: "Connected to the sync server", server_url: s.server_url, total_devices: devices.length };
    },
  },
  sync_now: {
    params: {},
    response: SyncRunAnswer,
    async handler(this: any, ctx: Ctx) {
      return this.queueSync(ctx, ctx.meta.user.id, { force: false });
    },
  },
  force_sync: {
    params: {},
    response: SyncRunAnswer,
    async handler(this: any, ctx: Ctx) {
      return this.queueSync(ctx, ctx.meta.user.id, { force: true });
    },
  },
  refresh_podsync_subscriptions: {
    params: {},
    response: SyncRunAnswer,
    async handler(this: any, ctx: Ctx) {
      return this.queueSync(ctx, ctx.meta.user.id, { force: false, subscriptions_only: true, type: "gpodder" });
    },
  },
};

/** A device of the sync server's list (or one made here) as the answers show it. */
function device(s: SyncSettingsDoc, d: { id: string; caption?: string | null; type?: string; subscriptions?: number }): SyncDevice {
  const caption = d.caption || d.id;
  return { id: d.id, name: caption, caption, type: d.type ?? "other", subscriptions: d.subscriptions ?? 0, is_default: d.id === s.device_id, is_active: true, is_remote: true, last_sync: null };
}

export const podsyncMethods: ServiceMethods = {
  async verifyLogin(this: any, acc: ConstructorParameters<typeof GpodderClient>[0], flavor: SyncSettingsDoc["sync_type"] = "gpodder") {
    const gp = new GpodderClient(acc, flavor);
    try {
      await gp.login();
    } catch (err) {
      throw syncError(err);
    }
  },
  async saveAccount(this: any, user_id: number, sync_type: SyncSettingsDoc["sync_type"], server_url: string, username: string, password: string, rights: SyncSettingsDoc["rights"]) {
    const doc: SyncSettingsDoc = {
      _id: user_id, user_id, sync_type, server_url: server_url.replace(/\/+$/, ""), username, password_sealed: encryptSecret(password), enabled: true,
      device_id: config.serviceName.replace(/[^\w.-]/g, "-").slice(0, 64) || "podcast-server", rights,
      subs_since: 0, actions_since: 0, last_upload: null, remote_feeds: [], last_sync: null, last_status: "never", last_error: null, last_result: null, scheduled_at: new Date(0),
      lease_owner: null, lease_until: new Date(0),
    };
    await this.adapter.removeMany({ _id: user_id });
    await this.adapter.insert(doc);
    this.logger.info("sync account saved", { user_id, sync_type, server: new URL(doc.server_url).host });
  },
  async settingsOf(this: any, user_id: number, type?: SyncSettingsDoc["sync_type"]): Promise<SyncSettingsDoc> {
    const s: SyncSettingsDoc | null = await this.adapter.findOne({ _id: user_id });
    if (!s || (type && s.sync_type !== type)) throw new NotFoundError(type === "nextcloud" ? "No cloudsync server set up" : "No sync server set up");
    return s;
  },
  /** One logged-in call to the server, its failures as client errors. */
  async remote(this: any, s: SyncSettingsDoc, call: (gp: GpodderClient) => Promise<any>) {
    const gp: GpodderClient = this.client(s);
    try {
      await gp.login();
      return await call(gp);
    } catch (err) {
      throw syncError(err);
    }
  },
  async remoteDevices(this: any, s: SyncSettingsDoc) {
    const devices = await this.remote(s, (gp: GpodderClient) => gp.devices());
    return (Array.isArray(devices) ? devices : []).map((d: any) => device(s, d));
  },
  /** The spec's Sync statistics record, read live from the server (each endpoint's outcome in api_endpoints_tested). */
  async statistics(this: any, s: SyncSettingsDoc) {
    const tested: SyncStatisticsAnswer["api_endpoints_tested"] = [];
    const out: any = {
      server_url: s.server_url, sync_type: s.sync_type, sync_enabled: s.enabled, server_devices: [], total_devices: 0,
      server_subscriptions: [], total_subscriptions: 0, recent_episode_actions: [], total_episode_actions: 0,
      connection_status: "connected", last_sync_timestamp: s.last_sync ? new Date(s.last_sync).toISOString() : null, api_endpoints_tested: tested,
    };
    const gp: GpodderClient = this.client(s);
    const step = async (endpoint: string, run: () => Promise<void>) => {
      try {
        await run();
        tested.push({ endpoint, ok: true, status: "success" });
      } catch (err) {
        tested.push({ endpoint, ok: false, status: "failed" });
        out.connection_status = `failed: ${syncError(err).message}`;
        return false;
      }
      return true;
    };
    if (!(await step("POST /api/2/auth/{username}/login.json", () => gp.login()))) return out;
    await step("GET /api/2/devices/{username}.json", async () => {
      out.server_devices = (await gp.devices()).map((d: any) => ({ id: d.id, caption: d.caption ?? d.id, device_type: d.type ?? "other", type: d.type ?? "other", subscriptions: d.subscriptions ?? 0 }));
      out.total_devices = out.server_devices.length;
    });
    await step("GET /api/2/subscriptions/{username}/{device}.json", async () => {
      out.server_subscriptions = (await gp.subscriptionChanges(s.device_id, 0)).add.map((url: string) => ({ url, title: null, description: null }));
      out.total_subscriptions = out.server_subscriptions.length;
    });
    await step("GET /api/2/episodes/{username}.json", async () => {
      const { actions } = await gp.episodeActions(0);
      out.total_episode_actions = actions.length;
      out.recent_episode_actions = actions.slice(-10).reverse();
    });
    return out;
  },
  /** A sync now under the user's lease (a sync job runs it): 409 while another replica syncs them. */
  async syncUser(this: any, ctx: Context, user_id: number, opts: SyncJobPayload): Promise<SyncSummary> {
    const s: SyncSettingsDoc = await this.settingsOf(user_id, opts.type);
    if (!(await this.claimLease(user_id))) throw new ConflictError("A sync of this account is already running");
    try {
      return await this.runSync(ctx, s, opts);
    } catch (err: any) {
      const shown: any = syncError(err);
      await this.adapter.updateMany({ _id: user_id }, { $set: { last_status: "failed", last_error: shown.message, last_error_code: shown.code ?? null } });
      this.logger.warn("sync failed", { user_id, reason: shown.message });
      throw shown;
    } finally {
      await this.releaseLease(user_id);
    }
  },
};

