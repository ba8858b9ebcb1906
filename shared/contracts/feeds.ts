/** What travels to and from the feeds service: action results. */
import type { ParsedFeed } from "../feed-parser";

/** feeds.fetch_feed result. feed is null when the server said 304 or the body hash is the known one. */
export interface FetchedFeed {
  unchanged: boolean;
  final_url: string;
  etag: string | null;
  last_modified: string | null;
  content_hash: string | null;
  feed: ParsedFeed | null;
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
