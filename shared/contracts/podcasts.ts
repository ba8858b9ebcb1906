/** What travels to and from the podcasts service: internal action params and results, and the answers of its routes. */
import { IsYoutube, Nullable, Type, type Static } from "./answers";
import { action, event } from "./call";
import type { PersonQuery, PodcastsNaming } from "./following";
import { EpisodeListItem } from "./episodes";
import type { ParsedFeed } from "../feed-parser";
import type { Rights } from "../http";
import type { SearchPodcastEntry, SyncResult } from "./episodes";
import type { FetchedFeed } from "./feeds";
import type { EpisodeFilter } from "../episode-filter";

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
  /** The categories the user sees (their own override, else the feed's). */
  categories: string[];
  /** When the user subscribed (ms; absent without a subscription): the inbox holds what was published after it. */
  subscribed_at?: number;
  /** The user's episode filter of this podcast (podcast_filters), absent when none. */
  filters?: EpisodeFilter;
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
  p20: PodcastP20Fields;
}

/**
 * A podcast's Podcasting 2.0 channel data as the feed parser read it: the fields services/podcasts.parts/model.ts
 * keeps (P20_CHANNEL_FIELDS). Partial: a record stored before a field was kept lacks it.
 */
export type PodcastP20Fields = Partial<
  Pick<
    ParsedFeed,
    | "podcast_guid"
    | "medium"
    | "locked"
    | "locked_owner"
    | "funding"
    | "persons"
    | "values"
    | "locations"
    | "license"
    | "trailers"
    | "images"
    | "txt"
    | "podroll"
    | "publisher"
    | "blocks"
    | "podping"
    | "chat"
    | "live_items"
    | "keywords"
    | "itunes_type"
  >
>;

/** podcasts.search_podcasts result item: a subscribed podcast whose title, author or description matched, as search_data answers it. */
export type PodcastSearchHit = SearchPodcastEntry;

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
  /** Earlier URLs of the feed (it moved): what devices sent under them is this podcast's. */
  former_urls?: string[];
}

/** podcasts.sync_podcasts result item: a subscribed feed with what a gPodder client shows of it (the user's overrides applied). */
export interface SyncPodcast extends SyncFeed {
  title: string;
  description: string;
  author: string | null;
  website: string | null;
  logo_url: string | null;
  /** Users of this server subscribed to it. */
  subscribers: number;
}

/** podcasts.sync_subscriptions params: feed URLs a sync server added and removed for one user. */
export interface SyncSubscriptionsParams {
  user_id: number;
  add: string[];
  remove: string[];
  /** Passed on as the origin of podcasts.feeds_changed. */
  origin?: string;
}

/**
 * `podcasts.feeds_changed`: a user's feed URLs as sync servers see them changed (subscribed, unsubscribed,
 * a feed URL changed); feeds behind credentials and local folders are never named. origin: who asked, when
 * it was a sync (the gpodder service passes "gpodder" so that it does not echo its own changes).
 */
export interface FeedsChangedEvent {
  user_id: number;
  added: string[];
  removed: string[];
  origin: string | null;
}

/**
 * podcasts.auto_delete_rules result item: the retention the downloads service's scheduled pass applies to a user's
 * downloads of a podcast (its own settings, else the user's defaults): downloads of completed episodes go `days`
 * after their download (0: never), those beyond the newest `keep_last` episodes by publication date go (0: no
 * limit), and with keep_saved a saved episode's download never goes.
 */
export interface AutoDeleteRule {
  user_id: number;
  podcast_id: number;
  days: number;
  keep_last: number;
  keep_saved: boolean;
}

/** POST /api/data/retention params: the podcast's own settings, or without podcast_id the user's default; a field not sent stays as it is. */
export interface SetRetentionParams {
  user_id: number;
  podcast_id?: number | null;
  /** 0 or null: no limit. */
  keep_last?: number | null;
  /** 0 or null: downloads are not deleted for their age (user/set_auto_download_delete_days and podcast/set_auto_download_delete_days write the same field). */
  delete_after_days?: number | null;
  keep_saved?: boolean;
}

