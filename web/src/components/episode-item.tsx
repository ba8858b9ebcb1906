/**
 * One episode in a list (home, a podcast's episodes, search, and other pages' lists): its title links to the
 * episode's page; "Play" plays it from where the person left off. The button's name carries the title
 * (visually hidden) so that a screen reader's list of buttons tells them apart.
 */
import type { ComponentChildren } from "preact";
import { imageUrl } from "../api";
import { play } from "../player-state";
import { duration, shortDate } from "../ui";

/** The fields the server's episode lists share (podcast_episodes, return_episodes, home_overview, queue, saved…). */
export interface EpisodeRow {
  episodeid: number;
  episodetitle: string;
  podcastname: string;
  podcastid?: number;
  episodepubdate?: string | null;
  episodeduration?: number | null;
  listenduration?: number | null;
  episodeartwork?: string | null;
  completed?: boolean;
  is_vidsite?: boolean;
}

/** What is left to hear, or that it was heard. */
export function progressText(e: EpisodeRow): string {
  if (e.completed) return "Played";
  const heard = e.listenduration ?? 0;
  if (heard > 0 && e.episodeduration) return `${duration(Math.max(0, e.episodeduration - heard))} left`;
  return "";
}

/** Plays an episode of a list; `seek`: from there (a chapter's start), wherever the person was. */
export function playEpisode(e: EpisodeRow, seek?: number): void {
  play({
    episode_id: e.episodeid,
    title: e.episodetitle,
    podcast_title: e.podcastname,
    artwork: e.episodeartwork || null,
    is_video: !!e.is_vidsite,
    position: e.completed ? 0 : (e.listenduration ?? null),
    ...(seek !== undefined ? { seek } : {}),
  });
}

export function EpisodeItem({ episode: e, showPodcast = true, children }: { episode: EpisodeRow; showPodcast?: boolean; children?: ComponentChildren }) {
  const art = imageUrl(e.episodeartwork);
  const facts = [shortDate(e.episodepubdate), e.episodeduration ? duration(e.episodeduration) : "", progressText(e)].filter(Boolean);
  return (
    <li class="card episode-item">
      {art ? <img class="art" src={art} alt="" loading="lazy" width={64} height={64} /> : <span class="art" aria-hidden="true" />}
      <div class="body">
        <h3>
          <a href={`/episode/${e.episodeid}`}>{e.episodetitle}</a>
        </h3>
        {showPodcast && <p class="muted episode-podcast">{e.podcastid ? <a href={`/podcast/${e.podcastid}`}>{e.podcastname}</a> : e.podcastname}</p>}
        {facts.length > 0 && <p class="muted episode-facts">{facts.join(" · ")}</p>}
      </div>
      <div class="episode-actions">
        <button type="button" class="secondary" onClick={() => playEpisode(e)}>
          Play<span class="visually-hidden"> {e.episodetitle}</span>
        </button>
        {children}
      </div>
    </li>
  );
}

/** The "Load more" line under a paged list: how many of how many, and the button while there are more. */
export function LoadMore({
  shown,
  total,
  what,
  loading,
  hasMore,
  more,
}: {
  shown: number;
  total: number;
  what: string;
  loading: boolean;
  hasMore: boolean;
  more: () => void;
}) {
  return (
    <div class="load-more">
      <p class="muted" role="status">
        {loading ? "Loading…" : `Showing ${shown.toLocaleString()} of ${total.toLocaleString()} ${what}`}
      </p>
      {hasMore && (
        <button type="button" class="secondary" onClick={more}>
          Load more
        </button>
      )}
    </div>
  );
}
