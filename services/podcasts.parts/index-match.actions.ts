/**
 * Podcast index matching: a subscription whose podcast (under the user's own overrides) has no podcast
 * index id is "unmatched" (clients offer to find it in the directory), unless the user chose to ignore
 * that, then it is "ignored". The ignore flag is per user, on the subscription.
 */
import type { ServiceActionsSchema } from "moleculer";
import type { Ctx } from "../../shared/service-types";
import type { PodcastsThis } from "./this";
import { id, PodcastDoc, shown, SubscriptionDoc } from "./model";
import { setter } from "./playback.actions";
import { IndexMatchAnswer } from "../../shared/contracts/podcasts";

interface IndexMatchItem {
  podcast_id: number;
  podcast_name: string;
  artwork_url: string | null;
  author: string | null;
  description: string | null;
  feed_url: string;
}

/** The user's own (not merged away) subscriptions without a podcast index id, ignored or not, by podcast id. */
async function withoutIndexId(self: PodcastsThis, user_id: number, ignored: boolean): Promise<IndexMatchItem[]> {
  const rows: { pod: PodcastDoc; sub: SubscriptionDoc }[] = await self.listedPodcasts(user_id);
  const out: IndexMatchItem[] = [];
  for (const { pod, sub } of rows.filter((r) => !!r.sub.index_id_ignored === ignored).sort((a, b) => a.pod._id - b.pod._id)) {
    const v = shown(pod, sub);
    if (v.podcast_index_id) continue; // null, absent or 0: not matched
    out.push({ podcast_id: pod._id, podcast_name: v.title, artwork_url: v.artwork_url, author: v.author, description: v.description, feed_url: pod.feed_url });
  }
  return out;
}

export const indexMatchActions: ServiceActionsSchema = {
  /** POST /api/data/get_unmatched_podcasts */
  get_unmatched_podcasts: {
    params: { user_id: id },
    response: IndexMatchAnswer,
    async handler(this: PodcastsThis, ctx: Ctx<{ user_id: number }>): Promise<IndexMatchAnswer> {
      return { podcasts: await withoutIndexId(this, ctx.params.user_id, false) };
    },
  },
  /** POST /api/data/get_ignored_podcasts */
  get_ignored_podcasts: {
    params: { user_id: id },
    response: IndexMatchAnswer,
    async handler(this: PodcastsThis, ctx: Ctx<{ user_id: number }>): Promise<IndexMatchAnswer> {
      return { podcasts: await withoutIndexId(this, ctx.params.user_id, true) };
    },
  },
  /** POST /api/data/update_podcast_index_id: the user's match set by hand (their override of the id; no longer ignored). */
  update_podcast_index_id: setter<{ podcast_index_id: number }>(
    { podcast_index_id: { type: "number", integer: true, min: 1, max: 2147483647, convert: true } },
    (p) => ({ "overrides.podcast_index_id": p.podcast_index_id, index_id_ignored: false }) as Partial<SubscriptionDoc>,
    () => "Podcast index ID updated",
  ),
  /** POST /api/data/ignore_podcast_index_id: ignore true leaves the podcast out of the unmatched list, false puts it back. */
  ignore_podcast_index_id: setter<{ ignore: boolean }>(
    { ignore: { type: "boolean", convert: true } },
    (p) => ({ index_id_ignored: p.ignore }),
    (p) => `Podcast index ID requirement ${p.ignore ? "ignored" : "unignored"}`,
  ),
};
