/** What travels to and from the podcasts service. */

/** podcasts.search_podcasts result item: a subscribed podcast whose title, author or description matched. */
export interface PodcastSearchHit {
  podcast_id: number;
  podcast_name: string;
  author: string | null;
  description: string | null;
  artwork_url: string | null;
  categories: string[];
}

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
