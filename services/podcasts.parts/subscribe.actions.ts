/**
 * Subscribing and unsubscribing: a feed nobody has yet is fetched and imported (newest episodes before
 * the answer, the rest by an import_feed job), and a refresh records what it learnt of a changed feed.
 */
import type { ServiceActionsSchema, ServiceMethods } from "moleculer";
import { config } from "../../shared/config";
import { isDuplicateKeyError } from "../../shared/db.mixin";
import { ConflictError, ForbiddenError, NotFoundError } from "../../shared/errors";
import { redactUrl, rightsOf } from "../../shared/http";
import { newestEpisodeIds, syncEpisodes, type SyncResult } from "../../shared/contracts/episodes";
import { fetchFeed, type FetchedFeed } from "../../shared/contracts/feeds";
import type { SubscribeLocalParams } from "../../shared/contracts/local";
import type { AddCustomPodcastParams, ApplyFeedParams, FeedsChangedEvent, RefreshTarget } from "../../shared/contracts/podcasts";
import { podcastsFeedsChanged, subscriptionsRemoved } from "../../shared/contracts/podcasts";
import { isLocalFeed } from "../../shared/contracts/local";
import { CreateTaskParams, ImportFeedPayload, JOB_IMPORT_FEED, tasksCreate } from "../../shared/contracts/tasks";
import {
  byName,
  categoryMap,
  cutoffDays,
  Fallback,
  feedFields,
  FeedRef,
  feedKey,
  feedRef,
  feedUrl,
  id,
  newestFirst,
  podcastIndexId,
  PodcastDoc,
  SubscriptionDoc,
  text,
} from "./model";
import { AddCustomPodcastAnswer, type ClientPodcast, SubscribedAnswer } from "../../shared/contracts/podcasts";
import { SuccessAnswer, type Static } from "../../shared/contracts/answers";
import type { Caller, Emitter } from "../../shared/contracts/call";
import type { Ctx } from "../../shared/service-types";
import type { AnyCtx, PodcastsThis } from "./this";

/** add_podcast's podcast_values: the podcast as the client found it (its fields fill in what the feed lacks). */
interface PodcastValues {
  pod_feed_url: string;
  user_id: number;
  pod_title?: string;
  pod_artwork?: string;
  pod_author?: string;
  pod_description?: string;
  pod_website?: string;
  categories?: unknown;
  pod_episode_count?: number;
  pod_explicit?: boolean;
}

type ByName = { user_id: number; podcast_name: string; podcast_url: string };

/** The stored fields of a podcast that a feed refresh reads (podcasts.refresh_targets). */
const TARGET_FIELDS = ["feed_url", "username", "password", "etag", "last_modified", "content_hash", "fetch_rights"] as const;

