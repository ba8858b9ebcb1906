/**
 * What the podcasts service's recommendations read of listening on this server (podcasts.parts/
 * recommend.ts): every user's listening summed per podcast, and for some podcasts their newest episodes
 * and who played them. Read from the cached catalogue and the stored states (findFields: only the
 * fields summed), never sent anywhere.
 */
import type { ServiceActionsSchema } from "moleculer";
import type { RecommendationEpisodes } from "../../shared/contracts/podcasts";
import type { CatalogRow } from "./catalog-index";
import { type EpisodeStateDoc, isPlayed } from "./model";
import type { Ctx } from "../../shared/service-types";
import type { EpisodesThis } from "./this";

const STATE_FIELDS = ["user_id", "episode_id", "podcast_id", "listen_duration", "completed"] as const;

export const recommendActions: ServiceActionsSchema = {
  /** Seconds heard and episodes completed, per user and podcast, over every user. */
  listening_totals: {
    visibility: "public",
    async handler(this: EpisodesThis): Promise<{ user_id: number; podcast_id: number; seconds: number; completed: number }[]> {
      const states: Pick<EpisodeStateDoc, (typeof STATE_FIELDS)[number]>[] = await this.findFields(this.stores.episode_states, {}, STATE_FIELDS);
      const sums = new Map<string, { user_id: number; podcast_id: number; seconds: number; completed: number }>();
      for (const st of states) {
        const key = `${st.user_id}:${st.podcast_id}`;
        const sum = sums.get(key) ?? { user_id: st.user_id, podcast_id: st.podcast_id, seconds: 0, completed: 0 };
        sum.seconds += st.listen_duration ?? 0;
        sum.completed += st.completed ? 1 : 0;
        sums.set(key, sum);
      }
      return [...sums.values()];
    },
  },
  /** The newest per_podcast episodes of each podcast, and every user's hearing of those. */
  recommendation_episodes: {
    visibility: "public",
    params: { podcast_ids: { type: "array", items: "number", max: 10_000 }, per_podcast: { type: "number", integer: true, min: 1, max: 1000 } },
    async handler(this: EpisodesThis, ctx: Ctx<{ podcast_ids: number[]; per_podcast: number }>): Promise<RecommendationEpisodes> {
      const { podcast_ids, per_podcast } = ctx.params;
      const rows: CatalogRow[] = podcast_ids.flatMap((p) => this.catalog.podcast(p).slice(0, per_podcast));
      const ids = rows.map((r) => r._id);
      const states: Pick<EpisodeStateDoc, (typeof STATE_FIELDS)[number]>[] = ids.length
        ? await this.findFields(this.stores.episode_states, { episode_id: { $in: ids } }, STATE_FIELDS)
        : [];
      const byId = new Map(rows.map((r) => [r._id, r]));
      return {
        episodes: rows.map((r) => ({ episode_id: r._id, podcast_id: r.podcast_id, pub: r.pub })),
        listens: states.map((st) => ({
          user_id: st.user_id,
          episode_id: st.episode_id,
          podcast_id: st.podcast_id,
          played: isPlayed(byId.get(st.episode_id)!, st as EpisodeStateDoc),
        })),
      };
    },
  },
};
