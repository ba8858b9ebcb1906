/**
 * Episode actions (gPodder API v2 and the Nextcloud gpoddersync app) and a device's updates. Actions
 * are kept as sent, each with the clock value of when the server received it: `since` counts from
 * then, so a play made offline and uploaded late still reaches the other devices.
 */
import type { Context, ServiceActionsSchema, ServiceMethods } from "moleculer";
import { NEXTCLOUD_DEVICE } from "../../shared/contracts/gpodder";
import { ActionDoc, checkDeviceId, FeedDoc, gpodderAction, newestPerEpisode, nextcloudAction, normaliseActions, rkey, rkeyRange, sanitizeUrl, sinceOf } from "./model";

const username = { type: "string", max: 200 };
const since = { type: "any", optional: true };
const body = { type: "any", optional: true };
const flag = { type: "any", optional: true };
const truthy = (v: unknown) => v === true || v === "true" || v === "1" || v === 1;

/** Reserves `count` consecutive int32 ids of a sequence in one atomic $inc (a 100,000-action upload is one counter write). */
async function reserveIds(svc: any, sequence: string, count: number): Promise<number> {
  const { seq } = await svc.incrementDoc(svc.stores.counters, sequence, { seq: count });
  if (seq > 2147483647) throw new Error(`Sequence ${sequence} is past int32`);
  return seq - count + 1;
}

export const episodeActions: ServiceActionsSchema = {
  /** POST /api/2/episodes/{username}.json [actions] -> {timestamp, update_urls} */
  upload_episode_actions: {
    params: { username, body },
    async handler(this: any, ctx: Context<any>) {
      const user_id: number = await this.caller(ctx);
      const { actions, update_urls } = normaliseActions(ctx.params.body, null, new Date());
      return { timestamp: await this.storeActions(user_id, actions), update_urls };
    },
  },
  /** GET /api/2/episodes/{username}.json?since=&podcast=&device=&aggregated= -> {actions, timestamp} */
  episode_actions: {
    idempotent: true,
    params: { username, since, podcast: { type: "string", max: 4000, optional: true }, device: { type: "string", max: 200, optional: true }, aggregated: flag },
    async handler(this: any, ctx: Context<any>) {
      const user_id: number = await this.caller(ctx);
      const p = ctx.params;
      // The feed URL as stored: sanitized as uploads are.
      const podcast = p.podcast === undefined ? undefined : sanitizeUrl(p.podcast) ?? p.podcast;
      const { actions, timestamp } = await this.actionsSince(user_id, sinceOf(p.since), { podcast, device: p.device });
      return { actions: (truthy(p.aggregated) ? newestPerEpisode(actions) : actions).map(gpodderAction), timestamp };
    },
  },
  /**
   * GET /api/2/updates/{username}/{deviceid}.json?since=&include_actions= -> {add, remove, updates, timestamp}:
   * the subscription changes, and the episode actions since then as episode updates. `not_applied` (not in
   * the API) lists the device's feeds this server could not subscribe to yet, with the reason.
   */
  device_updates: {
    idempotent: true,
    params: { username, deviceid: { type: "string", max: 200 }, since, include_actions: flag },
    async handler(this: any, ctx: Context<any>) {
      const user_id: number = await this.caller(ctx);
      const device_id = checkDeviceId(ctx.params.deviceid);
      await this.serial(user_id, () => this.ensureDevices(user_id, [device_id]));
      const from = sinceOf(ctx.params.since);
      const subs = await this.changesSince(user_id, from);
      const { actions } = await this.actionsSince(user_id, from, {}, subs.timestamp);
      const withActions = truthy(ctx.params.include_actions);
      const updates = newestPerEpisode(actions).map((a) => ({
        url: a.episode, podcast_url: a.podcast, title: a.episode, status: a.action, released: a.timestamp, ...(withActions ? { action: gpodderAction(a) } : {}),
      }));
      const pending: FeedDoc[] = await this.stores.gpodder_feeds.find({ query: { user_id, subscribed: true, library: { $in: ["pending", "failed"] } } });
      return {
        add: subs.add.map((url: string) => ({ url, title: url, description: "", website: "", logo_url: null, subscribers: 0, mygpo_link: "" })),
        remove: subs.remove,
        updates,
        timestamp: subs.timestamp,
        not_applied: pending.map((f) => ({ url: f.url, library: f.library, attempts: f.attempts, last_error: f.last_error })),
      };
    },
  },
  /** GET /index.php/apps/gpoddersync/episode_action?since= -> {actions, timestamp} */
  nextcloud_episode_actions: {
    idempotent: true,
    params: { since },
    async handler(this: any, ctx: Context<any>) {
      const user_id: number = await this.caller(ctx);
      const { actions, timestamp } = await this.actionsSince(user_id, sinceOf(ctx.params.since), {});
      return { actions: actions.map(nextcloudAction), timestamp };
    },
  },
  /** POST /index.php/apps/gpoddersync/episode_action/create [actions] -> {timestamp} */
  nextcloud_create_episode_actions: {
    params: { body },
    async handler(this: any, ctx: Context<any>) {
      const user_id: number = await this.caller(ctx);
      const { actions } = normaliseActions(ctx.params.body, NEXTCLOUD_DEVICE, new Date());
      return { timestamp: await this.storeActions(user_id, actions) };
    },
  },
};

export const episodeMethods: ServiceMethods = {
  /** Stores actions under one new clock value (the devices named are created); a device's are then applied to the library. */
  async storeActions(this: any, user_id: number, actions: Omit<ActionDoc, "_id" | "user_id" | "seq" | "rkey">[], applyHere = true): Promise<number> {
    const seq: number = await this.stamp(user_id, async (seq: number) => {
      if (!actions.length) return;
      await this.ensureDevices(user_id, actions.map((a) => a.device).filter((d): d is string => !!d));
      const first = await reserveIds(this, "gpodder_actions", actions.length);
      const key = rkey(user_id, seq);
      await this.stores.gpodder_actions.insertMany(actions.map((a, i) => ({ _id: first + i, user_id, seq, rkey: key, ...a })));
    });
    if (applyHere && actions.length) this.applySoon(user_id);
    return seq;
  },
  /** The user's actions received after `since` (up to the clock, read first), in the order received. */
  async actionsSince(this: any, user_id: number, since: number, filter: { podcast?: string; device?: string }, until?: number): Promise<{ actions: ActionDoc[]; timestamp: number }> {
    const timestamp: number = until ?? (await this.clockOf(user_id));
    if (since >= timestamp) return { actions: [], timestamp };
    const query: Record<string, unknown> = rkeyRange(user_id, since, timestamp);
    if (filter.podcast) query.podcast = filter.podcast;
    if (filter.device) query.device = filter.device;
    const actions: ActionDoc[] = await this.stores.gpodder_actions.find({ query });
    return { actions: actions.sort((a, b) => a._id - b._id), timestamp };
  },
};
