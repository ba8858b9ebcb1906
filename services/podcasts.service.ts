/**
 * Podcasts and subscriptions (DESIGN.md rule 7).
 *
 * `podcasts` holds one record per feed (URL + credentials), fetched once for all its subscribers; its
 * credentials are kept for refreshes and never returned or logged. `subscriptions` holds what is per
 * user: subscribed date, feed_cutoff_days, auto-download, notifications, their own category list and
 * their overrides of the feed's title, description, author, artwork and website (update_podcast_info
 * never changes what other subscribers see).
 *
 * Adding a feed nobody has yet: the feeds service fetches and parses it, this service stores the
 * record, the newest ADD_PODCAST_SYNC_EPISODES episodes are stored before the answer and the rest
 * right after it. The record's content hash is written only when every episode is stored, so an
 * import cut short (a crash) is completed by the next refresh, which sees a "changed" feed.
 */
import { sha256Hex } from "../shared/secrets";
import type { Context, ServiceSchema } from "moleculer";
import { config } from "../shared/config";
import { DbMixin, isDuplicateKeyError } from "../shared/db.mixin";
import { ConflictError, ForbiddenError, NotFoundError } from "../shared/errors";
import type { ParsedEpisode, ParsedFeed } from "../shared/feed-parser";
import { redactUrl, splitCredentials } from "../shared/http";
import type { AuthUser, UserEvent } from "../shared/types";
import { isVidsiteFeed } from "../shared/contracts/vidsite";
import type { PodcastUserStats, SyncResult } from "./episodes.service";
import type { FetchedFeed } from "./feeds.service";

/** A stored feed. */
export interface PodcastDoc {
  _id: number;
  /** sha256 of URL, username and password: one record per feed and credentials. */
  feed_key: string;
  feed_url: string;
  /** URL after redirects at the last fetch. */
  final_url: string | null;
  username: string | null;
  password: string | null;
  title: string;
  description: string | null;
  author: string | null;
  owner_email: string | null;
  artwork_url: string | null;
  website_url: string | null;
  language: string | null;
  explicit: boolean;
  categories: string[];
  podcast_index_id: number | null;
  last_build_date: string | null;
  /** Podcasting 2.0 channel data as the parser returns it. */
  p20: Pick<ParsedFeed, (typeof P20_CHANNEL_FIELDS)[number]>;
  etag: string | null;
  last_modified: string | null;
  /** sha256 of the feed body last stored; null until an import has stored every episode. */
  content_hash: string | null;
  /** Last fetch that changed something (an unchanged feed writes nothing, not even this). */
  last_fetched_at: Date | null;
  episode_count: number;
  last_episode_date: string | null;
  created_at: Date;
}

export interface SubscriptionDoc {
  _id: number;
  /** "<user_id>:<podcast_id>", unique: one subscription per user and podcast even under races. */
  key: string;
  user_id: number;
  podcast_id: number;
  subscribed_date: Date;
  feed_cutoff_days: number;
  auto_download: boolean;
  notifications_enabled: boolean;
  /** The user's own category list once they edited it; null = the feed's categories. */
  categories: string[] | null;
  /** This podcast's cover preference; null or absent = the user's global one. */
  use_podcast_covers?: boolean | null;
  overrides: Partial<Record<(typeof OVERRIDABLE)[number], string | number>>;
}

/** What other services get of a subscription (user_subscriptions). */
export interface SubscriptionView {
  podcast_id: number;
  feed_cutoff_days: number;
  title: string;
  artwork_url: string | null;
  /** false for a podcast an admin reads without being subscribed. */
  subscribed: boolean;
  /** A video channel (services/vidsite.service.ts). */
  is_vidsite: boolean;
}

/** A podcast as the refresh needs it, credentials included: internal only. */
export interface RefreshTarget {
  podcast_id: number;
  feed_url: string;
  username: string | null;
  password: string | null;
  etag: string | null;
  last_modified: string | null;
  content_hash: string | null;
}

/** podcasts.apply_feed params: what a refresh learnt about a changed feed. */
export interface ApplyFeedParams {
  podcast_id: number;
  fetched: Omit<FetchedFeed, "feed"> & { feed: Omit<ParsedFeed, "episodes"> };
  sync: SyncResult;
}

