/**
 * Library reads over one user's listening: statistics, the home overview, search over the caller's
 * subscriptions, one episode's metadata and the next episode of a podcast. Each makes a fixed number
 * of service calls (subscriptions, settings, queue, downloads) whatever the size of the library.
 */
import type { ServiceActionsSchema } from "moleculer";
import { NotFoundError } from "../../shared/errors";
import type { ListeningSettings } from "../../shared/contracts/users";
import { listeningSettings } from "../../shared/contracts/users";
import type { QueuePositionsResult } from "../../shared/contracts/queue";
import { visibleLength } from "../../shared/contracts/queue";
import { downloadedBytes } from "../../shared/contracts/downloads";
import type { PodcastSearchResult } from "../../shared/contracts/podcasts";
import type { SubscriptionView } from "../../shared/contracts/podcasts";
import { searchPodcasts } from "../../shared/contracts/podcasts";
import type { Caller } from "../../shared/contracts/call";
import type { Ctx } from "../../shared/service-types";
import {
  type EpisodeDoc,
  EPISODE_FILTERS,
  type EpisodeStateDoc,
  id,
  inIdOrder,
  iso,
  type ListenCounterDoc,
  optionalBool,
  paging,
  type PagingParams,
  type Row,
  cutoffTime,
  localDay,
  streakDays,
  time,
  visibleQuery,
} from "./model";
import { countAfter, newestFirst, withRows, type CatalogRow } from "./catalog-index";
import { bookmarkedEpisodes } from "../../shared/contracts/bookmarks";
import type { UserStates } from "./state-cache";
import {
  EpisodeMetadataAnswer,
  ExtendedStatsAnswer,
  HomeOverviewAnswer,
  QueueItem,
  SearchDataAnswer,
  StatsWithClientNamesAnswer,
} from "../../shared/contracts/episodes";
import type { HomeClientEpisode, HomeClientSections, StatsAnswer } from "../../shared/contracts/episodes";
import type { EpisodesThis } from "./this";

type UserParams = { user_id: number };
type EpisodeOfUserParams = { episode_id: number; user_id: number; is_vidsite?: boolean };
interface SearchDataParams extends PagingParams {
  user_id: number;
  search_term: string;
  categories?: string[];
  /** One of SEARCH_FILTERS. */
  filter?: string;
}

const DAY_MS = 86_400_000;
const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
/** search_data's filters: podcasts or episodes alone, or episodes in a listening state (the episode lists' words, and downloaded). */
const SEARCH_FILTERS = ["podcasts", "episodes", ...Object.keys(EPISODE_FILTERS), "downloaded"];
/** Recent items and recommendations on the home overview. */
const HOME_ITEMS = 10;
/** Podcasts listened to most (else subscribed to last) whose new episodes the home overview recommends. */
const TOP_PODCASTS = 3;

/** What get_stats, get_extended_stats and home_overview are computed from: one pass over the user's states. */
export interface Listening {
  subs: Map<number, SubscriptionView>;
  settings: ListeningSettings;
  /** Every state of the user by episode (the cache's own map: read only). */
  states: ReadonlyMap<number, EpisodeStateDoc>;
  history: EpisodeStateDoc[];
  /** States completed, saved; the newest listen (ms, 0 for none); of the states started or completed, the percentage completed. */
  completed: number;
  saved: number;
  last: number;
  completion_rate: number;
  counters: ListenCounterDoc | null;
  /** Seconds listened per podcast (positions in the history). */
  byPodcast: Map<number, number>;
  total_listen_time: number;
  episodes_played: number;
  listening_streak_days: number;
}

function stats(l: Listening, queued: number, downloaded: number): StatsAnswer {
  const { completed, last } = l;
  const top = [...l.byPodcast.entries()].sort((a, b) => b[1] - a[1])[0];
  return {
    total_listen_time: l.total_listen_time,
    episodes_played: l.episodes_played,
    episodes_completed: completed,
    podcasts_subscribed: l.subs.size,
    episodes_downloaded: downloaded,
    episodes_saved: l.saved,
    episodes_queued: queued,
    avg_listen_time_per_episode: l.episodes_played ? Math.round(l.total_listen_time / l.episodes_played) : 0,
    most_listened_podcast: top ? (l.subs.get(top[0])?.title ?? null) : null,
    listening_streak_days: l.listening_streak_days,
    last_activity: last ? new Date(last).toISOString() : null,
  };
}

