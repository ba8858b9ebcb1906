/**
 * Per-subscription settings: feed cutoff, categories, overrides of the feed's fields (or a move to
 * another feed), auto-download and cover preference.
 */
import type { ServiceActionsSchema, ServiceMethods } from "moleculer";
import { ConflictError, NotFoundError } from "../../shared/errors";
import { cutoffDays, feedKey, feedRef, feedUrl, id, OVERRIDABLE, podcastIndexId, SubscriptionDoc, text } from "./model";
import { AutoDownloadStatusAnswer, CategoriesAnswer, FeedCutoffAnswer, UpdatePodcastInfoAnswer } from "../../shared/contracts/podcasts";
import { DetailAnswer, type Static } from "../../shared/contracts/answers";
import { subscriptionsRemoved } from "../../shared/contracts/podcasts";
import type { Ctx } from "../../shared/service-types";
import type { PodcastsThis } from "./this";

type OfPodcast = { user_id: number; podcast_id: number };

/** update_podcast_info params: display fields become overrides; feed_url, username or password move the subscription. */
interface UpdatePodcastInfoParams {
  user_id: number;
  podcast_id: number;
  feed_url?: string;
  username?: string | null;
  password?: string | null;
  podcast_name?: string;
  description?: string;
  author?: string;
  artwork_url?: string;
  website_url?: string;
  podcast_index_id?: number | null;
}

