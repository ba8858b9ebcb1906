/**
 * Reads for the library extras: a whole library for OPML import and export (each subscription with
 * the feed it names, in one call), and a podcast's Podcasting 2.0 data.
 */
import type { ServiceActionsSchema } from "moleculer";
import type { Ctx } from "../../shared/service-types";
import type { PodcastsThis } from "./this";
import type { LibraryFeed, PodcastP20 } from "../../shared/contracts/podcasts";
import { id, PodcastDoc, shown, SubscriptionDoc } from "./model";

export const libraryActions: ServiceActionsSchema = {
  /** A user's subscriptions, oldest first: the title they see, the feed URL (and where it redirected), the website. */
  user_feeds: {
    visibility: "public",
    params: { user_id: id },
    async handler(this: PodcastsThis, ctx: Ctx<{ user_id: number }>): Promise<LibraryFeed[]> {
      const rows: { pod: PodcastDoc; sub: SubscriptionDoc }[] = await this.userPodcasts(ctx.params.user_id);
      return rows.reverse().map(({ pod, sub }) => {
        const s = shown(pod, sub);
        return { podcast_id: pod._id, title: s.title, feed_url: pod.feed_url, final_url: pod.final_url, website_url: s.website_url };
      });
    },
  },
  /** A podcast's Podcasting 2.0 channel data, for a subscriber (an admin: any podcast). 404 otherwise. */
  podcast_p20: {
    visibility: "public",
    params: { user_id: id, podcast_id: id },
    async handler(this: PodcastsThis, ctx: Ctx<{ user_id: number; podcast_id: number }>): Promise<PodcastP20> {
      const { pod } = await this.readable(ctx, ctx.params.user_id, ctx.params.podcast_id);
      return { podcast_id: pod._id, title: pod.title, p20: pod.p20 };
    },
  },
};
