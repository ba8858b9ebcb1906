/**
 * What PinePods' clients read on their home and statistics pages beside the documents' records: home_overview's
 * sections and episode names (mobile HomeOverview, web HomeOverview) and get_stats' names (mobile and web
 * UserStats). library.ts adds them after the documented fields.
 */
import type { QueuePreviewResult } from "../../shared/contracts/queue";
import { preview } from "../../shared/contracts/queue";
import type { HomeClientEpisode, HomeClientSections, StatsAnswer } from "../../shared/contracts/episodes";
import { getPodsyncSettings } from "../../shared/contracts/sync";
import type { SubscriptionView } from "../../shared/contracts/podcasts";
import type { Caller } from "../../shared/contracts/call";
import { type EpisodeDoc, type EpisodeStateDoc, time } from "./model";
import { type Listening, newest } from "./library";
import type { EpisodesThis, StatsClientNames } from "./this";

const WEEK_MS = 7 * 86_400_000;
/** Episodes of the in-progress list, of the queue preview, podcasts of the top list. */
const IN_PROGRESS = 10;
const QUEUE_PREVIEW = 5;
const TOP_PODCASTS = 6;

export const homeClientMethods = {
  /** get_stats by the clients' names (TimeListened in minutes); Pod_Sync_Type and GpodderUrl: the user's sync account's type and server. */
  async statsClientNames(this: EpisodesThis, ctx: Caller, user_id: number, l: Listening, figures: StatsAnswer): Promise<StatsClientNames> {
    const sync = await getPodsyncSettings(ctx, { user_id });
    return {
      UserCreated: l.settings.created ?? "",
      PodcastsPlayed: figures.episodes_played,
      TimeListened: Math.floor(figures.total_listen_time / 60),
      PodcastsAdded: figures.podcasts_subscribed,
      EpisodesSaved: figures.episodes_saved,
      EpisodesDownloaded: figures.episodes_downloaded,
      Pod_Sync_Type: sync.sync_type,
      GpodderUrl: sync.data.podsyncurl,
    };
  },
  /**
   * The home page as the clients read it: each of `recent` (states of the history) as a client episode, and the
   * sections the documents' record lacks. One queue, one downloads and one episodes read whatever the library's size.
   */
  async homeClientSections(
    this: EpisodesThis,
    ctx: Caller,
    user_id: number,
    l: Listening,
    recent: EpisodeStateDoc[],
  ): Promise<{ episodes: Map<number, HomeClientEpisode>; sections: HomeClientSections }> {
    // The newest ten in one pass: a year's history is thousands of started episodes.
    const started = newest(
      l.history.filter((s) => s.listen_duration > 0 && !s.completed),
      IN_PROGRESS,
      (s) => time(s.last_listened_at),
    );
    const ids = [...new Set([...recent, ...started].map((s) => s.episode_id))];
    const [queue, docs, downloadedCount]: [QueuePreviewResult, EpisodeDoc[], number] = await Promise.all([
      preview(ctx, { user_id, limit: QUEUE_PREVIEW, episode_ids: ids }),
      this.findByIds(this.adapter, ids),
      this.downloadedCount(ctx, user_id),
    ]);
    const downloaded: Set<number> = await this.downloadedOf(ctx, user_id, ids);
    const queued = new Set(queue.queued);
    const episodes = new Map<number, HomeClientEpisode>();
    for (const e of docs) {
      const sub: SubscriptionView | undefined = l.subs.get(e.podcast_id);
      if (sub) episodes.set(e._id, { ...this.listItem(e, sub, l.states.get(e._id), downloaded), queued: queued.has(e._id) });
    }
    const weekAgo = Date.now() - WEEK_MS;
    const week = l.history.filter((s) => time(s.last_listened_at) >= weekAgo);
    const plays = new Map<number, number>();
    for (const s of l.history) plays.set(s.podcast_id, (plays.get(s.podcast_id) ?? 0) + 1);
    return {
      episodes,
      sections: {
        in_progress_episodes: started.map((s) => episodes.get(s.episode_id)).filter((e): e is HomeClientEpisode => !!e),
        queue_preview: queue.entries,
        top_podcasts: [...l.byPodcast.entries()]
          .filter(([podcast_id]) => l.subs.has(podcast_id))
          .sort((a, b) => b[1] - a[1])
          .slice(0, TOP_PODCASTS)
          .map(([podcast_id, seconds]) => {
            const sub = l.subs.get(podcast_id)!;
            return {
              podcastid: podcast_id,
              podcastname: sub.title,
              podcastindexid: sub.podcast_index_id,
              artworkurl: sub.artwork_url,
              websiteurl: sub.website_url,
              is_vidsite: sub.is_vidsite,
              is_youtube: sub.is_vidsite,
              play_count: plays.get(podcast_id) ?? 0,
              total_listen_time: Math.round(seconds),
            };
          }),
        saved_count: l.saved,
        downloaded_count: downloadedCount,
        queue_count: queue.count,
        weekly_stats: {
          seconds_listened: Math.round(week.reduce((sum, s) => sum + (s.listen_duration ?? 0), 0)),
          episodes_completed: week.filter((s) => s.completed).length,
        },
      },
    };
  },
};
