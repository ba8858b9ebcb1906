/** The region "Player" (filled in by the player's own work: see player-state.ts for what pages call). */
import { nowPlaying } from "./player-state";

export function Player() {
  const np = nowPlaying.value;
  return (
    <section class="player" aria-label="Player">
      {np ? <p>{np.title}</p> : <p class="muted">Nothing playing</p>}
    </section>
  );
}
