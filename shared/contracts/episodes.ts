/**
 * What travels to and from the episodes service: action params and results, events, and (in episodes.answers.ts,
 * re-exported here) the answers of its routes.
 */
import type { CollectionEpisode } from "./collections";
import { action, event } from "./call";
import type { EpisodeListItem, EpisodesPageAnswer, HistoryAnswer, SavedEpisodesAnswer, SelectedEpisode } from "./episodes.answers";

export * from "./episodes.answers";
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
  "date_asc",
  "date_desc",
  "duration_asc",
  "duration_desc",
  "listen_progress",
  "completion",
  "title_asc",
  "title_desc",
  "podcast_asc",
  "podcast_desc",
  "random",
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
    | "transcripts"
    | "chapters"
    | "soundbites"
    | "persons"
    | "values"
    | "podcast_season"
    | "podcast_episode"
    | "alternate_enclosures"
    | "locations"
    | "license"
    | "images"
    | "txt"
    | "social_interacts"
    | "keywords"
    | "itunes_block"
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
export const personEpisodes = action<{ user_id: number; people: PersonQuery[]; offset?: number; limit?: number }, PersonEpisodesPage[]>(
  "episodes.person_episodes",
);
/** An episode's Podcasting 2.0 data as the feed parser read it (the user must see the episode). */
export const episodeP20 = action<{ user_id: number; episode_id: number }, EpisodeP20>("episodes.episode_p20");
/** One podcast's episodes for a subscriber, paged (GET /api/data/podcast_episodes). */
export const podcastEpisodes = action<
  {
    user_id: number;
    podcast_id: number;
    limit?: number;
    offset?: number;
    sort_by?: string;
    sort_order?: "asc" | "desc";
    search?: string;
    filter?: string;
    filtered?: boolean;
  },
  EpisodesPageAnswer
>("episodes.podcast_episodes");
/** Newest episodes the user sees of their podcasts (or of podcast_ids among them), saved ones only with `saved`. */
export const feedEpisodeIds = action<{ user_id: number; podcast_ids?: number[]; saved?: boolean; limit: number }, number[]>("episodes.feed_episode_ids");
/** A user's listening history, newest listen first (GET /api/data/user_history). */
export const userHistory = action<
  { user_id: number; limit?: number; offset?: number; sort_by?: string; sort_order?: "asc" | "desc"; filter?: string; search?: string },
  HistoryAnswer
>("episodes.user_history");
/** Stores a feed's episodes (matching by guid, enclosure URL, title); prune: episodes no longer listed go. */
export const syncEpisodes = action<{ podcast_id: number; episodes: import("../feed-parser").ParsedEpisode[]; announce?: boolean; prune?: boolean }, SyncResult>(
  "episodes.sync_episodes",
);
/** Per podcast figures of one user over these subscriptions. */
export const userPodcastStats = action<{ user_id: number; subscriptions: import("./podcasts").SubscriptionView[] }, Record<number, PodcastUserStats>>(
  "episodes.user_podcast_stats",
);
/** A podcast's newest episodes with the user's state (get_podcast_details). */
export const recentEpisodes = action<
  { user_id: number; podcast_id: number; feed_cutoff_days: number },
  import("./podcasts").PodcastDetailsAnswer["recent_episodes"]
>("episodes.recent_episodes");
/** Newest episodes of some podcasts and who heard them. */
export const recommendationEpisodes = action<{ podcast_ids: number[]; per_podcast: number }, import("./podcasts").RecommendationEpisodes>(
  "episodes.recommendation_episodes",
);
/** Seconds heard and episodes completed, per user and podcast, over every user. */
export const listeningTotals = action<Record<string, never>, { user_id: number; podcast_id: number; seconds: number; completed: number }[]>(
  "episodes.listening_totals",
);
/** By podcast, the id of its newest episode. */
export const newestEpisodeIds = action<{ podcast_ids: number[] }, Record<number, number>>("episodes.newest_episode_ids");
/** Applies play positions a sync server sent (the newest wins, nothing local is deleted); how many were applied. */
export const applySyncStates = action<{ user_id: number; feeds: SyncFeed[]; states: SyncEpisodeState[]; origin?: string }, { applied: number }>(
  "episodes.apply_sync_states",
);
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
