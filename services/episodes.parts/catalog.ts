/**
 * Reading the catalogue: a subscriber's episode lists and lookups, and the per podcast reads the
 * podcasts service asks for. Everything a user reads is scoped by their subscriptions (asked of the
 * podcasts service in one call per request).
 */
import type { ServiceActionsSchema } from "moleculer";
import { NotFoundError } from "../../shared/errors";
import type { PodcastDetailsAnswer, SubscriptionView } from "../../shared/contracts/podcasts";
import { mergedViews, userSubscriptions } from "../../shared/contracts/podcasts";
import type { Ctx } from "../../shared/service-types";
import type { CatalogRow } from "./catalog-index";
import {
  EPISODE_FILTERS,
  EPISODE_SORTS,
  type EpisodeDoc,
  id,
  inIdOrder,
  iso,
  isPlayed,
  optionalBool,
  pageRows,
  paging,
  type PagingParams,
  type Row,
  search,
  sortOrder,
} from "./model";
import type { EpisodeMediaItem, PodcastUserStats } from "../../shared/contracts/episodes";
import { EpisodeIdAnswer, EpisodeInDbAnswer, EpisodesPageAnswer, PodcastAndEpisodeAnswer, PodcastOfEpisodeAnswer } from "../../shared/contracts/episodes";
import { DetailAnswer } from "../../shared/contracts/answers";
import type { Static } from "../../shared/contracts/answers";
import type { EpisodesThis } from "./this";

/** Episodes in get_podcast_details' recent_episodes. */
const RECENT_DETAILS = 10;

interface PodcastEpisodesParams extends PagingParams {
  user_id: number;
  podcast_id: number;
  sort_by?: "pub_date" | "title" | "duration" | "listen_progress";
  sort_order?: "asc" | "desc";
  search?: string;
  filter?: "all" | "unplayed" | "played" | "in_progress" | "saved";
  /** Only the episodes the user's filter of the podcast lets through (shared/episode-filter.ts). */
  filtered?: boolean;
}
/** An episode of the user's podcasts named by its audio URL and (some routes) its title. */
type ByNameAndUrlParams<T extends string> = { user_id: number; episode_url: string } & Record<T, string>;
type EpisodeOfUserParams = { user_id: number; episode_id: number; is_vidsite?: boolean };

