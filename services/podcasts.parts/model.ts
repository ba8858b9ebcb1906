/**
 * The podcasts service's stored records, the param rules its action modules share, and how a feed
 * and a subscription combine into what a user sees.
 */
import { sha256Hex } from "../../shared/secrets";
import type { ParsedEpisode, ParsedFeed } from "../../shared/feed-parser";
import { Rights, splitCredentials } from "../../shared/http";
import type { EpisodeFilter } from "../../shared/episode-filter";

/** A stored feed. */
export interface PodcastDoc {
  _id: number;
  /** sha256 of URL, username and password: one record per feed and credentials. */
  feed_key: string;
  feed_url: string;
  /** URL after redirects at the last fetch. */
  final_url: string | null;
  username: string | null;
  password: string | null;
  title: string;
  description: string | null;
  author: string | null;
  owner_email: string | null;
  artwork_url: string | null;
  website_url: string | null;
  language: string | null;
  explicit: boolean;
  categories: string[];
  podcast_index_id: number | null;
  last_build_date: string | null;
  /** Podcasting 2.0 channel data as the parser returns it. */
  p20: Pick<ParsedFeed, (typeof P20_CHANNEL_FIELDS)[number]>;
  etag: string | null;
  last_modified: string | null;
  /** sha256 of the feed body last stored; null until an import has stored every episode. */
  content_hash: string | null;
  /** Last fetch that changed something (an unchanged feed writes nothing, not even this). */
  last_fetched_at: Date | null;
  episode_count: number;
  last_episode_date: string | null;
  created_at: Date;
  /** Rights its refreshes use (docs/library.md "Outbound URL policy"): "admin" when an admin added it, until a normal user joins. Absent = "user". */
  fetch_rights?: Rights;
  /** Earlier URLs of the feed, oldest first (it moved: moves.actions.ts); each is also an alias. */
  former_urls?: string[];
}

/** A former address of a feed (moves.actions.ts): _id is the feed_key it had there. */
export interface AliasDoc {
  _id: string;
  podcast_id: number;
  url: string;
}

export interface SubscriptionDoc {
  _id: number;
  /** "<user_id>:<podcast_id>", unique: one subscription per user and podcast even under races. */
  key: string;
  user_id: number;
  podcast_id: number;
  subscribed_date: Date;
  feed_cutoff_days: number;
  auto_download: boolean;
  notifications_enabled: boolean;
  /** The user's own category list once they edited it; null = the feed's categories. */
  categories: string[] | null;
  /** This podcast's cover preference; null or absent = the user's global one. */
  use_podcast_covers?: boolean | null;
  /** Playback of this podcast (absent on older records): speed override (null = the user's default), skips in seconds. */
  playback_speed?: number | null;
  start_skip?: number;
  end_skip?: number;
  auto_play_next?: boolean;
  /** Set by podcast/toggle_favorite, read by podcast/favorite_status (automation.actions). */
  is_favorite?: boolean;
  /** New episodes of this podcast go to the end of the user's queue (automation.actions). */
  auto_queue?: boolean;
  /** Days after which downloads of completed episodes go; null or absent = the user's default. */
  auto_download_delete_days?: number | null;
  /** Retention besides those days (retention.actions): newest downloads kept (0 = all), saved ones kept; null or absent = the user's default. */
  retention_keep_last?: number | null;
  retention_keep_saved?: boolean | null;
  overrides: Partial<Record<(typeof OVERRIDABLE)[number], string | number>>;
  /** The user merged this podcast into that one (merge.actions): hidden from their list, its episodes listed with it. */
  merged_into?: number | null;
  /** The user chose not to match this podcast with the podcast index (index-match.actions). */
  index_id_ignored?: boolean;
  /** The user's episode filter of this podcast (filters.actions); null or absent = none. */
  filters?: EpisodeFilter | null;
}

const P20_CHANNEL_FIELDS = [
  "podcast_guid",
  "medium",
  "locked",
  "locked_owner",
  "funding",
  "persons",
  "values",
  "locations",
  "license",
  "trailers",
  "images",
  "txt",
  "podroll",
  "publisher",
  "blocks",
  "podping",
  "chat",
  "live_items",
  "keywords",
  "itunes_type",
] as const;
export const OVERRIDABLE = ["title", "description", "author", "artwork_url", "website_url", "podcast_index_id"] as const;

