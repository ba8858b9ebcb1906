/**
 * What a user reads of their podcasts: lists, details, lookups by name, and the subscription views
 * other services ask for.
 */
import type { ServiceActionsSchema, ServiceMethods } from "moleculer";
import { NotFoundError } from "../../shared/errors";
import { recentEpisodes, userPodcastStats, type PodcastUserStats } from "../../shared/contracts/episodes";
import { fetchFeed, type FetchedFeed } from "../../shared/contracts/feeds";
import type { PodcastListItem, SubscriptionView } from "../../shared/contracts/podcasts";
import type { Ctx, Query } from "../../shared/service-types";
import type { AnyCtx, PodcastsThis, PodRow } from "./this";
import { isVidsiteFeed } from "../../shared/contracts/vidsite";
import { byName, categoryMap, feedFields, feedRef, id, iso, PodcastDoc, shown, type Shown, SubscriptionDoc, text, VIEW_FIELDS, type ViewDoc } from "./model";
import {
  ExistsAnswer,
  PodcastDetailsAnswer,
  PodcastDetailsDynamicAnswer,
  PodcastIdAnswer,
  ReturnPodsAnswer,
  ReturnPodsExtraAnswer,
} from "../../shared/contracts/podcasts";

type DynamicFields = Omit<PodcastDetailsDynamicAnswer, "description" | "author" | "artworkurl" | "websiteurl" | "categories" | "is_youtube"> &
  Record<"description" | "author" | "artworkurl" | "websiteurl", string | null | undefined> & { categories: string[] };

/**
 * get_podcast_details_dynamic's record as both PinePods clients read it: text fields "" when the feed has none
 * (web: String; mobile: `?? ''`), categories as the object "1": "Name" (web: HashMap, mobile: Map<String, String>),
 * is_vidsite also as is_youtube.
 */
function dynamicDetails(d: DynamicFields): PodcastDetailsDynamicAnswer {
  return {
    ...d,
    description: d.description ?? "",
    author: d.author ?? "",
    artworkurl: d.artworkurl ?? "",
    websiteurl: d.websiteurl ?? "",
    categories: categoryMap(d.categories),
    is_youtube: d.is_vidsite,
  };
}

/** dynamicDetails of a stored podcast as the user sees it; its index id, else `index_id`. */
function storedDetails(pod: PodcastDoc, s: Shown, index_id: number): PodcastDetailsDynamicAnswer {
  return dynamicDetails({
    podcastid: pod._id,
    podcastname: s.title,
    feedurl: pod.feed_url,
    description: s.description,
    author: s.author,
    artworkurl: s.artwork_url,
    explicit: pod.explicit,
    episodecount: pod.episode_count,
    categories: s.categories,
    websiteurl: s.website_url,
    podcastindexid: s.podcast_index_id ?? index_id,
    is_vidsite: isVidsiteFeed(pod.feed_url),
  });
}

