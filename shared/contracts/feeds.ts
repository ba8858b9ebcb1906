/** What travels to and from the feeds service: action results. */
import { action } from "./call";
import { Type, type Static } from "./answers";
import type { ParsedFeed } from "../feed-parser";

/** feeds.fetch_feed result. feed is null when the server said 304 or the body hash is the known one. */
export interface FetchedFeed {
  unchanged: boolean;
  final_url: string;
  etag: string | null;
  last_modified: string | null;
  content_hash: string | null;
  feed: ParsedFeed | null;
  /** Where the feed moved for good (a 301 or 308, or an itunes:new-feed-url that answers a feed); absent or null: it did not. */
  moved_to?: string | null;
}

/** feeds.refresh_feed result. */
export interface RefreshResult {
  podcast_id: number;
  status: "unchanged" | "updated" | "failed" | "gone";
  new_episodes: number;
  error?: string;
}

/** Figures of a refresh of many podcasts (refresh_pods, the scheduler, feeds.refresh_many). */
export interface RefreshSummary {
  refreshed: number;
  updated: number;
  unchanged: number;
  failed: number;
  new_episodes: number;
}

// --- Answers of the feeds service's routes ---
/** fetch_podcast_feed: a feed's episodes (not stored), as the web client's episode list reads them; text "" when the feed has none. */
export const FeedEpisodesAnswer = Type.Object({
  episodes: Type.Array(
    Type.Object({
      podcastname: Type.String(),
      episodetitle: Type.String(),
      episodedescription: Type.String(),
      episodeurl: Type.String(),
      episodeartwork: Type.String(),
      episodepubdate: Type.String(),
      episodeduration: Type.Integer(),
      artworkurl: Type.String(),
      author: Type.String(),
      feedurl: Type.String(),
      websiteurl: Type.String(),
      explicit: Type.Union([Type.Literal(0), Type.Literal(1)]),
      guid: Type.String(),
      is_video: Type.Boolean(),
    }),
  ),
  total: Type.Integer(),
});
export type FeedEpisodesAnswer = Static<typeof FeedEpisodesAnswer>;
/** refresh_pods: the figures when the job ended within REFRESH_WAIT_MS, else the task_id only. */
export const RefreshPodsAnswer = Type.Object({
  detail: Type.String(),
  task_id: Type.String(),
  message: Type.Optional(Type.String()),
  refreshed: Type.Optional(Type.Integer()),
  updated: Type.Optional(Type.Integer()),
  unchanged: Type.Optional(Type.Integer()),
  failed: Type.Optional(Type.Integer()),
  new_episodes: Type.Optional(Type.Integer()),
});
export type RefreshPodsAnswer = Static<typeof RefreshPodsAnswer>;

// --- Calls to the feeds service and its events (shared/contracts/call.ts) ---

/** feeds.fetch_feed params: the feed, its credentials, and the validators and hash of its last fetch (an unchanged feed is not parsed). */
export interface FetchFeedParams {
  url: string;
  username?: string;
  password?: string;
  etag?: string | null;
  last_modified?: string | null;
  content_hash?: string | null;
}

/** Fetches and parses a feed with the caller's rights (ctx.meta.user). */
export const fetchFeed = action<FetchFeedParams, FetchedFeed>("feeds.fetch_feed");
/** Refreshes one stored podcast; announce: false for a feed just added (its older episodes are not new). */
export const refreshFeed = action<{ podcast_id: number; announce?: boolean }, RefreshResult>("feeds.refresh_feed");
/** Refreshes these podcasts over every feeds replica. */
export const refreshMany = action<{ podcast_ids: number[] }, RefreshSummary>("feeds.refresh_many");