const P20_CHANNEL_FIELDS = [
  "podcast_guid", "medium", "locked", "locked_owner", "funding", "persons", "values", "locations", "license",
  "trailers", "images", "txt", "podroll", "publisher", "blocks", "podping", "chat", "live_items", "keywords", "itunes_type",
] as const;
const OVERRIDABLE = ["title", "description", "author", "artwork_url", "website_url", "podcast_index_id"] as const;

const id = { type: "number", integer: true, positive: true, convert: true };
const text = (max: number, optional = true) => ({ type: "string", trim: true, max, optional });
const feedUrl = { type: "url", max: 4000 };
const podcastIndexId = { type: "number", integer: true, convert: true, optional: true, nullable: true };
const cutoffDays = { type: "number", integer: true, min: 0, max: 365, convert: true };
/** remove_podcast, remove_podcast_name and check_podcast: the title the user sees and the feed URL. */
const byName = { user_id: id, podcast_name: text(1000, false), podcast_url: text(4000, false) };

/**
 * The feed a user names: credentials written into the URL (https://user:pass@host/feed) become the
 * feed's credentials, so they are never stored in feed_url, returned or logged; explicit ones win.
 */
function feedRef(rawUrl: string, username: string | null, password: string | null): FeedRef {
  const inUrl = splitCredentials(rawUrl);
  const user = username ?? inUrl.username;
  return { url: inUrl.url, username: user, password: user ? (username !== null ? password : inUrl.password) ?? "" : null };
}

function feedKey(url: string, username: string | null, password: string | null): string {
  return sha256Hex(`${url}\n${username ?? ""}\n${password ?? ""}`);
}

/** The record fields that come from the feed's channel. */
function feedFields(feed: Omit<ParsedFeed, "episodes">) {
  const p20 = {} as PodcastDoc["p20"];
  for (const f of P20_CHANNEL_FIELDS) (p20 as any)[f] = feed[f];
  return {
    title: feed.title ?? "",
    description: feed.description,
    author: feed.author ?? feed.owner_name,
    owner_email: feed.owner_email,
    artwork_url: feed.image,
    website_url: feed.link,
    language: feed.language,
    explicit: feed.explicit,
    categories: feed.categories,
    last_build_date: feed.last_build_date ?? feed.pub_date,
    p20,
  };
}

function newestFirst(episodes: ParsedEpisode[]): ParsedEpisode[] {
  const time = (e: ParsedEpisode) => (e.pub_date ? Date.parse(e.pub_date) : 0);
  return episodes.map((e, i) => ({ e, i, t: time(e) })).sort((a, b) => b.t - a.t || a.i - b.i).map((x) => x.e);
}

function iso(d: Date | string | null | undefined): string | null {
  return d ? new Date(d).toISOString() : null;
}

/** What a user sees of a podcast: the feed's fields under their own overrides. */
function shown(p: PodcastDoc, s: SubscriptionDoc | null) {
  const o = s?.overrides ?? {};
  return {
    title: (o.title as string) ?? p.title,
    description: (o.description as string) ?? p.description,
    author: (o.author as string) ?? p.author,
    artwork_url: (o.artwork_url as string) ?? p.artwork_url,
    website_url: (o.website_url as string) ?? p.website_url,
    podcast_index_id: (o.podcast_index_id as number) ?? p.podcast_index_id,
    categories: s?.categories ?? p.categories,
  };
}