export const readActions: ServiceActionsSchema = {
  /** GET /api/data/return_pods/{user_id}: newest subscription first. */
  return_pods: {
    idempotent: true,
    // Not in the spec, all optional (without them the whole library, as documented): a page of the list, by
    // title, and the titles or authors holding `search`; total counts what matched, so a client can page.
    params: {
      user_id: id,
      limit: { type: "number", integer: true, min: 1, max: 500, convert: true, optional: true },
      offset: { type: "number", integer: true, min: 0, convert: true, optional: true },
      search: { type: "string", max: 200, trim: true, optional: true },
    },
    response: ReturnPodsAnswer,
    async handler(this: PodcastsThis, ctx: Ctx<{ user_id: number; limit?: number; offset?: number; search?: string }>): Promise<ReturnPodsAnswer> {
      const { limit, offset = 0, search } = ctx.params;
      let rows: PodRow[] = await this.listedPodcasts(ctx.params.user_id);
      if (search || limit !== undefined) {
        const needle = (search ?? "").toLowerCase();
        const titled = rows.map((r) => ({ r, v: shown(r.pod, r.sub) }));
        const matched = needle ? titled.filter(({ v }) => v.title.toLowerCase().includes(needle) || (v.author ?? "").toLowerCase().includes(needle)) : titled;
        rows = matched.sort((a, b) => a.v.title.localeCompare(b.v.title) || a.r.pod._id - b.r.pod._id).map(({ r }) => r);
      }
      const total = rows.length;
      const page = limit === undefined ? rows.slice(offset) : rows.slice(offset, offset + limit);
      return { pods: page.map(({ pod, sub }) => this.podItem(pod, sub)), total };
    },
  },
  /** GET /api/data/return_pods_extra/{user_id}: return_pods plus the user's listening figures. */
  return_pods_extra: {
    idempotent: true,
    params: { user_id: id },
    response: ReturnPodsExtraAnswer,
    async handler(this: PodcastsThis, ctx: Ctx<{ user_id: number }>): Promise<ReturnPodsExtraAnswer> {
      const rows: PodRow[] = await this.listedPodcasts(ctx.params.user_id);
      const stats: Record<number, PodcastUserStats> = rows.length
        ? await userPodcastStats(ctx, { user_id: ctx.params.user_id, subscriptions: rows.map(({ pod, sub }) => this.view(pod, sub)) })
        : {};
      return {
        pods: rows.map(({ pod, sub }) => ({
          ...this.podItem(pod, sub),
          ...stats[pod._id],
          auto_download: sub.auto_download,
          notifications_enabled: sub.notifications_enabled,
          feed_cutoff_days: sub.feed_cutoff_days,
          is_favorite: !!sub.is_favorite,
        })),
      };
    },
  },
  /** GET /api/data/check_podcast */
  check_podcast: {
    idempotent: true,
    params: byName,
    response: ExistsAnswer,
    async handler(this: PodcastsThis, ctx: Ctx<{ user_id: number; podcast_name: string; podcast_url: string }>): Promise<ExistsAnswer> {
      return { exists: !!(await this.findByName(ctx.params.user_id, ctx.params.podcast_name, ctx.params.podcast_url)) };
    },
  },
  /** GET /api/data/get_podcast_id: the id travels in a field named episodes (the documents), and as podcast_id (PinePods' clients). */
  get_podcast_id: {
    idempotent: true,
    params: { user_id: id, podcast_feed: text(4000, false), podcast_title: text(1000, false) },
    response: PodcastIdAnswer,
    async handler(this: PodcastsThis, ctx: Ctx<{ user_id: number; podcast_feed: string; podcast_title: string }>): Promise<PodcastIdAnswer> {
      const found = await this.findByName(ctx.params.user_id, ctx.params.podcast_title, ctx.params.podcast_feed);
      if (!found) throw new NotFoundError("Podcast not found in your subscriptions");
      return { episodes: found.pod._id, podcast_id: found.pod._id };
    },
  },
  /** GET /api/data/get_podcast_details */
  get_podcast_details: {
    idempotent: true,
    params: { user_id: id, podcast_id: id },
    response: PodcastDetailsAnswer,
    async handler(this: PodcastsThis, ctx: Ctx<{ user_id: number; podcast_id: number }>): Promise<PodcastDetailsAnswer> {
      const { pod, sub } = await this.readable(ctx, ctx.params.user_id, ctx.params.podcast_id);
      const s = shown(pod, sub);
      const recent_episodes = await recentEpisodes(ctx, { user_id: ctx.params.user_id, podcast_id: pod._id, feed_cutoff_days: sub?.feed_cutoff_days ?? 0 });
      return {
        podcast: {
          podcast_id: pod._id,
          title: s.title,
          description: s.description,
          artwork_url: s.artwork_url,
          feed_url: pod.feed_url,
          website_url: s.website_url,
          author: s.author,
          email: pod.owner_email,
          categories: s.categories,
          language: pod.language,
          explicit: pod.explicit,
          total_episodes: pod.episode_count,
          last_build_date: pod.last_build_date,
          subscribed_date: iso(sub?.subscribed_date),
          auto_download: !!sub?.auto_download,
          notifications_enabled: !!sub?.notifications_enabled,
          custom_playback_speed: sub?.playback_speed ?? null,
          use_podcast_covers: sub?.use_podcast_covers ?? null,
        },
        recent_episodes,
        details: {
          ...storedDetails(pod, s, 0),
          userid: ctx.params.user_id,
          isyoutubechannel: isVidsiteFeed(pod.feed_url),
        },
      };
    },
  },
  /**
   * GET /api/data/get_podcast_details_dynamic: the stored record when the user has the feed, else the
   * feed fetched and parsed now without storing anything (podcastid 0).
   */
  get_podcast_details_dynamic: {
    idempotent: true,
    params: {
      user_id: id,
      podcast_title: text(1000, false),
      podcast_url: { type: "string", trim: true, min: 1, max: 4000 },
      podcast_index_id: { type: "number", integer: true, convert: true },
      added: { type: "boolean", convert: true },
      display_only: { type: "boolean", convert: true, optional: true },
    },
    response: PodcastDetailsDynamicAnswer,
    async handler(
      this: PodcastsThis,
      ctx: Ctx<{ user_id: number; podcast_title: string; podcast_url: string; podcast_index_id: number; added: boolean; display_only?: boolean }>,
    ): Promise<PodcastDetailsDynamicAnswer> {
      const p = ctx.params;
      const subs: SubscriptionDoc[] = await this.stores.subscriptions.find({ query: { user_id: p.user_id } });
      const feed = feedRef(p.podcast_url, null, null);
      const pods: PodcastDoc[] = subs.length ? await this.adapter.find({ query: { _id: { $in: subs.map((s) => s.podcast_id) }, feed_url: feed.url } }) : [];
      if (pods.length) {
        const pod = pods[0];
        const s = shown(
          pod,
          subs.find((x) => x.podcast_id === pod._id)!,
        );
        return storedDetails(pod, s, p.podcast_index_id);
      }
      const fetched: FetchedFeed = await fetchFeed(ctx, { url: feed.url, username: feed.username ?? undefined, password: feed.password ?? undefined });
      const f = feedFields(fetched.feed!);
      return dynamicDetails({
        podcastid: 0,
        podcastname: f.title || p.podcast_title,
        feedurl: feed.url,
        description: f.description,
        author: f.author,
        artworkurl: f.artwork_url,
        explicit: f.explicit,
        episodecount: fetched.feed!.episodes.length,
        categories: f.categories,
        websiteurl: f.website_url,
        podcastindexid: p.podcast_index_id,
        is_vidsite: isVidsiteFeed(feed.url),
      });
    },
  },
  // Internal (not in the route table).
  /**
   * A user's subscriptions (all, or of podcast_ids), newest first. With include_unsubscribed (admins),
   * podcasts of podcast_ids the user has no subscription to come back too, with no cutoff.
   */
  user_subscriptions: {
    visibility: "public",
    params: { user_id: id, podcast_ids: { type: "array", items: "number", optional: true }, include_unsubscribed: { type: "boolean", optional: true } },
    async handler(
      this: PodcastsThis,
      ctx: Ctx<{ user_id: number; podcast_ids?: number[]; include_unsubscribed?: boolean }>,
    ): Promise<readonly SubscriptionView[]> {
      const { user_id, podcast_ids, include_unsubscribed } = ctx.params;
      // All of a user's views are asked on every list read (episodes service): kept until either store is written.
      const mark: string | null = podcast_ids ? null : this.storesMark(this.adapter, this.stores.subscriptions);
      const kept = mark && this.viewsByUser.get(user_id);
      if (kept && kept.mark === mark) {
        // Read again: to the end of the line of users who leave first.
        this.viewsByUser.delete(user_id);
        this.viewsByUser.set(user_id, kept);
        return kept.views;
      }
      const query: Query = { user_id };
      if (podcast_ids) query.podcast_id = { $in: podcast_ids };
      const subs: SubscriptionDoc[] = await this.stores.subscriptions.find({ query, sort: ["-subscribed_date", "-_id"] });
      const wanted = include_unsubscribed && podcast_ids ? podcast_ids : subs.map((s) => s.podcast_id);
      // Only what a view shows (kept below: no descriptions or Podcasting 2.0 data held with it).
      const pods: ViewDoc[] = await this.findByIds(this.adapter, wanted, VIEW_FIELDS);
      const bySub = new Map(subs.map((s) => [s.podcast_id, s]));
      const views: SubscriptionView[] = pods.map((p) => this.view(p, bySub.get(p._id) ?? null));
      if (mark) this.keepViews(user_id, mark, views);
      return views;
    },
  },
  /** Users with auto_download on for a podcast (downloads of new episodes). */
  auto_download_users: {
    visibility: "public",
    params: { podcast_id: id },
    async handler(this: PodcastsThis, ctx: Ctx<{ podcast_id: number }>): Promise<number[]> {
      const subs: SubscriptionDoc[] = await this.stores.subscriptions.find({ query: { podcast_id: ctx.params.podcast_id, auto_download: true } });
      return subs.map((s) => s.user_id);
    },
  },
};