export const catalogActions: ServiceActionsSchema = {
  /** GET /api/data/podcast_episodes: one podcast's episodes for a subscriber, paged (filtered: those their episode filter lets through). */
  podcast_episodes: {
    idempotent: true,
    params: {
      user_id: id,
      podcast_id: id,
      ...paging,
      sort_by: { type: "enum", values: ["pub_date", "title", "duration", "listen_progress"], optional: true },
      sort_order: sortOrder,
      search,
      filter: { type: "enum", values: ["all", "unplayed", "played", "in_progress", "saved"], optional: true },
      filtered: optionalBool,
    },
    response: EpisodesPageAnswer,
    async handler(this: EpisodesThis, ctx: Ctx<PodcastEpisodesParams>): Promise<EpisodesPageAnswer> {
      const p = ctx.params;
      const sub: SubscriptionView = await this.access(ctx, p.user_id, p.podcast_id);
      // Podcasts the user merged into this one are listed with it.
      const merged = await mergedViews(ctx, { user_id: p.user_id, podcast_id: p.podcast_id });
      const subOf = new Map([sub, ...merged].map((s) => [s.podcast_id, s]));
      // Filtered, sorted and paged on the catalogue's rows; whole documents only for the page.
      const episodes: CatalogRow[] = this.visibleLists([...subOf.values()]).flat();
      const states = await this.statesOf(
        p.user_id,
        episodes.map((e) => e._id),
      );
      const keep = EPISODE_FILTERS[p.filter ?? "all"];
      // The podcast's own name would match every row: only episode titles are searched here.
      const needle = p.search?.toLowerCase();
      const rows = episodes
        .map((ep) => ({ ep, sub: subOf.get(ep.podcast_id)!, st: states.get(ep._id) }))
        .filter((r) => keep(r) && (!needle || r.ep.title.toLowerCase().includes(needle)));
      const cut = pageRows(p.filtered ? await this.passingFilters(rows) : rows, { ...p, search: undefined }, EPISODE_SORTS[p.sort_by ?? "pub_date"], "desc");
      const [page, total]: [Row[], number] = [await this.withDocs(cut.page), cut.total];
      const downloaded = await this.downloadedOf(
        ctx,
        p.user_id,
        page.map((r) => r.ep._id),
      );
      return { episodes: page.map((r) => this.listItem(r.ep, r.sub, r.st, downloaded)), total };
    },
  },
  /** GET /api/data/return_episodes/{user_id}: the newest episodes of all the user's podcasts. */
  return_episodes: {
    idempotent: true,
    params: { user_id: id, ...paging, since: { type: "date", convert: true, optional: true } },
    response: EpisodesPageAnswer,
    async handler(this: EpisodesThis, ctx: Ctx<PagingParams & { user_id: number; since?: Date }>): Promise<EpisodesPageAnswer> {
      const p = ctx.params;
      const subs = await userSubscriptions(ctx, { user_id: p.user_id });
      // The page is cut from the catalogue's lists (newest first, "-pub_date, -_id"); documents only for the page.
      const { page, total } = this.newestVisible(subs, p.since ? p.since.getTime() : null, p.offset ?? 0, p.limit ?? 100);
      const ids = page.map((e) => e._id);
      const episodes: EpisodeDoc[] = inIdOrder(ids, await this.findByIds(this.adapter, ids));
      const [states, downloaded] = await Promise.all([this.statesOf(p.user_id, ids), this.downloadedOf(ctx, p.user_id, ids)]);
      const byPodcast = new Map(subs.map((s) => [s.podcast_id, s]));
      return { episodes: episodes.map((e) => this.listItem(e, byPodcast.get(e.podcast_id)!, states.get(e._id), downloaded)), total };
    },
  },
  /** GET /api/data/check_episode_in_db/{user_id}: is an episode with this title and audio URL in the user's podcasts. */
  check_episode_in_db: {
    idempotent: true,
    params: { user_id: id, episode_title: { type: "string", max: 1000 }, episode_url: { type: "string", max: 4000 } },
    response: EpisodeInDbAnswer,
    async handler(this: EpisodesThis, ctx: Ctx<ByNameAndUrlParams<"episode_title">>): Promise<EpisodeInDbAnswer> {
      const found = await this.findByNameAndUrl(ctx, ctx.params.user_id, ctx.params.episode_title, ctx.params.episode_url);
      return { episode_in_db: !!found };
    },
  },
  /** GET /api/data/get_podcast_id_from_ep_name */
  get_podcast_id_from_ep_name: {
    idempotent: true,
    params: { user_id: id, episode_name: { type: "string", max: 1000 }, episode_url: { type: "string", max: 4000 } },
    response: PodcastAndEpisodeAnswer,
    async handler(this: EpisodesThis, ctx: Ctx<ByNameAndUrlParams<"episode_name">>): Promise<PodcastAndEpisodeAnswer> {
      const found: EpisodeDoc | null = await this.findByNameAndUrl(ctx, ctx.params.user_id, ctx.params.episode_name, ctx.params.episode_url);
      if (!found) throw new NotFoundError("Episode not found in your podcasts");
      return { podcast_id: found.podcast_id, episode_id: found._id };
    },
  },
  /** GET /api/data/get_podcast_id_from_ep_id */
  get_podcast_id_from_ep_id: {
    idempotent: true,
    params: { user_id: id, episode_id: id, is_vidsite: optionalBool },
    response: PodcastOfEpisodeAnswer,
    async handler(this: EpisodesThis, ctx: Ctx<EpisodeOfUserParams>): Promise<PodcastOfEpisodeAnswer> {
      const ep: EpisodeDoc = await this.accessibleEpisode(ctx, ctx.params.user_id, ctx.params.episode_id);
      return { podcast_id: ep.podcast_id };
    },
  },
  /** GET /api/data/get_podcast_id_from_ep/{episode_id}: PinePods' mobile app sends no user_id; the caller's own episodes. */
  get_podcast_id_from_ep: {
    idempotent: true,
    params: { episode_id: id },
    response: PodcastOfEpisodeAnswer,
    async handler(this: EpisodesThis, ctx: Ctx<{ episode_id: number }>): Promise<PodcastOfEpisodeAnswer> {
      const ep: EpisodeDoc = await this.accessibleEpisode(ctx, ctx.meta.user!.id, ctx.params.episode_id);
      return { podcast_id: ep.podcast_id };
    },
  },
  /** GET /api/data/get_episode_id_ep_name: the episode of the user's podcasts with this audio URL (and title, when given); the id alone. */
  get_episode_id_ep_name: {
    idempotent: true,
    params: { user_id: id, episode_url: { type: "string", max: 4000 }, episode_title: { type: "string", max: 1000, optional: true } },
    response: EpisodeIdAnswer,
    async handler(this: EpisodesThis, ctx: Ctx<{ user_id: number; episode_url: string; episode_title?: string }>): Promise<EpisodeIdAnswer> {
      const found: EpisodeDoc | null = await this.findByNameAndUrl(ctx, ctx.params.user_id, ctx.params.episode_title, ctx.params.episode_url);
      if (!found) throw new NotFoundError("Episode not found in your podcasts");
      return found._id;
    },
  },
  /** POST /api/data/update_episode_duration: corrects a duration the feed got wrong (for every subscriber). */
  update_episode_duration: {
    params: { episode_id: id, new_duration: { type: "number", integer: true, min: 0, max: 2147483647, convert: true }, is_vidsite: optionalBool },
    response: DetailAnswer,
    async handler(this: EpisodesThis, ctx: Ctx<{ episode_id: number; new_duration: number; is_vidsite?: boolean }>): Promise<Static<typeof DetailAnswer>> {
      const ep: EpisodeDoc = await this.accessibleEpisode(ctx, ctx.meta.user!.id, ctx.params.episode_id);
      await this.adapter.updateMany({ _id: ep._id }, { $set: { duration: ctx.params.new_duration } });
      await this.catalogChanged([ep._id]);
      return { detail: "Episode duration updated" };
    },
  },

  // --- Internal actions (not in the route table) ---

  /** get_podcast_details' recent_episodes with the user's state. */
  recent_episodes: {
    visibility: "public",
    params: { user_id: id, podcast_id: id, feed_cutoff_days: { type: "number", integer: true, min: 0 } },
    async handler(
      this: EpisodesThis,
      ctx: Ctx<{ user_id: number; podcast_id: number; feed_cutoff_days: number }>,
    ): Promise<PodcastDetailsAnswer["recent_episodes"]> {
      const ids = this.newestVisible([ctx.params], null, 0, RECENT_DETAILS).page.map((e) => e._id);
      const episodes: EpisodeDoc[] = inIdOrder(ids, await this.findByIds(this.adapter, ids));
      const states = await this.statesOf(
        ctx.params.user_id,
        episodes.map((e) => e._id),
      );
      return episodes.map((e) => {
        const st = states.get(e._id);
        return {
          episode_id: e._id,
          title: e.title,
          description: e.description,
          pub_date: iso(e.pub_date),
          duration: e.duration,
          file_size: e.enclosure_length,
          audio_url: e.enclosure_url,
          is_played: isPlayed(e, st),
          is_saved: !!st?.saved,
          progress: Math.floor(st?.listen_duration ?? 0),
        };
      });
    },
  },
  /** return_pods_extra's per podcast figures for one user, batched over their subscriptions. */
  user_podcast_stats: {
    visibility: "public",
    params: { user_id: id, subscriptions: { type: "array", items: "object" } },
    async handler(this: EpisodesThis, ctx: Ctx<{ user_id: number; subscriptions: SubscriptionView[] }>): Promise<Record<number, PodcastUserStats>> {
      const subs = ctx.params.subscriptions;
      const episodes: CatalogRow[] = this.visibleLists(subs).flat();
      const states = await this.statesOf(
        ctx.params.user_id,
        episodes.map((e) => e._id),
      );
      const out: Record<number, PodcastUserStats> = {};
      for (const s of subs) out[s.podcast_id] = { total_episodes: 0, unplayed_episodes: 0, last_played: null, total_listen_time: 0 };
      for (const e of episodes) {
        const o = out[e.podcast_id];
        const st = states.get(e._id);
        o.total_episodes++;
        if (!isPlayed(e, st)) o.unplayed_episodes++;
        if (st) {
          o.total_listen_time += Math.floor(st.listen_duration ?? 0);
          const at = iso(st.last_listened_at);
          if (at && (!o.last_played || at > o.last_played)) o.last_played = at;
        }
      }
      return out;
    },
  },
  /**
   * Episodes by id as list items plus enclosure type and length, for one user: only those of their
   * podcasts (with include_unsubscribed, of any podcast). Batched for downloads and media.
   */
  episode_items: {
    visibility: "public",
    params: { user_id: id, episode_ids: { type: "array", items: "number", max: 10_000 }, include_unsubscribed: optionalBool },
    async handler(this: EpisodesThis, ctx: Ctx<{ user_id: number; episode_ids: number[]; include_unsubscribed?: boolean }>): Promise<EpisodeMediaItem[]> {
      const { user_id, episode_ids, include_unsubscribed } = ctx.params;
      const episodes: EpisodeDoc[] = await this.findByIds(this.adapter, episode_ids);
      const podcast_ids = Array.from(new Set(episodes.map((e) => e.podcast_id)));
      const subs = podcast_ids.length ? await userSubscriptions(ctx, { user_id, podcast_ids, include_unsubscribed: !!include_unsubscribed }) : [];
      const byPodcast = new Map(subs.map((s) => [s.podcast_id, s]));
      const states = await this.statesOf(
        user_id,
        episodes.map((e) => e._id),
      );
      return episodes
        .filter((e) => byPodcast.has(e.podcast_id))
        .map((e) => {
          const sub = byPodcast.get(e.podcast_id)!;
          const podcast = { podcast_artwork: sub.artwork_url, podcast_website: sub.website_url, podcast_index_id: sub.podcast_index_id };
          return { ...this.episodeItem(e, sub, states.get(e._id)), enclosure_type: e.enclosure_type, enclosure_length: e.enclosure_length, ...podcast };
        });
    },
  },
};