export const id = { type: "number", integer: true, positive: true, convert: true };
export const text = (max: number, optional = true) => ({ type: "string", trim: true, max, optional });
export const feedUrl = { type: "url", max: 4000 };
export const podcastIndexId = { type: "number", integer: true, convert: true, optional: true, nullable: true };
export const cutoffDays = { type: "number", integer: true, min: 0, max: 365, convert: true };
/** remove_podcast, remove_podcast_name and check_podcast: the title the user sees and the feed URL. */
export const byName = { user_id: id, podcast_name: text(1000, false), podcast_url: text(4000, false) };

/**
 * The feed a user names: credentials written into the URL (https://user:pass@host/feed) become the
 * feed's credentials, so they are never stored in feed_url, returned or logged; explicit ones win.
 */
export function feedRef(rawUrl: string, username: string | null, password: string | null): FeedRef {
  const inUrl = splitCredentials(rawUrl);
  const user = username ?? inUrl.username;
  return { url: inUrl.url, username: user, password: user ? ((username !== null ? password : inUrl.password) ?? "") : null };
}

export function feedKey(url: string, username: string | null, password: string | null): string {
  return sha256Hex(`${url}\n${username ?? ""}\n${password ?? ""}`);
}

/** The record fields that come from the feed's channel. */
export function feedFields(feed: Omit<ParsedFeed, "episodes">) {
  const p20 = {} as PodcastDoc["p20"];
  for (const f of P20_CHANNEL_FIELDS) (p20 as Record<string, unknown>)[f] = feed[f];
  return {
    title: feed.title ?? "",
    description: feed.description,
    author: feed.author ?? feed.owner_name,
    owner_email: feed.owner_email,
    artwork_url: feed.image,
    website_url: feed.link,
    language: feed.language,
    explicit: feed.explicit,
    categories: feed.categories,
    last_build_date: feed.last_build_date ?? feed.pub_date,
    p20,
  };
}

/** Categories as PinePods' clients read them in a podcast record: an object "1": "Name" (web: HashMap<String, String>, mobile: Map<String, String>). */
export function categoryMap(categories: string[]): Record<string, string> {
  return Object.fromEntries(categories.map((c, i) => [String(i + 1), c]));
}

export function newestFirst(episodes: ParsedEpisode[]): ParsedEpisode[] {
  const time = (e: ParsedEpisode) => (e.pub_date ? Date.parse(e.pub_date) : 0);
  return episodes
    .map((e, i) => ({ e, i, t: time(e) }))
    .sort((a, b) => b.t - a.t || a.i - b.i)
    .map((x) => x.e);
}

/** A date as ISO 8601; null for none (a date always there gives a string). */
export function iso(d: Date | string): string;
export function iso(d: Date | string | null | undefined): string | null;
export function iso(d: Date | string | null | undefined): string | null {
  return d ? new Date(d).toISOString() : null;
}

/** The podcast fields a subscription view is made of: what user_subscriptions reads of each podcast. */
export const VIEW_FIELDS = ["title", "artwork_url", "website_url", "podcast_index_id", "categories", "feed_url"] as const;
export type ViewDoc = Pick<PodcastDoc, "_id" | (typeof VIEW_FIELDS)[number]>;

/** What a user sees of a podcast: the feed's fields under their own overrides (of a ViewDoc, all but description and author). */
export function shown(p: PodcastDoc, s: SubscriptionDoc | null): Shown;
export function shown(p: ViewDoc, s: SubscriptionDoc | null): Omit<Shown, "description" | "author">;
export function shown(
  p: ViewDoc & Partial<PodcastDoc>,
  s: SubscriptionDoc | null,
): Omit<Shown, "description" | "author"> & Partial<Pick<Shown, "description" | "author">> {
  const o = s?.overrides ?? {};
  return {
    title: (o.title as string) ?? p.title,
    description: (o.description as string) ?? p.description,
    author: (o.author as string) ?? p.author,
    artwork_url: (o.artwork_url as string) ?? p.artwork_url,
    website_url: (o.website_url as string) ?? p.website_url,
    podcast_index_id: (o.podcast_index_id as number) ?? p.podcast_index_id,
    categories: s?.categories ?? p.categories,
  };
}

export interface Shown {
  title: string;
  description: string | null;
  author: string | null;
  artwork_url: string | null;
  website_url: string | null;
  podcast_index_id: number | null;
  categories: string[];
}

export interface FeedRef {
  url: string;
  username: string | null;
  password: string | null;
}

export type Fallback = Partial<Record<"title" | "description" | "author" | "artwork_url" | "website_url", string>>;
