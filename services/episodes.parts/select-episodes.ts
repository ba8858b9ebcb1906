/**
 * episodes.select_episodes: the data owner evaluates smart-playlist filters (and the queue's join) over
 * one user's visible episodes and states, so that neither 200k episodes nor their states cross the
 * broker: a caller gets only the page it asks for and the counts.
 */
import type { Context, ServiceActionsSchema } from "moleculer";
import type { EpisodeListItem, EpisodeSelection, SelectEpisodesParams, SelectionResult } from "../../shared/contracts/episodes";
import { PLAYLIST_SORT_ORDERS } from "../../shared/contracts/episodes";
import type { SubscriptionView } from "../../shared/contracts/podcasts";
import { type EpisodeDoc, type EpisodeStateDoc, isPlayed, visibleQuery } from "./model";

const HOUR_MS = 3_600_000;
const intOrNull = { type: "number", integer: true, min: 0, nullable: true, optional: true };
const idList = { type: "array", items: { type: "number", integer: true, positive: true }, nullable: true, optional: true };

/** Percent of the episode listened; a completed one counts as 100. */
function progressOf(e: EpisodeDoc, st: EpisodeStateDoc | undefined): number {
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

function keep(sel: EpisodeSelection, e: EpisodeDoc, st: EpisodeStateDoc | undefined, since: number | null): boolean {
  // An unknown duration (0) is neither short nor long: a duration filter leaves it out.
  if ((sel.min_duration != null || sel.max_duration != null) && !(e.duration > 0)) return false;
  if (sel.min_duration != null && e.duration < sel.min_duration) return false;
  if (sel.max_duration != null && e.duration > sel.max_duration) return false;
  if (since !== null && !(e.pub_date && new Date(e.pub_date).getTime() > since)) return false;
  const played = isPlayed(e, st);
  const partial = !played && !!st && st.listen_duration > 0;
  if (played ? !sel.include_played : partial ? !sel.include_partially_played : !sel.include_unplayed) return false;
  const progress = progressOf(e, st);
  if (sel.play_progress_min != null && progress < sel.play_progress_min) return false;
  if (sel.play_progress_max != null && progress > sel.play_progress_max) return false;
  return true;
}

/** Sort key of an episode for a sort_order, and whether it runs descending. */
function sortKey(order: string, e: EpisodeDoc, st: EpisodeStateDoc | undefined, podcast: string, seed: number): [number | string, boolean] {
  switch (order) {
    case "date_asc": return [e.pub_date ? new Date(e.pub_date).getTime() : 0, false];
    case "duration_asc": return [e.duration, false];
    case "duration_desc": return [e.duration, true];
    // Most listened first: seconds, and share of the episode.
    case "listen_progress": return [st?.listen_duration ?? 0, true];
    case "completion": return [progressOf(e, st), true];
    case "title_asc": return [e.title.toLowerCase(), false];
    case "title_desc": return [e.title.toLowerCase(), true];
    case "podcast_asc": return [podcast, false];
    case "podcast_desc": return [podcast, true];
    case "random": return [shuffleRank(seed, e._id), false];
    default: return [e.pub_date ? new Date(e.pub_date).getTime() : 0, true]; // date_desc
  }
}

function cmp(a: number | string, b: number | string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * What the store is asked for: the queue's few ids; one playlist's podcasts, durations and time window
 * (fewer documents read); several playlists (get_playlists' counts) read every visible episode once.
 */
function storeQuery(subs: SubscriptionView[], selections: EpisodeSelection[], ids: number[] | null, now: number): object {
  if (ids) return visibleQuery(subs, { _id: { $in: ids } });
  if (selections.length > 1) return visibleQuery(subs);
  const [sel] = selections;
  const pods = sel.podcast_ids ? new Set(sel.podcast_ids) : null;
  const duration: Record<string, number> = {};
  if (sel.min_duration != null || sel.max_duration != null) duration.$gt = 0;
  if (sel.min_duration != null) duration.$gte = sel.min_duration;
  if (sel.max_duration != null) duration.$lte = sel.max_duration;
  const since = sel.time_filter_hours != null ? new Date(now - sel.time_filter_hours * HOUR_MS) : undefined;
  return visibleQuery(pods ? subs.filter((s) => pods.has(s.podcast_id)) : subs, Object.keys(duration).length ? { duration } : {}, since);
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
    async handler(this: any, ctx: Context<SelectEpisodesParams>): Promise<SelectionResult[]> {
      const { user_id, selections, offset = 0, limit, after_episode_id } = ctx.params;
      const subs: SubscriptionView[] = await ctx.call("podcasts.user_subscriptions", { user_id });
      const byPodcast = new Map(subs.map((s) => [s.podcast_id, s]));
      const idsOnly = selections.every((s) => s.episode_ids);
      const ids = idsOnly ? Array.from(new Set(selections.flatMap((s) => s.episode_ids!))) : null;
      const now = Date.now();
      const episodes: EpisodeDoc[] = ids && ids.length === 0 ? [] : await this.adapter.find({ query: storeQuery(subs, selections, ids, now) });
      const states: Map<number, EpisodeStateDoc> = ids
        ? await this.statesOf(user_id, episodes.map((e) => e._id))
        : new Map((await this.stores.episode_states.find({ query: { user_id } })).map((s: EpisodeStateDoc) => [s.episode_id, s]));
      const pages = selections.map((sel) => {
        const only = sel.episode_ids ? new Set(sel.episode_ids) : null;
        const pods = sel.podcast_ids ? new Set(sel.podcast_ids) : null;
        const since = sel.time_filter_hours != null ? now - sel.time_filter_hours * HOUR_MS : null;
        const order = sel.sort_order ?? "date_desc";
        const rows = episodes
          .filter((e) => (!only || only.has(e._id)) && (!pods || pods.has(e.podcast_id)) && keep(sel, e, states.get(e._id), since))
          .map((e) => {
            const podcast = (byPodcast.get(e.podcast_id)?.title ?? "").toLowerCase();
            return { e, podcast, key: sortKey(order, e, states.get(e._id), podcast, sel.seed ?? 0) };
          });
        rows.sort((a, b) => {
          const group = sel.group_by_podcast ? cmp(a.podcast, b.podcast) || a.e.podcast_id - b.e.podcast_id : 0;
          const [ka, desc] = a.key;
          return group || (desc ? -cmp(ka, b.key[0]) : cmp(ka, b.key[0])) || a.e._id - b.e._id;
        });
        const listed = sel.max_episodes ? rows.slice(0, sel.max_episodes) : rows;
        // The episode just played may have left the playlist (now played): then the first one is next.
        const page = after_episode_id !== undefined
          ? listed.slice(listed.findIndex((r) => r.e._id === after_episode_id) + 1).filter((r) => r.e._id !== after_episode_id).slice(0, 1)
          : listed.slice(offset, limit === undefined ? undefined : offset + limit);
        return { total: listed.length, page: page.map((r) => r.e) };
      });
      // One downloads call for the pages of every selection (none when only counting).
      const downloaded: Set<number> = await this.downloadedOf(ctx, user_id, Array.from(new Set(pages.flatMap((p) => p.page.map((e) => e._id)))));
      return pages.map(({ total, page }): SelectionResult => ({
        total,
        episodes: page.map((e): EpisodeListItem => ({
          ...this.listItem(e, byPodcast.get(e.podcast_id)!, states.get(e._id), downloaded),
          is_video: /^video\//i.test(e.enclosure_type ?? ""),
        })),
      }));
    },
  },
};
