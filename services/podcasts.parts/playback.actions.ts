/**
 * What a player asks of a subscription: the per podcast playback settings (speed override, skips,
 * auto-play-next), the read of its favorite flag and the podcast side of search_data
 * (podcast/notification_status lives in sync.actions.ts). Every action answers 404 unless the user is
 * subscribed to the podcast.
 */
import type { ServiceActionsSchema } from "moleculer";
import type { PlaybackSettings, PodcastSearchHit, PodcastSearchResult } from "../../shared/contracts/podcasts";
import { listeningSettings, type ListeningSettings } from "../../shared/contracts/users";
import type { Ctx } from "../../shared/service-types";
import type { PodcastsThis } from "./this";
import { categoryMap, id, type PodcastDoc, shown, type SubscriptionDoc } from "./model";
import { AutoPlayNextStatusAnswer, ClearSpeedAnswer, FavoriteStatusAnswer, PlayEpisodeDetailsAnswer } from "../../shared/contracts/podcasts";
import type { TSchema } from "../../shared/contracts/answers";

const ofPodcast = { user_id: id, podcast_id: id };
type OfPodcast = { user_id: number; podcast_id: number };
const skip = { type: "number", integer: true, min: 0, max: 86_400, convert: true, optional: true };

function playback(sub: SubscriptionDoc): PlaybackSettings {
  return { playback_speed: sub.playback_speed ?? null, start_skip: sub.start_skip ?? 0, end_skip: sub.end_skip ?? 0, auto_play_next: !!sub.auto_play_next };
}

/**
 * An action that sets fields of the user's subscription of a podcast (the web client reads detail or message, by route).
 * P: the params besides user_id and podcast_id, as `params` validates them.
 */
export function setter<P extends object = Record<string, never>>(
  params: object,
  fields: (p: OfPodcast & P) => Partial<SubscriptionDoc>,
  detail: (p: OfPodcast & P) => string,
) {
  return {
    params: { ...ofPodcast, ...params },
    response: ClearSpeedAnswer,
    async handler(this: PodcastsThis, ctx: Ctx<OfPodcast & P>): Promise<ClearSpeedAnswer> {
      const sub: SubscriptionDoc = await this.subscriptionOf(ctx.params.user_id, ctx.params.podcast_id);
      await this.stores.subscriptions.updateMany({ _id: sub._id }, { $set: fields(ctx.params) });
      const text = detail(ctx.params);
      return { detail: text, message: text };
    },
  };
}

/** An action that answers something of the user's subscription of a podcast: a route's (its response schema) or an internal one. */
export function reader<R>(read: (sub: SubscriptionDoc) => R, opts: { response?: TSchema; visibility?: "public" }) {
  return {
    ...opts,
    params: ofPodcast,
    async handler(this: PodcastsThis, ctx: Ctx<OfPodcast>): Promise<R> {
      return read(await this.subscriptionOf(ctx.params.user_id, ctx.params.podcast_id));
    },
  };
}

export const playbackActions: ServiceActionsSchema = {
  /** POST /api/data/podcast/set_playback_speed */
  set_podcast_playback_speed: setter<{ playback_speed: number }>(
    { playback_speed: { type: "number", min: 0.5, max: 3, convert: true } },
    (p) => ({ playback_speed: p.playback_speed }),
    () => "Podcast playback speed updated",
  ),
  clear_podcast_playback_speed: setter(
    {},
    () => ({ playback_speed: null }),
    () => "Podcast playback speed cleared: the default speed applies",
  ),
  /** POST /api/data/adjust_skip_times: seconds skipped at the start and end; a skip not sent keeps its value. */
  adjust_skip_times: setter<{ start_skip?: number; end_skip?: number }>(
    { start_skip: skip, end_skip: skip },
    (p) => Object.fromEntries(Object.entries({ start_skip: p.start_skip, end_skip: p.end_skip }).filter(([, v]) => v !== undefined)),
    () => "Skip times updated",
  ),
  enable_auto_play_next: setter<{ auto_play_next: boolean }>(
    { auto_play_next: { type: "boolean", convert: true } },
    (p) => ({ auto_play_next: p.auto_play_next }),
    (p) => `Auto-play next ${p.auto_play_next ? "enabled" : "disabled"}`,
  ),
  get_auto_play_next_status: reader((sub): AutoPlayNextStatusAnswer => ({ auto_play_next: !!sub.auto_play_next }), { response: AutoPlayNextStatusAnswer }),
  /** POST /api/data/podcast/favorite_status */
  favorite_status: reader((sub): FavoriteStatusAnswer => ({ is_favorite: !!sub.is_favorite }), { response: FavoriteStatusAnswer }),
  /** POST /api/data/get_play_episode_details: the podcast's speed, else the user's default, and its skips. */
  get_play_episode_details: {
    params: { ...ofPodcast, is_vidsite: { type: "boolean", convert: true, optional: true } },
    response: PlayEpisodeDetailsAnswer,
    async handler(this: PodcastsThis, ctx: Ctx<OfPodcast & { is_vidsite?: boolean }>): Promise<PlayEpisodeDetailsAnswer> {
      const [sub, settings]: [SubscriptionDoc, ListeningSettings] = await Promise.all([
        this.subscriptionOf(ctx.params.user_id, ctx.params.podcast_id),
        listeningSettings(ctx, { user_id: ctx.params.user_id }),
      ]);
      const p = playback(sub);
      return {
        playback_speed: p.playback_speed ?? settings.playback_speed,
        start_skip: p.start_skip,
        end_skip: p.end_skip,
        playback_speed_customized: p.playback_speed !== null,
      };
    },
  },

  // --- Internal actions (not in the route table) ---

  /** One subscription's playback settings (get_playback_speed of the users service). */
  playback_settings: reader((sub): PlaybackSettings => playback(sub), { visibility: "public" }),
  /**
   * search_data's podcast side: the user's podcasts in `categories` (any of them, case-insensitive; all
   * without), and those of them whose shown title, author or description contains search_term.
   */
  search_podcasts: {
    visibility: "public",
    params: { user_id: id, search_term: { type: "string", max: 200 }, categories: { type: "array", items: "string", optional: true } },
    async handler(this: PodcastsThis, ctx: Ctx<{ user_id: number; search_term: string; categories?: string[] }>): Promise<PodcastSearchResult> {
      const rows: { pod: PodcastDoc; sub: SubscriptionDoc }[] = await this.userPodcasts(ctx.params.user_id);
      const wanted = ctx.params.categories?.map((c) => c.toLowerCase());
      const needle = ctx.params.search_term.toLowerCase();
      const items = rows
        .map(({ pod, sub }) => ({ pod, v: shown(pod, sub) }))
        .filter(({ v }) => !wanted || v.categories.some((c: string) => wanted.includes(c.toLowerCase())));
      const hits: PodcastSearchHit[] = items
        .filter(({ v }) => [v.title, v.author, v.description].some((f) => f?.toLowerCase().includes(needle)))
        .map(({ pod, v }) => ({
          type: "podcast",
          podcast_id: pod._id,
          podcast_name: v.title,
          author: v.author ?? "",
          description: v.description ?? "",
          artwork_url: v.artwork_url,
          categories: categoryMap(v.categories),
          podcastid: pod._id,
          podcastname: v.title,
          artworkurl: v.artwork_url ?? "",
          feedurl: pod.feed_url,
          websiteurl: v.website_url ?? "",
          explicit: pod.explicit ? 1 : 0,
          episodecount: pod.episode_count,
        }));
      return { podcasts: hits, podcast_ids: items.map(({ pod }) => pod._id) };
    },
  },
};
