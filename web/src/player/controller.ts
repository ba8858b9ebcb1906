/**
 * The player's engine, apart from its controls (player.tsx): loads an episode where the server has its
 * position, plays it through the stream route, and writes the position back (every 15 s while playing, at
 * pause and seek, and when the page is left) so that a phone syncing through the sync server sees it. At the
 * end (or within the user's auto-complete seconds of it) the episode is marked completed, and the episode
 * after it in the queue starts.
 */
import { signal } from "@preact/signals";
import { api, errorText, ok, streamUrl } from "../api";
import { session } from "../session";
import { play, type NowPlaying } from "../player-state";
import { queueVersion } from "./events";

export interface Chapter {
  title: string;
  start: number;
}

/** What the controls show; the engine alone writes it. */
export const view = {
  playing: signal(false),
  time: signal(0),
  duration: signal(0),
  speed: signal(1),
  chapters: signal<Chapter[]>([]),
  kind: signal<"audio" | "video">("audio"),
  artwork: signal<string | null>(null),
  /** The episode is loaded and sought to its start: the controls act on it. */
  ready: signal(false),
  error: signal<string | null>(null),
};

export const SKIP_BACK = 15;
export const SKIP_FORWARD = 30;
/** The periodic position write: often enough for a phone to pick up, rare enough for the server. */
const REPORT_EVERY_MS = 15_000;

interface Current {
  episode_id: number;
  podcast_id: number;
  is_vidsite: boolean;
  /** The feed's duration, for streams whose length the browser does not know. */
  duration: number;
  end_skip: number;
}

let el: HTMLMediaElement | null = null;
let elWaiter: (() => void) | null = null;
let current: Current | null = null;
/** Bumped per load: a slower answer for an episode no longer playing is dropped. */
let turn = 0;
let lastSent = { episode_id: 0, position: -1 };
let completedSent = false;
let ending = false;
let timer: ReturnType<typeof setInterval> | undefined;
let autoComplete: { user_id: number; seconds: number } | null = null;
/**
 * Positions this page sent, by episode: fresher than the position a page's list was loaded with (a list
 * shown before the person listened further here), which play() passes along.
 */
const heard = new Map<number, number>();

/** The user's statistics: a play counted once per episode loaded, listening time per minute played. */
let countedPlay = false;
let ticks = 0;

function user() {
  return session.value;
}

function count(path: "/api/data/increment_played/{user_id}" | "/api/data/increment_listen_time/{user_id}"): void {
  const s = user();
  // Statistics only: a failure is not worth interrupting the person for.
  if (s) ok(api.PUT(path, { params: { path: { user_id: s.user_id } } })).catch(() => undefined);
}

function tick(): void {
  void report();
  if (++ticks % (60_000 / REPORT_EVERY_MS) === 0) count("/api/data/increment_listen_time/{user_id}");
}

const listeners: [string, () => void][] = [
  [
    "play",
    () => {
      view.playing.value = true;
      clearInterval(timer);
      timer = setInterval(tick, REPORT_EVERY_MS);
      if (!countedPlay) {
        countedPlay = true;
        count("/api/data/increment_played/{user_id}");
      }
    },
  ],
  [
    "pause",
    () => {
      view.playing.value = false;
      clearInterval(timer);
      // A pause at the very end is the ended event's to report.
      if (el && !el.ended) void report();
    },
  ],
  ["timeupdate", () => onTime()],
  ["durationchange", () => syncDuration()],
  ["loadedmetadata", () => syncDuration()],
  ["ratechange", () => el && (view.speed.value = el.playbackRate)],
  ["seeked", () => onSeeked()],
  ["ended", () => void finished()],
  [
    "error",
    () => {
      if (!el?.error || !current) return;
      view.playing.value = false;
      view.error.value =
        el.error.code === MediaError.MEDIA_ERR_SRC_NOT_SUPPORTED
          ? "This episode cannot be played here: the server cannot reach its file, or the browser cannot play its format."
          : "Playback stopped: the episode's file could not be read. Try again.";
    },
  ],
];

