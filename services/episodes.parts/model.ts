/**
 * The episodes service's records and the pure helpers its modules share: what an episode and a
 * user's state of it look like, which episodes a subscriber sees, and the paging of joined lists.
 */
import type { ParsedEpisode } from "../../shared/feed-parser";
import type { SubscriptionView } from "../../shared/contracts/podcasts";
import type { Query } from "../../shared/service-types";

/** A stored episode. */
export interface EpisodeDoc {
  _id: number;
  podcast_id: number;
  guid: string;
  /** Enclosure URL without its query string: the second matching key across refreshes. */
  enclosure_key: string | null;
  /** Earlier enclosure_keys of the episode (its enclosure moved), oldest first; absent when it never moved. */
  former_keys?: string[];
  title: string;
  description: string | null;
  pub_date: Date | null;
  /** Seconds; 0 when the feed does not say. */
  duration: number;
  enclosure_url: string | null;
  enclosure_type: string | null;
  enclosure_length: number;
  artwork: string | null;
  link: string | null;
  author: string | null;
  explicit: boolean;
  season: number | null;
  episode: number | null;
  episode_type: string | null;
  /** Podcasting 2.0 item data as the parser returns it. */
  p20: Pick<ParsedEpisode, (typeof P20_FIELDS)[number]>;
  created_at: Date;
}

/**
 * One user's state of one episode. _id is "<user_id>:<episode_id>". The user's listening history is
 * the states with last_listened_at.
 */
export interface EpisodeStateDoc {
  _id: string;
  user_id: number;
  episode_id: number;
  podcast_id: number;
  /** Seconds listened (the playback position). */
  listen_duration: number;
  completed: boolean;
  saved: boolean;
  /** Absent on states written before saves had a date. */
  saved_at?: Date | null;
  last_listened_at: Date | null;
}

/** Per user counters the players bump: increment_listen_time (a minute each) and increment_played. */
export interface ListenCounterDoc {
  _id: number;
  listen_seconds?: number;
  played?: number;
}

export const P20_FIELDS = [
  "transcripts",
  "chapters",
  "soundbites",
  "persons",
  "values",
  "podcast_season",
  "podcast_episode",
  "alternate_enclosures",
  "locations",
  "license",
  "images",
  "txt",
  "social_interacts",
  "keywords",
  "itunes_block",
] as const;

const DAY_MS = 86_400_000;

export const id = { type: "number", integer: true, positive: true, convert: true };
export const optionalBool = { type: "boolean", convert: true, optional: true };
export const paging = {
  limit: { type: "number", integer: true, min: 1, max: 1000, convert: true, optional: true },
  offset: { type: "number", integer: true, min: 0, convert: true, optional: true },
};
/** The params `paging` adds. */
export interface PagingParams {
  limit?: number;
  offset?: number;
}
export const sortOrder = { type: "enum", values: ["asc", "desc"], optional: true };
export const search = { type: "string", max: 200, optional: true };

/** The documents of these ids in the ids' order, the missing left out (a store read by ids answers in its own order). */
/**
 * Episode ids an event carries, in slices: a phone's first sync writes 100,000 states at once, and one event
 * with every id would pass NATS's 1 MB message limit (5,000 ids are about 40 KB).
 */
export function idSlices(ids: number[], size = 5000): number[][] {
  const slices: number[][] = [];
  for (let i = 0; i < ids.length; i += size) slices.push(ids.slice(i, i + size));
  return slices;
}

export function inIdOrder<T extends { _id: number }>(ids: number[], docs: T[]): T[] {
  const byId = new Map(docs.map((d) => [d._id, d]));
  return ids.filter((i) => byId.has(i)).map((i) => byId.get(i)!);
}

export function iso(d: Date | null | undefined): string | null {
  return d ? new Date(d).toISOString() : null;
}

export { escapeRegex } from "../../shared/regex";

export function time(d: Date | null | undefined): number {
  // Stored dates are Date objects: no copy per call (this runs over every state of a user's history).
  return d instanceof Date ? d.getTime() : d ? new Date(d).getTime() : 0;
}

/** "Played": completed, or listened to 90% or to within 30 s of the end (docs/spec/ROUTES.md). */
export function isPlayed(ep: Pick<EpisodeDoc, "duration">, st: EpisodeStateDoc | undefined): boolean {
  if (!st) return false;
  if (st.completed) return true;
  const heard = st.listen_duration;
  return ep.duration > 0 && heard > 0 && (heard >= ep.duration * 0.9 || ep.duration - heard <= 30);
}

/** Started and not played to the end. */
export function inProgress(ep: Pick<EpisodeDoc, "duration">, st: EpisodeStateDoc | undefined): boolean {
  return !!st && st.listen_duration > 0 && !isPlayed(ep, st);
}

/** The earliest pub_date a subscriber sees, or null when the cutoff keeps everything. */
function cutoffDate(days: number | undefined): Date | null {
  return days && days > 0 ? new Date(Date.now() - days * DAY_MS) : null;
}

/** cutoffDate in ms: a subscriber sees the episodes published after it. */
export function cutoffTime(days: number | undefined): number | null {
  return cutoffDate(days)?.getTime() ?? null;
}

/**
 * Query of the episodes of some podcasts that one user sees, each podcast with its own cutoff; `extra`
 * conditions and `since` (pub_date after) go into every branch.
 */
