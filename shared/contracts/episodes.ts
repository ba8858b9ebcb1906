/** What travels to and from the episodes service: action params and results, events, and the answers of its routes. */
import type { CollectionEpisode } from "./collections";
import { IsYoutube, Nullable, Type, type Static } from "./answers";
import { action, event } from "./call";
import type { SyncFeed } from "./podcasts";
import type { EpisodePeople, PersonEpisodesPage, PersonQuery } from "./following";

/** sync_episodes result; `episodes.created` carries { podcast_id, episode_ids }. */
export interface SyncResult {
  created_ids: number[];
  updated: number;
  /** Episodes of the podcast after the sync, and the newest pub_date among them. */
  total: number;
  last_episode_date: string | null;
}

/** Per podcast figures of return_pods_extra. */
export interface PodcastUserStats {
  total_episodes: number;
  unplayed_episodes: number;
  last_played: string | null;
  total_listen_time: number;
}

/** The `episodes.created` event: new episodes a refresh found. */
export interface EpisodesCreatedEvent {
  podcast_id: number;
  episode_ids: number[];
}

/**
 * `episodes.catalog_changed` (broadcast between episodes replicas): these episodes were written, so
 * each replica re-reads them into its in-memory catalogue.
 */
export interface CatalogChangedEvent {
  episode_ids: number[];
  /** The catalogue's change mark this write took (replicas compare marks to tell a missed broadcast). */
  mark?: number;
}

/** `episodes.states_changed` (broadcast between episodes replicas): these states of a user (null: any) were written. */
export interface StatesChangedEvent {
  user_id: number;
  episode_ids: number[] | null;
}

/** episodes.episode_summaries result item (notifications). */
export interface EpisodeSummary {
  episode_id: number;
  podcast_id: number;
  title: string;
  url: string | null;
  pub_date: string | null;
}

/** One user's state of one episode as the sync service exchanges it (episodes.sync_states / apply_sync_states). */
/** episodes.sync_new_episodes result item: an episode this server stored after a time, in a feed of a sync user. */
export interface SyncNewEpisode {
  podcast_url: string;
  /** The enclosure URL: how gPodder clients name an episode. */
  url: string;
  guid: string;
  title: string;
  description: string;
  website: string | null;
  /** pub_date (ISO, UTC), else when it was stored here. */
  released: string;
}

export interface SyncEpisodeState {
  podcast_url: string;
  episode_url: string;
  /** Seconds. */
  position: number;
  total: number;
  completed: boolean;
  /** When the position was last set (ISO, UTC). */
  timestamp: string;
  /** The episode's guid: from a sync server when it sent one (matched when the URLs are not), from sync_states when the episode has one. */
  guid?: string;
}

/**
 * `episodes.positions_changed`: the position or completion of these episodes changed for the user (a player
 * through the API, or a sync). origin: who asked, when it was a sync (apply_sync_states' origin).
 */
export interface PositionsChangedEvent {
  user_id: number;
  episode_ids: number[];
  origin: string | null;
}

/** An episode as a sync server names it (episodes.sync_episode_ids). */
export interface SyncEpisodeRef {
  podcast_url: string;
  episode_url: string;
}

/** The values of a playlist's sort_order (docs/spec/ROUTES.md). */
export const PLAYLIST_SORT_ORDERS = [
  "date_asc", "date_desc", "duration_asc", "duration_desc", "listen_progress", "completion",
  "title_asc", "title_desc", "podcast_asc", "podcast_desc", "random",
] as const;
export type PlaylistSortOrder = (typeof PLAYLIST_SORT_ORDERS)[number];

/**
 * One selection of a user's episodes: the filter fields of a playlist record, plus episode_ids (only
 * these episodes: the queue's join). null / absent means "no restriction".
 */