/** Views kept in all (user_subscriptions), ~300 bytes each: the most recent users' until there are more. */
const KEPT_VIEWS = 100_000;

export const readMethods: ServiceMethods = {
  /**
   * Keeps a user's views for the next call; frozen, since a local call hands the very objects to the caller
   * (one that changed them would change every later answer: it throws instead).
   */
  keepViews(this: PodcastsThis, user_id: number, mark: string, views: SubscriptionView[]): void {
    for (const v of views) {
      Object.freeze(v.categories);
      Object.freeze(v);
    }
    const kept = this.viewsByUser;
    kept.delete(user_id);
    kept.set(user_id, { mark, views: Object.freeze(views) });
    let total = 0;
    for (const k of kept.values()) total += k.views.length;
    // The least recently read users leave first (a Map keeps insertion order); the newest always stays.
    for (const [id, k] of kept) {
      if (total <= KEPT_VIEWS || id === user_id) break;
      kept.delete(id);
      total -= k.views.length;
    }
  },
  /** A podcast the user may read: subscribed, or any existing one for an admin (sub null then). */
  async readable(this: PodcastsThis, ctx: AnyCtx, user_id: number, podcast_id: number): Promise<{ pod: PodcastDoc; sub: SubscriptionDoc | null }> {
    const sub: SubscriptionDoc | null = await this.stores.subscriptions.findOne({ key: `${user_id}:${podcast_id}` });
    const pod: PodcastDoc | null = sub || ctx.meta.user?.isAdmin ? await this.adapter.findOne({ _id: podcast_id }) : null;
    if (!pod) throw new NotFoundError("Podcast not found in your subscriptions");
    return { pod, sub };
  },
  /** The user's subscriptions with their podcasts, newest subscription first. */
  async userPodcasts(this: PodcastsThis, user_id: number): Promise<PodRow[]> {
    const subs: SubscriptionDoc[] = await this.stores.subscriptions.find({ query: { user_id }, sort: ["-subscribed_date", "-_id"] });
    if (!subs.length) return [];
    const pods: PodcastDoc[] = await this.findByIds(
      this.adapter,
      subs.map((s) => s.podcast_id),
    );
    const byId = new Map(pods.map((p) => [p._id, p]));
    return subs.filter((s) => byId.has(s.podcast_id)).map((sub) => ({ pod: byId.get(sub.podcast_id)!, sub }));
  },
  /** The podcasts a user's lists show: merged ones appear only as their primary. */
  async listedPodcasts(this: PodcastsThis, user_id: number): Promise<PodRow[]> {
    return (await this.userPodcasts(user_id)).filter((r) => !r.sub.merged_into);
  },
  /** The user's podcast whose shown title (case-sensitive) and feed URL match. */
  async findByName(this: PodcastsThis, user_id: number, name: string, url: string): Promise<PodRow | null> {
    const rows: PodRow[] = await this.userPodcasts(user_id);
    url = feedRef(url, null, null).url;
    return rows.find(({ pod, sub }) => shown(pod, sub).title === name && (pod.feed_url === url || pod.final_url === url)) ?? null;
  },
  view(this: PodcastsThis, p: ViewDoc, s: SubscriptionDoc | null): SubscriptionView {
    const v = shown(p, s);
    return {
      podcast_id: p._id,
      feed_cutoff_days: s?.feed_cutoff_days ?? 0,
      title: v.title,
      artwork_url: v.artwork_url,
      website_url: v.website_url,
      podcast_index_id: v.podcast_index_id,
      subscribed: !!s,
      is_vidsite: isVidsiteFeed(p.feed_url),
      categories: v.categories,
      ...(s ? { subscribed_at: new Date(s.subscribed_date).getTime() } : {}),
      ...(s?.filters ? { filters: s.filters } : {}),
    };
  },
  /** A return_pods item (spec: "Podcast records as returned"), then the same facts by PinePods' clients' names. */
  podItem(this: PodcastsThis, p: PodcastDoc, s: SubscriptionDoc): PodcastListItem {
    const v = shown(p, s);
    const video = isVidsiteFeed(p.feed_url);
    return {
      podcast_id: p._id,
      title: v.title,
      description: v.description,
      artwork_url: v.artwork_url,
      feed_url: p.feed_url,
      website_url: v.website_url,
      author: v.author,
      categories: v.categories,
      last_episode_date: p.last_episode_date,
      episode_count: p.episode_count,
      subscribed_date: iso(s.subscribed_date),
      is_vidsite: video,
      is_youtube: video,
      podcastid: p._id,
      podcastname: v.title,
      artworkurl: v.artwork_url,
      feedurl: p.feed_url,
      websiteurl: v.website_url,
      episodecount: p.episode_count,
      explicit: !!p.explicit,
      podcastindexid: v.podcast_index_id ?? 0,
      is_favorite: !!s.is_favorite,
    };
  },
};
