/**
 * GET /api/data/recommendations (PinePods' web client: podcasts you might like) and
 * /api/data/recommendations/episodes, for the key's owner, computed here by podcasts.parts/recommend.ts
 * from the podcasts and subscriptions of this server, every user's listening (episodes service), the
 * people the user follows (following service) and the people database's hosts (people service). A
 * ranking is kept RECOMMENDATIONS_TTL seconds per user on the node that made it; refresh=1 makes it again.
 */
import type { ServiceActionsSchema } from "moleculer";
import { config } from "../../shared/config";
import { episodeItems, listeningTotals, recommendationEpisodes, type EpisodeMediaItem } from "../../shared/contracts/episodes";
import { followedNames } from "../../shared/contracts/following";
import { podcastHosts } from "../../shared/contracts/people";
import type { Caller } from "../../shared/contracts/call";
import type { PodcastsThis } from "./this";
import { type RecommendationEpisodes, RecommendationsAnswer, RecommendedEpisodesAnswer, type RecommendedPodcast } from "../../shared/contracts/podcasts";
import type { AuthUser, GatewayMeta } from "../../shared/types";
import type { Context } from "moleculer";
import type { PodcastDoc, SubscriptionDoc } from "./model";
import { rankEpisodes, rankPodcasts, type RecListening, type RecScore, similarUsers } from "./recommend";

/** Routes of the key's owner: the gateway always sets the user. */
type Meta = GatewayMeta & { user: AuthUser };

/** A user's ranking as made at `at`. */
export interface Ranked {
  at: number;
  scores: RecScore[];
  subscriptions: [number, number][];
  mine: number[];
}

/** Recommended podcasts whose episodes are offered besides the user's own. */
const EPISODE_PODCASTS = 5;
/** Newest episodes of each podcast considered for episode recommendations. */
const EPISODES_PER_PODCAST = 50;

const limit = (max: number, dflt: number) => ({ type: "number", integer: true, min: 1, max, convert: true, optional: true, default: dflt });
const refresh = { type: "boolean", convert: true, optional: true };

export const recommendationsActions: ServiceActionsSchema = {
  recommendations: {
    idempotent: true,
    params: { refresh, limit: limit(100, 20) },
    response: RecommendationsAnswer,
    async handler(this: PodcastsThis, ctx: Context<{ refresh?: boolean; limit: number }, Meta>): Promise<RecommendationsAnswer> {
      const ranked: Ranked = await this.rankedFor(ctx, ctx.meta.user.id, !!ctx.params.refresh);
      const top = ranked.scores.slice(0, ctx.params.limit);
      const pods: PodcastDoc[] = await this.findByIds(
        this.adapter,
        top.map((s) => s.podcast_id),
      );
      const byId = new Map(pods.map((p) => [p._id, p]));
      return top
        .filter((s) => byId.has(s.podcast_id))
        .map((s): RecommendedPodcast => {
          const p = byId.get(s.podcast_id)!;
          return {
            podcast_id: p._id,
            podcastindexid: p.podcast_index_id,
            title: p.title,
            author: p.author,
            image: p.artwork_url,
            description: p.description,
            feedurl: p.feed_url,
            categories: Object.fromEntries(p.categories.map((c, n) => [String(n + 1), c])),
            score: Math.min(1, s.score),
            reason: s.reason,
          };
        });
    },
  },
  recommended_episodes: {
    idempotent: true,
    params: { refresh, limit: limit(200, 20) },
    response: RecommendedEpisodesAnswer,
    async handler(this: PodcastsThis, ctx: Context<{ refresh?: boolean; limit: number }, Meta>): Promise<RecommendedEpisodesAnswer> {
      const user_id = ctx.meta.user.id;
      const ranked: Ranked = await this.rankedFor(ctx, user_id, !!ctx.params.refresh);
      const others = ranked.scores.slice(0, EPISODE_PODCASTS);
      const affinity = new Map<number, number>([
        ...others.map((s): [number, number] => [s.podcast_id, s.score / others[0].score]),
        ...ranked.mine.map((p): [number, number] => [p, 1]),
      ]);
      const data: RecommendationEpisodes = await recommendationEpisodes(ctx, { podcast_ids: [...affinity.keys()], per_podcast: EPISODES_PER_PODCAST });
      const best = rankEpisodes(user_id, data.episodes, affinity, data.listens, similarUsers(user_id, ranked.subscriptions), Date.now()).slice(
        0,
        ctx.params.limit,
      );
      const items: EpisodeMediaItem[] = best.length
        ? await episodeItems(ctx, { user_id, episode_ids: best.map((b) => b.episode_id), include_unsubscribed: true })
        : [];
      const byId = new Map(items.map((e) => [e.episodeid, e]));
      const mine = new Set(ranked.mine);
      return {
        episodes: best
          .filter((b) => byId.has(b.episode_id))
          .map((b) => {
            const e = byId.get(b.episode_id)!;
            return {
              episodeid: e.episodeid,
              podcastid: e.podcastid,
              podcastname: e.podcastname,
              episodetitle: e.episodetitle,
              episodepubdate: e.episodepubdate,
              episodedescription: e.episodedescription,
              episodeartwork: e.episodeartwork,
              episodeurl: e.episodeurl,
              episodeduration: e.episodeduration,
              is_subscribed: mine.has(e.podcastid),
              score: Math.min(1, b.score),
              reason: b.reason,
            };
          }),
      };
    },
  },
};

