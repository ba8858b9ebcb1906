/**
 * What the notifications and sync services need of subscriptions: the per-podcast notification
 * switch (routes), the subscribers to notify, and a user's feed URLs read and changed by URL.
 */
import type { Context, ServiceActionsSchema } from "moleculer";
import type { NotifyTarget, SyncFeed, SyncSubscriptionsParams } from "../../shared/contracts/podcasts";
import { isLocalFeed } from "../../shared/contracts/local";
import { feedRef, id, PodcastDoc, shown, SubscriptionDoc } from "./model";
import { NotificationStatusAnswer, ToggleNotificationsAnswer } from "../../shared/contracts/podcasts";

const urlList = { type: "array", items: { type: "string", max: 4000 }, max: 10_000 };

export const syncActions: ServiceActionsSchema = {
  /** POST /api/data/podcast/toggle_notifications: enabled given sets it, else it flips. */
  toggle_notifications: {
    params: { user_id: id, podcast_id: id, enabled: { type: "boolean", convert: true, optional: true } },
    response: ToggleNotificationsAnswer,
    async handler(this: any, ctx: Context<any>) {
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
    async handler(this: any, ctx: Context<any>) {
      const sub: SubscriptionDoc = await this.subscriptionOf(ctx.params.user_id, ctx.params.podcast_id);
      return { enabled: !!sub.notifications_enabled };
    },
  },
  // Internal (not in the route table).
  notify_targets: {
    visibility: "public",
    params: { podcast_id: id },
    async handler(this: any, ctx: Context<{ podcast_id: number }>): Promise<NotifyTarget[]> {
      const subs: SubscriptionDoc[] = await this.stores.subscriptions.find({ query: { podcast_id: ctx.params.podcast_id, notifications_enabled: true } });
      if (!subs.length) return [];
      const pod: PodcastDoc = await this.adapter.findOne({ _id: ctx.params.podcast_id });
      return subs.map((s) => ({ user_id: s.user_id, podcast_title: shown(pod, s).title }));
    },
  },
  /** The feed URLs a user is subscribed to, as a sync server knows them (feeds behind credentials and local folders are left out). */
  sync_feeds: {
    visibility: "public",
    params: { user_id: id },
    async handler(this: any, ctx: Context<{ user_id: number }>): Promise<SyncFeed[]> {
      const subs: SubscriptionDoc[] = await this.stores.subscriptions.find({ query: { user_id: ctx.params.user_id } });
      if (!subs.length) return [];
      const pods: PodcastDoc[] = await this.adapter.find({ query: { _id: { $in: subs.map((s) => s.podcast_id) } } });
      return pods.filter((p) => !p.username && !isLocalFeed(p.feed_url)).map((p) => ({ podcast_id: p._id, feed_url: p.feed_url }));
    },
  },
  /** Subscribes and unsubscribes by feed URL (a sync server's changes); a URL that fails (dead feed, refused address) is reported, not thrown. */
  sync_subscriptions: {
    visibility: "public",
    params: { user_id: id, add: urlList, remove: urlList },
    async handler(this: any, ctx: Context<SyncSubscriptionsParams>) {
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
          await this.subscribe(ctx, user_id, feedRef(url, null, null), { podcast_index_id: null, feed_cutoff_days: 0, fallback: {} });
          added.push(url);
        } catch (err: any) {
          failed.push({ url, reason: err?.message ?? "failed" });
        }
      }
      let removed = 0;
      if (ctx.params.remove.length) {
        const pods: PodcastDoc[] = await this.adapter.find({ query: { feed_url: { $in: ctx.params.remove }, username: null } });
        for (const pod of pods) {
          const sub: SubscriptionDoc | null = await this.stores.subscriptions.findOne({ key: `${user_id}:${pod._id}` });
          // Without subscriptions.removed: a sync never deletes listening history (README "Sync"); it is back on a resubscribe.
          if (sub) removed += await this.stores.subscriptions.removeMany({ _id: sub._id });
        }
      }
      return { added, removed, failed };
    },
  },
};