const PodcastsService: ServiceSchema = {
  name: "podcasts",
  mixins: [
    DbMixin(
      { name: "podcasts", indexes: [{ fields: { feed_key: 1 }, unique: true }, { fields: { feed_url: 1 } }] },
      [{ name: "subscriptions", indexes: [{ fields: { key: 1 }, unique: true }, { fields: { user_id: 1 } }, { fields: { podcast_id: 1 } }] }],
    ),
  ],
  actions: {
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
      async handler(this: any, ctx: Context<any, { user?: AuthUser }>) {
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
      async handler(this: any, ctx: Context<any>) {
        const p = ctx.params;
        return this.subscribe(ctx, p.user_id, feedRef(p.feed_url, p.username || null, p.password ?? null), {
          podcast_index_id: null,
          feed_cutoff_days: p.feed_cutoff ?? 0,
          fallback: {},
        });
      },
    },
    /** POST /api/data/remove_podcast: by the title the user sees (case-sensitive) and the feed URL. */
    remove_podcast: {
      params: byName,
      async handler(this: any, ctx: Context<any>) {
        return this.removeByName(ctx, ctx.params);
      },
    },
    remove_podcast_name: {
      params: byName,
      async handler(this: any, ctx: Context<any>) {
        return this.removeByName(ctx, ctx.params);
      },
    },
    remove_podcast_id: {
      params: { user_id: id, podcast_id: id, is_vidsite: { type: "boolean", convert: true, optional: true } },
      async handler(this: any, ctx: Context<any>) {
        const sub = await this.subscriptionOf(ctx.params.user_id, ctx.params.podcast_id);
        await this.unsubscribe(ctx, sub);
        return { success: true };
      },
    },
    /** GET /api/data/return_pods/{user_id}: newest subscription first. */
    return_pods: {
      params: { user_id: id },
      async handler(this: any, ctx: Context<any>) {
        const rows = await this.userPodcasts(ctx.params.user_id);
        return { pods: rows.map(({ pod, sub }: { pod: PodcastDoc; sub: SubscriptionDoc }) => this.podItem(pod, sub)) };
      },
    },
    /** GET /api/data/return_pods_extra/{user_id}: return_pods plus the user's listening figures. */
    return_pods_extra: {
      params: { user_id: id },
      async handler(this: any, ctx: Context<any>) {
        const rows: { pod: PodcastDoc; sub: SubscriptionDoc }[] = await this.userPodcasts(ctx.params.user_id);
        const stats: Record<number, PodcastUserStats> = rows.length
          ? await ctx.call("episodes.user_podcast_stats", { user_id: ctx.params.user_id, subscriptions: rows.map(({ pod, sub }) => this.view(pod, sub)) })
          : {};
        return {
          pods: rows.map(({ pod, sub }) => ({
            ...this.podItem(pod, sub),
            ...stats[pod._id],
            auto_download: sub.auto_download,
            notifications_enabled: sub.notifications_enabled,
            feed_cutoff_days: sub.feed_cutoff_days,
          })),
        };
      },
    },
    /** GET /api/data/check_podcast */
    check_podcast: {
      params: byName,
      async handler(this: any, ctx: Context<any>) {
        return { exists: !!(await this.findByName(ctx.params.user_id, ctx.params.podcast_name, ctx.params.podcast_url)) };
      },
    },
    /** GET /api/data/get_podcast_id: the id travels in a field named episodes (as clients expect). */
    get_podcast_id: {
      params: { user_id: id, podcast_feed: text(4000, false), podcast_title: text(1000, false) },
      async handler(this: any, ctx: Context<any>) {
        const found = await this.findByName(ctx.params.user_id, ctx.params.podcast_title, ctx.params.podcast_feed);
        if (!found) throw new NotFoundError("Podcast not found in your subscriptions");
        return { episodes: found.pod._id };
      },
    },
    /** GET /api/data/get_podcast_details */
    get_podcast_details: {
      params: { user_id: id, podcast_id: id },
      async handler(this: any, ctx: Context<any, { user?: AuthUser }>) {
        const { pod, sub } = await this.readable(ctx, ctx.params.user_id, ctx.params.podcast_id);
        const s = shown(pod, sub);
        const recent_episodes = await ctx.call("episodes.recent_episodes", { user_id: ctx.params.user_id, podcast_id: pod._id, feed_cutoff_days: sub?.feed_cutoff_days ?? 0 });
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
            custom_playback_speed: null,
            use_podcast_covers: sub?.use_podcast_covers ?? null,
          },
          recent_episodes,
        };
      },
    },
    /**
     * GET /api/data/get_podcast_details_dynamic: the stored record when the user has the feed, else the
     * feed fetched and parsed now without storing anything (podcastid 0).
     */
    get_podcast_details_dynamic: {
      params: {
        user_id: id,
        podcast_title: text(1000, false),
        podcast_url: { type: "string", trim: true, min: 1, max: 4000 },
        podcast_index_id: { type: "number", integer: true, convert: true },
        added: { type: "boolean", convert: true },
        display_only: { type: "boolean", convert: true, optional: true },
      },
      async handler(this: any, ctx: Context<any>) {
        const p = ctx.params;
        const subs: SubscriptionDoc[] = await this.stores.subscriptions.find({ query: { user_id: p.user_id } });
        const feed = feedRef(p.podcast_url, null, null);
        const pods: PodcastDoc[] = subs.length ? await this.adapter.find({ query: { _id: { $in: subs.map((s) => s.podcast_id) }, feed_url: feed.url } }) : [];
        if (pods.length) {
          const pod = pods[0];
          const s = shown(pod, subs.find((x) => x.podcast_id === pod._id)!);
          return {
            podcastid: pod._id, podcastname: s.title, feedurl: pod.feed_url, description: s.description, author: s.author,
            artworkurl: s.artwork_url, explicit: pod.explicit, episodecount: pod.episode_count, categories: s.categories,
            websiteurl: s.website_url, podcastindexid: s.podcast_index_id ?? p.podcast_index_id, is_vidsite: isVidsiteFeed(pod.feed_url),
          };
        }
        const fetched: FetchedFeed = await ctx.call("feeds.fetch_feed", { url: feed.url, username: feed.username ?? undefined, password: feed.password ?? undefined });
        const f = feedFields(fetched.feed!);
        return {
          podcastid: 0, podcastname: f.title || p.podcast_title, feedurl: feed.url, description: f.description, author: f.author,
          artworkurl: f.artwork_url, explicit: f.explicit, episodecount: fetched.feed!.episodes.length, categories: f.categories,
          websiteurl: f.website_url, podcastindexid: p.podcast_index_id, is_vidsite: isVidsiteFeed(feed.url),
        };
      },
    },
    /** POST /api/data/update_feed_cutoff_days: 0 keeps everything; otherwise older episodes are hidden from this user. */
    update_feed_cutoff_days: {
      params: { user_id: id, podcast_id: id, feed_cutoff_days: cutoffDays },
      async handler(this: any, ctx: Context<any>) {
        const sub = await this.subscriptionOf(ctx.params.user_id, ctx.params.podcast_id);
        await this.stores.subscriptions.updateMany({ _id: sub._id }, { $set: { feed_cutoff_days: ctx.params.feed_cutoff_days } });
        return { detail: "Feed cutoff days updated" };
      },
    },
    get_feed_cutoff_days: {
      params: { user_id: id, podcast_id: id },
      async handler(this: any, ctx: Context<any>) {
        const sub = await this.subscriptionOf(ctx.params.user_id, ctx.params.podcast_id);
        return { podcast_id: sub.podcast_id, user_id: sub.user_id, feed_cutoff_days: sub.feed_cutoff_days };
      },
    },
    /** POST /api/data/add_category: to this user's category list of the podcast. */
    add_category: {
      params: { user_id: id, podcast_id: id, category: text(200, false) },
      async handler(this: any, ctx: Context<any>) {
        const categories = await this.editCategories(ctx.params, (list: string[]) => (list.includes(ctx.params.category) ? list : [...list, ctx.params.category]));
        return { detail: "Category added", categories };
      },
    },
    remove_category: {
      params: { user_id: id, podcast_id: id, category: text(200, false) },
      async handler(this: any, ctx: Context<any>) {
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
      async handler(this: any, ctx: Context<any>) {
        const p = ctx.params;
        const sub: SubscriptionDoc = await this.subscriptionOf(p.user_id, p.podcast_id);
        const set: Record<string, unknown> = {};
        const fields: Record<(typeof OVERRIDABLE)[number], unknown> = {
          title: p.podcast_name, description: p.description, author: p.author, artwork_url: p.artwork_url, website_url: p.website_url, podcast_index_id: p.podcast_index_id,
        };
        for (const f of OVERRIDABLE) if (fields[f] !== undefined && fields[f] !== null) set[`overrides.${f}`] = fields[f];
        if (p.feed_url !== undefined || p.username !== undefined || p.password !== undefined) {
          const pod: PodcastDoc = await this.adapter.findOne({ _id: sub.podcast_id });
          const inUrl = p.feed_url !== undefined ? feedRef(p.feed_url, null, null) : null;
          const url = inUrl?.url ?? pod.feed_url;
          const username = p.username !== undefined ? p.username || null : inUrl?.username ?? pod.username;
          const password = username ? (p.password !== undefined ? p.password : inUrl?.username ? inUrl.password : pod.password) ?? "" : null;
          if (feedKey(url, username, password) !== pod.feed_key) {
            const { pod: target } = await this.podcastFor(ctx, { url, username, password }, { podcast_index_id: null, fallback: {} });
            if (await this.stores.subscriptions.findOne({ key: `${p.user_id}:${target._id}` })) throw new ConflictError("Already subscribed to that feed");
            set.podcast_id = target._id;
            set.key = `${p.user_id}:${target._id}`;
            // The user's queue, history and states of the old feed's episodes go, as on unsubscribe.
            ctx.emit("subscriptions.removed", { user_id: p.user_id, podcast_id: pod._id });
          }
        }
        if (Object.keys(set).length) await this.stores.subscriptions.updateMany({ _id: sub._id }, { $set: set });
        return { success: true, message: "Podcast info updated", podcast_id: (set.podcast_id as number) ?? sub.podcast_id };
      },
    },
    enable_auto_download: {
      params: { user_id: id, podcast_id: id, auto_download: { type: "boolean", convert: true } },
      async handler(this: any, ctx: Context<any>) {
        const sub = await this.subscriptionOf(ctx.params.user_id, ctx.params.podcast_id);
        await this.stores.subscriptions.updateMany({ _id: sub._id }, { $set: { auto_download: ctx.params.auto_download } });
        return { detail: `Auto-download ${ctx.params.auto_download ? "enabled" : "disabled"}` };
      },
    },
    get_auto_download_status: {
      params: { user_id: id, podcast_id: id },
      async handler(this: any, ctx: Context<any>) {
        const sub = await this.subscriptionOf(ctx.params.user_id, ctx.params.podcast_id);
        return { auto_download: sub.auto_download };
      },
    },

    // --- Internal actions (not in the route table) ---

    /** set_global_podcast_cover_preference with a podcast_id (users service): stored on the subscription. */
    set_cover_preference: {
      visibility: "public",
      params: { user_id: id, podcast_id: id, use_podcast_covers: "boolean" },
      async handler(this: any, ctx: Context<any>) {
        const sub = await this.subscriptionOf(ctx.params.user_id, ctx.params.podcast_id);
        await this.stores.subscriptions.updateMany({ _id: sub._id }, { $set: { use_podcast_covers: ctx.params.use_podcast_covers } });
        return { podcast_id: sub.podcast_id };
      },
    },

    /**
     * A user's subscriptions (all, or of podcast_ids), newest first. With include_unsubscribed (admins),
     * podcasts of podcast_ids the user has no subscription to come back too, with no cutoff.
     */
    user_subscriptions: {
      visibility: "public",
      params: { user_id: id, podcast_ids: { type: "array", items: "number", optional: true }, include_unsubscribed: { type: "boolean", optional: true } },
      async handler(this: any, ctx: Context<any>): Promise<SubscriptionView[]> {
        const { user_id, podcast_ids, include_unsubscribed } = ctx.params;
        const query: any = { user_id };
        if (podcast_ids) query.podcast_id = { $in: podcast_ids };
        const subs: SubscriptionDoc[] = await this.stores.subscriptions.find({ query, sort: ["-subscribed_date", "-_id"] });
        const wanted = include_unsubscribed && podcast_ids ? podcast_ids : subs.map((s) => s.podcast_id);
        const pods: PodcastDoc[] = wanted.length ? await this.adapter.find({ query: { _id: { $in: wanted } } }) : [];
        const bySub = new Map(subs.map((s) => [s.podcast_id, s]));
        return pods.map((p) => this.view(p, bySub.get(p._id) ?? null));
      },
    },
    /** Podcasts to refresh, credentials included: those of podcast_ids, else every podcast with a subscriber. */
    refresh_targets: {
      visibility: "public",
      params: { podcast_ids: { type: "array", items: "number", optional: true } },
      async handler(this: any, ctx: Context<any>): Promise<RefreshTarget[]> {
        let ids: number[] = ctx.params.podcast_ids;
        if (!ids) {
          const subs: SubscriptionDoc[] = await this.stores.subscriptions.find({});
          ids = Array.from(new Set(subs.map((s) => s.podcast_id)));
        }
        if (!ids.length) return [];
        const pods: PodcastDoc[] = await this.adapter.find({ query: { _id: { $in: ids } }, sort: ["_id"] });
        return pods.map((p) => ({
          podcast_id: p._id, feed_url: p.feed_url, username: p.username, password: p.password,
          etag: p.etag, last_modified: p.last_modified, content_hash: p.content_hash,
        }));
      },
    },
    /** Directory ids of the podcasts someone is subscribed to (people.refresh_hosts). */
    index_ids: {
      visibility: "public",
      params: {},
      async handler(this: any): Promise<number[]> {
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
      async handler(this: any, ctx: Context<ApplyFeedParams>) {
        await this.applyFeed(ctx.params.podcast_id, ctx.params.fetched, ctx.params.sync, true);
        return { success: true };
      },
    },
  },
  events: {
    /** The account is gone: so are its subscriptions (the shared feed records stay for other subscribers). */
    "user.removed": {
      params: { user_id: "number" },
      async handler(this: any, ctx: Context<UserEvent>) {
        await this.stores.subscriptions.removeMany({ user_id: ctx.params.user_id });
      },
    },
  },
  methods: {
    /** add_podcast and add_custom_podcast: the feed's record (found or created), then the subscription. */
    async subscribe(this: any, ctx: Context<any>, user_id: number, feed: FeedRef, opts: { podcast_index_id: number | null; feed_cutoff_days: number; fallback: Fallback }) {
      const { pod } = await this.podcastFor(ctx, feed, opts);
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
      const newest: Record<number, number> = await ctx.call("episodes.newest_episode_ids", { podcast_ids: [pod._id] });
      return { success: true, podcast_id: pod._id, first_episode_id: newest[pod._id] ?? 0 };
    },
    /**
     * The record of a feed, created from a fresh fetch when nobody has it: the newest episodes are stored
     * now, the rest right after (finishImport), then the content hash that marks the import complete.
     */
    async podcastFor(this: any, ctx: Context<any>, feed: FeedRef, opts: { podcast_index_id: number | null; fallback: Fallback }): Promise<{ pod: PodcastDoc }> {
      const key = feedKey(feed.url, feed.username, feed.password);
      const known: PodcastDoc | null = await this.adapter.findOne({ feed_key: key });
      if (known) return { pod: known };
      const fetched: FetchedFeed = await ctx.call("feeds.fetch_feed", { url: feed.url, username: feed.username ?? undefined, password: feed.password ?? undefined });
      const parsed = fetched.feed!;
      const fields = feedFields(parsed);
      const fb = opts.fallback;
      const pod: PodcastDoc = {
        _id: await this.nextId("podcasts"),
        feed_key: key,
        feed_url: feed.url,
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
      };
      try {
        await this.adapter.insert(pod);
      } catch (err) {
        // Two users adding the same new feed at once: the first record wins.
        if (isDuplicateKeyError(err)) return { pod: await this.adapter.findOne({ feed_key: key }) };
        throw err;
      }
      this.logger.info("podcast added", { podcast_id: pod._id, feed_url: redactUrl(fetched.final_url) });
      const ordered = newestFirst(parsed.episodes);
      const recent = ordered.slice(0, config.addPodcastSyncEpisodes);
      const { episodes: _all, ...channel } = parsed;
      const meta = { ...fetched, feed: channel };
      const first: SyncResult = await ctx.call("episodes.sync_episodes", { podcast_id: pod._id, episodes: recent, announce: false });
      if (ordered.length > recent.length) {
        await this.applyFeed(pod._id, meta, first, false);
        // The whole feed again: matching needs every guid of the document (reruns share titles).
        this.finishImport(pod._id, meta, ordered);
      } else {
        await this.applyFeed(pod._id, meta, first, true);
      }
      return { pod };
    },
    /** Stores the older episodes of a new feed after add_podcast answered; a failure is completed by the next refresh. */
    finishImport(this: any, podcast_id: number, meta: ApplyFeedParams["fetched"], episodes: ParsedEpisode[]) {
      this.broker
        .call("episodes.sync_episodes", { podcast_id, episodes, announce: false })
        .then((sync: SyncResult) => this.applyFeed(podcast_id, meta, sync, true))
        .catch((err: any) => this.logger.warn("episode import left for the next refresh", { podcast_id, error: err?.message }));
    },
    async applyFeed(this: any, podcast_id: number, fetched: ApplyFeedParams["fetched"], sync: SyncResult, complete: boolean) {
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
    async removeByName(this: any, ctx: Context<any>, p: { user_id: number; podcast_name: string; podcast_url: string }) {
      const found = await this.findByName(p.user_id, p.podcast_name, p.podcast_url);
      if (!found) throw new NotFoundError("Podcast not found in your subscriptions");
      await this.unsubscribe(ctx, found.sub);
      return { success: true };
    },
    async unsubscribe(this: any, ctx: Context<any>, sub: SubscriptionDoc) {
      await this.stores.subscriptions.removeMany({ _id: sub._id });
      this.logger.info("unsubscribed", { user_id: sub.user_id, podcast_id: sub.podcast_id });
      // Owners of queue, history, saves, downloads and episode states remove theirs.
      ctx.emit("subscriptions.removed", { user_id: sub.user_id, podcast_id: sub.podcast_id });
    },
    /** The subscription of one user and podcast, or 404. */
    async subscriptionOf(this: any, user_id: number, podcast_id: number): Promise<SubscriptionDoc> {
      const sub = await this.stores.subscriptions.findOne({ key: `${user_id}:${podcast_id}` });
      if (!sub) throw new NotFoundError("Podcast not found in your subscriptions");
      return sub;
    },
    /** A podcast the user may read: subscribed, or any existing one for an admin (sub null then). */
    async readable(this: any, ctx: Context<any, { user?: AuthUser }>, user_id: number, podcast_id: number): Promise<{ pod: PodcastDoc; sub: SubscriptionDoc | null }> {
      const sub: SubscriptionDoc | null = await this.stores.subscriptions.findOne({ key: `${user_id}:${podcast_id}` });
      const pod: PodcastDoc | null = sub || ctx.meta.user?.isAdmin ? await this.adapter.findOne({ _id: podcast_id }) : null;
      if (!pod) throw new NotFoundError("Podcast not found in your subscriptions");
      return { pod, sub };
    },
    /** The user's subscriptions with their podcasts, newest subscription first. */
    async userPodcasts(this: any, user_id: number): Promise<{ pod: PodcastDoc; sub: SubscriptionDoc }[]> {
      const subs: SubscriptionDoc[] = await this.stores.subscriptions.find({ query: { user_id }, sort: ["-subscribed_date", "-_id"] });
      if (!subs.length) return [];
      const pods: PodcastDoc[] = await this.adapter.find({ query: { _id: { $in: subs.map((s) => s.podcast_id) } } });
      const byId = new Map(pods.map((p) => [p._id, p]));
      return subs.filter((s) => byId.has(s.podcast_id)).map((sub) => ({ pod: byId.get(sub.podcast_id)!, sub }));
    },
    /** The user's podcast whose shown title (case-sensitive) and feed URL match. */
    async findByName(this: any, user_id: number, name: string, url: string): Promise<{ pod: PodcastDoc; sub: SubscriptionDoc } | null> {
      const rows: { pod: PodcastDoc; sub: SubscriptionDoc }[] = await this.userPodcasts(user_id);
      url = feedRef(url, null, null).url;
      return rows.find(({ pod, sub }) => shown(pod, sub).title === name && (pod.feed_url === url || pod.final_url === url)) ?? null;
    },
    async editCategories(this: any, p: { user_id: number; podcast_id: number }, edit: (list: string[]) => string[]): Promise<string[]> {
      const sub: SubscriptionDoc = await this.subscriptionOf(p.user_id, p.podcast_id);
      const pod: PodcastDoc = await this.adapter.findOne({ _id: p.podcast_id });
      const categories = edit(sub.categories ?? pod.categories);
      await this.stores.subscriptions.updateMany({ _id: sub._id }, { $set: { categories } });
      return categories;
    },
    view(p: PodcastDoc, s: SubscriptionDoc | null): SubscriptionView {
      const v = shown(p, s);
      return { podcast_id: p._id, feed_cutoff_days: s?.feed_cutoff_days ?? 0, title: v.title, artwork_url: v.artwork_url, subscribed: !!s, is_vidsite: isVidsiteFeed(p.feed_url) };
    },
    /** A return_pods item (spec: "Podcast records as returned"). */
    podItem(p: PodcastDoc, s: SubscriptionDoc) {
      const v = shown(p, s);
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
        is_vidsite: isVidsiteFeed(p.feed_url),
      };
    },
  },
};

interface FeedRef {
  url: string;
  username: string | null;
  password: string | null;
}

type Fallback = Partial<Record<"title" | "description" | "author" | "artwork_url" | "website_url", string>>;

export default PodcastsService;
