/**
 * The player outside its own controls: the system's media controls (Media Session API: lock screen,
 * headset and keyboard media keys), the page's keys (space, left and right arrows), and leaving the page.
 */
import { imageUrl } from "../api";
import type { NowPlaying } from "../player-state";
import { pause, report, resume, seek, skip, skipToNext, SKIP_BACK, SKIP_FORWARD, toggle, view } from "./controller";

/** Seconds the arrow keys move. */
export const ARROW_SEEK = 10;

export function setMediaMetadata(np: NowPlaying | null, artwork: string | null): void {
  if (!("mediaSession" in navigator)) return;
  if (!np) {
    navigator.mediaSession.metadata = null;
    return;
  }
  const art = imageUrl(artwork);
  navigator.mediaSession.metadata = new MediaMetadata({
    title: np.title,
    artist: np.podcast_title,
    album: np.podcast_title,
    artwork: art ? [{ src: art }] : [],
  });
}

/** Sets the action handlers; returns their removal. */
export function bindMediaSession(): () => void {
  if (!("mediaSession" in navigator)) return () => {};
  const ms = navigator.mediaSession;
  const handlers: [MediaSessionAction, MediaSessionActionHandler][] = [
    ["play", () => void resume()],
    ["pause", () => pause()],
    ["seekbackward", (d) => skip(-(d.seekOffset ?? SKIP_BACK))],
    ["seekforward", (d) => skip(d.seekOffset ?? SKIP_FORWARD)],
    ["seekto", (d) => d.seekTime !== undefined && seek(d.seekTime)],
    ["nexttrack", () => void skipToNext()],
  ];
  for (const [action, fn] of handlers) {
    try {
      ms.setActionHandler(action, fn);
    } catch {
      // An action this browser does not know.
    }
  }
  return () => {
    for (const [action] of handlers) {
      try {
        ms.setActionHandler(action, null);
      } catch {
        // As above.
      }
    }
  };
}

/** The system's position display; throws on a position past the duration, which a stream may report. */
export function setPositionState(): void {
  if (!("mediaSession" in navigator) || !navigator.mediaSession.setPositionState) return;
  const duration = view.duration.value;
  if (!(duration > 0)) return;
  try {
    navigator.mediaSession.setPositionState({ duration, playbackRate: view.speed.value || 1, position: Math.min(view.time.value, duration) });
  } catch {
    // Not worth a message: the system display is extra.
  }
}

/** Where a key means something else: typing, choosing, sliding, or (for space) pressing a control. */
const OWN_KEYS =
  "input, textarea, select, [contenteditable=''], [contenteditable='true'], [role='slider'], [role='textbox'], [role='combobox'], [role='listbox'], [role='spinbutton']";
const SPACE_PRESSES = "button, a[href], summary, [role='button'], [role='link'], [role='checkbox'], [role='menuitem'], [role='tab']";

export function onKey(e: KeyboardEvent): void {
  if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey || !view.ready.value) return;
  const target = e.target instanceof Element ? e.target : null;
  if (target?.closest(OWN_KEYS)) return;
  if (e.key === " " || e.key === "Spacebar") {
    if (target?.closest(SPACE_PRESSES)) return;
    e.preventDefault();
    toggle();
  } else if (e.key === "ArrowLeft") {
    e.preventDefault();
    skip(-ARROW_SEEK);
  } else if (e.key === "ArrowRight") {
    e.preventDefault();
    skip(ARROW_SEEK);
  }
}

/** Leaving the page (or hiding it: a phone may never come back to it): the position goes out now. */
export function bindLeaving(): () => void {
  const hidden = () => document.visibilityState === "hidden" && void report(true);
  const gone = () => void report(true);
  document.addEventListener("visibilitychange", hidden);
  window.addEventListener("pagehide", gone);
  return () => {
    document.removeEventListener("visibilitychange", hidden);
    window.removeEventListener("pagehide", gone);
  };
}
