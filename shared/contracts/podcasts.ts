/** What travels to and from the podcasts service: internal action params and results, and the answers of its routes. */
import { Type, type Static } from "./answers";
import { EpisodeItemFields } from "./episodes";
import type { ParsedFeed } from "../feed-parser";
import type { Rights } from "../http";
import type { SyncResult } from "./episodes";
import type { FetchedFeed } from "./feeds";

/** What other services get of a subscription (user_subscriptions). */
export interface SubscriptionView {
  podcast_id: number;
  feed_cutoff_days: number;
  title: string;
  artwork_url: string | null;
  website_url: string | null;
  podcast_index_id: number | null;
  /** false for a podcast an admin reads without being subscribed. */
  subscribed: boolean;
  /** A video channel (services/vidsite.service.ts). */
  is_vidsite: boolean;
}

/** A podcast as the refresh needs it, credentials included: internal only. */
export interface RefreshTarget {
  podcast_id: number;
  feed_url: string;
  username: string | null;
  password: string | null;
  etag: string | null;
  last_modified: string | null;
  content_hash: string | null;
  fetch_rights: Rights;
}

/** podcasts.apply_feed params: what a refresh learnt about a changed feed. */
export interface ApplyFeedParams {
  podcast_id: number;
  fetched: Omit<FetchedFeed, "feed"> & { feed: Omit<ParsedFeed, "episodes"> };
  sync: SyncResult;
}

/** podcasts.user_feeds item: a subscription as OPML export and import see it. */
export interface LibraryFeed {
  podcast_id: number;
  title: string;
  feed_url: string;
  /** Where feed_url redirected at the last fetch (an import of either URL is "already subscribed"). */
  final_url: string | null;
  website_url: string | null;
}

/** podcasts.podcast_p20 result: a podcast's Podcasting 2.0 channel data as the feed parser read it. */
export interface PodcastP20 {
  podcast_id: number;
  title: string;
  p20: Record<string, any>;
}

/** podcasts.search_podcasts result item: a subscribed podcast whose title, author or description matched. */
export interface PodcastSearchHit {
  podcast_id: number;
  podcast_name: string;
  author: string | null;
  description: string | null;
  artwork_url: string | null;
  categories: string[];
}

/** podcasts.search_podcasts result: the hits, and the user's podcasts in the asked categories (all without). */
export interface PodcastSearchResult {
  podcasts: PodcastSearchHit[];
  podcast_ids: number[];
}

/** podcasts.playback_settings result: one subscription's per podcast playback settings. */
export interface PlaybackSettings {
  /** The podcast's own speed, or null for the user's default. */
  playback_speed: number | null;
  start_skip: number;
  end_skip: number;
  auto_play_next: boolean;
}

/** podcasts.notify_targets result item: a subscriber with notifications on, and the title they see. */
export interface NotifyTarget {
  user_id: number;
  podcast_title: string;
}

/** podcasts.sync_feeds result item: a feed the user is subscribed to (without credentials), by URL. */
export interface SyncFeed {
  podcast_id: number;
  feed_url: string;
}

/** podcasts.sync_subscriptions params: feed URLs a sync server added and removed for one user. */
export interface SyncSubscriptionsParams {
  user_id: number;
  add: string[];
  remove: string[];
}

/** podcasts.auto_delete_rules result item: a user's downloads of a podcast's completed episodes go `days` after their download. */
export interface AutoDeleteRule {
  user_id: number;
  podcast_id: number;
  days: number;
}

/** POST /api/data/get_auto_queue_status */
export const AutoQueueAnswer = Type.Object({ auto_queue: Type.Boolean() });
export type AutoQueueAnswer = Static<typeof AutoQueueAnswer>;
/** POST /api/data/get_auto_download_delete_days: days (0 = kept); customized: the podcast's own, not the user's default. */
export const AutoDeleteDaysAnswer = Type.Object({ days: Type.Integer({ minimum: 0 }), customized: Type.Boolean() });
export type AutoDeleteDaysAnswer = Static<typeof AutoDeleteDaysAnswer>;
/** POST /api/data/get_auto_skip_times: seconds skipped at the start and the end. */
export const AutoSkipTimesAnswer = Type.Object({ start_skip: Type.Integer({ minimum: 0 }), end_skip: Type.Integer({ minimum: 0 }) });
export type AutoSkipTimesAnswer = Static<typeof AutoSkipTimesAnswer>;

/** episodes.recommendation_episodes result: newest episodes of some podcasts and who heard them (podcasts.parts/recommend.ts). */
export interface RecommendationEpisodes {
  episodes: { episode_id: number; podcast_id: number; pub: number }[];
  listens: { user_id: number; episode_id: number; podcast_id: number; played: boolean }[];
}

/** A podcast recommended to the user, in the shape of PinePods' web client's RecommendedPodcast (GET /api/data/recommendations). */
export const RecommendedPodcast = Type.Object({
  podcast_id: Type.Integer({ description: "This server's id of the podcast" }),
  podcastindexid: Type.Union([Type.Integer(), Type.Null()]),
  title: Type.String(),
  author: Type.Union([Type.String(), Type.Null()]),
  image: Type.Union([Type.String(), Type.Null()]),
  description: Type.Union([Type.String(), Type.Null()]),
  feedurl: Type.String(),
  categories: Type.Record(Type.String(), Type.String(), { description: "Its categories by position, as the directory's map" }),
  score: Type.Number({ minimum: 0, maximum: 1 }),
  reason: Type.String(),
});
export type RecommendedPodcast = Static<typeof RecommendedPodcast>;
export const RecommendationsAnswer = Type.Array(RecommendedPodcast);
export type RecommendationsAnswer = Static<typeof RecommendationsAnswer>;

/** An episode recommended to the user (GET /api/data/recommendations/episodes). */
export const RecommendedEpisode = Type.Composite([
  Type.Pick(EpisodeItemFields, ["episodeid", "podcastid", "podcastname", "episodetitle", "episodepubdate", "episodedescription", "episodeartwork", "episodeurl", "episodeduration"]),
  Type.Object({
    is_subscribed: Type.Boolean({ description: "From one of the user's podcasts, else from a podcast recommended to them" }),
    score: Type.Number({ minimum: 0, maximum: 1 }),
    reason: Type.String(),
  }),
]);
export type RecommendedEpisode = Static<typeof RecommendedEpisode>;
export const RecommendedEpisodesAnswer = Type.Object({ episodes: Type.Array(RecommendedEpisode) });
export type RecommendedEpisodesAnswer = Static<typeof RecommendedEpisodesAnswer>;