function attach(node: HTMLMediaElement | null): void {
  if (node === el) return;
  if (el) {
    for (const [name, fn] of listeners) el.removeEventListener(name, fn);
    clearInterval(timer);
  }
  el = node;
  if (!el) return;
  for (const [name, fn] of listeners) el.addEventListener(name, fn);
  el.defaultPlaybackRate = el.playbackRate = view.speed.value;
  elWaiter?.();
}

/**
 * The ref of the controls' <audio> or <video> (a new element when they change places). One callback per
 * kind, so that the old element's unmount (ref null) cannot detach the new one, whatever the order.
 */
function refOf(tag: "AUDIO" | "VIDEO") {
  return (node: HTMLMediaElement | null): void => {
    if (node) attach(node);
    else if (el?.tagName === tag) attach(null);
  };
}
export const mediaRef = { audio: refOf("AUDIO"), video: refOf("VIDEO") };

async function mediaOf(kind: "audio" | "video"): Promise<HTMLMediaElement> {
  while (!el || el.tagName.toLowerCase() !== kind) await new Promise<void>((r) => (elWaiter = r));
  return el;
}

function syncDuration(): void {
  if (!el) return;
  view.duration.value = Number.isFinite(el.duration) && el.duration > 0 ? el.duration : (current?.duration ?? 0);
}

function onTime(): void {
  if (!el || !current || !view.ready.value) return;
  view.time.value = el.currentTime;
  const d = view.duration.value;
  if (!d || el.paused) return;
  const left = d - el.currentTime;
  // The podcast's end skip (an outro) ends the episode early.
  if (current.end_skip > 0 && left <= current.end_skip && !ending) {
    el.pause();
    void finished();
    return;
  }
  if (autoComplete && autoComplete.seconds > 0 && left <= autoComplete.seconds) void markCompleted();
}

let seekTimer: ReturnType<typeof setTimeout> | undefined;
function onSeeked(): void {
  if (!el || !view.ready.value) return;
  view.time.value = el.currentTime;
  // A drag of the slider seeks many times: the position goes out once it rests.
  clearTimeout(seekTimer);
  seekTimer = setTimeout(() => void report(), 800);
}

/**
 * Writes the position (record_listen_duration: the server also completes the episode within the user's
 * auto-complete seconds). `keepalive` lets the request outlive the page when the person leaves it.
 */
export async function report(keepalive = false): Promise<void> {
  const s = user();
  if (!el || !current || !s || !view.ready.value) return;
  const position = Math.max(0, el.currentTime);
  if (lastSent.episode_id === current.episode_id && Math.abs(lastSent.position - position) < 0.5) return;
  lastSent = { episode_id: current.episode_id, position };
  heard.set(current.episode_id, position);
  try {
    await ok(
      api.POST("/api/data/record_listen_duration", {
        body: { episode_id: current.episode_id, user_id: s.user_id, listen_duration: Math.round(position * 10) / 10, is_vidsite: current.is_vidsite },
        keepalive,
      }),
    );
    if (view.error.value?.startsWith("Your place")) view.error.value = null;
  } catch (err) {
    // Sent again at the next chance.
    lastSent = { episode_id: 0, position: -1 };
    if (!keepalive) view.error.value = `Your place in the episode was not saved: ${errorText(err)}`;
  }
}

async function markCompleted(): Promise<void> {
  const s = user();
  if (completedSent || !current || !s) return;
  completedSent = true;
  const ep = current;
  try {
    await ok(api.POST("/api/data/mark_episode_completed", { body: { episode_id: ep.episode_id, user_id: s.user_id, is_vidsite: ep.is_vidsite } }));
  } catch (err) {
    completedSent = false;
    view.error.value = `The episode was not marked as played: ${errorText(err)}`;
  }
}