/** GET, POST and DELETE /api/data/retention: the retention in force for the podcast (or the user's default), and which of it is the podcast's own. */
export const RetentionAnswer = Type.Object({
  user_id: Type.Integer(),
  podcast_id: Nullable(Type.Integer({ description: "null: the user's default" })),
  keep_last: Type.Integer({ minimum: 0, description: "Downloaded episodes kept per podcast, newest by publication date first; 0 = no limit" }),
  delete_after_days: Type.Integer({ minimum: 0, description: "Downloads of completed episodes go this many days after their download; 0 = never" }),
  keep_saved: Type.Boolean({ description: "Saved episodes' downloads are never deleted" }),
  customized: Type.Boolean({ description: "Some of these settings are the podcast's own, not the user's default" }),
  own: Type.Object(
    { keep_last: Type.Boolean(), delete_after_days: Type.Boolean(), keep_saved: Type.Boolean() },
    { description: "Which settings are the podcast's own (false: the user's default applies)" },
  ),
});
export type RetentionAnswer = Static<typeof RetentionAnswer>;

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
  Type.Pick(EpisodeListItem, [
    "episodeid",
    "podcastid",
    "podcastname",
    "episodetitle",
    "episodepubdate",
    "episodedescription",
    "episodeartwork",
    "episodeurl",
    "episodeduration",
  ]),
  Type.Object({
    is_subscribed: Type.Boolean({ description: "From one of the user's podcasts, else from a podcast recommended to them" }),
    score: Type.Number({ minimum: 0, maximum: 1 }),
    reason: Type.String(),
  }),
]);
export type RecommendedEpisode = Static<typeof RecommendedEpisode>;
export const RecommendedEpisodesAnswer = Type.Object({ episodes: Type.Array(RecommendedEpisode) });
export type RecommendedEpisodesAnswer = Static<typeof RecommendedEpisodesAnswer>;

// --- Answers of the podcasts service's routes ---

/** add_podcast (and the ids in add_custom_podcast): the subscription and the newest episode (0 when none). */
export const SubscribedAnswer = Type.Object({ success: Type.Boolean(), podcast_id: Type.Integer(), first_episode_id: Type.Integer() });
export type SubscribedAnswer = Static<typeof SubscribedAnswer>;

/** A podcast as the web client's Podcast struct reads it (add_custom_podcast's data): categories as an object "1": "Name". */
export const ClientPodcast = Type.Object({
  podcastid: Type.Integer(),
  podcastname: Type.String(),
  artworkurl: Nullable(Type.String()),
  description: Nullable(Type.String()),
  episodecount: Type.Integer(),
  websiteurl: Nullable(Type.String()),
  feedurl: Type.String(),
  author: Nullable(Type.String()),
  categories: Type.Record(Type.String(), Type.String()),
  explicit: Type.Boolean(),
  podcastindexid: Type.Integer(),
});
export type ClientPodcast = Static<typeof ClientPodcast>;
export const AddCustomPodcastAnswer = Type.Composite([SubscribedAnswer, Type.Object({ data: ClientPodcast })]);
export type AddCustomPodcastAnswer = Static<typeof AddCustomPodcastAnswer>;

/**
 * return_pods item, newest subscription first: the documents' subscription list item, then the names PinePods'
 * clients read a subscribed podcast by (mobile: getUserPodcasts' Podcast; web: its Podcast struct). categories stays
 * the documents' array (the web client reads a map and fails on it; the mobile app reads none from an array).
 */
