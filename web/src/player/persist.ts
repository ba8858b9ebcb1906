/**
 * The episode in the player survives a reload (the position does not: the server has it, so that a phone
 * syncing meanwhile wins). Kept per user, so another person signing in on this browser starts empty.
 */
import type { NowPlaying } from "../player-state";

const STORAGE = "podcast-server.player";

export function storeEpisode(user_id: number, np: NowPlaying | null): void {
  try {
    if (!np) localStorage.removeItem(STORAGE);
    // Without position: the next load asks the server where the person is.
    else localStorage.setItem(STORAGE, JSON.stringify({ user_id, episode: { ...np, position: null } }));
  } catch {
    // Storage full or disabled: the player still works, it just forgets on reload.
  }
}

export function storedEpisode(user_id: number): NowPlaying | null {
  try {
    // What storeEpisode wrote, unless the storage was changed by hand: each field is checked or converted.
    const s = JSON.parse(localStorage.getItem(STORAGE) ?? "null") as { user_id?: number; episode?: Partial<NowPlaying> | null } | null;
    const ep = s?.episode;
    if (s?.user_id !== user_id || !ep || typeof ep.episode_id !== "number" || !Number.isInteger(ep.episode_id) || typeof ep.title !== "string") return null;
    return {
      episode_id: ep.episode_id,
      title: ep.title,
      podcast_title: String(ep.podcast_title ?? ""),
      artwork: ep.artwork ?? null,
      is_video: !!ep.is_video,
      position: null,
    };
  } catch {
    return null;
  }
}