export const recommendationsMethods = {
  /** The user's ranking: kept for RECOMMENDATIONS_TTL seconds unless refresh. */
  async rankedFor(this: PodcastsThis, ctx: Caller, user_id: number, refresh: boolean): Promise<Ranked> {
    this.recommendationCache ??= new Map<number, Ranked>();
    const kept: Ranked | undefined = this.recommendationCache.get(user_id);
    if (kept && !refresh && Date.now() - kept.at < config.recommendationsTtl * 1000) return kept;
    // moleculer's registry answers hasService; its types leave it out.
    const registry = this.broker.registry as typeof this.broker.registry & { hasService(name: string): boolean };
    const [pods, subs, listening, followed]: [PodcastDoc[], SubscriptionDoc[], RecListening[], string[]] = await Promise.all([
      this.adapter.find({}),
      this.stores.subscriptions.find({}),
      listeningTotals(ctx, {}),
      registry.hasService("following") ? followedNames(ctx, { user_id }) : Promise.resolve([]),
    ]);
    const indexIds = pods.map((p) => p.podcast_index_id).filter((i): i is number => !!i);
    const hosts: Record<number, { name?: unknown }[]> =
      indexIds.length && registry.hasService("people")
        ? ((await podcastHosts(ctx, { podcast_index_ids: indexIds })) as Record<number, { name?: unknown }[]>)
        : {};
    const names = (xs: unknown[]) => xs.filter((x): x is string => typeof x === "string");
    const subscriptions = subs.map((s): [number, number] => [s.user_id, s.podcast_id]);
    const ranked: Ranked = {
      at: Date.now(),
      subscriptions,
      mine: subs.filter((s) => s.user_id === user_id).map((s) => s.podcast_id),
      scores: rankPodcasts({
        user_id,
        podcasts: pods.map((p) => ({
          podcast_id: p._id,
          title: p.title,
          categories: p.categories ?? [],
          people: Array.from(
            new Set(names([...(p.p20?.persons ?? []).map((x: { name: string }) => x.name), ...(hosts[p.podcast_index_id ?? 0] ?? []).map((h) => h?.name)])),
          ),
        })),
        subscriptions,
        listening,
        followed,
      }),
    };
    this.recommendationCache.set(user_id, ranked);
    return ranked;
  },
};
