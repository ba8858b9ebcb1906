/**
 * Merged podcasts, per user: a user folds podcasts they subscribe to (the same show under two feeds,
 * say) into one primary. A merged subscription stays (its settings, its episodes) but is marked
 * merged_into the primary: return_pods shows only the primary and the primary's episode list holds
 * the episodes of both. Unmerge clears the mark. Other subscribers of the same feeds see nothing of it.
 */
import type { ServiceActionsSchema } from "moleculer";
import { BadRequestError, NotFoundError } from "../../shared/errors";
import type { SubscriptionView } from "../../shared/contracts/podcasts";
import { id, PodcastDoc, SubscriptionDoc } from "./model";
import { MergedPodcastsAnswer } from "../../shared/contracts/podcasts";
import { SuccessMessageAnswer, type Static } from "../../shared/contracts/answers";
import type { Ctx } from "../../shared/service-types";
import type { PodcastsThis } from "./this";

async function ownSubscription(self: PodcastsThis, user_id: number, podcast_id: number): Promise<SubscriptionDoc> {
  const sub: SubscriptionDoc | null = await self.stores.subscriptions.findOne({ key: `${user_id}:${podcast_id}` });
  if (!sub) throw new NotFoundError(`Podcast ${podcast_id} not found in your subscriptions`);
  return sub;
}

export const mergeActions: ServiceActionsSchema = {
  /** POST /api/data/{podcast_id}/merge: secondary_podcast_ids into podcast_id, for the caller. */
  merge_podcasts: {
    params: { podcast_id: id, secondary_podcast_ids: { type: "array", items: id, min: 1, max: 100 } },
    response: SuccessMessageAnswer,
    async handler(this: PodcastsThis, ctx: Ctx<{ podcast_id: number; secondary_podcast_ids: number[] }>): Promise<Static<typeof SuccessMessageAnswer>> {
      const user_id = ctx.meta.user!.id;
      const { podcast_id } = ctx.params;
      const secondary: number[] = Array.from(new Set<number>(ctx.params.secondary_podcast_ids));
      if (secondary.includes(podcast_id)) throw new BadRequestError("A podcast cannot be merged into itself");
      const primary = await ownSubscription(this, user_id, podcast_id);
      if (primary.merged_into) throw new BadRequestError(`Podcast ${podcast_id} is merged into ${primary.merged_into}: merge into that one`);
      const subs: SubscriptionDoc[] = await this.stores.subscriptions.find({ query: { user_id, podcast_id: { $in: secondary } } });
      const missing = secondary.filter((p) => !subs.some((s) => s.podcast_id === p));
      if (missing.length) throw new NotFoundError(`Podcasts ${missing.join(", ")} not found in your subscriptions`);
      // What was merged into a secondary moves up to the primary: merges stay one level deep.
      await this.stores.subscriptions.updateMany({ user_id, merged_into: { $in: secondary } }, { $set: { merged_into: podcast_id } });
      await this.stores.subscriptions.updateMany({ user_id, podcast_id: { $in: secondary } }, { $set: { merged_into: podcast_id } });
      this.logger.info("podcasts merged", { user_id, podcast_id, merged: secondary.length });
      return { success: true, message: `Merged ${secondary.length} podcast(s) into podcast ${podcast_id}` };
    },
  },
  /** GET /api/data/{podcast_id}/merged */
  get_merged_podcasts: {
    idempotent: true,
    params: { podcast_id: id },
    response: MergedPodcastsAnswer,
    async handler(this: PodcastsThis, ctx: Ctx<{ podcast_id: number }>): Promise<MergedPodcastsAnswer> {
      const user_id = ctx.meta.user!.id;
      await ownSubscription(this, user_id, ctx.params.podcast_id);
      const subs: SubscriptionDoc[] = await this.stores.subscriptions.find({ query: { user_id, merged_into: ctx.params.podcast_id }, sort: ["podcast_id"] });
      return { merged_podcast_ids: subs.map((s) => s.podcast_id) };
    },
  },
  /** POST /api/data/{podcast_id}/unmerge/{target_podcast_id} */
  unmerge_podcast: {
    params: { podcast_id: id, target_podcast_id: id },
    response: SuccessMessageAnswer,
    async handler(this: PodcastsThis, ctx: Ctx<{ podcast_id: number; target_podcast_id: number }>): Promise<Static<typeof SuccessMessageAnswer>> {
      const user_id = ctx.meta.user!.id;
      const { podcast_id, target_podcast_id } = ctx.params;
      const target = await ownSubscription(this, user_id, target_podcast_id);
      if (target.merged_into !== podcast_id) throw new NotFoundError(`Podcast ${target_podcast_id} is not merged into ${podcast_id}`);
      await this.stores.subscriptions.updateMany({ _id: target._id }, { $set: { merged_into: null } });
      return { success: true, message: `Podcast ${target_podcast_id} unmerged from podcast ${podcast_id}` };
    },
  },
  // Internal (not in the route table).
  /** The user's subscriptions merged into podcast_id (the episodes service lists their episodes with it). */
  merged_views: {
    visibility: "public",
    params: { user_id: id, podcast_id: id },
    async handler(this: PodcastsThis, ctx: Ctx<{ user_id: number; podcast_id: number }>): Promise<SubscriptionView[]> {
      const subs: SubscriptionDoc[] = await this.stores.subscriptions.find({ query: { user_id: ctx.params.user_id, merged_into: ctx.params.podcast_id } });
      if (!subs.length) return [];
      const pods: PodcastDoc[] = await this.adapter.find({ query: { _id: { $in: subs.map((s) => s.podcast_id) } } });
      const byId = new Map(pods.map((p) => [p._id, p]));
      return subs.filter((s) => byId.has(s.podcast_id)).map((s) => this.view(byId.get(s.podcast_id)!, s));
    },
  },
};
