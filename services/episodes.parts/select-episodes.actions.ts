/**
 * episodes.select_episodes: the data owner evaluates smart-playlist filters (and the queue's join) over
 * one user's visible episodes and states, so that neither 200k episodes nor their states cross the
 * broker: a caller gets only the page it asks for and the counts. Filters and sorts run over the
 * in-memory catalogue rows and cached states; only the page's documents are read from the store.
 */
import type { ServiceActionsSchema } from "moleculer";
import type { SelectedEpisode, EpisodeSelection, SelectEpisodesParams, SelectionResult } from "../../shared/contracts/episodes";
import { PLAYLIST_SORT_ORDERS } from "../../shared/contracts/episodes";
import type { SubscriptionView } from "../../shared/contracts/podcasts";
import { userSubscriptions } from "../../shared/contracts/podcasts";
import type { Ctx } from "../../shared/service-types";
import type { EpisodesThis } from "./this";
import type { CatalogRow } from "./catalog-index";
import { cutoffTime, type EpisodeDoc, type EpisodeStateDoc, isPlayed, visibleTo } from "./model";
import type { UserStates } from "./state-cache";

const HOUR_MS = 3_600_000;
const intOrNull = { type: "number", integer: true, min: 0, nullable: true, optional: true };
const idList = { type: "array", items: { type: "number", integer: true, positive: true }, nullable: true, optional: true };

/** Percent of the episode listened; a completed one counts as 100. */
function progressOf(e: CatalogRow, st: EpisodeStateDoc | undefined): number {
  if (!st) return 0;
  if (st.completed) return 100;
  return e.duration > 0 ? Math.min(100, (st.listen_duration / e.duration) * 100) : 0;
}

/** A stable pseudo-random rank of an episode for one seed, so the pages of a random order fit together. */
function shuffleRank(seed: number, id: number): number {
  let h = (Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(id, 0xc2b2ae35)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x7feb352d) >>> 0;
  return Math.imul(h ^ (h >>> 15), 0x846ca68b) >>> 0;
}

/** The selection's conditions on the episode alone (checked before its state is looked up). */
function fits(sel: EpisodeSelection, e: CatalogRow, since: number | null): boolean {
  // An unknown duration (0) is neither short nor long: a duration filter leaves it out.
  if ((sel.min_duration != null || sel.max_duration != null) && !(e.duration > 0)) return false;
  if (sel.min_duration != null && e.duration < sel.min_duration) return false;
  if (sel.max_duration != null && e.duration > sel.max_duration) return false;
  return since === null || (e.dated && e.pub > since);
}

/** The selection's conditions on the user's state of the episode. */
function keep(sel: EpisodeSelection, e: CatalogRow, st: EpisodeStateDoc | undefined): boolean {
  const played = isPlayed(e, st);
  const partial = !played && !!st && st.listen_duration > 0;
  if (played ? !sel.include_played : partial ? !sel.include_partially_played : !sel.include_unplayed) return false;
  const progress = progressOf(e, st);
  if (sel.play_progress_min != null && progress < sel.play_progress_min) return false;
  if (sel.play_progress_max != null && progress > sel.play_progress_max) return false;
  return true;
}

/** Sort key of an episode for a sort_order (see descending for its direction). */
function sortKey(order: string, e: CatalogRow, st: EpisodeStateDoc | undefined, podcast: string, seed: number): number | string {
  switch (order) {
    case "date_asc":
      return e.pub;
    case "duration_asc":
    case "duration_desc":
      return e.duration;
    // Most listened first: seconds, and share of the episode.
    case "listen_progress":
      return st?.listen_duration ?? 0;
    case "completion":
      return progressOf(e, st);
    case "title_asc":
    case "title_desc":
      return e.title.toLowerCase();
    case "podcast_asc":
    case "podcast_desc":
      return podcast;
    case "random":
      return shuffleRank(seed, e._id);
    default:
      return e.pub; // date_desc
  }
}

/** Whether a sort_order runs its key descending. */
function descending(order: string): boolean {
  return !["date_asc", "duration_asc", "title_asc", "podcast_asc", "random"].includes(order);
}