export const PodcastListItem = Type.Composite([
  Type.Object({
    podcast_id: Type.Integer(),
    title: Type.String(),
    description: Nullable(Type.String()),
    artwork_url: Nullable(Type.String()),
    feed_url: Type.String(),
    website_url: Nullable(Type.String()),
    author: Nullable(Type.String()),
    categories: Type.Array(Type.String()),
    last_episode_date: Nullable(Type.String()),
    episode_count: Type.Integer(),
    subscribed_date: Type.String({ format: "date-time" }),
    is_vidsite: Type.Boolean(),
    is_youtube: IsYoutube,
  }),
  Type.Object({
    podcastid: Type.Integer(),
    podcastname: Type.String(),
    artworkurl: Nullable(Type.String()),
    feedurl: Type.String(),
    websiteurl: Nullable(Type.String()),
    episodecount: Type.Integer(),
    explicit: Type.Boolean(),
    podcastindexid: Type.Integer({ description: "0 when the podcast has no podcast index id (the web client's i32 refuses null)" }),
    is_favorite: Type.Boolean(),
  }),
]);
export type PodcastListItem = Static<typeof PodcastListItem>;
/** total: how many podcasts matched (the whole list without limit and search; not in the spec, for paging clients). */
export const ReturnPodsAnswer = Type.Object({ pods: Type.Array(PodcastListItem), total: Type.Integer() });
export type ReturnPodsAnswer = Static<typeof ReturnPodsAnswer>;
export const PodcastListItemExtra = Type.Composite([
  PodcastListItem,
  Type.Object({
    total_episodes: Type.Integer(),
    unplayed_episodes: Type.Integer(),
    last_played: Nullable(Type.String()),
    total_listen_time: Type.Integer(),
    auto_download: Type.Boolean(),
    notifications_enabled: Type.Boolean(),
    feed_cutoff_days: Type.Integer(),
  }),
]);
export type PodcastListItemExtra = Static<typeof PodcastListItemExtra>;
export const ReturnPodsExtraAnswer = Type.Object({ pods: Type.Array(PodcastListItemExtra) });
export type ReturnPodsExtraAnswer = Static<typeof ReturnPodsExtraAnswer>;

export const ExistsAnswer = Type.Object({ exists: Type.Boolean() });
export type ExistsAnswer = Static<typeof ExistsAnswer>;
/** get_podcast_id: the documents name the field episodes; podcast_id is what both PinePods clients read. */
export const PodcastIdAnswer = Type.Object({ episodes: Type.Integer(), podcast_id: Type.Integer() });
export type PodcastIdAnswer = Static<typeof PodcastIdAnswer>;

/**
 * get_podcast_details_dynamic: the documents' dynamic details record; the types the documents leave open are those
 * both PinePods clients read: text fields "" when none, categories as an object "1": "Name".
 */
export const PodcastDetailsDynamicAnswer = Type.Object({
  podcastid: Type.Integer(),
  podcastname: Type.String(),
  feedurl: Type.String(),
  description: Type.String(),
  author: Type.String(),
  artworkurl: Type.String(),
  explicit: Type.Boolean(),
  episodecount: Type.Integer(),
  categories: Type.Record(Type.String(), Type.String()),
  websiteurl: Type.String(),
  podcastindexid: Type.Integer(),
  is_vidsite: Type.Boolean(),
  is_youtube: IsYoutube,
});
export type PodcastDetailsDynamicAnswer = Static<typeof PodcastDetailsDynamicAnswer>;
/**
 * get_podcast_details: the documents' podcast object and its recent episodes, then details: the podcast as both
 * PinePods clients read it (get_podcast_details_dynamic's record and the caller's userid; categories as a map there;
 * is_vidsite also as isyoutubechannel, which the web client's PodcastDetails requires).
 */
