/** Shapes of the search service's actions (services/search.service.ts), for its gateway and the main server's callers. */

/** The three providers, by their neutral names. */
export type SearchProvider = "directory" | "store" | "vidsite";

/** search.search params: what GET /api/search receives (index also in the spellings podcastindex / itunes / youtube). */
export interface SearchParams {
  query?: string;
  index?: string;
  search_type?: string;
}

/** One channel of a video channel search. */
export interface VidsiteChannel {
  channelId: string;
  name: string;
  description: string;
  thumbnailUrl: string;
  url: string;
}

export interface VidsiteSearchResult {
  results: VidsiteChannel[];
}

export interface VidsiteVideo {
  id: string;
  title: string;
  description: string;
  url: string;
  thumbnail: string;
  /** ISO 8601, or null when the provider gives no date. */
  publishedAt: string | null;
  /** ISO 8601 duration PT#M#S. */
  duration: string;
}

/** search.vidsite_channel result: GET /api/vidsite/channel. */
export interface VidsiteChannelDetails extends VidsiteChannel {
  subscriberCount: null;
  videoCount: null;
  recentVideos: VidsiteVideo[];
}

/** search.stats result: GET /api/stats. */
export interface SearchStats {
  api_usage: { store_hits: number; directory_hits: number; vidsite_hits: number; total_hits: number };
  timestamp: string;
}
