/**
 * The user's own RSS feed: GET /api/feed/{user_id}?api_key=... lists their episodes (newest of their
 * podcasts, or one source: saved, queue, downloads, history, playlist) as RSS 2.0 whose enclosures are
 * the stream route with the same key, so a podcast app plays through this server. The key may be an
 * RSS-only one (get_rss_key, or create_api_key with rssonly); one limited to podcast_ids lists and
 * plays only those podcasts. It reads podcasts, episodes and the source's service in a fixed number
 * of calls; it owns only `rss_settings`, the admin's switch of the feature for the whole server
 * (toggle_rss_feeds: while off, every user feed answers 403).
 */
import type { ServiceSchema } from "moleculer";
import { config } from "../shared/config";
import { DbMixin } from "../shared/db.mixin";
import { BadRequestError, ForbiddenError } from "../shared/errors";
import { RssFeedsStatus, RssToggleAnswer } from "../shared/contracts/rss";
import { episodeItems, feedEpisodeIds, userHistory, type EpisodeMediaItem } from "../shared/contracts/episodes";
import { getAuthInfo, type UserAuthInfo } from "../shared/contracts/users";
import { downloadEpisodeList } from "../shared/contracts/downloads";
import { getQueuedEpisodes } from "../shared/contracts/queue";
import { getPlaylistEpisodes } from "../shared/contracts/playlists";
import type { Caller } from "../shared/contracts/call";
import type { Ctx, DbThis } from "../shared/service-types";
import { buildRss } from "./rss.parts/build";
import { UserFeedXml } from "../shared/contracts/rss";

/** The gateway's meta, with the key the feed was asked with (its enclosures carry it) and the answer's type and headers. */
type FeedCtx<P> = Ctx<P>;

interface UserFeedParams {
  user_id: number;
  limit?: number;
  podcast_id?: number;
  source?: string;
  playlist_id?: number;
  type?: string;
}

interface SettingsDoc {
  _id: string;
  enabled: boolean;
}

interface RssMethods {
  feedsEnabled(): Promise<boolean>;
  episodeIds(ctx: Caller, user_id: number, source: string, limit: number, allowed: number[] | null, playlist_id?: number): Promise<number[]>;
}

type RssThis = DbThis<SettingsDoc> & RssMethods;

const id = { type: "number", integer: true, positive: true, convert: true };

/** Where each source's episodes come from: one call to the owner's list action, and the list in its answer. */
type Source = (ctx: Caller, user_id: number, playlist_id?: number) => Promise<{ episodeid: number }[] | undefined>;
const SOURCES: Record<string, Source> = {
  downloads: async (ctx, user_id) => (await downloadEpisodeList(ctx, { user_id }))?.downloaded_episodes,
  queue: async (ctx, user_id) => (await getQueuedEpisodes(ctx, { user_id }))?.data,
  history: async (ctx, user_id) => (await userHistory(ctx, { user_id, limit: 1000 }))?.data,
  playlist: async (ctx, user_id, playlist_id) => (await getPlaylistEpisodes(ctx, { user_id, playlist_id: playlist_id!, limit: 1000 }))?.episodes,
};

const SETTINGS_ID = "server";