export const PodcastDetailsAnswer = Type.Object({
  podcast: Type.Composite([
    Type.Pick(PodcastListItem, ["podcast_id", "title", "description", "artwork_url", "feed_url", "website_url", "author", "categories"]),
    Type.Object({
      email: Nullable(Type.String()),
      language: Nullable(Type.String()),
      explicit: Type.Boolean(),
      total_episodes: Type.Integer(),
      last_build_date: Nullable(Type.String()),
      subscribed_date: Nullable(Type.String()),
      auto_download: Type.Boolean(),
      notifications_enabled: Type.Boolean(),
      custom_playback_speed: Nullable(Type.Number()),
      use_podcast_covers: Nullable(Type.Boolean()),
    }),
  ]),
  recent_episodes: Type.Array(
    Type.Object({
      episode_id: Type.Integer(),
      title: Type.String(),
      description: Nullable(Type.String()),
      pub_date: Nullable(Type.String()),
      duration: Type.Integer(),
      file_size: Type.Integer(),
      audio_url: Nullable(Type.String()),
      is_played: Type.Boolean(),
      is_saved: Type.Boolean(),
      progress: Type.Integer(),
    }),
  ),
  details: Type.Composite([
    PodcastDetailsDynamicAnswer,
    Type.Object({ userid: Type.Integer(), isyoutubechannel: Type.Boolean({ description: "is_vidsite again, under PinePods' web client's name" }) }),
  ]),
});
export type PodcastDetailsAnswer = Static<typeof PodcastDetailsAnswer>;
export const FeedCutoffAnswer = Type.Object({ podcast_id: Type.Integer(), user_id: Type.Integer(), feed_cutoff_days: Type.Integer() });
export type FeedCutoffAnswer = Static<typeof FeedCutoffAnswer>;
/** add_category and remove_category: the podcast's categories after the change. */
export const CategoriesAnswer = Type.Object({ detail: Type.String(), categories: Type.Array(Type.String()) });
export type CategoriesAnswer = Static<typeof CategoriesAnswer>;
export const UpdatePodcastInfoAnswer = Type.Object({ success: Type.Boolean(), message: Type.String(), podcast_id: Type.Integer() });
export type UpdatePodcastInfoAnswer = Static<typeof UpdatePodcastInfoAnswer>;
export const AutoDownloadStatusAnswer = Type.Object({ auto_download: Type.Boolean() });
export type AutoDownloadStatusAnswer = Static<typeof AutoDownloadStatusAnswer>;
export const AutoPlayNextStatusAnswer = Type.Object({ auto_play_next: Type.Boolean() });
export type AutoPlayNextStatusAnswer = Static<typeof AutoPlayNextStatusAnswer>;
export const PlayEpisodeDetailsAnswer = Type.Object({
  playback_speed: Type.Number(),
  start_skip: Type.Integer(),
  end_skip: Type.Integer(),
  playback_speed_customized: Type.Boolean(),
});
export type PlayEpisodeDetailsAnswer = Static<typeof PlayEpisodeDetailsAnswer>;
/** clear_podcast_playback_speed: message is what the web client reads. */
export const ClearSpeedAnswer = Type.Object({ detail: Type.String(), message: Type.String() });
export type ClearSpeedAnswer = Static<typeof ClearSpeedAnswer>;
export const FavoriteStatusAnswer = Type.Object({ is_favorite: Type.Boolean() });
export type FavoriteStatusAnswer = Static<typeof FavoriteStatusAnswer>;
export const NotificationStatusAnswer = Type.Object({ enabled: Type.Boolean() });
export type NotificationStatusAnswer = Static<typeof NotificationStatusAnswer>;
export const ToggleNotificationsAnswer = Type.Object({ detail: Type.String(), enabled: Type.Boolean() });
export type ToggleNotificationsAnswer = Static<typeof ToggleNotificationsAnswer>;
export const MergedPodcastsAnswer = Type.Object({ merged_podcast_ids: Type.Array(Type.Integer()) });
export type MergedPodcastsAnswer = Static<typeof MergedPodcastsAnswer>;
/** get_unmatched_podcasts and get_ignored_podcasts items, as the web client's UnmatchedPodcast reads them. */
export const IndexMatchAnswer = Type.Object({
  podcasts: Type.Array(
    Type.Object({
      podcast_id: Type.Integer(),
      podcast_name: Type.String(),
      artwork_url: Nullable(Type.String()),
      author: Nullable(Type.String()),
      description: Nullable(Type.String()),
      feed_url: Type.String(),
    }),
  ),
});
export type IndexMatchAnswer = Static<typeof IndexMatchAnswer>;
/** GET and POST /api/data/podcast_filters: a subscriber's episode filter of a podcast (shared/episode-filter.ts); "" and null when unset. */
export const PodcastFiltersAnswer = Type.Object({
  podcast_id: Type.Integer(),
  include: Type.String({ description: "A regular expression between slashes, or comma-separated words; an episode must match it" }),
  exclude: Type.String({ description: "The same form; an episode must not match it" }),
  min_duration: Nullable(Type.Integer({ minimum: 0, description: "Seconds" })),
  max_duration: Nullable(Type.Integer({ minimum: 0, description: "Seconds" })),
});
export type PodcastFiltersAnswer = Static<typeof PodcastFiltersAnswer>;