export interface EpisodeSelection {
  episode_ids?: number[] | null;
  podcast_ids?: number[] | null;
  include_unplayed: boolean;
  include_partially_played: boolean;
  include_played: boolean;
  /** Percent of the duration listened, 0-100 (a completed episode counts as 100). */
  play_progress_min?: number | null;
  play_progress_max?: number | null;
  /** Only episodes published in the last N hours. */
  time_filter_hours?: number | null;
  /** Seconds. */
  min_duration?: number | null;
  max_duration?: number | null;
  max_episodes?: number | null;
  sort_order?: PlaylistSortOrder;
  group_by_podcast?: boolean;
  /** Seed of the random order, so that its pages fit together (the playlist id). */
  seed?: number;
}

/**
 * episodes.select_episodes params: several selections of one user's episodes evaluated in one call
 * (get_playlists counts them all at once). Each result is paged with offset/limit; limit 0 counts
 * only; after_episode_id answers just the episode that follows it.
 */
export interface SelectEpisodesParams {
  user_id: number;
  selections: EpisodeSelection[];
  offset?: number;
  limit?: number;
  after_episode_id?: number;
}


/** One result of select_episodes per selection: `total` counts before paging (after max_episodes). */
export interface SelectionResult {
  total: number;
  episodes: SelectedEpisode[];
}

/** episodes.episode_items: an episode as list item, with what a download needs (not whether it is downloaded: the asker owns that). */
export interface EpisodeMediaItem extends Omit<EpisodeListItem, "downloaded"> {
  enclosure_type: string | null;
  enclosure_length: number;
  podcast_artwork: string | null;
  podcast_website: string | null;
  podcast_index_id: number | null;
}

/** episodes.episode_p20 result: an episode's Podcasting 2.0 data as the feed parser read it. */
export interface EpisodeP20 {
  episode_id: number;
  podcast_id: number;
  title: string;
  p20: EpisodeP20Fields;
}

/**
 * An episode's Podcasting 2.0 data as the feed parser read it: the fields services/episodes.parts/model.ts keeps
 * (P20_FIELDS). Partial: a record stored before a field was kept lacks it.
 */
export type EpisodeP20Fields = Partial<
  Pick<
    import("../feed-parser").ParsedEpisode,
    | "transcripts" | "chapters" | "soundbites" | "persons" | "values" | "podcast_season" | "podcast_episode"
    | "alternate_enclosures" | "locations" | "license" | "images" | "txt" | "social_interacts" | "keywords" | "itunes_block"
  >
>;

/**
 * What one collection holds (services/collections.service.ts): episodes added one by one, podcasts
 * whose episodes all belong (since: only those published after that time, ms; null = all), and
 * episodes taken out although their podcast belongs.
 */
export interface CollectionMembers {
  episode_ids: number[];
  podcasts: { podcast_id: number; since: number | null }[];
  excluded_ids: number[];
}

/** episodes.collection_episodes params: one page of each collection (limit 0 counts only), sorted and filtered alike. */
export interface CollectionEpisodesParams {
  user_id: number;
  collections: CollectionMembers[];
  offset?: number;
  limit?: number;
  /** EPISODE_SORTS key (pub_date, date, title, duration, podcast, listen_progress). */
  sort_by?: string;
  sort_order?: "asc" | "desc";
  /** EPISODE_FILTERS key (all, unplayed, played, in_progress, completed, not_completed, saved). */
  filter?: string;
}

/** episodes.collection_episodes result item: a collection's total (after the filter) and its page, as saved_episode_list shows episodes. */
export interface CollectionPage {
  total: number;
  episodes: CollectionEpisode[];
}

// --- Answers of the episodes service's routes ---

/**
 * An episode with the user's state, as list operations show it (spec "Episode list items"). Text fields
 * are strings, "" when the feed has none: the web and mobile clients parse them as non-null strings.
 */
