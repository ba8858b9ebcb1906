/**
 * Reads for the library extras: the episodes a user's own RSS feed lists (ids only, newest first; the
 * rss service reads their details with episode_items), and an episode's Podcasting 2.0 data (p20).
 */
import type { ServiceActionsSchema } from "moleculer";
import type { EpisodeP20 } from "../../shared/contracts/episodes";
import { userSubscriptions } from "../../shared/contracts/podcasts";
import type { Ctx, Query } from "../../shared/service-types";
import type { EpisodesThis } from "./this";

const DAY_MS = 86_400_000;

export const extrasActions: ServiceActionsSchema = {
  /** Newest episodes the user sees of their podcasts (or of podcast_ids among them), saved ones only with `saved`. */
  feed_episode_ids: {
    visibility: "public",
    params: {
      user_id: { type: "number", integer: true, positive: true },
      podcast_ids: { type: "array", items: "number", optional: true },
      saved: { type: "boolean", optional: true },
      limit: { type: "number", integer: true, min: 1, max: 1000 },
    },
    async handler(this: EpisodesThis, ctx: Ctx<{ user_id: number; podcast_ids?: number[]; saved?: boolean; limit: number }>): Promise<number[]> {
      const { user_id, podcast_ids, saved, limit } = ctx.params;
      const subs = await userSubscriptions(ctx, { user_id, ...(podcast_ids ? { podcast_ids } : {}) });
      if (!subs.length) return [];
      // Each podcast with the subscriber's own cutoff (feed_cutoff_days 0 keeps everything).
      const clauses = subs.map((s) =>
        s.feed_cutoff_days > 0
          ? { podcast_id: s.podcast_id, pub_date: { $gt: new Date(Date.now() - s.feed_cutoff_days * DAY_MS) } }
          : { podcast_id: s.podcast_id },
      );
      const query: Query = { $or: clauses };
      if (saved) {
        const states = await this.stores.episode_states.find({ query: { user_id, saved: true } });
        query._id = { $in: states.map((s) => s.episode_id) };
      }
      const docs = await this.adapter.find({ query, sort: ["-pub_date", "-_id"], limit });
      return docs.map((d) => d._id);
    },
  },
  /** An episode's Podcasting 2.0 data, for a user who sees it (an admin: any). 404 otherwise. */
  episode_p20: {
    visibility: "public",
    params: { user_id: { type: "number", integer: true, positive: true }, episode_id: { type: "number", integer: true, positive: true } },
    async handler(this: EpisodesThis, ctx: Ctx<{ user_id: number; episode_id: number }>): Promise<EpisodeP20> {
      const ep = await this.accessibleEpisode(ctx, ctx.params.user_id, ctx.params.episode_id);
      return { episode_id: ep._id, podcast_id: ep.podcast_id, title: ep.title, p20: ep.p20 };
    },
  },
};