// --- Calls to the podcasts service and its events (shared/contracts/call.ts) ---

/** The subscribers of a podcast who have auto-queue on. */
export const autoQueueUsers = action<{ podcast_id: number }, number[]>("podcasts.auto_queue_users");
/** A user left a podcast. */
export const subscriptionsRemoved = event<{ user_id: number; podcast_id: number }>("subscriptions.removed");
/** Per person (in the asked order), the stored podcasts naming them (with user_id: whether that user subscribes). */
export const podcastsNaming = action<{ people: PersonQuery[]; user_id?: number }, PodcastsNaming>("podcasts.podcasts_naming");
/** A podcast's Podcasting 2.0 channel data as the feed parser read it (the user must see the podcast). */
export const podcastP20 = action<{ user_id: number; podcast_id: number }, PodcastP20>("podcasts.podcast_p20");
/** Is the user subscribed to the podcast of this title (as they see it) and feed URL. */
export const checkPodcast = action<{ user_id: number; podcast_name: string; podcast_url: string }, ExistsAnswer>("podcasts.check_podcast");
/** Unsubscribes the user from the podcast of this title and feed URL (404 when not subscribed). */
export const removePodcast = action<{ user_id: number; podcast_name: string; podcast_url: string }, { success: boolean }>("podcasts.remove_podcast");
/** Subscribes the user to a feed (added first when nobody has it); 409 when already subscribed. */
export const addCustomPodcast = action<AddCustomPodcastParams, AddCustomPodcastAnswer>("podcasts.add_custom_podcast");
/** The directory ids of every subscribed podcast that has one. */
export const indexIds = action<Record<string, never>, number[]>("podcasts.index_ids");
/** What a refresh needs of these podcasts (none: every subscribed one), credentials included. */
export const refreshTargets = action<{ podcast_ids?: number[] }, RefreshTarget[]>("podcasts.refresh_targets");
/** A user's subscriptions as other services see them (an admin's include_unsubscribed: also podcasts they only read); frozen when the whole list is asked. */
export const userSubscriptions = action<{ user_id: number; podcast_ids?: number[]; include_unsubscribed?: boolean }, SubscriptionView[]>(
  "podcasts.user_subscriptions",
);
/** Records what a refresh of a changed feed learnt. */
export const applyFeed = action<ApplyFeedParams, { success: boolean }>("podcasts.apply_feed");
/** A user's subscriptions as OPML export and import see them. */
export const userFeeds = action<{ user_id: number }, LibraryFeed[]>("podcasts.user_feeds");
/** A user's feed URLs as sync servers see them changed. */
export const podcastsFeedsChanged = event<FeedsChangedEvent>("podcasts.feeds_changed");
/** podcasts.feed_moved: a feed moved for good (a permanent redirect or itunes:new-feed-url); these users subscribe to it. */
export interface FeedMovedEvent {
  podcast_id: number;
  old_url: string;
  new_url: string;
  user_ids: number[];
}
export const podcastsFeedMoved = event<FeedMovedEvent>("podcasts.feed_moved");
/** Moves a podcast to the URL its feed moved to (the old one stays an alias); moved false when it was there already or another podcast has that URL. */
export const moveFeed = action<{ podcast_id: number; url: string }, { moved: boolean }>("podcasts.move_feed");