/** This server's badge for the hours a user has listened (the web client shows it on its stats page). */
const BADGES: [number, string][] = [
  [200, "Podcast Devotee"],
  [50, "Dedicated Listener"],
  [10, "Regular Listener"],
  [1, "Casual Listener"],
  [0, "Newcomer"],
];
function listeningBadge(seconds: number): string {
  return BADGES.find(([hours]) => seconds >= hours * 3600)![1];
}

/** Bytes as a person reads them: "512 B", "3.4 MB", "1.2 GB". */
function formatBytes(bytes: number): string {
  const units = ["B", "KB", "MB", "GB", "TB"];
  let n = bytes;
  let u = 0;
  while (n >= 1024 && u < units.length - 1) {
    n /= 1024;
    u++;
  }
  return u === 0 ? `${n} B` : `${n.toFixed(1)} ${units[u]}`;
}

/** Of the episodes the user started or completed, the percentage completed. */
function completionRate(states: EpisodeStateDoc[]): number {
  const touched = states.filter((s) => s.completed || s.last_listened_at);
  return percent(touched.filter((s) => s.completed).length, touched.length);
}

/**
 * The n items of highest key, highest first, ties in list order: what a stable sort by key descending
 * then slice(0, n) gives, in one pass without sorting the whole list.
 */
export function newest<T>(list: readonly T[], n: number, key: (x: T) => number): T[] {
  const top: { x: T; k: number }[] = [];
  for (const x of list) {
    const k = key(x);
    if (top.length === n && k <= top[n - 1].k) continue;
    let at = top.length;
    while (at > 0 && top[at - 1].k < k) at--;
    top.splice(at, 0, { x, k });
    if (top.length > n) top.pop();
  }
  return top.map((t) => t.x);
}

function percent(part: number, whole: number): number {
  return whole ? Math.round((part / whole) * 1000) / 10 : 0;
}