export const EpisodeListItem = Type.Object({
  episodeid: Type.Integer(),
  podcastid: Type.Integer(),
  podcastname: Type.String(),
  episodetitle: Type.String(),
  episodepubdate: Type.String(),
  episodedescription: Type.String(),
  episodeartwork: Type.String(),
  episodeurl: Type.String(),
  episodeduration: Type.Integer(),
  listenduration: Nullable(Type.Integer()),
  completed: Type.Boolean(),
  saved: Type.Boolean(),
  is_vidsite: Type.Boolean(),
  is_youtube: IsYoutube,
  /** The user has downloaded it (the downloads service's answer). */
  downloaded: Type.Boolean(),
});
export type EpisodeListItem = Static<typeof EpisodeListItem>;
/** An episode a selection (select_episodes: playlists, queue) answers: a list item and whether it is a video. */
export type SelectedEpisode = EpisodeListItem & { is_video: boolean };
/** Queue or next-episode item: a list item with its queue place and whether it is a video. */
export const QueueItem = Type.Composite([
  EpisodeListItem,
  Type.Object({
    queueposition: Nullable(Type.Integer()),
    queuedate: Nullable(Type.String({ format: "date-time" })),
    queued: Type.Boolean(),
    is_video: Type.Boolean(),
  }),
]);
export type QueueItem = Static<typeof QueueItem>;
export const EpisodesPageAnswer = Type.Object({ episodes: Type.Array(EpisodeListItem), total: Type.Integer() });
export type EpisodesPageAnswer = Static<typeof EpisodesPageAnswer>;
/** Saved item: the queue item's fields but description, podcast id and queue place. */
export const SavedEpisodesAnswer = Type.Object({
  saved_episodes: Type.Array(Type.Omit(QueueItem, ["episodedescription", "podcastid", "queueposition", "queuedate", "is_video"])),
  total: Type.Integer(),
});
export type SavedEpisodesAnswer = Static<typeof SavedEpisodesAnswer>;
/** History item (spec "Episode list items", plus downloaded as the other lists show it), newest first. */
export const HistoryAnswer = Type.Object({
  data: Type.Array(
    Type.Object({
      episodeid: Type.Integer(),
      podcastname: Type.String(),
      episodename: Type.String(),
      episodeartwork: Type.String(),
      episodeurl: Type.String(),
      episodepubdate: Type.String(),
      episodeduration: Type.Integer(),
      listenduration: Type.Integer(),
      completed: Type.Boolean(),
      listendate: Type.String(),
      downloaded: Type.Boolean(),
      is_vidsite: Type.Boolean(),
      is_youtube: IsYoutube,
      episodetitle: Type.String({ description: "episodename again, as PinePods' clients read it" }),
    }),
  ),
  total: Type.Integer(),
});
export type HistoryAnswer = Static<typeof HistoryAnswer>;
/**
 * get_episode_metadata (open in the documents): the queue item with the episode's links and its Podcasting 2.0 data
 * as the feed parser read it. Saved, queued and downloaded only as is_saved, is_queued, is_downloaded: PinePods'
 * mobile app reads those, and its web client takes is_saved as an alias of saved (both at once are serde's
 * duplicate field error). explicit 0 or 1: the web client reads an integer.
 */
