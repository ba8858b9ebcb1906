/**
 * A subscriber's episode filter of a podcast (shared/episode-filter.ts: the rules and the one matcher), kept on
 * their subscription: GET and POST /api/data/podcast_filters, and the filters of a podcast's subscribers for
 * auto-download and auto-queue. The episodes service gets them with the subscription views (the inbox, the
 * filtered episode list). 404 unless the user is subscribed.
 */
import type { ServiceActionsSchema } from "moleculer";
import { BadRequestError } from "../../shared/errors";
import { type EpisodeFilter, FILTER_TEXT_MAX, isEmptyFilter, ruleError } from "../../shared/episode-filter";
import { PodcastFiltersAnswer } from "../../shared/contracts/podcasts";
import type { Ctx } from "../../shared/service-types";
import type { PodcastsThis } from "./this";
import { id, type SubscriptionDoc } from "./model";

type OfPodcast = { user_id: number; podcast_id: number };
type FiltersParams = OfPodcast & { include?: string; exclude?: string; min_duration?: number | null; max_duration?: number | null };

// Longer values are refused whole by the param check (400), never cut.
const rule = { type: "string", max: FILTER_TEXT_MAX, optional: true };
const seconds = { type: "number", integer: true, min: 0, max: 604_800, convert: true, optional: true, nullable: true };

function answer(podcast_id: number, f: EpisodeFilter | null | undefined): PodcastFiltersAnswer {
  return { podcast_id, include: f?.include ?? "", exclude: f?.exclude ?? "", min_duration: f?.min_duration ?? null, max_duration: f?.max_duration ?? null };
}

export const filtersActions: ServiceActionsSchema = {
  /** GET /api/data/podcast_filters */
  podcast_filters: {
    idempotent: true,
    params: { user_id: id, podcast_id: id },
    response: PodcastFiltersAnswer,
    async handler(this: PodcastsThis, ctx: Ctx<OfPodcast>): Promise<PodcastFiltersAnswer> {
      const sub: SubscriptionDoc = await this.subscriptionOf(ctx.params.user_id, ctx.params.podcast_id);
      return answer(sub.podcast_id, sub.filters);
    },
  },
  /** POST /api/data/podcast_filters: the whole filter (a field not sent is cleared); checked before anything is written. */
  set_podcast_filters: {
    params: { user_id: id, podcast_id: id, include: rule, exclude: rule, min_duration: seconds, max_duration: seconds },
    response: PodcastFiltersAnswer,
    async handler(this: PodcastsThis, ctx: Ctx<FiltersParams>): Promise<PodcastFiltersAnswer> {
      const p = ctx.params;
      const f: EpisodeFilter = {
        include: (p.include ?? "").trim(),
        exclude: (p.exclude ?? "").trim(),
        min_duration: p.min_duration ?? null,
        max_duration: p.max_duration ?? null,
      };
      for (const field of ["include", "exclude"] as const) {
        const wrong = ruleError(f[field]);
        if (wrong) throw new BadRequestError(`${field}: ${wrong}`);
      }
      if (f.min_duration !== null && f.max_duration !== null && f.min_duration > f.max_duration)
        throw new BadRequestError("min_duration is above max_duration");
      const sub: SubscriptionDoc = await this.subscriptionOf(p.user_id, p.podcast_id);
      const filters = isEmptyFilter(f) ? null : f;
      await this.stores.subscriptions.updateMany({ _id: sub._id }, { $set: { filters } });
      return answer(sub.podcast_id, filters);
    },
  },
  /** Internal: the filters of these subscribers of a podcast, those who set one (auto-download, auto-queue). */
  subscriber_filters: {
    visibility: "public",
    params: { podcast_id: id, user_ids: { type: "array", items: "number", max: 100_000 } },
    async handler(this: PodcastsThis, ctx: Ctx<{ podcast_id: number; user_ids: number[] }>): Promise<Record<number, EpisodeFilter>> {
      const { podcast_id, user_ids } = ctx.params;
      if (!user_ids.length) return {};
      const subs: SubscriptionDoc[] = await this.stores.subscriptions.find({ query: { podcast_id, user_id: { $in: user_ids } } });
      return Object.fromEntries(subs.filter((s) => s.filters).map((s) => [s.user_id, s.filters!]));
    },
  },
};