export const libraryActions: ServiceActionsSchema = {
  /** GET /api/data/get_stats (spec "Other records", user stats). */
  get_stats: {
    idempotent: true,
    params: { user_id: id },
    response: StatsWithClientNamesAnswer,
    async handler(this: EpisodesThis, ctx: Ctx<UserParams>): Promise<StatsWithClientNamesAnswer> {
      // The user first: an unknown one is a 404 whatever the queue service's state.
      const l: Listening = await this.listening(ctx, ctx.params.user_id);
      const [queued, downloaded]: [number, number] = await Promise.all([
        this.queueLength(ctx, ctx.params.user_id),
        this.downloadedCount(ctx, ctx.params.user_id),
      ]);
      const figures = stats(l, queued, downloaded);
      return { ...figures, ...(await this.statsClientNames(ctx, ctx.params.user_id, l, figures)) };
    },
  },
  /** GET /api/data/get_extended_stats: get_stats plus rates, listening per weekday and hour, per podcast and per day of the last 30. */
  get_extended_stats: {
    idempotent: true,
    params: { user_id: id },
    response: ExtendedStatsAnswer,
    async handler(this: EpisodesThis, ctx: Ctx<UserParams>): Promise<ExtendedStatsAnswer> {
      const l: Listening = await this.listening(ctx, ctx.params.user_id);
      const [queued, downloaded, bytes]: [number, number, number] = await Promise.all([
        this.queueLength(ctx, ctx.params.user_id),
        this.downloadedCount(ctx, ctx.params.user_id),
        downloadedBytes(ctx, { user_id: ctx.params.user_id }),
      ]);
      const tz = l.settings.timezone;
      const format = new Intl.DateTimeFormat("en-US", {
        timeZone: tz,
        weekday: "long",
        hour: "numeric",
        hourCycle: "h23",
        year: "numeric",
        month: "2-digit",
        day: "2-digit",
      });
      const parts = (d: Date) => {
        const f = format.formatToParts(d);
        const get = (t: string) => f.find((p) => p.type === t)!.value;
        return { weekday: get("weekday"), hour: Number(get("hour")), day: `${get("year")}-${get("month")}-${get("day")}` };
      };
      const by_weekday: Record<string, number> = Object.fromEntries(WEEKDAYS.map((d) => [d, 0]));
      const by_hour = new Array<number>(24).fill(0);
      const since = Date.now() - 30 * DAY_MS;
      const daily = new Map<string, number>();
      for (const s of l.history) {
        const p = parts(new Date(s.last_listened_at!));
        by_weekday[p.weekday]++;
        by_hour[p.hour]++;
        if (time(s.last_listened_at) >= since) daily.set(p.day, (daily.get(p.day) ?? 0) + 1);
      }
      const episodes = new Map<number, number>();
      let longest: CatalogRow | undefined;
      for (const s of l.history) {
        episodes.set(s.podcast_id, (episodes.get(s.podcast_id) ?? 0) + 1);
        const row: CatalogRow | undefined = this.catalog.get(s.episode_id);
        if (row && (!longest || (row.duration ?? 0) > (longest.duration ?? 0))) longest = row;
      }
      const byCategory = new Map<string, number>();
      for (const [podcast_id, seconds] of l.byPodcast)
        for (const c of l.subs.get(podcast_id)?.categories ?? []) byCategory.set(c, (byCategory.get(c) ?? 0) + seconds);
      const base = stats(l, queued, downloaded);
      return {
        ...base,
        timezone: tz,
        completion_rate: Math.round(l.completion_rate),
        episodes_listened_by_weekday: by_weekday,
        episodes_listened_by_hour: by_hour,
        last_30_days: [...daily.entries()].sort().map(([date, count]) => ({ date, episodes: count })),
        top_podcasts: [...l.byPodcast.entries()]
          .sort((a, b) => b[1] - a[1])
          .slice(0, 10)
          .map(([podcast_id, seconds]) => {
            const sub = l.subs.get(podcast_id);
            const name = sub?.title ?? "";
            return {
              podcast_id,
              podcast_name: name,
              listen_time: Math.round(seconds),
              episodes_listened: episodes.get(podcast_id) ?? 0,
              podcastid: podcast_id,
              podcastname: name,
              artworkurl: sub?.artwork_url ?? "",
              total_seconds: Math.round(seconds),
            };
          }),
        favorite_categories: [...byCategory.entries()]
          .sort((a, b) => b[1] - a[1])
          .slice(0, 10)
          .map(([name, seconds]) => ({ name, total_seconds: Math.round(seconds) })),
        longest_episode: longest
          ? {
              episodeid: longest._id,
              episodetitle: longest.title,
              episodeduration: longest.duration ?? 0,
              podcastname: l.subs.get(longest.podcast_id)?.title ?? "",
            }
          : null,
        listening_badge: listeningBadge(base.total_listen_time),
        total_downloaded_bytes: bytes,
        total_downloaded_formatted: formatBytes(bytes),
        current_streak: base.listening_streak_days,
        listening_by_dow: WEEKDAYS.map((d) => by_weekday[d]),
      };
    },
  },
  /** GET /api/data/home_overview (spec "Other records"); listen_progress is the percentage heard. */
  home_overview: {
    idempotent: true,
    params: { user_id: id },
    response: HomeOverviewAnswer,
    async handler(this: EpisodesThis, ctx: Ctx<UserParams>): Promise<HomeOverviewAnswer> {
      const user_id = ctx.params.user_id;
      const l: Listening = await this.listening(ctx, user_id);
      const recent = newest(l.history, HOME_ITEMS, (s) => time(s.last_listened_at));
      const favourites = [...l.byPodcast.entries()]
        .sort((a, b) => b[1] - a[1])
        .slice(0, TOP_PODCASTS)
        .map(([p]) => p);
      const from = favourites.length ? favourites : [...l.subs.keys()].slice(0, TOP_PODCASTS);
      // Each podcast's list runs newest first: the newest of all are among each list's first.
      const fresh: CatalogRow[] = this.visibleLists(from.map((p) => l.subs.get(p)!).filter(Boolean))
        .flatMap((rows) => rows.slice(0, HOME_ITEMS * 5))
        .sort(newestFirst)
        .slice(0, HOME_ITEMS * 5);
      const known = l.states;
      const recentEps: EpisodeDoc[] = recent.length ? await this.adapter.find({ query: { _id: { $in: recent.map((s) => s.episode_id) } } }) : [];
      const epById = new Map(recentEps.map((e) => [e._id, e]));
      const weekAgo = Date.now() - 7 * DAY_MS;
      const clients: { episodes: Map<number, HomeClientEpisode>; sections: HomeClientSections } = await this.homeClientSections(ctx, user_id, l, recent);
      return {
        // Each recent episode by the documents' names, then by the clients'.
        // A state of a podcast the user has just left (its states not removed yet) has no client item: left out, as
        // the answer's podcast_name and client fields are required.
        recent_episodes: recent.flatMap((s) => {
          const e = epById.get(s.episode_id);
          const sub = e && l.subs.get(e.podcast_id);
          const client = e && clients.episodes.get(e._id);
          if (!e || !sub || !client) return [];
          return [
            {
              episode_id: e._id,
              episode_title: e.title,
              podcast_name: sub.title,
              episode_artwork: e.artwork ?? sub.artwork_url ?? null,
              listen_progress: s.completed ? 100 : percent(Math.min(s.listen_duration ?? 0, e.duration), e.duration),
              last_listened: iso(s.last_listened_at),
              ...client,
            },
          ];
        }),
        quick_stats: {
          total_listen_time: l.total_listen_time,
          episodes_this_week: l.history.filter((s) => time(s.last_listened_at) >= weekAgo).length,
          completion_rate: l.completion_rate,
        },
        recommended_episodes: fresh
          .filter((e) => !known.get(e._id)?.listen_duration && !known.get(e._id)?.completed)
          .slice(0, HOME_ITEMS)
          .map((e) => ({
            episode_id: e._id,
            episode_title: e.title,
            // Rows of the user's subscriptions (visibleLists of l.subs): the podcast is there.
            podcast_name: l.subs.get(e.podcast_id)?.title ?? "",
            reason: favourites.length ? "New from one of your most listened podcasts" : "New from a podcast you subscribed to recently",
          })),
        ...clients.sections,
      };
    },
  },
  /**
   * POST /api/data/search_data: podcasts (title, author, description) and episodes (title, description)
   * of the caller's subscriptions, optionally only of podcasts in `categories`; podcasts first, then
   * episodes newest first; total before paging. filter: podcasts or episodes alone, or episodes in a
   * listening state (the words of the episode lists, and downloaded), as PinePods' web client asks.
   * Each entry carries the documents' fields and the names both PinePods clients read an entry by.
   */
  search_data: {
    params: {
      user_id: id,
      search_term: { type: "string", trim: true, max: 200 },
      categories: { type: "array", items: { type: "string", max: 200 }, max: 100, optional: true },
      filter: { type: "enum", values: SEARCH_FILTERS, optional: true },
      ...paging,
    },
    response: SearchDataAnswer,
    async handler(this: EpisodesThis, ctx: Ctx<SearchDataParams>): Promise<SearchDataAnswer> {
      const p = ctx.params;
      const offset = p.offset ?? 0;
      const limit = p.limit ?? 50;
      // A listening state belongs to episodes: such a filter leaves the podcasts out.
      const stateFilter: string | null = p.filter === undefined || ["all", "podcasts", "episodes"].includes(p.filter) ? null : p.filter;
      const [found, subs]: [PodcastSearchResult, Map<number, SubscriptionView>] = await Promise.all([
        searchPodcasts(ctx, { user_id: p.user_id, search_term: p.search_term, categories: p.categories }),
        this.subscriptionsOf(ctx, p.user_id),
      ]);
      const podcasts = p.filter === "episodes" || stateFilter ? [] : found.podcasts;
      if (p.filter === "podcasts") return { data: podcasts.slice(offset, offset + limit), total: podcasts.length };
      const scope = found.podcast_ids.map((pid) => subs.get(pid)).filter((s): s is SubscriptionView => !!s);
      const skip = Math.max(0, offset - podcasts.length);
      const take = Math.max(0, offset + limit - Math.max(offset, podcasts.length));
      // The matches of every podcast (newest first, from the catalogue; see searchCatalog), cut to what
      // each subscriber sees; each podcast's first skip + take hits are enough to cut the page from their
      // merge, unless a state filter drops some (then all of them are tested).
      // Episodes whose text matches, and those the user bookmarked with a note that does (services/bookmarks.service.ts).
      const [textHits, noted]: [Map<number, CatalogRow[]> | null, number[]] = p.search_term
        ? await Promise.all([this.searchCatalog(p.search_term), bookmarkedEpisodes(ctx, { user_id: p.user_id, search_term: p.search_term })])
        : [null, []];
      const notedRows = noted.map((eid) => this.catalog.get(eid));
      const matches = textHits && withRows(textHits, notedRows);
      let count = 0;
      let hits: CatalogRow[] = [];
      for (const sub of scope) {
        const cutoff = cutoffTime(sub.feed_cutoff_days);
        const rows: readonly CatalogRow[] = matches ? (matches.get(sub.podcast_id) ?? []) : this.catalog.podcast(sub.podcast_id);
        const seen = cutoff === null ? rows.length : countAfter(rows, cutoff);
        count += seen;
        for (let i = 0; i < (stateFilter ? seen : Math.min(seen, skip + take)); i++) hits.push(rows[i]);
      }
      if (stateFilter) {
        hits = await this.inListeningState(ctx, p.user_id, stateFilter, hits, subs);
        count = hits.length;
      }
      hits.sort(newestFirst);
      const ids = hits.slice(skip, skip + take).map((e) => e._id);
      const [docs, states, queue, downloaded]: [EpisodeDoc[], Map<number, EpisodeStateDoc>, QueuePositionsResult, Set<number>] = await Promise.all([
        this.findByIds(this.adapter, ids),
        this.statesOf(p.user_id, ids),
        this.queueOf(ctx, p.user_id, ids),
        this.downloadedOf(ctx, p.user_id, ids),
      ]);
      const items = inIdOrder(ids, docs).map((e) => {
        const sub = subs.get(e.podcast_id)!;
        const st = states.get(e._id);
        const item = this.episodeItem(e, sub, st);
        return {
          type: "episode" as const,
          episode_id: e._id,
          podcast_id: e.podcast_id,
          episode_title: e.title,
          podcast_name: sub.title,
          description: item.episodedescription,
          artwork_url: e.artwork ?? sub.artwork_url,
          // The clients' names (not episodedescription: the web client reads description as it).
          episodeid: item.episodeid,
          podcastid: item.podcastid,
          podcastname: item.podcastname,
          episodetitle: item.episodetitle,
          artworkurl: sub.artwork_url ?? "",
          episodeartwork: item.episodeartwork,
          episodeurl: item.episodeurl,
          episodepubdate: item.episodepubdate,
          episodeduration: item.episodeduration,
          listenduration: item.listenduration ?? 0,
          completed: item.completed,
          saved: item.saved,
          queued: !!queue[e._id],
          downloaded: downloaded.has(e._id),
          is_vidsite: item.is_vidsite,
          is_youtube: item.is_youtube,
        };
      });
      return { data: [...podcasts.slice(offset, offset + limit), ...items], total: podcasts.length + count };
    },
  },
  /** POST /api/data/get_episode_metadata: one episode with the user's state, as a queue-style item plus its links. */
  get_episode_metadata: {
    params: { episode_id: id, user_id: id, person_episode: optionalBool, is_vidsite: optionalBool },
    response: EpisodeMetadataAnswer,
    async handler(this: EpisodesThis, ctx: Ctx<EpisodeOfUserParams & { person_episode?: boolean }>): Promise<EpisodeMetadataAnswer> {
      const { user_id, episode_id } = ctx.params;
      const ep: EpisodeDoc = await this.accessibleEpisode(ctx, user_id, episode_id);
      const [sub, states, queue, downloaded] = await Promise.all([
        this.access(ctx, user_id, ep.podcast_id),
        this.statesOf(user_id, [ep._id]),
        this.queueOf(ctx, user_id, [ep._id]),
        this.downloadedOf(ctx, user_id, [ep._id]),
      ]);
      const row: Row = { ep, sub, st: states.get(ep._id) };
      // One field per fact: the web client's Episode takes is_saved as an alias of saved (both would be serde's
      // duplicate field), and the mobile app reads is_saved; explicit as 0/1, the web client's integer.
      const { saved, queued, downloaded: isDownloaded, ...item }: QueueItem = this.queueItem(row, queue[ep._id], downloaded);
      return {
        episode: {
          ...item,
          is_saved: saved,
          is_queued: queued,
          is_downloaded: isDownloaded,
          episodelink: ep.link,
          episodeauthor: ep.author,
          explicit: ep.explicit ? 1 : 0,
          season: ep.season,
          episode_number: ep.episode,
          episode_type: ep.episode_type,
          enclosure_type: ep.enclosure_type,
          file_size: ep.enclosure_length,
          ...ep.p20,
        },
      };
    },
  },
  /** POST /api/data/get_next_podcast_episode: the next episode published after this one that the user has not completed; 404 at the end. */
  get_next_podcast_episode: {
    params: { episode_id: id, user_id: id, is_vidsite: optionalBool },
    response: QueueItem,
    async handler(this: EpisodesThis, ctx: Ctx<EpisodeOfUserParams>): Promise<QueueItem> {
      const { user_id, episode_id } = ctx.params;
      const ep: EpisodeDoc = await this.accessibleEpisode(ctx, user_id, episode_id);
      if (!ep.pub_date) throw new NotFoundError("No next episode in this podcast");
      const sub: SubscriptionView = await this.access(ctx, user_id, ep.podcast_id);
      const later: EpisodeDoc[] = await this.adapter.find({ query: visibleQuery([sub], {}, ep.pub_date), sort: ["pub_date", "_id"], limit: 50 });
      const states: Map<number, EpisodeStateDoc> = await this.statesOf(
        user_id,
        later.map((e) => e._id),
      );
      const next = later.find((e) => !states.get(e._id)?.completed);
      if (!next) throw new NotFoundError("No next episode in this podcast");
      const [queue, downloaded] = await Promise.all([this.queueOf(ctx, user_id, [next._id]), this.downloadedOf(ctx, user_id, [next._id])]);
      return this.queueItem({ ep: next, sub, st: states.get(next._id) }, queue[next._id], downloaded);
    },
  },
};

