/**
 * The podsync routes: a user's gPodder v2 account (stored with a sealed password, never returned),
 * its devices, statistics, test-connection and sync. Routes without user_id act for the caller.
 * PinePods' web client shows them on its sync page for whichever server the user syncs with: the account's
 * server when there is one, else this server's own sync server (sync.parts/own-server.ts), which the
 * status and toggle routes describe and switch (the user's sync-server switch).
 */
import type { ServiceActionsSchema, ServiceMethods } from "moleculer";
import { config } from "../../shared/config";
import { BadRequestError, ConflictError, NotFoundError } from "../../shared/errors";
import { publicOrigin } from "../../shared/client-address";
import { rightsOf } from "../../shared/http";
import { encryptSecret } from "../../shared/secrets";
import type { AuthUser } from "../../shared/types";
import type { Caller } from "../../shared/contracts/call";
import type { Ctx } from "../../shared/service-types";
import type { Static } from "../../shared/contracts/answers";
import { GpodderClient, type GpodderAccount, type GpodderDevice } from "./gpodder";
import type { SyncJobPayload } from "../../shared/contracts/sync";
import type { DeviceType, OwnSyncApplied } from "../../shared/contracts/gpodder";
import { accountApply, accountSaveDevice, accountSetDefault } from "../../shared/contracts/gpodder";
import type { SyncServerAnswer } from "../../shared/contracts/users";
import { setSyncServer } from "../../shared/contracts/users";
import { ownDevice, ownServerOpen } from "./own-server";
import { DEVICE_ID, syncError, SyncSettingsDoc, SyncSummary } from "./model";
import {
  AddPodsyncAnswer,
  CheckPodsyncAnswer,
  PodsyncSettingsAnswer,
  PodsyncStatusAnswer,
  PodsyncToggleAnswer,
  RemoveSyncAnswer,
  SetDefaultDeviceAnswer,
  SyncDevice,
  SyncDevicesAnswer,
  SyncRunAnswer,
  SyncStatisticsAnswer,
  TestConnectionAnswer,
  VerifyPodsyncAnswer,
} from "../../shared/contracts/sync";
import type { SyncThis } from "./this";

/** A podsync route's Context: every one is behind a key, so the gateway has set the caller. */
type UserCtx<P = Record<string, never>> = Ctx<P> & { meta: { user: AuthUser } };
/** A gPodder account as the routes receive it. */
interface AccountParams {
  podsync_url: string;
  podsync_username: string;
  podsync_password: string;
}
const id = { type: "number", integer: true, positive: true, convert: true };
const account = {
  podsync_url: { type: "url", max: 2000 },
  podsync_username: { type: "string", trim: true, min: 1, max: 255 },
  podsync_password: { type: "string", min: 1, max: 1024 },
};
const optional = (rules: Record<string, object>) => Object.fromEntries(Object.entries(rules).map(([k, r]) => [k, { ...r, optional: true }]));
const DEVICE_TYPES = ["desktop", "laptop", "mobile", "server", "other"];