export const subscribeActions: ServiceActionsSchema = {
  /** POST /api/data/add_podcast: subscribe podcast_values.user_id to pod_feed_url. */
  add_podcast: {
    params: {
      podcast_values: {
        type: "object",
        props: {
          pod_feed_url: feedUrl,
          user_id: id,
          pod_title: text(1000),
          pod_artwork: text(4000),
          pod_author: text(1000),
          pod_description: { type: "string", optional: true },
          pod_website: text(4000),
          categories: { type: "any", optional: true },
          pod_episode_count: { type: "number", optional: true, convert: true },
          pod_explicit: { type: "boolean", optional: true, convert: true },
        },
      },
      podcast_index_id: podcastIndexId,
    },
    response: SubscribedAnswer,
    async handler(this: PodcastsThis, ctx: Ctx<{ podcast_values: PodcastValues; podcast_index_id?: number | null }>): Promise<SubscribedAnswer> {
      const v = ctx.params.podcast_values;
      // The ownership middleware sees top-level user_id only; this one is nested.
      const caller = ctx.meta.user;
      if (caller && v.user_id !== caller.id && !caller.isAdmin) throw new ForbiddenError("You can only access your own data");
      return this.subscribe(ctx, v.user_id, feedRef(v.pod_feed_url, null, null), {
        podcast_index_id: ctx.params.podcast_index_id ?? null,
        feed_cutoff_days: 0,
        fallback: { title: v.pod_title, artwork_url: v.pod_artwork, author: v.pod_author, description: v.pod_description, website_url: v.pod_website },
      });
    },
  },
  /** POST /api/data/add_custom_podcast: a feed by URL, optionally behind HTTP Basic credentials. */
  add_custom_podcast: {
    params: {
      feed_url: feedUrl,
      user_id: id,
      username: { type: "string", max: 1000, optional: true },
      password: { type: "string", max: 1000, optional: true },
      youtube_channel: { type: "boolean", convert: true, optional: true },
      feed_cutoff: { ...cutoffDays, optional: true },
    },
    response: AddCustomPodcastAnswer,
    async handler(this: PodcastsThis, ctx: Ctx<AddCustomPodcastParams>): Promise<AddCustomPodcastAnswer> {
      const p = ctx.params;
      const answer: SubscribedAnswer = await this.subscribe(ctx, p.user_id, feedRef(p.feed_url, p.username || null, p.password ?? null), {
        podcast_index_id: null,
        feed_cutoff_days: p.feed_cutoff ?? 0,
        fallback: {},
      });
      return { ...answer, data: await this.clientPodcast(answer.podcast_id) };
    },
  },
  /** A local folder (local.add_local_podcast): feeds reads its `local:` feed URL through local.local_feed. */
  subscribe_local: {
    visibility: "public",
    params: { user_id: id, feed_url: { type: "string", pattern: /^local:./, max: 4000 } },
    async handler(this: PodcastsThis, ctx: Ctx<SubscribeLocalParams>): Promise<AddCustomPodcastAnswer> {
      const answer: SubscribedAnswer = await this.subscribe(
        ctx,
        ctx.params.user_id,
        { url: ctx.params.feed_url, username: null, password: null },
        { podcast_index_id: null, feed_cutoff_days: 0, fallback: {} },
      );
      return { ...answer, data: await this.clientPodcast(answer.podcast_id) };
    },
  },
  /** POST /api/data/remove_podcast: by the title the user sees (case-sensitive) and the feed URL. */
  remove_podcast: {
    params: byName,
    response: SuccessAnswer,
    async handler(this: PodcastsThis, ctx: Ctx<ByName>): Promise<Static<typeof SuccessAnswer>> {
      return this.removeByName(ctx, ctx.params);
    },
  },
  remove_podcast_name: {
    params: byName,
    response: SuccessAnswer,
    async handler(this: PodcastsThis, ctx: Ctx<ByName>): Promise<Static<typeof SuccessAnswer>> {
      return this.removeByName(ctx, ctx.params);
    },
  },
  remove_podcast_id: {
    params: { user_id: id, podcast_id: id, is_vidsite: { type: "boolean", convert: true, optional: true } },
    response: SuccessAnswer,
    async handler(this: PodcastsThis, ctx: Ctx<{ user_id: number; podcast_id: number; is_vidsite?: boolean }>): Promise<Static<typeof SuccessAnswer>> {
      const sub = await this.subscriptionOf(ctx.params.user_id, ctx.params.podcast_id);
      await this.unsubscribe(ctx, sub);
      return { success: true };
    },
  },
  // Internal (not in the route table).
  /** Podcasts to refresh, credentials included: those of podcast_ids, else every podcast with a subscriber. */
  refresh_targets: {
    visibility: "public",
    params: { podcast_ids: { type: "array", items: "number", optional: true } },
    async handler(this: PodcastsThis, ctx: Ctx<{ podcast_ids?: number[] }>): Promise<RefreshTarget[]> {
      let ids: number[] | undefined = ctx.params.podcast_ids;
      if (!ids) {
        const subs: Pick<SubscriptionDoc, "podcast_id">[] = await this.findFields(this.stores.subscriptions, {}, ["podcast_id"]);
        ids = Array.from(new Set(subs.map((s) => s.podcast_id)));
      }
      if (!ids.length) return [];
      // Only the fields a fetch needs: a refresh asks this once per feed, and a whole podcast document
      // (channel texts, Podcasting 2.0 data) parsed for each was most of the store's share of its time.
      const pods = (await this.findByIds(this.adapter, ids, TARGET_FIELDS)).sort((a, b) => a._id - b._id);
      return pods.map((p) => ({
        podcast_id: p._id,
        feed_url: p.feed_url,
        username: p.username,
        password: p.password,
        etag: p.etag,
        last_modified: p.last_modified,
        content_hash: p.content_hash,
        fetch_rights: p.fetch_rights ?? "user",
      }));
    },
  },
  /** Directory ids of the podcasts someone is subscribed to (people.refresh_hosts). */
  index_ids: {
    visibility: "public",
    params: {},
    async handler(this: PodcastsThis): Promise<number[]> {
      const subs: SubscriptionDoc[] = await this.stores.subscriptions.find({});
      const ids = Array.from(new Set(subs.map((s) => s.podcast_id)));
      const pods: PodcastDoc[] = ids.length ? await this.adapter.find({ query: { _id: { $in: ids }, podcast_index_id: { $gt: 0 } } }) : [];
      return Array.from(new Set(pods.map((p) => p.podcast_index_id!)));
    },
  },
  /** Records what a refresh of a changed feed learnt (channel fields, validators, hash, counts). */
  apply_feed: {
    visibility: "public",
    params: { podcast_id: id, fetched: "object", sync: "object" },
    async handler(this: PodcastsThis, ctx: Ctx<ApplyFeedParams>): Promise<{ success: boolean }> {
      await this.applyFeed(ctx.params.podcast_id, ctx.params.fetched, ctx.params.sync, true);
      return { success: true };
    },
  },
};

