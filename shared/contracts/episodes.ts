/** What travels to and from the episodes service: action params and results, events. */
import type { CollectionEpisode } from "./collections";
import { Nullable, Type } from "./answers";

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
export interface SyncEpisodeState {
  podcast_url: string;
  episode_url: string;
  /** Seconds. */
  position: number;
  total: number;
  completed: boolean;
  /** When the position was last set (ISO, UTC). */
  timestamp: string;
}

/** An episode as a sync server names it (episodes.sync_episode_ids). */
export interface SyncEpisodeRef {
  podcast_url: string;
  episode_url: string;
}

/** The values of a playlist's sort_order (spec/ROUTES.md). */
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

/** An episode with the user's state, as list operations show it (spec: "Episode list items"). */
export interface EpisodeListItem {
  episodeid: number;
  podcastid: number;
  podcastname: string;
  episodetitle: string;
  episodepubdate: string | null;
  episodedescription: string | null;
  episodeartwork: string | null;
  episodeurl: string | null;
  episodeduration: number;
  listenduration: number | null;
  completed: boolean;
  saved: boolean;
  /** The user has downloaded it (the downloads service's answer). */
  downloaded: boolean;
  is_vidsite: boolean;
  /** A video enclosure; the spec shows it on next-episode answers only. */
  is_video: boolean;
}

/** One result of select_episodes per selection: `total` counts before paging (after max_episodes). */
export interface SelectionResult {
  total: number;
  episodes: EpisodeListItem[];
}

/** episodes.episode_items: an episode as list item, with what a download needs (not whether it is downloaded: the asker owns that). */
export interface EpisodeMediaItem extends Omit<EpisodeListItem, "downloaded" | "is_video"> {
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
  p20: Record<string, any>;
}

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

/**
 * The fields of an episode with the user's state in list answers (EpisodeListItem) as a response
 * schema, for the answers of issue 21 to build on (collections, followed people, recommendations).
 */
export const EpisodeItemFields = Type.Object({
  episodeid: Type.Integer(),
  podcastid: Type.Integer(),
  podcastname: Type.String(),
  episodetitle: Type.String(),
  episodepubdate: Nullable(Type.String({ format: "date-time" })),
  episodedescription: Nullable(Type.String()),
  episodeartwork: Nullable(Type.String()),
  episodeurl: Nullable(Type.String()),
  episodeduration: Type.Number(),
  listenduration: Nullable(Type.Number()),
  completed: Type.Boolean(),
  saved: Type.Boolean(),
  is_vidsite: Type.Boolean(),
  downloaded: Type.Boolean(),
});