/** The episode ended: completed, out of the queue, and the next queued one starts. */
async function finished(): Promise<void> {
  const s = user();
  if (!current || !s || ending) return;
  ending = true;
  const mine = turn;
  const ep = current;
  await report();
  await markCompleted();
  try {
    await playNext(ep.episode_id, mine, true);
  } catch (err) {
    if (mine === turn) view.error.value = `The next episode could not start: ${errorText(err)}`;
  } finally {
    if (mine === turn) ending = false;
  }
}

/**
 * Starts the episode after `episode_id` in the queue (the queue's first when it is not queued); `dequeue`
 * takes the finished one out of the queue, as a played episode has no place in it.
 */
async function playNext(episode_id: number, mine: number, dequeue: boolean): Promise<void> {
  const s = user();
  if (!s) return;
  const { data: queue } = await ok(api.GET("/api/data/get_queued_episodes", { params: { query: { user_id: s.user_id } } }));
  const at = queue.findIndex((e) => e.episodeid === episode_id);
  const next = at >= 0 ? queue[at + 1] : queue.find((e) => e.episodeid !== episode_id);
  if (dequeue && at >= 0) {
    await ok(api.POST("/api/data/remove_queued_pod", { body: { episode_id, user_id: s.user_id } }));
    queueVersion.value++;
  }
  if (!next || mine !== turn) return;
  play({ episode_id: next.episodeid, title: next.episodetitle, podcast_title: next.podcastname, artwork: next.episodeartwork || null, position: null });
}

/** Media Session "next track" and the like: on to the next queued episode, this one stays where it is. */
export async function skipToNext(): Promise<void> {
  if (!current) return;
  await report();
  try {
    await playNext(current.episode_id, turn, false);
  } catch (err) {
    view.error.value = `The next episode could not start: ${errorText(err)}`;
  }
}

/**
 * Loads an episode: where the server has it (or where the page said), at the podcast's speed (else the
 * user's), playing when `autoplay` (a person asked for it), else paused there (a reload).
 */
export async function open(np: NowPlaying, autoplay: boolean): Promise<void> {
  const s = user();
  if (!s) return;
  // "Play" on the episode already here goes on from where it is.
  if (current?.episode_id === np.episode_id && view.ready.value) {
    if (np.seek !== undefined) seek(np.seek);
    if (autoplay) await resume();
    return;
  }
  if (current) void report();
  const mine = ++turn;
  ending = false;
  completedSent = false;
  countedPlay = false;
  current = null;
  view.ready.value = false;
  view.error.value = null;
  view.chapters.value = [];
  view.time.value = np.position ?? 0;
  view.artwork.value = np.artwork ?? null;
  if (el) el.pause();
  try {
    const [{ episode: meta }, seconds] = await Promise.all([
      ok(api.POST("/api/data/get_episode_metadata", { body: { episode_id: np.episode_id, user_id: s.user_id } })),
      autoComplete?.user_id === s.user_id
        ? Promise.resolve(autoComplete.seconds)
        : ok(api.GET("/api/data/get_auto_complete_seconds/{user_id}", { params: { path: { user_id: s.user_id } } })).then(
            (a) => a.auto_complete_seconds,
            () => 0,
          ),
    ]);
    autoComplete = { user_id: s.user_id, seconds };
    const details = await ok(
      api.POST("/api/data/get_play_episode_details", { body: { podcast_id: meta.podcastid, user_id: s.user_id, is_vidsite: meta.is_vidsite } }),
    ).catch(() => null);
    if (mine !== turn) return;
    const duration = meta.episodeduration;
    let start = np.seek ?? heard.get(np.episode_id) ?? np.position ?? meta.listenduration ?? 0;
    // A finished episode plays again from its start, not its last second.
    if (np.seek === undefined && meta.completed && duration > 0 && duration - start <= Math.max(5, seconds)) start = 0;
    if (details && start < details.start_skip) start = details.start_skip;
    current = { episode_id: meta.episodeid, podcast_id: meta.podcastid, is_vidsite: meta.is_vidsite, duration, end_skip: details?.end_skip ?? 0 };
    view.artwork.value = np.artwork || meta.episodeartwork || null;
    view.speed.value = details?.playback_speed ?? 1;
    view.duration.value = duration;
    view.time.value = start;
    const kind = meta.is_video || np.is_video ? "video" : "audio";
    view.kind.value = kind;
    void loadChapters(np.episode_id, s.user_id, mine);

    const media = await mediaOf(kind);
    if (mine !== turn) return;
    media.src = streamUrl(np.episode_id);
    media.defaultPlaybackRate = media.playbackRate = view.speed.value;
    await loaded(media);
    if (mine !== turn) return;
    media.playbackRate = view.speed.value;
    if (start > 0) media.currentTime = start;
    lastSent = { episode_id: meta.episodeid, position: start };
    view.ready.value = true;
    if (autoplay) await resume();
  } catch (err) {
    // A media error is shown by the element's error listener.
    if (mine === turn && !(err instanceof Error && err.message === "media")) view.error.value = `This episode cannot be played: ${errorText(err)}`;
  }
}