export const podsyncActions: ServiceActionsSchema = {
  /** POST /api/data/add_podsync_server: checked by logging in before it is stored. */
  add_podsync_server: {
    params: account,
    response: AddPodsyncAnswer,
    async handler(this: SyncThis, ctx: UserCtx<AccountParams>): Promise<AddPodsyncAnswer> {
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
    async handler(this: SyncThis, ctx: UserCtx<AccountParams>): Promise<VerifyPodsyncAnswer> {
      await this.verifyLogin({
        url: ctx.params.podsync_url,
        username: ctx.params.podsync_username,
        password: ctx.params.podsync_password,
        rights: rightsOf(ctx.meta.user),
      });
      return { valid: true, status: "success", message: "Login to the sync server succeeded" };
    },
  },
  /**
   * DELETE /api/data/remove_podcast_sync {user_id} (not in the documents; PinePods' web client's "remove sync"):
   * the user's account elsewhere (podsync or cloudsync) goes, with its sealed password, and this server's own
   * sync server is switched off for them, as the client then shows no sync at all. What devices sent here stays:
   * switching the sync server on again (podsync/toggle) brings it back.
   */
  remove_podcast_sync: {
    params: { user_id: id },
    response: RemoveSyncAnswer,
    async handler(this: SyncThis, ctx: UserCtx<{ user_id: number }>): Promise<RemoveSyncAnswer> {
      const { user_id } = ctx.params;
      this.stopPolling(user_id);
      const removed: number = await this.adapter.removeMany({ _id: user_id });
      await setSyncServer(ctx, { user_id, sync_server: false });
      this.logger.info("sync removed", { user_id, account_removed: removed > 0 });
      const message = removed
        ? "Sync settings removed; this server's sync server is off for this account"
        : "No sync account was set up; this server's sync server is off for this account";
      return { success: true, message, detail: message };
    },
  },
  check_podsync_settings: {
    idempotent: true,
    params: { user_id: id },
    response: CheckPodsyncAnswer,
    async handler(this: SyncThis, ctx: UserCtx<{ user_id: number }>): Promise<CheckPodsyncAnswer> {
      return { data: !!(await this.adapter.findOne({ _id: ctx.params.user_id })) };
    },
  },
  get_podsync_settings: {
    idempotent: true,
    params: { user_id: id },
    response: PodsyncSettingsAnswer,
    async handler(this: SyncThis, ctx: UserCtx<{ user_id: number }>): Promise<PodsyncSettingsAnswer> {
      const s: SyncSettingsDoc | null = await this.adapter.findOne({ _id: ctx.params.user_id });
      // data: the address as the web client shows it; the password or token never leaves the server.
      if (!s)
        return {
          sync_type: "None",
          enabled: false,
          server_url: null,
          username: null,
          device_id: null,
          last_sync: null,
          data: { podsyncurl: "", podsynctoken: "" },
        };
      return {
        sync_type: s.sync_type,
        enabled: s.enabled,
        server_url: s.server_url,
        username: s.username,
        device_id: s.device_id,
        last_sync: s.last_sync ? new Date(s.last_sync).toISOString() : null,
        data: { podsyncurl: s.server_url, podsynctoken: "" },
      };
    },
  },
  /** GET /api/data/podsync/status: this server's own sync server for the user, and the account's server (in the web client's words). */
  podsync_status: {
    idempotent: true,
    params: {},
    response: PodsyncStatusAnswer,
    async handler(this: SyncThis, ctx: UserCtx): Promise<PodsyncStatusAnswer> {
      const user_id = ctx.meta.user.id;
      const [s, own]: [SyncSettingsDoc | null, boolean] = await Promise.all([this.adapter.findOne({ _id: user_id }), this.ownServerOn(ctx, user_id)]);
      return {
        ...this.serverStatus(ctx, s, own),
        server_url: s?.server_url ?? null,
        last_sync: s?.last_sync ? new Date(s.last_sync).toISOString() : null,
        last_status: s?.last_status ?? "never",
        last_error: s?.last_error ?? null,
        last_result: s?.last_result ?? null,
      };
    },
  },
  /** POST /api/data/podsync/toggle {enabled}: the user's own switch of this server's sync routes (users.set_sync_server). */
  podsync_toggle: {
    params: { enabled: { type: "boolean", convert: true } },
    response: PodsyncToggleAnswer,
    async handler(this: SyncThis, ctx: UserCtx<{ enabled: boolean }>): Promise<PodsyncToggleAnswer> {
      const user_id = ctx.meta.user.id;
      const switched: SyncServerAnswer = await setSyncServer(ctx, { user_id, sync_server: ctx.params.enabled });
      const s: SyncSettingsDoc | null = await this.adapter.findOne({ _id: user_id });
      const detail = !ctx.params.enabled
        ? "Sync server disabled for this account"
        : switched.server_enabled
          ? "Sync server enabled for this account"
          : "Sync server enabled for this account, but switched off on this server";
      return { detail, ...this.serverStatus(ctx, s, ownServerOpen(switched)) };
    },
  },
  default_device: {
    idempotent: true,
    params: {},
    response: SyncDevice,
    async handler(this: SyncThis, ctx: UserCtx): Promise<SyncDevice> {
      const s: SyncSettingsDoc | null = await this.syncTarget(ctx, ctx.meta.user.id);
      if (!s) {
        const found = (await this.ownServerDevices(ctx, ctx.meta.user.id)).find((d: SyncDevice) => d.is_default);
        if (!found) throw new NotFoundError("No device has used this sync server yet");
        return found;
      }
      const devices = await this.remoteDevices(s);
      return devices.find((d: SyncDevice) => d.id === s.device_id) ?? device(s, { id: s.device_id, type: "server" });
    },
  },
  devices: {
    idempotent: true,
    params: {},
    response: SyncDevicesAnswer,
    async handler(this: SyncThis, ctx: UserCtx): Promise<Static<typeof SyncDevicesAnswer>> {
      return this.devicesOf(ctx, ctx.meta.user.id);
    },
  },
  user_devices: {
    idempotent: true,
    params: { user_id: id },
    response: SyncDevicesAnswer,
    async handler(this: SyncThis, ctx: UserCtx<{ user_id: number }>): Promise<Static<typeof SyncDevicesAnswer>> {
      return this.devicesOf(ctx, ctx.params.user_id);
    },
  },
  create_device: {
    params: {
      device_name: {
        type: "string",
        trim: true,
        pattern: DEVICE_ID,
        messages: { stringPattern: "device_name may hold letters, digits, '.', '-' and '_' (at most 64)" },
      },
      device_type: { type: "string", trim: true, lowercase: true, enum: DEVICE_TYPES, optional: true, default: "other" },
      device_caption: { type: "string", trim: true, max: 255, optional: true, nullable: true },
    },
    response: SyncDevice,
    async handler(this: SyncThis, ctx: UserCtx<{ device_name: string; device_type: DeviceType; device_caption?: string | null }>): Promise<SyncDevice> {
      const p = ctx.params;
      const s: SyncSettingsDoc | null = await this.syncTarget(ctx, ctx.meta.user.id);
      if (!s) return ownDevice(await accountSaveDevice(ctx, { device_id: p.device_name, caption: p.device_caption, type: p.device_type }));
      await this.remote(s, (gp: GpodderClient) => gp.saveDevice(p.device_name, p.device_caption || p.device_name, p.device_type));
      return device(s, { id: p.device_name, caption: p.device_caption, type: p.device_type });
    },
  },
  /**
   * POST /api/podsync/set_default/{device_id}: with the account's server, the device this server syncs as (a new
   * one starts from its full subscription list); with this server's own, the device the web client shows first.
   */
  set_default_device: {
    params: { device_id: { type: "string", pattern: DEVICE_ID, messages: { stringPattern: "Not a device id" } } },
    response: SetDefaultDeviceAnswer,
    async handler(this: SyncThis, ctx: UserCtx<{ device_id: string }>): Promise<SetDefaultDeviceAnswer> {
      const done = { success: true, detail: "Default device set", message: "Default device set", device_id: ctx.params.device_id };
      const s: SyncSettingsDoc | null = await this.syncTarget(ctx, ctx.meta.user.id);
      if (!s) {
        await accountSetDefault(ctx, { user_id: ctx.meta.user.id, device_id: ctx.params.device_id });
        return done;
      }
      const devices = await this.remoteDevices(s);
      if (!devices.some((d: SyncDevice) => d.id === ctx.params.device_id)) throw new NotFoundError("No such device on the sync server");
      await this.adapter.updateMany({ _id: s._id }, { $set: { device_id: ctx.params.device_id, subs_since: 0, remote_feeds: [] } });
      return done;
    },
  },
  podsync_statistics: {
    idempotent: true,
    params: {},
    response: SyncStatisticsAnswer,
    async handler(this: SyncThis, ctx: UserCtx): Promise<SyncStatisticsAnswer> {
      const s: SyncSettingsDoc | null = await this.syncTarget(ctx, ctx.meta.user.id);
      return s ? this.statistics(s) : this.ownServerStatistics(ctx, ctx.meta.user.id);
    },
  },
  /**
   * GET /api/podsync/test-connection: logs in with the account given in the query (as the web client tests one
   * before adding it; nothing is stored), else with the stored account, else checks this server's own.
   */
  test_connection: {
    idempotent: true,
    params: { ...optional(account), user_id: { ...id, optional: true } },
    response: TestConnectionAnswer,
    async handler(this: SyncThis, ctx: UserCtx<Partial<AccountParams> & { user_id?: number }>): Promise<TestConnectionAnswer> {
      const p = ctx.params;
      const given = [p.podsync_url, p.podsync_username, p.podsync_password].filter((v) => v !== undefined).length;
      if (given && given < 3) throw new BadRequestError("podsync_url, podsync_username and podsync_password go together");
      if (given) {
        // All three given (checked above).
        const acc: GpodderAccount = { url: p.podsync_url!, username: p.podsync_username!, password: p.podsync_password!, rights: rightsOf(ctx.meta.user) };
        const gp = new GpodderClient(acc);
        const devices = await login(gp, () => gp.devices());
        return { success: true, message: "Connected to the sync server", server_url: acc.url, total_devices: devices.length };
      }
      const s: SyncSettingsDoc | null = await this.syncTarget(ctx, ctx.meta.user.id);
      if (!s) {
        const devices: SyncDevice[] = await this.ownServerDevices(ctx, ctx.meta.user.id);
        return {
          success: true,
          message: "This server's own sync server is on for this account",
          server_url: publicOrigin(ctx.meta),
          total_devices: devices.length,
        };
      }
      const devices = await this.remoteDevices(s);
      return { success: true, message: "Connected to the sync server", server_url: s.server_url, total_devices: devices.length };
    },
  },
  /** POST /api/podsync/sync: a sync with the account's server; without one, what devices sent to this server's own is applied now. */
  sync_now: {
    params: {},
    response: SyncRunAnswer,
    async handler(this: SyncThis, ctx: UserCtx): Promise<SyncRunAnswer> {
      return this.syncAny(ctx, ctx.meta.user.id, false);
    },
  },
  /** POST /api/podsync/sync/force: the same from nothing (since 0); this server's own tries the feeds that failed at once. */
  force_sync: {
    params: {},
    response: SyncRunAnswer,
    async handler(this: SyncThis, ctx: UserCtx): Promise<SyncRunAnswer> {
      return this.syncAny(ctx, ctx.meta.user.id, true);
    },
  },
  refresh_podsync_subscriptions: {
    idempotent: false,
    params: {},
    response: SyncRunAnswer,
    async handler(this: SyncThis, ctx: UserCtx): Promise<SyncRunAnswer> {
      return this.queueSync(ctx, ctx.meta.user.id, { force: false, subscriptions_only: true, type: "gpodder" });
    },
  },
};

/** A device of the sync server's list (or one made here) as the answers show it. */
function device(s: SyncSettingsDoc, d: { id: string; caption?: string | null; type?: string; subscriptions?: number }): SyncDevice {
  const caption = d.caption || d.id;
  return {
    id: d.id,
    name: caption,
    caption,
    type: d.type ?? "other",
    subscriptions: d.subscriptions ?? 0,
    is_default: d.id === s.device_id,
    is_active: true,
    is_remote: true,
    last_sync: null,
  };
}

/** One logged-in call to a gPodder server, its failures as client errors. */
async function login<T>(gp: GpodderClient, call: () => Promise<T>): Promise<T> {
  try {
    await gp.login();
    return await call();
  } catch (err) {
    throw syncError(err);
  }
}

export const podsyncMethods: ServiceMethods = {
  /** The devices of the server the user syncs with (the podsync page's list). */
  async devicesOf(this: SyncThis, ctx: Caller, user_id: number): Promise<SyncDevice[]> {
    const s: SyncSettingsDoc | null = await this.syncTarget(ctx, user_id);
    return s ? this.remoteDevices(s) : this.ownServerDevices(ctx, user_id);
  },
  /** A sync asked for over the API: any account's (a sync task), else this server's own (apply what devices sent). */
  async syncAny(this: SyncThis, ctx: Caller, user_id: number, force: boolean): Promise<SyncRunAnswer> {
    if (await this.adapter.findOne({ _id: user_id })) return this.queueSync(ctx, user_id, { force });
    if (!(await this.ownServerOn(ctx, user_id))) throw new NotFoundError("No sync server set up");
    const { failed_feeds }: OwnSyncApplied = await accountApply(ctx, { user_id, force });
    const detail = failed_feeds.length ? `Synced; ${failed_feeds.length} feeds from devices could not be subscribed yet` : "Synced";
    return { success: true, detail, message: detail, failed_feeds };
  },
  async verifyLogin(this: SyncThis, acc: GpodderAccount, flavor: SyncSettingsDoc["sync_type"] = "gpodder"): Promise<void> {
    await login(new GpodderClient(acc, flavor), () => Promise.resolve(undefined));
  },
  async saveAccount(
    this: SyncThis,
    user_id: number,
    sync_type: SyncSettingsDoc["sync_type"],
    server_url: string,
    username: string,
    password: string,
    rights: SyncSettingsDoc["rights"],
  ): Promise<void> {
    const doc: SyncSettingsDoc = {
      _id: user_id,
      user_id,
      sync_type,
      server_url: server_url.replace(/\/+$/, ""),
      username,
      password_sealed: encryptSecret(password),
      enabled: true,
      device_id: config.serviceName.replace(/[^\w.-]/g, "-").slice(0, 64) || "podcast-server",
      rights,
      subs_since: 0,
      actions_since: 0,
      last_upload: null,
      remote_feeds: [],
      last_sync: null,
      last_status: "never",
      last_error: null,
      last_result: null,
      scheduled_at: new Date(0),
      lease_owner: null,
      lease_until: new Date(0),
    };
    await this.adapter.removeMany({ _id: user_id });
    await this.adapter.insert(doc);
    this.logger.info("sync account saved", { user_id, sync_type, server: new URL(doc.server_url).host });
  },
  async settingsOf(this: SyncThis, user_id: number, type?: SyncSettingsDoc["sync_type"]): Promise<SyncSettingsDoc> {
    const s: SyncSettingsDoc | null = await this.adapter.findOne({ _id: user_id });
    if (!s || (type && s.sync_type !== type)) throw new NotFoundError(type === "nextcloud" ? "No cloudsync server set up" : "No sync server set up");
    return s;
  },
  /** One logged-in call to the account's server, its failures as client errors. */
  async remote<T>(this: SyncThis, s: SyncSettingsDoc, call: (gp: GpodderClient) => Promise<T>): Promise<T> {
    const gp: GpodderClient = this.client(s);
    return login(gp, () => call(gp));
  },
  async remoteDevices(this: SyncThis, s: SyncSettingsDoc): Promise<SyncDevice[]> {
    const devices = await this.remote(s, (gp: GpodderClient) => gp.devices());
    // As the server answered it: not always a list.
    return (Array.isArray(devices) ? devices : []).map((d: GpodderDevice) => device(s, d));
  },
  /** The spec's Sync statistics record, read live from the server (each endpoint's outcome in api_endpoints_tested). */
  async statistics(this: SyncThis, s: SyncSettingsDoc): Promise<SyncStatisticsAnswer> {
    const tested: SyncStatisticsAnswer["api_endpoints_tested"] = [];
    const out: SyncStatisticsAnswer = {
      server_url: s.server_url,
      sync_type: s.sync_type,
      sync_enabled: s.enabled,
      server_devices: [],
      total_devices: 0,
      server_subscriptions: [],
      total_subscriptions: 0,
      recent_episode_actions: [],
      total_episode_actions: 0,
      connection_status: "connected",
      last_sync_timestamp: s.last_sync ? new Date(s.last_sync).toISOString() : null,
      api_endpoints_tested: tested,
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
      out.server_devices = (await gp.devices()).map((d: GpodderDevice) => ({
        id: d.id,
        caption: d.caption ?? d.id,
        device_type: d.type ?? "other",
        type: d.type ?? "other",
        subscriptions: d.subscriptions ?? 0,
      }));
      out.total_devices = out.server_devices.length;
    });
    await step("GET /api/2/subscriptions/{username}/{device}.json", async () => {
      out.server_subscriptions = (await gp.subscriptionChanges(s.device_id, 0)).add.map((url: string) => ({ url, title: null, description: null }));
      out.total_subscriptions = out.server_subscriptions.length;
    });
    await step("GET /api/2/episodes/{username}.json", async () => {
      const { actions } = await gp.episodeActions(0);
      out.total_episode_actions = actions.length;
      // As the server sent them (the gPodder API's actions carry a timestamp; the client checks only podcast and episode).
      out.recent_episode_actions = actions.slice(-10).reverse() as SyncStatisticsAnswer["recent_episode_actions"];
    });
    return out;
  },
  /** A sync now under the user's lease (a sync job runs it): 409 while another replica syncs them. */
  async syncUser(this: SyncThis, ctx: Caller, user_id: number, opts: SyncJobPayload): Promise<SyncSummary> {
    const s: SyncSettingsDoc = await this.settingsOf(user_id, opts.type);
    if (!(await this.claimLease(user_id))) throw new ConflictError("A sync of this account is already running");
    try {
      return await this.runSync(ctx, s, opts);
    } catch (err) {
      // A client error of shared/errors.ts carries its HTTP status as code.
      const shown: Error & { code?: number } = syncError(err);
      await this.adapter.updateMany({ _id: user_id }, { $set: { last_status: "failed", last_error: shown.message, last_error_code: shown.code ?? null } });
      this.logger.warn("sync failed", { user_id, reason: shown.message });
      throw shown;
    } finally {
      await this.releaseLease(user_id);
    }
  },
};
