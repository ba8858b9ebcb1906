/**
 * What the notifications and sync services need of subscriptions: the per-podcast notification
 * switch (routes), the subscribers to notify, and a user's feed URLs read and changed by URL.
 */
import type { ServiceActionsSchema } from "moleculer";
import type { Ctx } from "../../shared/service-types";
import type { PodcastsThis } from "./this";
import type { NotifyTarget, SyncFeed, SyncPodcast, SyncSubscriptionsParams } from "../../shared/contracts/podcasts";
import { isLocalFeed } from "../../shared/contracts/local";
import { feedRef, id, PodcastDoc, shown, SubscriptionDoc } from "./model";
import { NotificationStatusAnswer, ToggleNotificationsAnswer } from "../../shared/contracts/podcasts";

const urlList = { type: "array", items: { type: "string", max: 4000 }, max: 10_000 };

export const syncActions: ServiceActionsSchema = {
  /** POST /api/data/podcast/toggle_notifications: enabled given sets it, else it flips. */
  toggle_notifications: {
    params: { user_id: id, podcast_id: id, enabled: { type: "boolean", convert: true, optional: true } },
    response: ToggleNotificationsAnswer,
    async handler(this: PodcastsThis, ctx: Ctx<{ user_id: number; podcast_id: number; enabled?: boolean }>): Promise<ToggleNotificationsAnswer> {
      const sub: SubscriptionDoc = await this.subscriptionOf(ctx.params.user_id, ctx.params.podcast_id);
      const enabled: boolean = ctx.params.enabled ?? !sub.notifications_enabled;
      await this.stores.subscriptions.updateMany({ _id: sub._id }, { $set: { notifications_enabled: enabled } });
      return { detail: `Notifications ${enabled ? "enabled" : "disabled"}`, enabled };
    },
  },
  /** POST /api/data/podcast/notification_status */
  notification_status: {
    params: { user_id: id, podcast_id: id },
    response: NotificationStatusAnswer,
    async handler(this: PodcastsThis, ctx: Ctx<{ user_id: number; podcast_id: number }>): Promise<NotificationStatusAnswer> {
      const sub: SubscriptionDoc = await this.subscriptionOf(ctx.params.user_id, ctx.params.podcast_id);
      return { enabled: !!sub.notifications_enabled };
    },
  },
  // Internal (not in the route table).
  notify_targets: {
    visibility: "public",
    params: { podcast_id: id },
    async handler(this: PodcastsThis, ctx: Ctx<{ podcast_id: number }>): Promise<NotifyTarget[]> {
      const subs: SubscriptionDoc[] = await this.stores.subscriptions.find({ query: { podcast_id: ctx.params.podcast_id, notifications_enabled: true } });
      if (!subs.length) return [];
      const pod = (await this.adapter.findOne({ _id: ctx.params.podcast_id }))!;
      return subs.map((s) => ({ user_id: s.user_id, podcast_title: shown(pod, s).title }));
    },
  },
  /** The feed URLs a user is subscribed to, as a sync server knows them (feeds behind credentials and local folders are left out). */
  sync_feeds: {
    visibility: "public",
    params: { user_id: id },
    async handler(this: PodcastsThis, ctx: Ctx<{ user_id: number }>): Promise<SyncFeed[]> {
      const subs: SubscriptionDoc[] = await this.stores.subscriptions.find({ query: { user_id: ctx.params.user_id } });
      if (!subs.length) return [];
      const pods: PodcastDoc[] = await this.adapter.find({ query: { _id: { $in: subs.map((s) => s.podcast_id) } } });
      return pods
        .filter((p) => !p.username && !isLocalFeed(p.feed_url))
        .map((p) => ({ podcast_id: p._id, feed_url: p.feed_url, ...(p.former_urls?.length ? { former_urls: p.former_urls } : {}) }));
    },
  },
  /** sync_feeds with what gPodder clients show of each podcast (GET /api/2/updates' add): one read per store. */
  sync_podcasts: {
    visibility: "public",
    params: { user_id: id, feed_urls: { type: "array", items: { type: "string", max: 4000 }, max: 100_000 } },
    async handler(this: PodcastsThis, ctx: Ctx<{ user_id: number; feed_urls: string[] }>): Promise<SyncPodcast[]> {
      const { user_id, feed_urls } = ctx.params;
      if (!feed_urls.length) return [];
      const pods: PodcastDoc[] = (await this.adapter.find({ query: { feed_url: { $in: feed_urls }, username: null } })).filter((p) => !isLocalFeed(p.feed_url));
      const subs: SubscriptionDoc[] = pods.length ? await this.stores.subscriptions.find({ query: { podcast_id: { $in: pods.map((p) => p._id) } } }) : [];
      const counts = new Map<number, number>();
      for (const sub of subs) counts.set(sub.podcast_id, (counts.get(sub.podcast_id) ?? 0) + 1);
      const own = new Map(subs.filter((sub) => sub.user_id === user_id).map((sub) => [sub.podcast_id, sub]));
      return pods
        .filter((p) => own.has(p._id))
        .map((p) => {
          const view = shown(p, own.get(p._id)!);
          return {
            podcast_id: p._id,
            feed_url: p.feed_url,
            title: view.title,
            description: view.description ?? "",
            author: view.author ?? null,
            website: view.website_url,
            logo_url: view.artwork_url,
            subscribers: counts.get(p._id) ?? 0,
          };
        });
    },
  },
  /** Subscribes and unsubscribes by feed URL (a sync server's changes); a URL that fails (dead feed, refused address) is reported, not thrown. */
  sync_subscriptions: {
    visibility: "public",
    params: { user_id: id, add: urlList, remove: urlList, origin: { type: "string", optional: true } },
    async handler(
      this: PodcastsThis,
      ctx: Ctx<SyncSubscriptionsParams>,
    ): Promise<{ added: string[]; removed: number; failed: { url: string; reason: string }[] }> {
      const { user_id } = ctx.params;
      const added: string[] = [];
      const failed: { url: string; reason: string }[] = [];
      for (const url of ctx.params.add) {
        // A sync server never names this server's local folders (it was never told of them).
        if (isLocalFeed(url)) {
          failed.push({ url, reason: "Not a feed URL" });
          continue;
        }
        try {
          const { pod } = await this.podcastFor(ctx, feedRef(url, null, null), { user_id, podcast_index_id: null, fallback: {} });
          if (await this.stores.subscriptions.findOne({ key: `${user_id}:${pod._id}` })) continue;
          await this.subscribe(ctx, user_id, feedRef(url, null, null), {
            podcast_index_id: null,
            feed_cutoff_days: 0,
            fallback: {},
            origin: ctx.params.origin,
          });
          added.push(url);
        } catch (err) {
          failed.push({ url, reason: (err as Error)?.message ?? "failed" });
        }
      }
      let removed = 0;
      if (ctx.params.remove.length) {
        const pods: PodcastDoc[] = await this.podcastsByUrls(ctx.params.remove);
        const gone: PodcastDoc[] = [];
        for (const pod of pods) {
          const sub: SubscriptionDoc | null = await this.stores.subscriptions.findOne({ key: `${user_id}:${pod._id}` });
          // Without subscriptions.removed: a sync never deletes listening history (docs/phone-sync.md "Sync with gPodder servers and Nextcloud"); it is back on a resubscribe.
          if (sub && (await this.stores.subscriptions.removeMany({ _id: sub._id }))) gone.push(pod);
        }
        removed = gone.length;
        this.feedsChanged(ctx, user_id, [], gone, ctx.params.origin);
      }
      return { added, removed, failed };
    },
  },
};