/** The element's source is read far enough to seek in it (its error listener reports a failure). */
function loaded(media: HTMLMediaElement): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const done = () => {
      media.removeEventListener("loadedmetadata", good);
      media.removeEventListener("error", bad);
    };
    const good = () => (done(), resolve());
    const bad = () => (done(), reject(new Error("media")));
    media.addEventListener("loadedmetadata", good);
    media.addEventListener("error", bad);
    media.load();
  });
}

async function loadChapters(episode_id: number, user_id: number, mine: number): Promise<void> {
  try {
    const data = await ok(api.GET("/api/data/fetch_podcasting_2_data", { params: { query: { episode_id, user_id } } }));
    if (mine !== turn) return;
    view.chapters.value = data.chapters
      .filter((c) => Number.isFinite(c.start_time))
      .map((c) => ({ title: c.title || "Untitled chapter", start: c.start_time }));
  } catch {
    // Chapters are extra: an episode without them plays the same.
  }
}

/** Nothing to play any more (stopPlayer, sign-out). */
export function close(): void {
  void report();
  turn++;
  current = null;
  view.ready.value = false;
  view.playing.value = false;
  if (el) {
    el.pause();
    el.removeAttribute("src");
    el.load();
  }
}

export async function resume(): Promise<void> {
  if (!el || !view.ready.value) return;
  try {
    await el.play();
  } catch (err) {
    // A browser that wants a click first (autoplay policy), or a newer load: the "Play" button is there.
    if (err instanceof DOMException && (err.name === "NotAllowedError" || err.name === "AbortError")) return;
    view.error.value = `Playback did not start: ${errorText(err)}`;
  }
}

export function pause(): void {
  el?.pause();
}

export function toggle(): void {
  if (!el || !view.ready.value) return;
  if (el.paused) void resume();
  else el.pause();
}

export function seek(to: number): void {
  if (!el || !view.ready.value) return;
  const end = view.duration.value || el.duration;
  el.currentTime = Math.max(0, Number.isFinite(end) && end > 0 ? Math.min(to, end) : to);
  view.time.value = el.currentTime;
}

export function skip(by: number): void {
  if (el) seek(el.currentTime + by);
}

/** A speed the person picks in the player becomes their default (a podcast's own speed, set on its page, still wins there). */
export function setSpeed(speed: number): void {
  view.speed.value = speed;
  if (el) el.defaultPlaybackRate = el.playbackRate = speed;
  const s = user();
  if (s)
    void ok(api.POST("/api/data/user/set_playback_speed", { body: { user_id: s.user_id, playback_speed: speed } })).catch(
      (err) => (view.error.value = `The speed was not saved: ${errorText(err)}`),
    );
}