export const EpisodeMetadataAnswer = Type.Object({
  episode: Type.Composite([
    Type.Omit(QueueItem, ["saved", "queued", "downloaded"]),
    Type.Object({
      is_saved: Type.Boolean(),
      is_queued: Type.Boolean(),
      is_downloaded: Type.Boolean(),
      episodelink: Nullable(Type.String()),
      episodeauthor: Nullable(Type.String()),
      explicit: Type.Union([Type.Literal(0), Type.Literal(1)]),
      season: Nullable(Type.Integer()),
      episode_number: Nullable(Type.Integer()),
      episode_type: Nullable(Type.String()),
      enclosure_type: Nullable(Type.String()),
      file_size: Type.Integer(),
    }),
  ]),
});
export type EpisodeMetadataAnswer = Static<typeof EpisodeMetadataAnswer>;
export const EpisodeInDbAnswer = Type.Object({ episode_in_db: Type.Boolean() });
export type EpisodeInDbAnswer = Static<typeof EpisodeInDbAnswer>;
export const PodcastOfEpisodeAnswer = Type.Object({ podcast_id: Type.Integer() });
export type PodcastOfEpisodeAnswer = Static<typeof PodcastOfEpisodeAnswer>;
export const PodcastAndEpisodeAnswer = Type.Object({ podcast_id: Type.Integer(), episode_id: Type.Integer() });
export type PodcastAndEpisodeAnswer = Static<typeof PodcastAndEpisodeAnswer>;
/** get_episode_id_ep_name: the id as a bare JSON number (both PinePods clients parse the body's text as an integer). */
export const EpisodeIdAnswer = Type.Integer();
export type EpisodeIdAnswer = Static<typeof EpisodeIdAnswer>;
/** record_listen_duration: whether the position completed the episode (auto_complete_seconds). */
export const ListenDurationAnswer = Type.Object({ detail: Type.String(), completed: Type.Boolean() });
export type ListenDurationAnswer = Static<typeof ListenDurationAnswer>;
export const AutoCompleteAnswer = Type.Object({ detail: Type.String(), completed_count: Type.Integer() });
export type AutoCompleteAnswer = Static<typeof AutoCompleteAnswer>;
/** The bulk response of the documents. */
export const BulkAnswer = Type.Object({ message: Type.String(), processed_count: Type.Integer(), failed_count: Nullable(Type.Integer()) });
export type BulkAnswer = Static<typeof BulkAnswer>;
/** get_stats: the documents' user stats record (times in seconds). */
export const StatsAnswer = Type.Object({
  total_listen_time: Type.Integer(),
  episodes_played: Type.Integer(),
  episodes_completed: Type.Integer(),
  podcasts_subscribed: Type.Integer(),
  episodes_downloaded: Type.Integer(),
  episodes_saved: Type.Integer(),
  episodes_queued: Type.Integer(),
  avg_listen_time_per_episode: Type.Integer(),
  most_listened_podcast: Nullable(Type.String()),
  listening_streak_days: Type.Integer(),
  last_activity: Nullable(Type.String()),
});
export type StatsAnswer = Static<typeof StatsAnswer>;
/**
 * get_stats' answer: the documents' record, then the same figures by the names PinePods' clients read (mobile
 * UserStats, web UserStats): TimeListened in minutes, UserCreated the account's creation (ISO), Pod_Sync_Type the
 * user's sync account type ("None" without one), GpodderUrl (the web client requires it) that account's server ("" without
 * one; never its password or token).
 */
export const StatsWithClientNamesAnswer = Type.Composite([
  StatsAnswer,
  Type.Object({
    UserCreated: Type.String(),
    PodcastsPlayed: Type.Integer(),
    TimeListened: Type.Integer(),
    PodcastsAdded: Type.Integer(),
    EpisodesSaved: Type.Integer(),
    EpisodesDownloaded: Type.Integer(),
    Pod_Sync_Type: Type.String(),
    GpodderUrl: Type.String(),
  }),
]);
export type StatsWithClientNamesAnswer = Static<typeof StatsWithClientNamesAnswer>;
/** get_extended_stats: get_stats plus rates, listening per weekday, hour, podcast and day of the last 30. */
export const ExtendedStatsAnswer = Type.Composite([
  StatsAnswer,
  Type.Object({
    timezone: Type.String(),
    /** Percent of the episodes started or completed that are completed, whole (the web client reads an integer). */
    completion_rate: Type.Integer(),
    episodes_listened_by_weekday: Type.Record(Type.String(), Type.Integer()),
    episodes_listened_by_hour: Type.Array(Type.Integer()),
    last_30_days: Type.Array(Type.Object({ date: Type.String(), episodes: Type.Integer() })),
    /** Each also spelled as the web client's TopPodcastStat reads it (podcastid, podcastname, artworkurl, total_seconds). */
    top_podcasts: Type.Array(
      Type.Object({
        podcast_id: Type.Integer(),
        podcast_name: Type.String(),
        listen_time: Type.Integer(),
        episodes_listened: Type.Integer(),
        podcastid: Type.Integer(),
        podcastname: Type.String(),
        artworkurl: Type.String(),
        total_seconds: Type.Integer(),
      }),
    ),
    /** The web client's other figures: seconds per category, the longest episode heard, a badge by hours heard, downloads, the streak, listens per weekday from Sunday. */
    favorite_categories: Type.Array(Type.Object({ name: Type.String(), total_seconds: Type.Integer() })),
    longest_episode: Nullable(Type.Object({ episodeid: Type.Integer(), episodetitle: Type.String(), episodeduration: Type.Integer(), podcastname: Type.String() })),
    listening_badge: Type.String(),
    total_downloaded_bytes: Type.Integer(),
    total_downloaded_formatted: Type.String(),
    current_streak: Type.Integer(),
    listening_by_dow: Type.Array(Type.Integer()),
  }),
]);
export type ExtendedStatsAnswer = Static<typeof ExtendedStatsAnswer>;
/** An episode of home_overview by the names PinePods' clients read (mobile HomeEpisode, web Episode): a list item and queued. */
export const HomeClientEpisode = Type.Composite([EpisodeListItem, Type.Object({ queued: Type.Boolean() })]);
export type HomeClientEpisode = Static<typeof HomeClientEpisode>;
/** A podcast of home_overview's top_podcasts (mobile HomePodcast, web HomePodcast, which requires is_youtube). */
export const HomeClientPodcast = Type.Object({
  podcastid: Type.Integer(),
  podcastname: Type.String(),
  podcastindexid: Nullable(Type.Integer()),
  artworkurl: Nullable(Type.String()),
  websiteurl: Nullable(Type.String()),
  is_vidsite: Type.Boolean(),
  is_youtube: IsYoutube,
  play_count: Type.Integer({ description: "Episodes of it in the user's history" }),
  total_listen_time: Type.Integer({ description: "Seconds heard" }),
});
/**
 * The sections of the clients' home page that the documents' record lacks (home_overview adds them after it): episodes
 * started and not finished, the first of the queue, the podcasts listened to most, the counts, and the last 7 days.
 */