export const subscribeMethods: ServiceMethods = {
  /** A podcast as the web client reads the one it just added (its Podcast struct; categories as an object "1": name). */
  async clientPodcast(this: PodcastsThis, podcast_id: number): Promise<ClientPodcast> {
    const [pod]: PodcastDoc[] = await this.findByIds(this.adapter, [podcast_id]);
    return {
      podcastid: pod._id,
      podcastname: pod.title,
      artworkurl: pod.artwork_url,
      description: pod.description,
      episodecount: pod.episode_count,
      websiteurl: pod.website_url,
      feedurl: pod.feed_url,
      author: pod.author,
      categories: categoryMap(pod.categories),
      explicit: pod.explicit,
      podcastindexid: pod.podcast_index_id ?? 0,
    };
  },
  /** add_podcast and add_custom_podcast: the feed's record (found or created), then the subscription. */
  async subscribe(
    this: PodcastsThis,
    ctx: AnyCtx,
    user_id: number,
    feed: FeedRef,
    opts: { podcast_index_id: number | null; feed_cutoff_days: number; fallback: Fallback; origin?: string },
  ): Promise<SubscribedAnswer> {
    const { pod } = await this.podcastFor(ctx, feed, { ...opts, user_id });
    if (await this.stores.subscriptions.findOne({ key: `${user_id}:${pod._id}` })) throw new ConflictError("Podcast already subscribed");
    const sub: SubscriptionDoc = {
      _id: await this.nextId("subscriptions"),
      key: `${user_id}:${pod._id}`,
      user_id,
      podcast_id: pod._id,
      subscribed_date: new Date(),
      feed_cutoff_days: opts.feed_cutoff_days,
      auto_download: false,
      notifications_enabled: false,
      categories: null,
      overrides: {},
    };
    try {
      await this.stores.subscriptions.insert(sub);
    } catch (err) {
      if (isDuplicateKeyError(err)) throw new ConflictError("Podcast already subscribed");
      throw err;
    }
    this.logger.info("subscribed", { user_id, podcast_id: pod._id });
    this.feedsChanged(ctx, user_id, [pod], [], opts.origin);
    const newest: Record<number, number> = await newestEpisodeIds(ctx, { podcast_ids: [pod._id] });
    return { success: true, podcast_id: pod._id, first_episode_id: newest[pod._id] ?? 0 };
  },
  /**
   * The record of a feed, created from a fresh fetch when nobody has it: the newest episodes are stored
   * now, the rest by an import_feed job of user_id (startImport), which records the content hash that
   * marks the import complete.
   */
  async podcastFor(
    this: PodcastsThis,
    ctx: AnyCtx,
    feed: FeedRef,
    opts: { user_id: number; podcast_index_id: number | null; fallback: Fallback },
  ): Promise<{ pod: PodcastDoc }> {
    let key = feedKey(feed.url, feed.username, feed.password);
    // A feed's former address (it moved) finds the feed.
    let known: PodcastDoc | null = await this.podcastByKey(key);
    const rights = rightsOf(ctx.meta.user);
    if (known && (known.fetch_rights !== "admin" || rights === "admin")) return { pod: known };
    // A user joining an admin's feed: it must pass the user's policy now, exactly as if nobody had it.
    const fetched: FetchedFeed = await fetchFeed(ctx, { url: feed.url, username: feed.username ?? undefined, password: feed.password ?? undefined });
    // An address that moved for good: the feed is kept under its new one (a podcast there already is that podcast), the old one an alias.
    const oldKey = key;
    const url = (!known && fetched.moved_to) || feed.url;
    if (url !== feed.url) {
      key = feedKey(url, feed.username, feed.password);
      known = await this.podcastByKey(key);
      if (known) await this.upsert(this.stores.podcast_aliases, oldKey, { $set: { podcast_id: known._id, url: feed.url } });
    }
    if (known) {
      if (known.fetch_rights === "admin" && rights !== "admin") await this.adapter.updateMany({ _id: known._id }, { $set: { fetch_rights: "user" } });
      return { pod: known };
    }
    const parsed = fetched.feed!;
    const fields = feedFields(parsed);
    const fb = opts.fallback;
    const pod: PodcastDoc = {
      _id: await this.nextId("podcasts"),
      feed_key: key,
      feed_url: url,
      final_url: fetched.final_url,
      username: feed.username,
      password: feed.password,
      ...fields,
      title: fields.title || fb.title || feed.url,
      description: fields.description ?? fb.description ?? null,
      author: fields.author ?? fb.author ?? null,
      artwork_url: fields.artwork_url ?? fb.artwork_url ?? null,
      website_url: fields.website_url ?? fb.website_url ?? null,
      podcast_index_id: opts.podcast_index_id,
      etag: null,
      last_modified: null,
      content_hash: null,
      last_fetched_at: new Date(),
      episode_count: 0,
      last_episode_date: null,
      created_at: new Date(),
      fetch_rights: rights,
      ...(url !== feed.url ? { former_urls: [feed.url] } : {}),
    };
    try {
      await this.adapter.insert(pod);
    } catch (err) {
      // Two users adding the same new feed at once: the first record wins.
      if (isDuplicateKeyError(err)) return { pod: (await this.adapter.findOne({ feed_key: key }))! };
      throw err;
    }
    if (url !== feed.url) await this.upsert(this.stores.podcast_aliases, oldKey, { $set: { podcast_id: pod._id, url: feed.url } });
    this.logger.info("podcast added", { podcast_id: pod._id, feed_url: redactUrl(fetched.final_url) });
    const ordered = newestFirst(parsed.episodes);
    const recent = ordered.slice(0, config.addPodcastSyncEpisodes);
    // The channel without its episodes (synced apart).
    const { episodes: _all, ...channel } = parsed;
    const meta = { ...fetched, feed: channel };
    const first: SyncResult = await syncEpisodes(ctx, { podcast_id: pod._id, episodes: recent, announce: false });
    if (ordered.length > recent.length) {
      await this.applyFeed(pod._id, meta, first, false);
      await this.startImport(ctx, opts.user_id, pod);
    } else {
      await this.applyFeed(pod._id, meta, first, true);
    }
    return { pod };
  },
  /**
   * The older episodes of a new feed, as a durable job (house rule 6, docs/architecture.md). The job holds the podcast id
   * only: the worker has feeds refetch the whole feed (matching needs every guid of the document) and
   * apply it. Without a job (tasks unreachable) the next refresh completes the import.
   */
  async startImport(this: PodcastsThis, ctx: Caller, user_id: number, pod: PodcastDoc) {
    const job: CreateTaskParams = {
      task_type: JOB_IMPORT_FEED,
      user_id,
      payload: { podcast_id: pod._id } satisfies ImportFeedPayload,
      item_id: pod._id,
      podcast_name: pod.title,
      dedupe_key: `import:${pod._id}`,
    };
    try {
      await tasksCreate(ctx, { tasks: [job] });
    } catch (err) {
      this.logger.warn("episode import left for the next refresh", { podcast_id: pod._id, error: (err as Error)?.message });
    }
  },
  async applyFeed(this: PodcastsThis, podcast_id: number, fetched: ApplyFeedParams["fetched"], sync: SyncResult, complete: boolean) {
    const set: Record<string, unknown> = {
      ...feedFields(fetched.feed),
      final_url: fetched.final_url,
      episode_count: sync.total,
      last_episode_date: sync.last_episode_date,
      last_fetched_at: new Date(),
    };
    // Only a complete import records the validators: an incomplete one must look "changed" to the next refresh.
    if (complete) Object.assign(set, { etag: fetched.etag, last_modified: fetched.last_modified, content_hash: fetched.content_hash });
    const pod: PodcastDoc | null = await this.adapter.findOne({ _id: podcast_id });
    if (!pod) return;
    // Fields the feed lacks keep what add_podcast's podcast_values gave.
    for (const f of ["title", "description", "author", "artwork_url", "website_url"] as const) if (!set[f]) delete set[f];
    await this.adapter.updateMany({ _id: podcast_id }, { $set: set });
  },
  async removeByName(this: PodcastsThis, ctx: Emitter, p: ByName) {
    const found = await this.findByName(p.user_id, p.podcast_name, p.podcast_url);
    if (!found) throw new NotFoundError("Podcast not found in your subscriptions");
    await this.unsubscribe(ctx, found.sub);
    return { success: true };
  },
  async unsubscribe(this: PodcastsThis, ctx: Emitter, sub: SubscriptionDoc) {
    await this.stores.subscriptions.removeMany({ _id: sub._id });
    // Podcasts the user had merged into this one show on their own again.
    await this.stores.subscriptions.updateMany({ user_id: sub.user_id, merged_into: sub.podcast_id }, { $set: { merged_into: null } });
    this.logger.info("unsubscribed", { user_id: sub.user_id, podcast_id: sub.podcast_id });
    this.feedsChanged(ctx, sub.user_id, [], [await this.adapter.findOne({ _id: sub.podcast_id })]);
    // Owners of queue, history, saves, downloads and episode states remove theirs.
    void subscriptionsRemoved.emit(ctx, { user_id: sub.user_id, podcast_id: sub.podcast_id });
  },
  /** Tells sync servers (podcasts.feeds_changed) of feeds a user added or removed; those behind credentials and local folders are not theirs to know. */
  feedsChanged(this: PodcastsThis, ctx: Emitter, user_id: number, added: (PodcastDoc | null)[], removed: (PodcastDoc | null)[], origin?: string) {
    const urls = (pods: (PodcastDoc | null)[]) => pods.filter((p): p is PodcastDoc => !!p && !p.username && !isLocalFeed(p.feed_url)).map((p) => p.feed_url);
    const event: FeedsChangedEvent = { user_id, added: urls(added), removed: urls(removed), origin: origin ?? null };
    if (event.added.length || event.removed.length) void podcastsFeedsChanged.emit(ctx, event);
  },
};
