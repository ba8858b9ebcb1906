/**
 * Episode actions (gPodder API v2 and the Nextcloud gpoddersync app) and a device's updates. Actions
 * are kept as sent, each with the clock value of when the server received it: `since` counts from
 * then, so a play made offline and uploaded late still reaches the other devices.
 */
import type { ServiceActionsSchema, ServiceMethods } from "moleculer";
import type { SyncNewEpisode } from "../../shared/contracts/episodes";
import { syncNewEpisodes } from "../../shared/contracts/episodes";
import {
  DeviceUpdatesAnswer,
  EpisodeActionsAnswer,
  NEXTCLOUD_DEVICE,
  NextcloudEpisodeActionsAnswer,
  NextcloudUploadAnswer,
  UploadAnswer,
} from "../../shared/contracts/gpodder";
import type { SyncFeed, SyncPodcast } from "../../shared/contracts/podcasts";
import { syncFeeds, syncPodcasts } from "../../shared/contracts/podcasts";
import type { Ctx } from "../../shared/service-types";
import {
  ActionDoc,
  checkDeviceId,
  FeedDoc,
  feedsOf,
  gpodderAction,
  newestPerEpisode,
  nextcloudAction,
  normaliseActions,
  podcastObject,
  rkey,
  rkeyRange,
  sanitizeUrl,
  sinceOf,
} from "./model";
import type { GpodderThis, NewAction } from "./this";

const username = { type: "string", max: 200 };
const since = { type: "any", optional: true };
const body = { type: "any", optional: true };
const flag = { type: "any", optional: true };
const truthy = (v: unknown) => v === true || v === "true" || v === "1" || v === 1;

/** Reserves `count` consecutive int32 ids of a sequence in one atomic $inc (a 100,000-action upload is one counter write). */
async function reserveIds(svc: GpodderThis, sequence: string, count: number): Promise<number> {
  // A counter record: { _id: sequence, seq } (as the db mixin's nextId reads it).
  const seq = (await svc.incrementDoc(svc.stores.counters, sequence, { seq: count })).seq as number;
  if (seq > 2147483647) throw new Error(`Sequence ${sequence} is past int32`);
  return seq - count + 1;
}

export const episodeActions: ServiceActionsSchema = {
  /** POST /api/2/episodes/{username}.json [actions] -> {timestamp, update_urls} */
  upload_episode_actions: {
    params: { username, body },
    response: UploadAnswer,
    async handler(this: GpodderThis, ctx: Ctx<{ username: string; body?: unknown }>): Promise<UploadAnswer> {
      const user_id: number = await this.caller(ctx);
      const { actions, update_urls } = normaliseActions(ctx.params.body, null, new Date());
      return { timestamp: await this.storeActions(user_id, actions), update_urls };
    },
  },
  /** GET /api/2/episodes/{username}.json?since=&podcast=&device=&aggregated= -> {actions, timestamp} */
  episode_actions: {
    idempotent: true,
    params: { username, since, podcast: { type: "string", max: 4000, optional: true }, device: { type: "string", max: 200, optional: true }, aggregated: flag },
    response: EpisodeActionsAnswer,
    async handler(
      this: GpodderThis,
      ctx: Ctx<{ username: string; since?: unknown; podcast?: string; device?: string; aggregated?: unknown }>,
    ): Promise<EpisodeActionsAnswer> {
      const user_id: number = await this.caller(ctx);
      const p = ctx.params;
      // The feed URL as stored: sanitized as uploads are.
      const podcast = p.podcast === undefined ? undefined : (sanitizeUrl(p.podcast) ?? p.podcast);
      const { actions, timestamp } = await this.actionsSince(user_id, sinceOf(p.since), { podcast, device: p.device });
      return { actions: (truthy(p.aggregated) ? newestPerEpisode(actions) : actions).map(gpodderAction), timestamp };
    },
  },
  /**
   * GET /api/2/updates/{username}/{deviceid}.json?since=&include_actions= -> {add, remove, updates, timestamp}:
   * the subscription changes, podcasts added with their data from the catalogue here, and the episodes
   * this server stored since then in the user's feeds, each with its status (the newest action, else
   * "new") and with include_actions that action. `not_applied` (not in the API) lists the device's feeds
   * this server could not subscribe to yet, with the reason.
   */
  device_updates: {
    idempotent: true,
    params: { username, deviceid: { type: "string", max: 200 }, since, include_actions: flag },
    response: DeviceUpdatesAnswer,
    async handler(
      this: GpodderThis,
      ctx: Ctx<{ username: string; deviceid: string; since?: unknown; include_actions?: unknown }>,
    ): Promise<DeviceUpdatesAnswer> {
      const user_id: number = await this.caller(ctx);
      const device_id = checkDeviceId(ctx.params.deviceid);
      await this.serial(user_id, () => this.ensureDevices(user_id, [device_id]));
      const from = sinceOf(ctx.params.since);
      const subs = await this.changesSince(user_id, from);
      const feeds: SyncFeed[] = await syncFeeds(ctx, { user_id });
      const episodes: SyncNewEpisode[] = feeds.length ? await syncNewEpisodes(ctx, { feeds, since: new Date(from * 1000) }) : [];
      const described = [...new Set([...subs.add, ...episodes.map((e) => e.podcast_url)])];
      const podcasts: SyncPodcast[] = described.length ? await syncPodcasts(ctx, { user_id, feed_urls: described }) : [];
      const byUrl = new Map(podcasts.map((p) => [p.feed_url, p]));
      const newest = await this.newestActions(
        user_id,
        episodes.map((e) => e.url),
        subs.timestamp,
      );
      const withActions = truthy(ctx.params.include_actions);
      const pending: FeedDoc[] = await this.stores.gpodder_feeds.find({
        query: { ...feedsOf(user_id), subscribed: true, library: { $in: ["pending", "failed"] } },
      });
      return {
        add: subs.add.map((url: string) => podcastData(url, byUrl.get(url))),
        remove: subs.remove,
        updates: episodes.map((e) => {
          const action: ActionDoc | undefined = newest.get(`${e.podcast_url}\n${e.url}`);
          return {
            title: e.title,
            url: e.url,
            podcast_title: byUrl.get(e.podcast_url)?.title ?? "",
            podcast_url: e.podcast_url,
            description: e.description,
            website: e.website ?? "",
            mygpo_link: "",
            released: e.released,
            status: action?.action ?? "new",
            ...(withActions && action ? { action: gpodderAction(action) } : {}),
          };
        }),
        timestamp: subs.timestamp,
        not_applied: pending.map((f) => ({ url: f.url, library: f.library, attempts: f.attempts ?? 0, last_error: f.last_error ?? null })),
      };
    },
  },
  /** GET /index.php/apps/gpoddersync/episode_action?since= -> {actions, timestamp} */
  nextcloud_episode_actions: {
    idempotent: true,
    params: { since },
    response: NextcloudEpisodeActionsAnswer,
    async handler(this: GpodderThis, ctx: Ctx<{ since?: unknown }>): Promise<NextcloudEpisodeActionsAnswer> {
      const user_id: number = await this.caller(ctx);
      const { actions, timestamp } = await this.actionsSince(user_id, sinceOf(ctx.params.since), {});
      return { actions: actions.map(nextcloudAction), timestamp };
    },
  },
  /** POST /index.php/apps/gpoddersync/episode_action/create [actions] -> {timestamp} */
  nextcloud_create_episode_actions: {
    params: { body },
    response: NextcloudUploadAnswer,
    async handler(this: GpodderThis, ctx: Ctx<{ body?: unknown }>): Promise<NextcloudUploadAnswer> {
      const user_id: number = await this.caller(ctx);
      const { actions } = normaliseActions(ctx.params.body, NEXTCLOUD_DEVICE, new Date());
      return { timestamp: await this.storeActions(user_id, actions) };
    },
  },
};