export const settingsActions: ServiceActionsSchema = {
  /** POST /api/data/update_feed_cutoff_days: 0 keeps everything; otherwise older episodes are hidden from this user. */
  update_feed_cutoff_days: {
    params: { user_id: id, podcast_id: id, feed_cutoff_days: cutoffDays },
    response: DetailAnswer,
    async handler(this: PodcastsThis, ctx: Ctx<OfPodcast & { feed_cutoff_days: number }>): Promise<Static<typeof DetailAnswer>> {
      const sub = await this.subscriptionOf(ctx.params.user_id, ctx.params.podcast_id);
      await this.stores.subscriptions.updateMany({ _id: sub._id }, { $set: { feed_cutoff_days: ctx.params.feed_cutoff_days } });
      return { detail: "Feed cutoff days updated" };
    },
  },
  get_feed_cutoff_days: {
    idempotent: true,
    params: { user_id: id, podcast_id: id },
    response: FeedCutoffAnswer,
    async handler(this: PodcastsThis, ctx: Ctx<OfPodcast>): Promise<FeedCutoffAnswer> {
      const sub = await this.subscriptionOf(ctx.params.user_id, ctx.params.podcast_id);
      return { podcast_id: sub.podcast_id, user_id: sub.user_id, feed_cutoff_days: sub.feed_cutoff_days };
    },
  },
  /** POST /api/data/add_category: to this user's category list of the podcast. */
  add_category: {
    params: { user_id: id, podcast_id: id, category: text(200, false) },
    response: CategoriesAnswer,
    async handler(this: PodcastsThis, ctx: Ctx<OfPodcast & { category: string }>): Promise<CategoriesAnswer> {
      const categories = await this.editCategories(ctx.params, (list: string[]) =>
        list.includes(ctx.params.category) ? list : [...list, ctx.params.category],
      );
      return { detail: "Category added", categories };
    },
  },
  remove_category: {
    params: { user_id: id, podcast_id: id, category: text(200, false) },
    response: CategoriesAnswer,
    async handler(this: PodcastsThis, ctx: Ctx<OfPodcast & { category: string }>): Promise<CategoriesAnswer> {
      const categories = await this.editCategories(ctx.params, (list: string[]) => list.filter((c) => c !== ctx.params.category));
      return { detail: "Category removed", categories };
    },
  },
  /**
   * PUT /api/data/update_podcast_info: display fields become this user's overrides; a new feed URL or
   * new credentials move the subscription to that feed's record (fetched when nobody has it yet).
   */
  update_podcast_info: {
    params: {
      user_id: id,
      podcast_id: id,
      feed_url: { ...feedUrl, optional: true },
      username: { type: "string", max: 1000, optional: true, nullable: true },
      password: { type: "string", max: 1000, optional: true, nullable: true },
      podcast_name: text(1000),
      description: { type: "string", optional: true },
      author: text(1000),
      artwork_url: text(4000),
      website_url: text(4000),
      podcast_index_id: podcastIndexId,
    },
    response: UpdatePodcastInfoAnswer,
    async handler(this: PodcastsThis, ctx: Ctx<UpdatePodcastInfoParams>): Promise<UpdatePodcastInfoAnswer> {
      const p = ctx.params;
      const sub: SubscriptionDoc = await this.subscriptionOf(p.user_id, p.podcast_id);
      const set: Record<string, unknown> = {};
      const fields: Record<(typeof OVERRIDABLE)[number], unknown> = {
        title: p.podcast_name,
        description: p.description,
        author: p.author,
        artwork_url: p.artwork_url,
        website_url: p.website_url,
        podcast_index_id: p.podcast_index_id,
      };
      for (const f of OVERRIDABLE) if (fields[f] !== undefined && fields[f] !== null) set[`overrides.${f}`] = fields[f];
      if (p.feed_url !== undefined || p.username !== undefined || p.password !== undefined) {
        const pod = (await this.adapter.findOne({ _id: sub.podcast_id }))!;
        const inUrl = p.feed_url !== undefined ? feedRef(p.feed_url, null, null) : null;
        const url = inUrl?.url ?? pod.feed_url;
        const username = p.username !== undefined ? p.username || null : (inUrl?.username ?? pod.username);
        const password = username ? ((p.password !== undefined ? p.password : inUrl?.username ? inUrl.password : pod.password) ?? "") : null;
        if (feedKey(url, username, password) !== pod.feed_key) {
          const { pod: target } = await this.podcastFor(ctx, { url, username, password }, { user_id: p.user_id, podcast_index_id: null, fallback: {} });
          if (await this.stores.subscriptions.findOne({ key: `${p.user_id}:${target._id}` })) throw new ConflictError("Already subscribed to that feed");
          set.podcast_id = target._id;
          set.key = `${p.user_id}:${target._id}`;
          // The user's queue, history and states of the old feed's episodes go, as on unsubscribe.
          void subscriptionsRemoved.emit(ctx, { user_id: p.user_id, podcast_id: pod._id });
          this.feedsChanged(ctx, p.user_id, [target], [pod]);
        }
      }
      if (Object.keys(set).length) await this.stores.subscriptions.updateMany({ _id: sub._id }, { $set: set });
      return { success: true, message: "Podcast info updated", podcast_id: (set.podcast_id as number) ?? sub.podcast_id };
    },
  },
  enable_auto_download: {
    params: { user_id: id, podcast_id: id, auto_download: { type: "boolean", convert: true } },
    response: DetailAnswer,
    async handler(this: PodcastsThis, ctx: Ctx<OfPodcast & { auto_download: boolean }>): Promise<Static<typeof DetailAnswer>> {
      const sub = await this.subscriptionOf(ctx.params.user_id, ctx.params.podcast_id);
      await this.stores.subscriptions.updateMany({ _id: sub._id }, { $set: { auto_download: ctx.params.auto_download } });
      return { detail: `Auto-download ${ctx.params.auto_download ? "enabled" : "disabled"}` };
    },
  },
  get_auto_download_status: {
    params: { user_id: id, podcast_id: id },
    response: AutoDownloadStatusAnswer,
    async handler(this: PodcastsThis, ctx: Ctx<OfPodcast>): Promise<AutoDownloadStatusAnswer> {
      const sub = await this.subscriptionOf(ctx.params.user_id, ctx.params.podcast_id);
      return { auto_download: sub.auto_download };
    },
  },
  // Internal (not in the route table).
  /** set_global_podcast_cover_preference with a podcast_id (users service): stored on the subscription. */
  set_cover_preference: {
    visibility: "public",
    params: { user_id: id, podcast_id: id, use_podcast_covers: "boolean" },
    async handler(this: PodcastsThis, ctx: Ctx<OfPodcast & { use_podcast_covers: boolean }>): Promise<{ podcast_id: number }> {
      const sub = await this.subscriptionOf(ctx.params.user_id, ctx.params.podcast_id);
      await this.stores.subscriptions.updateMany({ _id: sub._id }, { $set: { use_podcast_covers: ctx.params.use_podcast_covers } });
      return { podcast_id: sub.podcast_id };
    },
  },
};

export const settingsMethods: ServiceMethods = {
  /** The subscription of one user and podcast, or 404. */
  async subscriptionOf(this: PodcastsThis, user_id: number, podcast_id: number): Promise<SubscriptionDoc> {
    const sub = await this.stores.subscriptions.findOne({ key: `${user_id}:${podcast_id}` });
    if (!sub) throw new NotFoundError("Podcast not found in your subscriptions");
    return sub;
  },
  async editCategories(this: PodcastsThis, p: { user_id: number; podcast_id: number }, edit: (list: string[]) => string[]): Promise<string[]> {
    const sub: SubscriptionDoc = await this.subscriptionOf(p.user_id, p.podcast_id);
    const pod = (await this.adapter.findOne({ _id: p.podcast_id }))!;
    const categories = edit(sub.categories ?? pod.categories);
    await this.stores.subscriptions.updateMany({ _id: sub._id }, { $set: { categories } });
    return categories;
  },
};