/** podcasts.add_custom_podcast params. feed_cutoff: days of episodes kept (the default when absent). */
export interface AddCustomPodcastParams {
  feed_url: string;
  user_id: number;
  username?: string;
  password?: string;
  youtube_channel?: boolean;
  feed_cutoff?: number;
}
/** The feeds the user subscribes to (without credentials), by URL. */
export const syncFeeds = action<{ user_id: number }, SyncFeed[]>("podcasts.sync_feeds");
/** The user's subscribed feeds of these URLs, with what a gPodder client shows of them. */
export const syncPodcasts = action<{ user_id: number; feed_urls: string[] }, SyncPodcast[]>("podcasts.sync_podcasts");
/** Subscribes and unsubscribes the user by feed URL as a sync server changed them: the URLs added, how many removed, the URLs that failed and why. */
export const syncSubscriptions = action<SyncSubscriptionsParams, { added: string[]; removed: number; failed: { url: string; reason: string }[] }>(
  "podcasts.sync_subscriptions",
);
/** The subscribers of a podcast who turned its notifications on, with the title they see. */
export const notifyTargets = action<{ podcast_id: number }, NotifyTarget[]>("podcasts.notify_targets");
/** The user's subscriptions merged into a podcast (its episode list shows theirs with it). */
export const mergedViews = action<{ user_id: number; podcast_id: number }, SubscriptionView[]>("podcasts.merged_views");
/** search_data's podcast side: the user's podcasts matching a term (and categories), and every podcast id in scope. */
export const searchPodcasts = action<{ user_id: number; search_term: string; categories?: string[] }, PodcastSearchResult>("podcasts.search_podcasts");
/** The user's playback settings of a podcast they subscribe to (404 otherwise). */
export const playbackSettings = action<{ user_id: number; podcast_id: number }, PlaybackSettings>("podcasts.playback_settings");
/** Subscribes the user to a local folder's podcast (its `local:` feed URL), stored when new. */
export const subscribeLocal = action<{ user_id: number; feed_url: string }, AddCustomPodcastAnswer>("podcasts.subscribe_local");
/** The user's overrides of a podcast's display fields; a new feed URL or credentials move the subscription. */
export const updatePodcastInfo = action<
  {
    user_id: number;
    podcast_id: number;
    feed_url?: string;
    username?: string | null;
    password?: string | null;
    podcast_name?: string;
    description?: string;
    author?: string;
    artwork_url?: string;
    website_url?: string;
    podcast_index_id?: number | null;
  },
  UpdatePodcastInfoAnswer
>("podcasts.update_podcast_info");
/** A podcast's own cover preference, kept on the user's subscription (404 unless subscribed). */
export const setCoverPreference = action<{ user_id: number; podcast_id: number; use_podcast_covers: boolean }, { podcast_id: number }>(
  "podcasts.set_cover_preference",
);
/** The episode filters of these subscribers of a podcast, those who set one. */
export const subscriberFilters = action<{ podcast_id: number; user_ids: number[] }, Record<number, EpisodeFilter>>("podcasts.subscriber_filters");
/** The subscribers of a podcast who have auto-download on. */
export const autoDownloadUsers = action<{ podcast_id: number }, number[]>("podcasts.auto_download_users");
/** Every subscription's retention (its own, else its user's default), those that delete anything. */
export const autoDeleteRules = action<Record<string, never>, AutoDeleteRule[]>("podcasts.auto_delete_rules");
