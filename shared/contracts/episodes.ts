/** What travels to and from the episodes service: action results and events. */

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

/** episodes.episode_summaries result item (notifications). */
export interface EpisodeSummary {
  episode_id: number;
  podcast_id: number;
  title: string;
  url: string | null;
  pub_date: string | null;
}

/** One user's state of one episode as the sync service exchanges it (episodes.sync_states / apply_sync_actions). */
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
