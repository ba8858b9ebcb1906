/**
 * Feeds that move: a permanent redirect (301, 308) or an itunes:new-feed-url seen by a refresh moves the podcast to
 * its new URL for every subscriber (feeds.refresh_feed calls move_feed). It stays one podcast, with its episodes and
 * everyone's listening state; the old URL becomes an alias in `podcast_aliases` (keyed like feed_key: URL and
 * credentials), so subscribing to it, or a device uploading it, finds the same podcast. Sync servers hear of the
 * move (podcasts.feed_moved) and tell the phones. A move onto a URL another podcast here already has is not made
 * (two podcasts are not merged behind their subscribers' backs): it is logged, and both stay as they are.
 */
import type { ServiceActionsSchema, ServiceMethods } from "moleculer";
import { isDuplicateKeyError } from "../../shared/db.mixin";
import { redactUrl } from "../../shared/http";
import { isLocalFeed } from "../../shared/contracts/local";
import { podcastsFeedMoved } from "../../shared/contracts/podcasts";
import type { Ctx } from "../../shared/service-types";
import { feedKey, id, type AliasDoc, type PodcastDoc } from "./model";
import type { PodcastsThis } from "./this";

/** Earlier URLs kept on a podcast (each is also an alias): a feed that moves back and forth does not grow it. */
const FORMER_URLS = 10;

export const movesActions: ServiceActionsSchema = {
  // Internal (not in the route table).
  /** Moves the podcast to `url`, where its feed moved for good (feeds.refresh_feed). */
  move_feed: {
    visibility: "public",
    params: { podcast_id: id, url: { type: "url", max: 4000 } },
    async handler(this: PodcastsThis, ctx: Ctx<{ podcast_id: number; url: string }>): Promise<{ moved: boolean }> {
      const { podcast_id, url } = ctx.params;
      const pod: PodcastDoc | null = await this.adapter.findOne({ _id: podcast_id });
      if (!pod || pod.feed_url === url || isLocalFeed(pod.feed_url)) return { moved: false };
      const key = feedKey(url, pod.username, pod.password);
      const other = await this.podcastByKey(key);
      if (other && other._id !== pod._id) {
        this.logger.warn("feed moved to an address another podcast has: both kept", { podcast_id, other: other._id, to: redactUrl(url) });
        return { moved: false };
      }
      // The alias first: from now on the old address finds this podcast. One that is the new address goes (a feed moving back).
      await this.upsert(this.stores.podcast_aliases, pod.feed_key, { $set: { podcast_id, url: pod.feed_url } });
      await this.stores.podcast_aliases.removeMany({ _id: key });
      const former_urls = [...(pod.former_urls ?? []).filter((u) => u !== url && u !== pod.feed_url), pod.feed_url].slice(-FORMER_URLS);
      try {
        // Only from the record read: of two refreshes moving it at once, one does.
        if (!(await this.adapter.updateMany({ _id: podcast_id, feed_key: pod.feed_key }, { $set: { feed_key: key, feed_url: url, former_urls } })))
          return { moved: false };
      } catch (err) {
        if (isDuplicateKeyError(err)) return { moved: false }; // another podcast took that address meanwhile
        throw err;
      }
      this.logger.info("feed moved", { podcast_id, from: redactUrl(pod.feed_url), to: redactUrl(url) });
      // Sync servers know feeds without credentials only (feedsChanged's rule).
      if (!pod.username) {
        const subs = await this.findFields(this.stores.subscriptions, { podcast_id }, ["user_id"]);
        if (subs.length) void podcastsFeedMoved.emit(ctx, { podcast_id, old_url: pod.feed_url, new_url: url, user_ids: subs.map((s) => s.user_id) });
      }
      return { moved: true };
    },
  },
};

export const movesMethods: ServiceMethods = {
  /** The podcast of this feed key: the feed's own, else the one the key is a former address of. */
  async podcastByKey(this: PodcastsThis, key: string): Promise<PodcastDoc | null> {
    const own: PodcastDoc | null = await this.adapter.findOne({ feed_key: key });
    if (own) return own;
    const alias: AliasDoc | null = await this.stores.podcast_aliases.findById(key);
    return alias ? this.adapter.findOne({ _id: alias.podcast_id }) : null;
  },
  /** The podcasts of these URLs (without credentials): by feed URL, else as a former address. */
  async podcastsByUrls(this: PodcastsThis, urls: string[]): Promise<PodcastDoc[]> {
    const own: PodcastDoc[] = await this.adapter.find({ query: { feed_url: { $in: urls }, username: null } });
    const found = new Set(own.map((p) => p.feed_url));
    const rest = urls.filter((u) => !found.has(u));
    const aliases: AliasDoc[] = rest.length
      ? await this.findByIds(
          this.stores.podcast_aliases,
          rest.map((u) => feedKey(u, null, null)),
        )
      : [];
    const known = new Set(own.map((p) => p._id));
    const moved: PodcastDoc[] = aliases.length
      ? await this.findByIds(
          this.adapter,
          [...new Set(aliases.map((a) => a.podcast_id))].filter((i) => !known.has(i)),
        )
      : [];
    return [...own, ...moved];
  },
};