const RssService: ServiceSchema<Record<string, never>, RssThis> = {
  name: "rss",
  mixins: [DbMixin({ name: "rss_settings" })],
  actions: {
    /** GET /api/data/rss_feed_status: whether the user feeds are on (a bare boolean, as the web client reads it). */
    rss_feed_status: {
      idempotent: true,
      params: {},
      response: RssFeedsStatus,
      handler(this: RssThis): Promise<boolean> {
        return this.feedsEnabled();
      },
    },
    /** POST /api/data/toggle_rss_feeds (admin): switches the user feeds of the whole server. */
    toggle_rss_feeds: {
      params: {},
      response: RssToggleAnswer,
      async handler(this: RssThis, ctx: FeedCtx<Record<string, never>>): Promise<RssToggleAnswer> {
        const enabled = !(await this.feedsEnabled());
        await this.upsert(this.adapter, SETTINGS_ID, { $set: { enabled } });
        this.logger.info("rss feeds switched", { enabled, by: ctx.meta.user?.id });
        return { success: true, enabled };
      },
    },
    /** GET /api/feed/{user_id} (auth rss: the key in api_key). */
    user_feed: {
      idempotent: true,
      params: {
        user_id: id,
        limit: { type: "number", integer: true, min: 1, max: 1000, convert: true, optional: true },
        podcast_id: { ...id, optional: true },
        source: { type: "enum", values: ["all", "saved", ...Object.keys(SOURCES)], optional: true },
        playlist_id: { ...id, optional: true },
        type: { type: "string", max: 20, optional: true },
      },
      response: UserFeedXml,
      async handler(this: RssThis, ctx: FeedCtx<UserFeedParams>): Promise<string> {
        if (!(await this.feedsEnabled())) throw new ForbiddenError("RSS feeds are switched off on this server");
        const { user_id, podcast_id, playlist_id } = ctx.params;
        const limit: number = ctx.params.limit ?? config.rssDefaultLimit;
        const source: string = ctx.params.source ?? "all";
        const caller = ctx.meta.user!;
        // The podcasts this feed may show: a limited key's, narrowed to podcast_id when given.
        let allowed: number[] | null = caller.podcastIds ?? null;
        if (podcast_id) allowed = allowed && !allowed.includes(podcast_id) ? [] : [podcast_id];
        if (source === "playlist" && !playlist_id) throw new BadRequestError("source=playlist needs playlist_id");
        const ids = await this.episodeIds(ctx, user_id, source, limit, allowed, playlist_id);
        const found: EpisodeMediaItem[] = ids.length ? await episodeItems(ctx, { user_id, episode_ids: ids }) : [];
        const byId = new Map(found.map((e) => [e.episodeid, e]));
        const origin = config.apiUrl || ctx.meta.requestOrigin || "";
        // Images this server serves (local podcasts' covers) are stored as paths: a podcast app needs the whole address.
        const absolute = (url: string) => (url?.startsWith("/") ? `${origin}${url}` : url);
        const items = ids
          .map((i) => byId.get(i))
          .filter((e): e is EpisodeMediaItem => !!e && (!allowed || allowed.includes(e.podcastid)))
          .slice(0, limit)
          .map((e) => ({ ...e, episodeartwork: absolute(e.episodeartwork), podcast_artwork: e.podcast_artwork && absolute(e.podcast_artwork) }));
        const [owner]: UserAuthInfo[] = await getAuthInfo(ctx, { user_ids: [user_id] });
        const key = encodeURIComponent(ctx.meta.feedKey ?? "");
        const single = podcast_id && items.length ? items[0] : null;
        const xml = buildRss(
          {
            title: single ? single.podcastname : `${owner?.username ?? "User"}'s podcasts${source === "all" ? "" : ` (${source})`}`,
            link: origin || "http://localhost/",
            description: `Episodes from ${config.serviceName}`,
            image: single?.podcast_artwork ?? null,
            author: owner?.username ?? config.serviceName,
          },
          items,
          (e) => `${origin}/api/data/stream/${e.episodeid}?api_key=${key}&user_id=${user_id}`,
          config.serviceName,
        );
        ctx.meta.$responseType = "application/rss+xml; charset=utf-8";
        ctx.meta.$responseHeaders = { "Cache-Control": "private, max-age=0" };
        return xml;
      },
    },
  },
  methods: {
    async feedsEnabled(this: RssThis): Promise<boolean> {
      const doc: SettingsDoc | null = await this.adapter.findOne({ _id: SETTINGS_ID });
      return doc ? doc.enabled : config.rssFeedsEnabledDefault;
    },
    /** Episode ids of a source, newest or in the source's own order; one call to the owner of the list. */
    async episodeIds(
      this: RssThis,
      ctx: Caller,
      user_id: number,
      source: string,
      limit: number,
      allowed: number[] | null,
      playlist_id?: number,
    ): Promise<number[]> {
      if (allowed && !allowed.length) return [];
      if (source === "all" || source === "saved") {
        return feedEpisodeIds(ctx, { user_id, limit, ...(allowed ? { podcast_ids: allowed } : {}), ...(source === "saved" ? { saved: true } : {}) });
      }
      let listed: { episodeid: number }[] | undefined;
      try {
        listed = await SOURCES[source](ctx, user_id, playlist_id);
      } catch (err) {
        if ((err as Error)?.name === "ServiceNotFoundError") throw new BadRequestError(`The ${source} source is not available on this server`);
        throw err;
      }
      return (listed ?? []).map((e) => e.episodeid);
    },
  },
};

export default RssService;