export function visibleQuery(subs: Pick<SubscriptionView, "podcast_id" | "feed_cutoff_days">[], extra: Query = {}, since?: Date): Query {
  const after = (cutoff: Date | null) => {
    const d = cutoff && since ? (cutoff > since ? cutoff : since) : (cutoff ?? since);
    return d ? { pub_date: { $gt: d } } : {};
  };
  const keepAll = subs.filter((s) => !cutoffDate(s.feed_cutoff_days)).map((s) => s.podcast_id);
  const clauses: Query[] = keepAll.length ? [{ podcast_id: { $in: keepAll }, ...after(null), ...extra }] : [];
  for (const s of subs) {
    const cutoff = cutoffDate(s.feed_cutoff_days);
    if (cutoff) clauses.push({ podcast_id: s.podcast_id, ...after(cutoff), ...extra });
  }
  if (clauses.length === 0) return { podcast_id: { $in: [] } };
  return clauses.length === 1 ? clauses[0] : { $or: clauses };
}

/** Is the episode one the subscriber sees (its podcast subscribed, not older than the cutoff)? */
export function visibleTo(ep: Pick<EpisodeDoc, "pub_date">, sub: SubscriptionView | undefined): boolean {
  if (!sub) return false;
  const cutoff = cutoffDate(sub.feed_cutoff_days);
  return !cutoff || (!!ep.pub_date && new Date(ep.pub_date) > cutoff);
}

/** Fields of an episode the listing sorts and filters read (a catalogue row has them). */
export type ListedEpisode = Pick<EpisodeDoc, "_id" | "title" | "pub_date" | "duration">;

/** An episode (the document, or its catalogue row until the page is cut) joined with its podcast as the user sees it and the user's state. */
export interface Row<E extends ListedEpisode = EpisodeDoc> {
  ep: E;
  sub: SubscriptionView;
  st: EpisodeStateDoc | undefined;
}

export type SortKey = (r: Row<ListedEpisode>) => number | string;

/** The shared query of the listing routes: search, then sort (ties by id), then total and the page. */
export function pageRows<R extends Row<ListedEpisode>>(
  rows: R[],
  p: { search?: string; sort_order?: string; limit?: number; offset?: number },
  key: SortKey,
  defaultOrder: "asc" | "desc",
) {
  let kept = rows;
  if (p.search) {
    const needle = p.search.toLowerCase();
    // A podcast's name is tested once, not once per row of it.
    const podcastMatches = new Map<SubscriptionView, boolean>();
    const podcastMatch = (sub: SubscriptionView) => {
      let m = podcastMatches.get(sub);
      if (m === undefined) podcastMatches.set(sub, (m = sub.title.toLowerCase().includes(needle)));
      return m;
    };
    kept = kept.filter((r) => podcastMatch(r.sub) || r.ep.title.toLowerCase().includes(needle));
  }
  const dir = (p.sort_order ?? defaultOrder) === "asc" ? 1 : -1;
  const keyed = kept.map((r) => ({ r, k: key(r) }));
  keyed.sort((a, b) => (a.k < b.k ? -dir : a.k > b.k ? dir : (a.r.ep._id - b.r.ep._id) * dir));
  const offset = p.offset ?? 0;
  const page = keyed.slice(offset, offset + (p.limit ?? keyed.length)).map((x) => x.r);
  return { page, total: keyed.length };
}

/** Sort keys every episode listing offers. */
export const EPISODE_SORTS: Record<string, SortKey> = {
  pub_date: (r) => time(r.ep.pub_date),
  /** What PinePods' web client sends for pub_date (saved list, collections). */
  date: (r) => time(r.ep.pub_date),
  title: (r) => r.ep.title.toLowerCase(),
  duration: (r) => r.ep.duration,
  podcast: (r) => r.sub.title.toLowerCase(),
  listen_progress: (r) => r.st?.listen_duration ?? 0,
};

/** Filters every episode listing offers. */
export const EPISODE_FILTERS: Record<string, (r: Row<ListedEpisode>) => boolean> = {
  all: () => true,
  unplayed: (r) => !isPlayed(r.ep, r.st),
  played: (r) => isPlayed(r.ep, r.st),
  in_progress: (r) => inProgress(r.ep, r.st),
  completed: (r) => !!r.st?.completed,
  not_completed: (r) => !r.st?.completed,
  saved: (r) => !!r.st?.saved,
};

/** Formatters by timezone: building one costs far more than formatting with it. */
const dayFormats = new Map<string, Intl.DateTimeFormat>();

/** A calendar date (YYYY-MM-DD) of an instant in an IANA timezone. */
export function localDay(d: Date, timeZone: string): string {
  let f = dayFormats.get(timeZone);
  if (!f) dayFormats.set(timeZone, (f = new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" })));
  return f.format(d);
}

/**
 * Consecutive days with listening, ending today or yesterday (a streak is not broken before the day
 * is over), counted in the user's timezone. Newest first, so only the days of the streak are formatted.
 */
export function streakDays(listened: Date[], timeZone: string, now = new Date()): number {
  const today = localDay(now, timeZone);
  const times = listened.map((d) => new Date(d).getTime()).sort((a, b) => b - a);
  let last: string | null = null;
  let streak = 0;
  for (const t of times) {
    const day = localDay(new Date(t), timeZone);
    // Stepping back by local date strings (not by 24 h) stays exact across DST changes.
    if (day > today || day === last) continue;
    if (last === null ? day !== today && day !== previousDay(today) : day !== previousDay(last)) break;
    streak++;
    last = day;
  }
  return streak;
}

function previousDay(day: string): string {
  const d = new Date(`${day}T12:00:00Z`);
  return new Date(d.getTime() - DAY_MS).toISOString().slice(0, 10);
}