export const libraryMethods = {
  /** How many episodes the user has queued (the queue service's count of its items the user still sees). */
  queueLength(this: EpisodesThis, ctx: Caller, user_id: number): Promise<number> {
    return visibleLength(ctx, { user_id });
  },
  /** Of these catalogue rows, those in a listening state (an EPISODE_FILTERS word, or downloaded): one call whatever the count. */
  async inListeningState(
    this: EpisodesThis,
    ctx: Caller,
    user_id: number,
    filter: string,
    rows: CatalogRow[],
    subs: Map<number, SubscriptionView>,
  ): Promise<CatalogRow[]> {
    if (!rows.length) return rows;
    if (filter === "downloaded") {
      const have: Set<number> = await this.downloadedOf(
        ctx,
        user_id,
        rows.map((r) => r._id),
      );
      return rows.filter((r) => have.has(r._id));
    }
    const { byEpisode }: UserStates = await this.userStates(user_id);
    return rows.filter((ep) => EPISODE_FILTERS[filter]({ ep, sub: subs.get(ep.podcast_id)!, st: byEpisode.get(ep._id) }));
  },
  /** The user's subscriptions, settings, counters and every state, with the figures derived from them. */
  async listening(this: EpisodesThis, ctx: Caller, user_id: number): Promise<Listening> {
    const [subs, settings, states, counters] = await Promise.all([
      this.subscriptionsOf(ctx, user_id),
      listeningSettings(ctx, { user_id }),
      this.userStates(user_id),
      this.stores.listen_counters.findOne({ _id: user_id }),
    ]);
    const cached: UserStates = states;
    // Figures of the states alone are kept with them until the user's next write.
    const { history, byPodcast, heard, ...figures } = cached.memo("listening", () => {
      const all = cached.all();
      const history = all.filter((s) => s.last_listened_at);
      const byPodcast = new Map<number, number>();
      let heard = 0;
      for (const s of history) {
        heard += s.listen_duration ?? 0;
        byPodcast.set(s.podcast_id, (byPodcast.get(s.podcast_id) ?? 0) + (s.listen_duration ?? 0));
      }
      const completed = all.filter((s) => s.completed).length;
      const saved = all.filter((s) => s.saved).length;
      const last = history.reduce((max, s) => Math.max(max, time(s.last_listened_at)), 0);
      return { history, byPodcast, heard, completed, saved, last, completion_rate: completionRate(all) };
    });
    // The streak formats a date per day of it: kept per timezone and local day.
    const tz = settings.timezone;
    const listening_streak_days = cached.memo(`streak ${tz} ${localDay(new Date(), tz)}`, () =>
      streakDays(
        history.map((s) => s.last_listened_at!),
        tz,
      ),
    );
    // The counters measure real playing time and starts (replays too); players that never send them
    // still get the positions and episodes of their history.
    return {
      subs,
      settings,
      states: cached.byEpisode,
      history,
      counters,
      byPodcast,
      ...figures,
      total_listen_time: Math.round(Math.max(counters?.listen_seconds ?? 0, heard)),
      episodes_played: Math.max(counters?.played ?? 0, history.length),
      listening_streak_days,
    };
  },
};
