/**
 * This sync server as PinePods' web client shows it on its sync page (internal actions: the sync service's podsync
 * routes call them when the user syncs with this server rather than another gPodder server): the user's devices
 * and which is the default, a device made from the web page, the choice of the default, the figures of what the
 * devices sent, and "sync now" (apply what they sent at once instead of at the next retry round).
 */
import type { ServiceActionsSchema, ServiceMethods } from "moleculer";
import { NotFoundError } from "../../shared/errors";
import type { OwnSyncApplied, OwnSyncDevice, OwnSyncStatistics } from "../../shared/contracts/gpodder";
import type { Ctx } from "../../shared/service-types";
import { ActionDoc, checkDeviceId, DeviceDoc, deviceTypes, FeedDoc, feedsOf, rkeyRange } from "./model";
import type { GpodderThis, UserRecord } from "./this";

const userId = { type: "number", integer: true, positive: true };
/** The newest episode actions the statistics show. */
const RECENT_ACTIONS = 10;
/** Every record of a user: the rkey range up to any clock value. */
const everything = (user_id: number) => rkeyRange(user_id, 0, Number.MAX_SAFE_INTEGER);

export const webActions: ServiceActionsSchema = {
  /** The user's devices, oldest first, with the default (the one chosen, else the oldest). */
  account_devices: {
    visibility: "public",
    params: { user_id: userId },
    handler(this: GpodderThis, ctx: Ctx<{ user_id: number }>): Promise<OwnSyncDevice[]> {
      return this.ownDevices(ctx.params.user_id);
    },
  },
  /**
   * A device made or changed from the web page, for the caller (ctx.meta.user) as if the device had configured
   * itself (POST /api/2/devices/{username}/{deviceid}.json): the user's first use of the sync server seeds it.
   */
  account_save_device: {
    visibility: "public",
    params: {
      device_id: { type: "string", max: 200 },
      caption: { type: "string", max: 200, optional: true, nullable: true },
      type: { type: "enum", values: deviceTypes },
    },
    async handler(this: GpodderThis, ctx: Ctx<{ device_id: string; caption?: string | null; type: DeviceDoc["type"] }>): Promise<OwnSyncDevice> {
      const user_id: number = await this.caller(ctx);
      const device_id = checkDeviceId(ctx.params.device_id);
      await this.saveDevice(user_id, device_id, { caption: ctx.params.caption || device_id, type: ctx.params.type });
      return (await this.ownDevices(user_id)).find((d: OwnSyncDevice) => d.id === device_id)!;
    },
  },
  /** The default device: one of the user's devices (404 for any other id). */
  account_set_default: {
    visibility: "public",
    params: { user_id: userId, device_id: { type: "string", max: 200 } },
    async handler(this: GpodderThis, ctx: Ctx<{ user_id: number; device_id: string }>): Promise<OwnSyncDevice> {
      const { user_id, device_id } = ctx.params;
      if (!(await this.existingDevice(user_id, device_id))) throw new NotFoundError("No such device on this sync server");
      // A device exists only after the user's first sync call, which made the user's record.
      await this.adapter.updateMany({ _id: user_id }, { $set: { default_device: device_id } });
      return (await this.ownDevices(user_id)).find((d: OwnSyncDevice) => d.id === device_id)!;
    },
  },
  /** What the user's devices sent, counted from the records: devices, subscribed feeds, episode actions (and the newest of them). */
  account_statistics: {
    visibility: "public",
    params: { user_id: userId },
    async handler(this: GpodderThis, ctx: Ctx<{ user_id: number }>): Promise<OwnSyncStatistics> {
      const { user_id } = ctx.params;
      const [devices, feeds, total, recent, user]: [OwnSyncDevice[], Pick<FeedDoc, "_id" | "url">[], number, ActionDoc[], UserRecord | null] =
        await Promise.all([
          this.ownDevices(user_id),
          this.findFields(this.stores.gpodder_feeds, { ...feedsOf(user_id), subscribed: true }, ["url"]),
          this.stores.gpodder_actions.count({ query: everything(user_id) }),
          this.stores.gpodder_actions.find({ query: everything(user_id), sort: ["-rkey", "-_id"], limit: RECENT_ACTIONS }),
          this.adapter.findOne({ _id: user_id }),
        ]);
      // The clock is Unix seconds (ahead of them only while writes come faster than one a second).
      const last = user?.clock ? Math.min(user.clock * 1000, Date.now()) : null;
      return {
        devices,
        subscriptions: feeds.map((f) => f.url).sort(),
        total_episode_actions: total,
        recent_episode_actions: recent.map((a) => ({
          podcast: a.podcast,
          episode: a.episode,
          action: a.action,
          timestamp: a.timestamp,
          ...(a.device ? { device: a.device } : {}),
          ...(a.position !== null ? { position: a.position } : {}),
          ...(a.started !== null ? { started: a.started } : {}),
          ...(a.total !== null ? { total: a.total } : {}),
        })),
        last_change: last === null ? null : new Date(last).toISOString(),
      };
    },
  },
  /**
   * Applies what the user's devices sent and this server has not applied yet, now, and answers the feeds that
   * still could not be subscribed. force: the feeds that failed are tried now, not at their next retry.
   */
  account_apply: {
    visibility: "public",
    params: { user_id: userId, force: { type: "boolean", optional: true } },
    async handler(this: GpodderThis, ctx: Ctx<{ user_id: number; force?: boolean }>): Promise<OwnSyncApplied> {
      const { user_id, force } = ctx.params;
      if (!(await this.adapter.findOne({ _id: user_id }))) return { failed_feeds: [] };
      if (force && (await this.stores.gpodder_feeds.updateMany({ ...feedsOf(user_id), library: "failed" }, { $set: { next_try: null } })))
        await this.adapter.updateMany({ _id: user_id }, { $set: { feeds_due_at: Date.now(), feeds_mark: 0 } });
      await this.applySoon(user_id);
      const left: FeedDoc[] = await this.stores.gpodder_feeds.find({ query: { ...feedsOf(user_id), library: { $in: ["pending", "failed"] } } });
      return { failed_feeds: left.map((f) => ({ url: f.url, reason: f.last_error ?? "not subscribed yet" })) };
    },
  },
};

export const webMethods: ServiceMethods = {
  /** The user's devices, oldest first; every device follows the one list, so each counts its subscribed feeds. */
  async ownDevices(this: GpodderThis, user_id: number): Promise<OwnSyncDevice[]> {
    const [devices, subscriptions, user]: [DeviceDoc[], number, UserRecord | null] = await Promise.all([
      this.stores.gpodder_devices.find({ query: { user_id }, sort: ["created_at"] }),
      this.stores.gpodder_feeds.count({ query: { ...feedsOf(user_id), subscribed: true } }),
      this.adapter.findOne({ _id: user_id }),
    ]);
    const chosen = devices.some((d) => d.device_id === user?.default_device) ? user!.default_device : devices[0]?.device_id;
    return devices.map((d) => ({ id: d.device_id, caption: d.caption, type: d.type, subscriptions, is_default: d.device_id === chosen }));
  },
};
