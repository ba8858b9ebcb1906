/**
 * What a subscription does by itself, and the settings of it PinePods' web client sets besides
 * playback: favourite, auto-queue of new episodes (the queue service acts on episodes.created), the
 * days after which downloads of completed episodes are deleted (the retention's delete_after_days, one field:
 * retention.actions.ts) and the automatic skip times. Every action answers 404 unless the user is subscribed to the podcast.
 */
import type { ServiceActionsSchema } from "moleculer";
import { MessageAnswer } from "../../shared/contracts/answers";
import { AutoDeleteDaysAnswer, AutoQueueAnswer, AutoSkipTimesAnswer } from "../../shared/contracts/podcasts";
import type { Ctx } from "../../shared/service-types";
import type { PodcastsThis } from "./this";
import { id, type SubscriptionDoc } from "./model";
import { reader, setter } from "./playback.actions";
import { retentionOf } from "./retention.actions";

const days = { type: "number", integer: true, min: 0, max: 3650, convert: true };

export const automationActions: ServiceActionsSchema = {
  /** PUT /api/data/podcast/toggle_favorite */
  toggle_favorite: setter<{ is_favorite: boolean }>(
    { is_favorite: { type: "boolean", convert: true } },
    (p) => ({ is_favorite: p.is_favorite }),
    (p) => (p.is_favorite ? "Podcast marked as favorite" : "Podcast removed from favorites"),
  ),
  /** POST /api/data/enable_auto_queue */
  enable_auto_queue: setter<{ auto_queue: boolean }>(
    { auto_queue: { type: "boolean", convert: true } },
    (p) => ({ auto_queue: p.auto_queue }),
    (p) => `Auto-queue ${p.auto_queue ? "enabled" : "disabled"}`,
  ),
  get_auto_queue_status: reader((sub): AutoQueueAnswer => ({ auto_queue: !!sub.auto_queue }), { response: AutoQueueAnswer }),
  /** POST /api/data/get_auto_skip_times: what adjust_skip_times wrote. */
  get_auto_skip_times: reader((sub): AutoSkipTimesAnswer => ({ start_skip: sub.start_skip ?? 0, end_skip: sub.end_skip ?? 0 }), {
    response: AutoSkipTimesAnswer,
  }),
  /** POST /api/data/podcast/set_auto_download_delete_days: this podcast's own days (0 keeps its downloads). */
  set_podcast_auto_download_delete_days: setter<{ days: number }>(
    { days },
    (p) => ({ auto_download_delete_days: p.days }),
    () => "Podcast auto-delete downloads setting updated.",
  ),
  /** POST /api/data/clear_podcast_auto_download_delete_days: back to the user's default. */
  clear_podcast_auto_download_delete_days: {
    params: { user_id: id, podcast_id: id },
    response: MessageAnswer,
    async handler(this: PodcastsThis, ctx: Ctx<{ user_id: number; podcast_id: number }>): Promise<MessageAnswer> {
      const sub: SubscriptionDoc = await this.subscriptionOf(ctx.params.user_id, ctx.params.podcast_id);
      await this.stores.subscriptions.updateMany({ _id: sub._id }, { $set: { auto_download_delete_days: null } });
      return { message: "Podcast auto-delete downloads setting cleared: the default applies" };
    },
  },
  /** POST /api/data/get_auto_download_delete_days: the podcast's days (customized: its own), or without podcast_id the user's default. */
  get_auto_download_delete_days: {
    params: { user_id: id, podcast_id: { ...id, optional: true, nullable: true } },
    response: AutoDeleteDaysAnswer,
    async handler(this: PodcastsThis, ctx: Ctx<{ user_id: number; podcast_id?: number | null }>): Promise<AutoDeleteDaysAnswer> {
      const { user_id, podcast_id } = ctx.params;
      const sub: SubscriptionDoc | null = podcast_id ? await this.subscriptionOf(user_id, podcast_id) : null;
      const r = await retentionOf(ctx, user_id, sub);
      return { days: r.delete_after_days, customized: r.own.delete_after_days };
    },
  },

  // --- Internal (not in the route table) ---

  /** Subscribers of a podcast with auto-queue on. */
  auto_queue_users: {
    visibility: "public",
    params: { podcast_id: id },
    async handler(this: PodcastsThis, ctx: Ctx<{ podcast_id: number }>): Promise<number[]> {
      const subs: SubscriptionDoc[] = await this.stores.subscriptions.find({ query: { podcast_id: ctx.params.podcast_id, auto_queue: true } });
      return subs.map((s) => s.user_id);
    },
  },
};
