/**
 * Reads of a whole library for the services that move it in and out (OPML import and export): each
 * subscription with the feed it names, in one call.
 */
import type { Context, ServiceActionsSchema } from "moleculer";
import type { LibraryFeed } from "../../shared/contracts/podcasts";
import { id, PodcastDoc, shown, SubscriptionDoc } from "./model";

export const libraryActions: ServiceActionsSchema = {
  /** A user's subscriptions, oldest first: the title they see, the feed URL (and where it redirected), the website. */
  user_feeds: {
    visibility: "public",
    params: { user_id: id },
    async handler(this: any, ctx: Context<{ user_id: number }>): Promise<LibraryFeed[]> {
      const rows: { pod: PodcastDoc; sub: SubscriptionDoc }[] = await this.userPodcasts(ctx.params.user_id);
      return rows.reverse().map(({ pod, sub }) => {
        const s = shown(pod, sub);
        return { podcast_id: pod._id, title: s.title, feed_url: pod.feed_url, final_url: pod.final_url, website_url: s.website_url };
      });
    },
  },
};
