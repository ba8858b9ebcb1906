/** Shapes of the feeds service that other services use. */

/** Figures of a refresh of many podcasts (refresh_pods, the scheduler, feeds.refresh_many). */
export interface RefreshSummary {
  refreshed: number;
  updated: number;
  unchanged: number;
  failed: number;
  new_episodes: number;
}