function cmp(a: number | string, b: number | string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The rows the selections are cut from: the queue's few ids; one playlist's podcasts and time window
 * (a prefix of each podcast's newest-first rows); several playlists (get_playlists' counts) every
 * visible episode once.
 */
function candidates(
  svc: EpisodesThis,
  subs: SubscriptionView[],
  byPodcast: Map<number, SubscriptionView>,
  selections: EpisodeSelection[],
  ids: number[] | null,
  now: number,
): (readonly CatalogRow[])[] {
  if (ids) return [ids.map((i) => svc.catalog.get(i)).filter((r): r is CatalogRow => !!r && visibleTo(r, byPodcast.get(r.podcast_id)))];
  if (selections.length > 1) return svc.visibleLists(subs);
  const [sel] = selections;
  const pods = sel.podcast_ids ? new Set(sel.podcast_ids) : null;
  const since = sel.time_filter_hours != null ? now - sel.time_filter_hours * HOUR_MS : null;
  return svc.visibleLists(pods ? subs.filter((s) => pods.has(s.podcast_id)) : subs, since);
}

export const selectEpisodesActions: ServiceActionsSchema = {
  /** See SelectEpisodesParams. Costs one subscriptions call, one episodes query and one states query. */
  select_episodes: {
    visibility: "public",
    params: {
      user_id: { type: "number", integer: true, positive: true },
      selections: {
        type: "array",
        max: 100,
        items: {
          type: "object",
          props: {
            episode_ids: idList,
            podcast_ids: idList,
            include_unplayed: "boolean",
            include_partially_played: "boolean",
            include_played: "boolean",
            play_progress_min: { type: "number", min: 0, max: 100, nullable: true, optional: true },
            play_progress_max: { type: "number", min: 0, max: 100, nullable: true, optional: true },
            time_filter_hours: intOrNull,
            min_duration: intOrNull,
            max_duration: intOrNull,
            max_episodes: intOrNull,
            sort_order: { type: "enum", values: PLAYLIST_SORT_ORDERS, optional: true },
            group_by_podcast: { type: "boolean", optional: true },
            seed: { type: "number", integer: true, optional: true },
          },
        },
      },
      offset: { type: "number", integer: true, min: 0, optional: true },
      limit: { type: "number", integer: true, min: 0, optional: true },
      after_episode_id: { type: "number", integer: true, optional: true },
    },
    async handler(this: EpisodesThis, ctx: Ctx<SelectEpisodesParams>): Promise<SelectionResult[]> {
      const { user_id, selections, offset = 0, limit, after_episode_id } = ctx.params;
      const subs = await userSubscriptions(ctx, { user_id });
      const byPodcast = new Map(subs.map((s) => [s.podcast_id, s]));
      const podcastName = new Map(subs.map((s) => [s.podcast_id, (s.title ?? "").toLowerCase()]));
      const idsOnly = selections.every((s) => s.episode_ids);
      const ids = idsOnly ? Array.from(new Set(selections.flatMap((s) => s.episode_ids!))) : null;
      const now = Date.now();
      const user: UserStates = await this.userStates(user_id);
      // After the last await before their use: these are the catalogue's own lists.
      const episodes = candidates(this, subs, byPodcast, selections, ids, now);
      const states = user.byEpisode;
      /** One selection's episodes in its order (max_episodes applied). */
      const select = (sel: EpisodeSelection): CatalogRow[] => {
        const only = sel.episode_ids ? new Set(sel.episode_ids) : null;
        const pods = sel.podcast_ids ? new Set(sel.podcast_ids) : null;
        const since = sel.time_filter_hours != null ? now - sel.time_filter_hours * HOUR_MS : null;
        const order = sel.sort_order ?? "date_desc";
        // Parallel arrays, not an object per row: a selection keeps up to every visible episode (200,000),
        // and one short-lived object (and boxed key) per row was most of the garbage of a playlist read.
        const kept: CatalogRow[] = [];
        const keys: (number | string)[] = [];
        const names: string[] = [];
        for (const list of episodes) {
          for (const e of list) {
            if ((only && !only.has(e._id)) || (pods && !pods.has(e.podcast_id)) || !fits(sel, e, since)) continue;
            const st = states.get(e._id);
            if (!keep(sel, e, st)) continue;
            const podcast = podcastName.get(e.podcast_id) ?? "";
            kept.push(e);
            keys.push(sortKey(order, e, st, podcast, sel.seed ?? 0));
            if (sel.group_by_podcast) names.push(podcast);
          }
        }
        const sign = descending(order) ? -1 : 1;
        const byOrder = new Uint32Array(kept.length).map((_, i) => i);
        byOrder.sort((a, b) => {
          const group = sel.group_by_podcast ? cmp(names[a], names[b]) || kept[a].podcast_id - kept[b].podcast_id : 0;
          return group || sign * cmp(keys[a], keys[b]) || kept[a]._id - kept[b]._id;
        });
        const n = sel.max_episodes ? Math.min(sel.max_episodes, kept.length) : kept.length;
        return Array.from(byOrder.subarray(0, n), (i) => kept[i]);
      };
      // A playlist's order is kept with the user's states (until their next write) when nothing in it
      // depends on the time (no time window, no feed cutoff): its pages and counts are then read, not
      // worked out again. The key names everything else it depends on: the catalogue's version and the
      // subscriptions' podcasts and names.
      const timeless = !ids && subs.every((s) => cutoffTime(s.feed_cutoff_days) === null);
      const subsKey = timeless ? subs.map((s) => `${s.podcast_id}:${s.title}`).join("\n") : "";
      const pages = selections.map((sel) => {
        const listed =
          timeless && sel.time_filter_hours == null
            ? user.memo(`select ${this.catalog.version} ${JSON.stringify(sel)} ${subsKey}`, () => select(sel))
            : select(sel);
        // The episode just played may have left the playlist (now played): then the first one is next.
        const page =
          after_episode_id !== undefined
            ? listed
                .slice(listed.findIndex((e) => e._id === after_episode_id) + 1)
                .filter((e) => e._id !== after_episode_id)
                .slice(0, 1)
            : listed.slice(offset, limit === undefined ? undefined : offset + limit);
        return { total: listed.length, page: page.map((e) => e._id) };
      });
      // One store read and one downloads call for the pages of every selection (none when only counting).
      const pageIds = Array.from(new Set(pages.flatMap((p) => p.page)));
      const [docs, downloaded]: [EpisodeDoc[], Set<number>] = await Promise.all([
        this.findByIds(this.adapter, pageIds),
        this.downloadedOf(ctx, user_id, pageIds),
      ]);
      const docById = new Map(docs.map((e) => [e._id, e]));
      return pages.map(({ total, page }): SelectionResult => ({
        total,
        episodes: page
          .filter((i) => docById.has(i))
          .map((i) => docById.get(i)!)
          .map((e): SelectedEpisode => ({
            ...this.listItem(e, byPodcast.get(e.podcast_id)!, states.get(e._id), downloaded),
            is_video: /^video\//i.test(e.enclosure_type ?? ""),
          })),
      }));
    },
  },
};
