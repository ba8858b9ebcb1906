/**
 * What the player plays, shared by every page: a page calls play(...) with what it shows of the episode; the
 * region "Player" (player.tsx) loads the position the server has, plays through the stream route and reports
 * the position back. Kept apart from player.tsx so that a page's code does not pull the player in twice.
 */
import { signal } from "@preact/signals";

export interface NowPlaying {
  episode_id: number;
  title: string;
  podcast_title: string;
  artwork?: string | null;
  /** Video channels play in a <video>. */
  is_video?: boolean;
  /** Where to start, when the page knows it; else the player asks the server. */
  position?: number | null;
  /** A start the person chose (a chapter): wins over every known position, the episode already playing too. */
  seek?: number;
}

export const nowPlaying = signal<NowPlaying | null>(null);
/** Bumped on every play() so that playing the same episode again restarts the load. */
export const playTurn = signal(0);

export function play(episode: NowPlaying): void {
  nowPlaying.value = episode;
  playTurn.value++;
}

export function stopPlayer(): void {
  nowPlaying.value = null;
}
