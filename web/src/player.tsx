/**
 * The region "Player": stays while the person moves between pages (the shell renders it outside the router).
 * Its engine is player/controller.ts; pages start an episode with play() of player-state.ts.
 */
import { useEffect, useRef } from "preact/hooks";
import { effect } from "@preact/signals";
import { imageUrl } from "./api";
import { session } from "./session";
import { nowPlaying, playTurn } from "./player-state";
import { duration, ErrorNote, SpeedOptions } from "./ui";
import { close, mediaRef, open, seek, setSpeed, skip, SKIP_BACK, SKIP_FORWARD, toggle, view } from "./player/controller";
import { bindLeaving, bindMediaSession, onKey, setMediaMetadata, setPositionState } from "./player/integration";
import { storedEpisode, storeEpisode } from "./player/persist";
import { PlayerBookmarks } from "./components/player-bookmarks";

/** Starts what a page asks for (playTurn), restores the episode of before a reload, and wires the page's keys. */
function useEngine(section: { current: HTMLElement | null }) {
  useEffect(() => {
    const s = session.peek();
    const asked = nowPlaying.peek();
    if (asked) void open(asked, true);
    else if (s) {
      const before = storedEpisode(s.user_id);
      // Paused where the server has it: a reload does not start sound by itself.
      if (before) {
        nowPlaying.value = before;
        void open(before, false);
      }
    }
    let seen = playTurn.peek();
    const stops = [
      effect(() => {
        const turn = playTurn.value;
        const np = nowPlaying.value;
        const who = session.peek();
        if (who) storeEpisode(who.user_id, np);
        if (!np) close();
        else if (turn !== seen) {
          seen = turn;
          void open(np, true);
        }
      }),
      effect(() => setMediaMetadata(nowPlaying.value, view.artwork.value)),
      effect(() => {
        // Read only to subscribe: the position state follows every time update.
        void view.time.value;
        setPositionState();
      }),
      bindMediaSession(),
      bindLeaving(),
    ];
    document.addEventListener("keydown", onKey);
    // The page keeps room for the player at its foot, whatever its height.
    const resize = new ResizeObserver(() => document.documentElement.style.setProperty("--player-h", `${section.current?.offsetHeight ?? 0}px`));
    if (section.current) resize.observe(section.current);
    return () => {
      for (const stop of stops) stop();
      document.removeEventListener("keydown", onKey);
      resize.disconnect();
      close();
    };
  }, []);
}

function currentChapter(time: number): number {
  const chapters = view.chapters.value;
  let at = 0;
  for (let i = 0; i < chapters.length; i++) if (chapters[i].start <= time + 0.5) at = i;
  return at;
}

export function Player() {
  const section = useRef<HTMLElement>(null);
  useEngine(section);
  const np = nowPlaying.value;
  const ready = view.ready.value;
  const time = view.time.value;
  const total = view.duration.value;
  const chapters = view.chapters.value;
  const art = imageUrl(view.artwork.value);
  return (
    <section class="player" aria-label="Player" ref={section}>
      {!np ? (
        <p class="muted player-empty">Nothing playing</p>
      ) : (
        <>
          {view.kind.value === "video" ? (
            <video key="video" ref={mediaRef.video} class="player-video" playsInline preload="metadata" />
          ) : (
            <audio key="audio" ref={mediaRef.audio} preload="metadata" />
          )}
          <div class="player-now">
            {art ? <img class="player-art" src={art} alt="" /> : null}
            <p class="player-text">
              <a class="player-title" href={`/episode/${np.episode_id}`}>
                {np.title}
              </a>
              <span class="muted player-podcast">{np.podcast_title}</span>
            </p>
          </div>
          <div class="player-seek">
            <span aria-hidden="true">{duration(time)}</span>
            <label class="visually-hidden" for="player-position">
              Position
            </label>
            <input
              id="player-position"
              type="range"
              min={0}
              max={Math.max(1, Math.floor(total))}
              step={1}
              value={Math.floor(time)}
              aria-valuetext={`${duration(time)} of ${duration(total)}`}
              disabled={!ready}
              onInput={(e) => seek(Number(e.currentTarget.value))}
            />
            <span aria-hidden="true">{duration(total)}</span>
          </div>
          <div class="player-controls">
            <button type="button" class="secondary" disabled={!ready} onClick={() => skip(-SKIP_BACK)}>
              <span aria-hidden="true">−{SKIP_BACK}s</span>
              <span class="visually-hidden">Skip back {SKIP_BACK} seconds</span>
            </button>
            <button type="button" class="player-play" disabled={!ready} onClick={toggle}>
              {view.playing.value ? "Pause" : "Play"}
            </button>
            <button type="button" class="secondary" disabled={!ready} onClick={() => skip(SKIP_FORWARD)}>
              <span aria-hidden="true">+{SKIP_FORWARD}s</span>
              <span class="visually-hidden">Skip forward {SKIP_FORWARD} seconds</span>
            </button>
            <label class="player-field">
              <span class="player-label">Playback speed</span>
              <select value={String(view.speed.value)} onChange={(e) => setSpeed(Number(e.currentTarget.value))}>
                <SpeedOptions current={view.speed.value} />
              </select>
            </label>
            {chapters.length ? (
              <label class="player-field player-chapters">
                <span class="player-label">Chapters</span>
                <select value={String(currentChapter(time))} disabled={!ready} onChange={(e) => seek(chapters[Number(e.currentTarget.value)].start)}>
                  {chapters.map((c, i) => (
                    <option key={i} value={String(i)}>
                      {duration(c.start)} {c.title}
                    </option>
                  ))}
                </select>
              </label>
            ) : null}
            <PlayerBookmarks episodeId={np.episode_id} />
          </div>
          <ErrorNote error={view.error.value} />
        </>
      )}
    </section>
  );
}