export const HomeClientSections = Type.Object({
  in_progress_episodes: Type.Array(HomeClientEpisode),
  queue_preview: Type.Array(HomeClientEpisode),
  top_podcasts: Type.Array(HomeClientPodcast),
  saved_count: Type.Integer(),
  downloaded_count: Type.Integer(),
  queue_count: Type.Integer(),
  weekly_stats: Type.Object({ seconds_listened: Type.Integer(), episodes_completed: Type.Integer() }),
});
export type HomeClientSections = Static<typeof HomeClientSections>;
/**
 * home_overview: the documents' home overview record (listen_progress is the percentage heard), each recent episode
 * also by the clients' names, then HomeClientSections.
 */
export const HomeOverviewAnswer = Type.Composite([
  Type.Object({
    recent_episodes: Type.Array(
      Type.Composite([
        Type.Object({
          episode_id: Type.Integer(),
          episode_title: Type.String(),
          podcast_name: Type.String(),
          episode_artwork: Nullable(Type.String()),
          listen_progress: Type.Number(),
          last_listened: Nullable(Type.String()),
        }),
        HomeClientEpisode,
      ]),
    ),
    quick_stats: Type.Object({ total_listen_time: Type.Integer(), episodes_this_week: Type.Integer(), completion_rate: Type.Number() }),
    recommended_episodes: Type.Array(Type.Object({ episode_id: Type.Integer(), episode_title: Type.String(), podcast_name: Type.String(), reason: Type.String() })),
  }),
  HomeClientSections,
]);
export type HomeOverviewAnswer = Static<typeof HomeOverviewAnswer>;
/** 0 or 1: PinePods' clients read explicit as an integer in these records (web: i32; mobile: `== 1`). */
const ExplicitFlag = Type.Union([Type.Literal(0), Type.Literal(1)]);
/**
 * search_data's podcast entry: the documents' search result fields (type, podcast_id, names, description,
 * artwork_url) and beside them the names both PinePods clients read a result by (the web client parses every
 * entry as its Episode, the mobile app as its SearchEpisodeResult): podcastid, podcastname, artworkurl, feedurl,
 * websiteurl, explicit, episodecount, categories as the object "1": name. Text is "" where the feed has none
 * (the web client's Strings refuse null).
 */
