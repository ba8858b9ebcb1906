/** Shapes of the search service's actions (services/search.service.ts), for its gateway and the main server's callers. */
import { action } from "./call";
import { Nullable, Type, type Static } from "./answers";

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

// --- GET /api/data/proxy_search (podcasts.proxy_search): the search service's answer, passed on as it is ---

const optionalText = Type.Optional(Nullable(Type.String()));
const optionalInt = Type.Optional(Nullable(Type.Integer()));

/** A podcast of a directory search: the fields clients read, with the types PinePods' mobile app casts them to. */
export const DirectoryFeed = Type.Object({
  id: Type.Integer(),
  title: optionalText,
  url: optionalText,
  originalUrl: optionalText,
  link: optionalText,
  description: optionalText,
  author: optionalText,
  ownerName: optionalText,
  image: optionalText,
  artwork: optionalText,
  lastUpdateTime: optionalInt,
  categories: Type.Optional(Nullable(Type.Record(Type.String(), Type.String()))),
  explicit: Type.Optional(Nullable(Type.Boolean())),
  episodeCount: optionalInt,
});
/** Directory search response (term or person search; a person search also lists the episodes found, as items). */
export const DirectorySearchAnswer = Type.Object({
  status: Type.String(),
  feeds: Type.Array(DirectoryFeed),
  count: Type.Integer(),
  query: Type.String(),
  description: Type.String(),
  items: Type.Optional(Type.Array(Type.Object({}))),
});
/** A podcast of a store search: the fields clients read. */
export const StoreResult = Type.Object({
  wrapperType: optionalText,
  kind: optionalText,
  collectionId: optionalInt,
  trackId: optionalInt,
  artistName: optionalText,
  trackName: optionalText,
  collectionViewUrl: optionalText,
  feedUrl: optionalText,
  artworkUrl100: optionalText,
  releaseDate: optionalText,
  genres: Type.Optional(Type.Array(Type.String())),
  collectionExplicitness: optionalText,
  trackCount: optionalInt,
});
export const StoreSearchAnswer = Type.Object({ resultCount: Type.Integer(), results: Type.Array(StoreResult) });
export const VidsiteSearchAnswer = Type.Object({
  results: Type.Array(
    Type.Object({ channelId: Type.String(), name: Type.String(), description: Type.String(), thumbnailUrl: Type.String(), url: Type.String() }),
  ),
});
export const ProxySearchAnswer = Type.Union([DirectorySearchAnswer, StoreSearchAnswer, VidsiteSearchAnswer], {
  description: "The search service's answer for the index asked: directory (feeds), store (resultCount, results) or vidsite (channels as results)",
});
export type ProxySearchAnswer = Static<typeof ProxySearchAnswer>;

// --- Calls to the search service and its events (shared/contracts/call.ts) ---

/** search.search result: the provider's answer for the index asked (a plain text when neither query nor index is given). */
export type SearchAnswer = string | Static<typeof DirectorySearchAnswer> | Static<typeof StoreSearchAnswer> | VidsiteSearchResult;
/** A provider lookup of the search service's routes, asked by the search service itself (cached, one call per burst). */
export interface ProviderLookup {
  provider: SearchProvider;
  kind: "term" | "person" | "podcast" | "channel";
  q: string;
}

/** A podcast search (directory or store) or a video channel search: GET /api/search. */
export const search = action<SearchParams, SearchAnswer>("search.search");
/** A video channel and its recent videos: GET /api/vidsite/channel. */
export const vidsiteChannel = action<{ id: string }, VidsiteChannelDetails>("search.vidsite_channel");
/** The provider call behind every route, cached by what it asks. */
export const providerCall = action<ProviderLookup, unknown>("search.provider_call");
/** A podcast of the directory by its feed id: GET /api/podcast (the directory's answer, passed on). */
export const searchPodcast = action<{ id: string }, unknown>("search.podcast");
/** The per-provider request counters: GET /api/stats. */
export const searchStats = action<Record<string, never>, SearchStats>("search.stats");
