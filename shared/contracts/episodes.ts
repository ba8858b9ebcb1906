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