/** A podcast as GET /api/2/updates' add lists it: the catalogue's data, or blanks for a feed not subscribed here yet (not_applied says why). */
function podcastData(url: string, p: SyncPodcast | undefined) {
  // No history of counts is kept here: last week's is today's (gPodder's client library requires the key).
  return { ...podcastObject(url, p), subscribers_last_week: p?.subscribers ?? 0 };
}

export const episodeMethods: ServiceMethods = {
  /** The newest action (by its timestamp, then as received) of each of these episodes, by "podcast\nepisode": one read of the user's actions of them. */
  async newestActions(this: GpodderThis, user_id: number, episodeUrls: string[], until: number): Promise<Map<string, ActionDoc>> {
    if (!episodeUrls.length) return new Map();
    const actions: ActionDoc[] = await this.stores.gpodder_actions.find({ query: { ...rkeyRange(user_id, 0, until), episode: { $in: episodeUrls } } });
    return new Map(newestPerEpisode(actions).map((a) => [`${a.podcast}\n${a.episode}`, a]));
  },
  /** Stores actions under one new clock value (the devices named are created); a device's are then applied to the library. */
  async storeActions(this: GpodderThis, user_id: number, actions: NewAction[], applyHere: boolean = true): Promise<number> {
    const seq: number = await this.stamp(user_id, async (seq: number) => {
      if (!actions.length) return;
      await this.ensureDevices(
        user_id,
        actions.map((a) => a.device).filter((d): d is string => !!d),
      );
      const first = await reserveIds(this, "gpodder_actions", actions.length);
      const key = rkey(user_id, seq);
      await this.stores.gpodder_actions.insertMany(actions.map((a, i) => ({ _id: first + i, user_id, seq, rkey: key, ...a })));
    });
    // In the background: the promise never rejects, and the upload does not wait for it.
    if (applyHere && actions.length) void this.applySoon(user_id, false);
    return seq;
  },
  /** The user's actions received after `since` (up to the clock, read first), in the order received. */
  async actionsSince(
    this: GpodderThis,
    user_id: number,
    since: number,
    filter: { podcast?: string; device?: string },
    until?: number,
  ): Promise<{ actions: ActionDoc[]; timestamp: number }> {
    const timestamp: number = until ?? (await this.clockOf(user_id));
    if (since >= timestamp) return { actions: [], timestamp };
    const query: Record<string, unknown> = rkeyRange(user_id, since, timestamp);
    if (filter.podcast) query.podcast = filter.podcast;
    if (filter.device) query.device = filter.device;
    const actions: ActionDoc[] = await this.stores.gpodder_actions.find({ query });
    return { actions: actions.sort((a, b) => a._id - b._id), timestamp };
  },
};
