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

/** episodes.episode_items: an episode as list item, with what a download needs. */
export interface EpisodeMediaItem {
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
  is_vidsite: boolean;
  enclosure_type: string | null;
  enclosure_length: number;
  podcast_artwork: string | null;
}

/** episodes.episode_p20 result: an episode's Podcasting 2.0 data as the feed parser read it. */
export interface EpisodeP20 {
  episode_id: number;
  podcast_id: number;
  title: string;
  p20: Record<string, any>;
}