export const SearchPodcastEntry = Type.Object({
  type: Type.Literal("podcast"),
  podcast_id: Type.Integer(),
  podcast_name: Type.String(),
  author: Type.String(),
  description: Type.String(),
  artwork_url: Nullable(Type.String()),
  categories: Type.Record(Type.String(), Type.String()),
  podcastid: Type.Integer(),
  podcastname: Type.String(),
  artworkurl: Type.String(),
  feedurl: Type.String(),
  websiteurl: Type.String(),
  explicit: ExplicitFlag,
  episodecount: Type.Integer(),
});
export type SearchPodcastEntry = Static<typeof SearchPodcastEntry>;
/**
 * search_data: podcast entries, then episode entries (spec "Search result entry"). An episode entry has the
 * documents' fields and the clients' episode names; not episodedescription, pub_date or duration: the web
 * client's Episode takes description, pub_date and duration as aliases of episodedescription, episodepubdate and
 * episodeduration, and two names of one field are serde's duplicate field error.
 */
export const SearchDataAnswer = Type.Object({
  data: Type.Array(
    Type.Union([
      SearchPodcastEntry,
      Type.Object({
        type: Type.Literal("episode"),
        episode_id: Type.Integer(),
        podcast_id: Type.Integer(),
        podcast_name: Type.String(),
        episode_title: Type.String(),
        description: Type.String(),
        artwork_url: Nullable(Type.String()),
        episodeid: Type.Integer(),
        podcastid: Type.Integer(),
        podcastname: Type.String(),
        episodetitle: Type.String(),
        artworkurl: Type.String(),
        episodeartwork: Type.String(),
        episodeurl: Type.String(),
        episodepubdate: Type.String(),
        episodeduration: Type.Integer(),
        listenduration: Type.Integer(),
        completed: Type.Boolean(),
        saved: Type.Boolean(),
        queued: Type.Boolean(),
        downloaded: Type.Boolean(),
        is_vidsite: Type.Boolean(),
        is_youtube: IsYoutube,
      }),
    ]),
  ),
  total: Type.Integer(),
});
export type SearchDataAnswer = Static<typeof SearchDataAnswer>;

// --- Calls to the episodes service and its events (shared/contracts/call.ts) ---

/** The user's episodes of each selection, as list items, in one call whatever the number of ids. */
export const selectEpisodes = action<SelectEpisodesParams, SelectionResult[]>("episodes.select_episodes");
/** New episodes of a podcast, stored by a refresh. */
export const episodesCreated = event<EpisodesCreatedEvent>("episodes.created");
/** The episodes as list items with what a download needs, those of podcasts the user follows (or any, with include_unsubscribed). */
export const episodeItems = action<{ user_id: number; episode_ids: number[]; include_unsubscribed?: boolean }, EpisodeMediaItem[]>("episodes.episode_items");
/** The people each episode's podcast:person names. */
export const episodePeople = action<{ episode_ids: number[] }, EpisodePeople[]>("episodes.episode_people");
/** Per person (in the asked order), one page of the episodes they appear in (limit 0: the count only). */
export const personEpisodes = action<{ user_id: number; people: PersonQuery[]; offset?: number; limit?: number }, PersonEpisodesPage[]>("episodes.person_episodes");
/** An episode's Podcasting 2.0 data as the feed parser read it (the user must see the episode). */
export const episodeP20 = action<{ user_id: number; episode_id: number }, EpisodeP20>("episodes.episode_p20");
/** One podcast's episodes for a subscriber, paged (GET /api/data/podcast_episodes). */
export const podcastEpisodes = action<
  { user_id: number; podcast_id: number; limit?: number; offset?: number; sort_by?: string; sort_order?: "asc" | "desc"; search?: string; filter?: string },
  EpisodesPageAnswer
>("episodes.podcast_episodes");
/** Newest episodes the user sees of their podcasts (or of podcast_ids among them), saved ones only with `saved`. */
export const feedEpisodeIds = action<{ user_id: number; podcast_ids?: number[]; saved?: boolean; limit: number }, number[]>("episodes.feed_episode_ids");
/** A user's listening history, newest listen first (GET /api/data/user_history). */
export const userHistory = action<{ user_id: number; limit?: number; offset?: number; sort_by?: string; sort_order?: "asc" | "desc"; filter?: string; search?: string }, HistoryAnswer>("episodes.user_history");
/** Stores a feed's episodes (matching by guid, enclosure URL, title); prune: episodes no longer listed go. */
export const syncEpisodes = action<{ podcast_id: number; episodes: import("../feed-parser").ParsedEpisode[]; announce?: boolean; prune?: boolean }, SyncResult>("episodes.sync_episodes");
/** Per podcast figures of one user over these subscriptions. */
export const userPodcastStats = action<{ user_id: number; subscriptions: import("./podcasts").SubscriptionView[] }, Record<number, PodcastUserStats>>("episodes.user_podcast_stats");
/** A podcast's newest episodes with the user's state (get_podcast_details). */
export const recentEpisodes = action<{ user_id: number; podcast_id: number; feed_cutoff_days: number }, import("./podcasts").PodcastDetailsAnswer["recent_episodes"]>("episodes.recent_episodes");
/** Newest episodes of some podcasts and who heard them. */
export const recommendationEpisodes = action<{ podcast_ids: number[]; per_podcast: number }, import("./podcasts").RecommendationEpisodes>("episodes.recommendation_episodes");
/** Seconds heard and episodes completed, per user and podcast, over every user. */
export const listeningTotals = action<Record<string, never>, { user_id: number; podcast_id: number; seconds: number; completed: number }[]>("episodes.listening_totals");
/** By podcast, the id of its newest episode. */
export const newestEpisodeIds = action<{ podcast_ids: number[] }, Record<number, number>>("episodes.newest_episode_ids");
/** Applies play positions a sync server sent (the newest wins, nothing local is deleted); how many were applied. */
export const applySyncStates = action<{ user_id: number; feeds: SyncFeed[]; states: SyncEpisodeState[]; origin?: string }, { applied: number }>("episodes.apply_sync_states");
/** The ids of the referred episodes found in these feeds (the others are left out). */
export const syncEpisodeIds = action<{ feeds: SyncFeed[]; refs: SyncEpisodeRef[] }, (SyncEpisodeRef & { episode_id: number })[]>("episodes.sync_episode_ids");
/** The user's play positions in these feeds (changed since `since`, or of these episodes), as a sync server carries them. */
export const syncStates = action<{ user_id: number; feeds: SyncFeed[]; since?: Date; episode_ids?: number[] }, SyncEpisodeState[]>("episodes.sync_states");
/** The episodes' ids, URLs and titles, newest first. */
export const episodeSummaries = action<{ episode_ids: number[] }, EpisodeSummary[]>("episodes.episode_summaries");
/** The episodes of these feeds stored since then, as a gPodder client lists new episodes. */
export const syncNewEpisodes = action<{ feeds: SyncFeed[]; since: Date }, SyncNewEpisode[]>("episodes.sync_new_episodes");
/** A user's positions or completions changed (a player, or a sync): sync servers relay them. */
export const episodesPositionsChanged = event<PositionsChangedEvent>("episodes.positions_changed");
/** Episodes written on one replica: the others read them again into their catalogue. */
export const episodesCatalogChanged = event<CatalogChangedEvent>("episodes.catalog_changed");
/** A user's states written on one replica: the others read them again into their cache. */
export const episodesStatesChanged = event<StatesChangedEvent>("episodes.states_changed");
/** One page of the user's saved episodes, newest save first unless asked otherwise; total before paging. */
export const savedEpisodeList = action<Omit<CollectionEpisodesParams, "collections"> & { search?: string }, SavedEpisodesAnswer>("episodes.saved_episode_list");
/** Saves an episode the user sees (404 otherwise). */
export const saveEpisode = action<{ user_id: number; episode_id: number; is_vidsite?: boolean }, { detail: string }>("episodes.save_episode");
/** Un-saves an episode the user sees (404 otherwise). */
export const removeSavedEpisode = action<{ user_id: number; episode_id: number; is_vidsite?: boolean }, { detail: string }>("episodes.remove_saved_episode");
/** One page (limit 0: counts only) of each collection's episodes, in one call. */
export const collectionEpisodes = action<CollectionEpisodesParams, CollectionPage[]>("episodes.collection_episodes");
