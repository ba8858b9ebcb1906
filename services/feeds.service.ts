/**
 * Feeds: fetching (shared/http.ts) and parsing (shared/feed-parser.ts) podcast feeds, refreshing the
 * stored ones, and the refresh scheduler.
 *
 * A refresh sends the stored ETag / Last-Modified and hashes the body: a 304 or the same sha256 as
 * last time ends it with no write at all. A changed feed goes to episodes.sync_episodes (matching by
 * guid, enclosure URL without query, title) and podcasts.apply_feed.
 *
 * Scheduler: every replica ticks every third of REFRESH_LEASE_SECONDS and tries to claim the lease
 * document in `feed_leases` (one atomic update where the lease expired or is already ours, the same
 * on NeDB and MongoDB). The holder starts a full refresh when REFRESH_INTERVAL minutes passed since
 * the last one (recorded in the lease, so a new holder keeps the rhythm) and spreads the per-feed
 * calls over every feeds replica. A holder that dies stops renewing; another takes over on expiry.
 */
import { sha256Hex } from "../shared/secrets";
import type { ServiceSchema } from "moleculer";
import { config } from "../shared/config";
import { DbMixin } from "../shared/db.mixin";
import { BadRequestError, TooManyRequestsError } from "../shared/errors";
import { FeedParseError, type ParsedFeed, parseFeed } from "../shared/feed-parser";
import { fetchUrl, FetchResult, OutboundHttpError, Rights, rightsOf } from "../shared/http";
import { LeasedJobMixin, rhythmInLease } from "../shared/leased-job";
import { isVidsiteFeed } from "../shared/contracts/vidsite";
import { isLocalFeed } from "../shared/contracts/local";
import { syncEpisodes, type SyncResult } from "../shared/contracts/episodes";
import { refreshFeed, type FetchedFeed, type FetchFeedParams, type RefreshResult, type RefreshSummary } from "../shared/contracts/feeds";
import { applyFeed, moveFeed, refreshTargets, userSubscriptions, type RefreshTarget, type SubscriptionView } from "../shared/contracts/podcasts";
import { CreateTasksResult, JOB_REFRESH_PODS, TaskRecord, tasksCreate } from "../shared/contracts/tasks";
import { channelFeed } from "../shared/contracts/vidsite";
import { localFeed } from "../shared/contracts/local";
import { TaskWaitMixin, type TaskWaitThis } from "../shared/task-wait.mixin";
import type { Ctx, DbThis } from "../shared/service-types";
import type { Static } from "../shared/contracts/answers";
import { FeedEpisodesAnswer, RefreshPodsAnswer } from "../shared/contracts/feeds";

const FETCH_WINDOW_SECONDS = 60;

/** The lease record of the refresh scheduler (shared/leased-job.ts). */
interface FeedLeaseDoc {
  _id: string;
  holder: string | null;
  expires_at: Date;
  last_run_at?: Date | null;
}

/** One fetch_podcast_feed of a user, kept FETCH_WINDOW_SECONDS for the per-minute limit. */
interface FeedFetchDoc {
  user_id: number;
  at: Date;
}

/** fetchFeed's feed: fetch_feed's params with the rights the fetch has. */
/** newFeedUrl: check the feed's itunes:new-feed-url (a refresh of a stored podcast; a new subscription does not wait for it). */
type FeedRequest = FetchFeedParams & { rights: Rights; newFeedUrl?: boolean };

interface FeedsMethods {
  fetchFeed(p: FeedRequest): Promise<FetchedFeed>;
  newFeedUrl(p: FeedRequest, res: FetchResult, feed: ParsedFeed): Promise<string | null>;
  refreshMany(ids: number[]): Promise<RefreshSummary>;
  runFullRefresh(): Promise<RefreshSummary>;
}

type FeedsThis = DbThis<FeedLeaseDoc, { feed_fetches: FeedFetchDoc }> & TaskWaitThis & FeedsMethods;

const FEED_ACCEPT = "application/rss+xml, application/atom+xml, application/xml;q=0.9, */*;q=0.5";

function charsetOf(contentType: string | null): string | undefined {
  return /charset=["']?([^;"'\s]+)/i.exec(contentType ?? "")?.[1];
}

/** A fetch or parse failure as the client sees it: 400, never 500. */
function feedError(err: unknown): Error {
  if (err instanceof FeedParseError) return new BadRequestError(err.message);
  if (err instanceof OutboundHttpError) return new BadRequestError(err.kind === "blocked_address" ? err.message : `Could not fetch the feed: ${err.message}`);
  return err as Error;
}

const FeedsService: ServiceSchema<Record<string, never>, FeedsThis> = {
  name: "feeds",
  mixins: [
    LeasedJobMixin<FeedsThis>("refreshJob", {
      leaseId: "feed-refresh-scheduler",
      name: "feed refresh",
      store: (service) => service.adapter,
      leaseSeconds: () => config.refreshLeaseSeconds,
      beatMs: () => (config.refreshInterval > 0 ? (config.refreshLeaseSeconds * 1000) / 3 : 0),
      ensure: "start",
      beatAtStart: true,
      // The first holder ever starts the rhythm instead of refreshing at once.
      claim: rhythmInLease(
        (last, now) => config.refreshInterval > 0 && last !== null && now.getTime() - last.getTime() >= config.refreshInterval * 60_000,
        true,
      ),
      run: (service) => service.runFullRefresh(),
    }),
    TaskWaitMixin,
    DbMixin({ name: "feed_leases" }, [{ name: "feed_fetches", indexes: [{ fields: { at: 1 }, expireAfterSeconds: FETCH_WINDOW_SECONDS }] }]),
  ],
  actions: {
    /**
     * GET /api/data/fetch_podcast_feed: a feed's episodes before subscribing, read through the outbound
     * client (FEED_FETCH_PER_MINUTE per user) and shaped as the web client's episode list reads them.
     */
    fetch_podcast_feed: {
      idempotent: true,
      params: { podcast_feed: { type: "url", max: 4000 } },
      response: FeedEpisodesAnswer,
      async handler(this: FeedsThis, ctx: Ctx<{ podcast_feed: string }>): Promise<FeedEpisodesAnswer> {
        const user_id = ctx.meta.user!.id;
        const since = new Date(Date.now() - FETCH_WINDOW_SECONDS * 1000);
        const recent = await this.stores.feed_fetches.count({ query: { user_id, at: { $gt: since } } });
        if (recent >= config.feedFetchPerMinute) throw new TooManyRequestsError("Too many feed fetches; try again in a minute");
        await this.stores.feed_fetches.insert({ user_id, at: new Date() });
        let feed: ParsedFeed;
        try {
          const res: FetchResult = await fetchUrl(ctx.params.podcast_feed, {
            rights: rightsOf(ctx.meta.user),
            accept: FEED_ACCEPT,
          });
          feed = parseFeed(res.body!, { charset: charsetOf(res.contentType), baseUrl: res.finalUrl });
        } catch (err) {
          throw feedError(err);
        }
        const episodes = feed.episodes.map((e): FeedEpisodesAnswer["episodes"][number] => ({
          podcastname: feed.title ?? "",
          episodetitle: e.title ?? "",
          episodedescription: e.description ?? "",
          episodeurl: e.enclosure_url ?? "",
          episodeartwork: e.image ?? feed.image ?? "",
          episodepubdate: e.pub_date ?? "",
          episodeduration: Math.round(e.duration ?? 0),
          artworkurl: feed.image ?? "",
          author: e.author ?? feed.author ?? "",
          feedurl: ctx.params.podcast_feed,
          websiteurl: feed.link ?? "",
          explicit: e.explicit ? 1 : 0,
          guid: e.guid,
          is_video: /^video\//.test(e.enclosure_type ?? ""),
        }));
        return { episodes, total: episodes.length };
      },
    },
    /**
     * GET /api/data/refresh_pods: the caller's podcasts (an admin's: every subscribed podcast), as a
     * durable job; the answer carries the figures when the job ends within REFRESH_WAIT_MS, else only
     * its task_id (progress on the tasks routes and WebSocket).
     */
    refresh_pods: {
      idempotent: false,
      params: {},
      response: RefreshPodsAnswer,
      async handler(this: FeedsThis, ctx: Ctx): Promise<Static<typeof RefreshPodsAnswer>> {
        const user = ctx.meta.user!;
        let ids: number[];
        if (user.isAdmin) {
          const targets: RefreshTarget[] = await refreshTargets(ctx, {});
          ids = targets.map((t) => t.podcast_id);
        } else {
          const subs: SubscriptionView[] = await userSubscriptions(ctx, { user_id: user.id });
          ids = subs.map((s) => s.podcast_id);
        }
        const job = { task_type: JOB_REFRESH_PODS, user_id: user.id, payload: { podcast_ids: ids }, dedupe_key: `refresh:${user.id}` };
        const res: CreateTasksResult = await tasksCreate(ctx, { tasks: [job] });
        const task_id = (res.created[0] ?? res.existing[0]).id;
        const done: TaskRecord | null = await this.waitForTask(ctx, task_id, config.refreshWaitMs);
        if (done?.status === "SUCCESS") return { detail: `Refreshed ${ids.length} podcasts`, task_id, ...(done.result as RefreshSummary) };
        if (done) return { detail: `Refresh failed: ${done.message}`, task_id };
        return { detail: "The refresh continues in the background", task_id };
      },
    },
    /** Refreshes these podcasts over every feeds replica (the refresh_pods job, in chunks). */
    refresh_many: {
      visibility: "public",
      params: { podcast_ids: { type: "array", items: "number" } },
      handler(this: FeedsThis, ctx: Ctx<{ podcast_ids: number[] }>): Promise<RefreshSummary> {
        return this.refreshMany(ctx.params.podcast_ids);
      },
    },

    // --- Internal actions (not in the route table) ---

    /** Fetches and parses a feed with the caller's rights (400 "not a podcast feed", "Could not fetch the feed" or "This address is not allowed"). */
    fetch_feed: {
      visibility: "public",
      params: {
        url: { type: "string", max: 4000 },
        username: { type: "string", optional: true },
        password: { type: "string", optional: true },
        etag: { type: "string", optional: true, nullable: true },
        last_modified: { type: "string", optional: true, nullable: true },
        content_hash: { type: "string", optional: true, nullable: true },
      },
      async handler(this: FeedsThis, ctx: Ctx<FetchFeedParams>): Promise<FetchedFeed> {
        try {
          return await this.fetchFeed({ ...ctx.params, rights: rightsOf(ctx.meta.user) });
        } catch (err) {
          throw feedError(err);
        }
      },
    },
    /**
     * Refreshes one stored podcast; feed failures are reported in the result, not thrown. announce: false
     * for the import_feed job, whose older episodes of a just added feed are not "new episodes".
     */
    refresh_feed: {
      visibility: "public",
      params: { podcast_id: { type: "number", integer: true, positive: true }, announce: { type: "boolean", optional: true } },
      async handler(this: FeedsThis, ctx: Ctx<{ podcast_id: number; announce?: boolean }>): Promise<RefreshResult> {
        const { podcast_id, announce = true } = ctx.params;
        const [target]: RefreshTarget[] = await refreshTargets(ctx, { podcast_ids: [podcast_id] });
        if (!target) return { podcast_id, status: "gone", new_episodes: 0 };
        let fetched: FetchedFeed;
        try {
          fetched = await this.fetchFeed({
            url: target.feed_url,
            username: target.username ?? undefined,
            password: target.password ?? undefined,
            rights: target.fetch_rights,
            // Not while a new subscription's older episodes are imported (announce false): that is still adding it.
            newFeedUrl: announce,
            etag: target.etag,
            last_modified: target.last_modified,
            content_hash: target.content_hash,
          });
        } catch (err) {
          if (!(err instanceof FeedParseError || err instanceof OutboundHttpError)) throw err;
          this.logger.warn("feed refresh failed", { podcast_id, error: err.message });
          return { podcast_id, status: "failed", new_episodes: 0, error: err.message };
        }
        // A feed that moved for good (unchanged or not) moves the podcast: every subscriber follows it, nothing is lost.
        if (fetched.moved_to && fetched.moved_to !== target.feed_url) await moveFeed(ctx, { podcast_id, url: fetched.moved_to });
        if (fetched.unchanged) return { podcast_id, status: "unchanged", new_episodes: 0 };
        const { episodes, ...channel } = fetched.feed!;
        // A local folder lists every episode it has: a file that went is an episode that goes.
        const sync: SyncResult = await syncEpisodes(ctx, { podcast_id, episodes, announce, prune: isLocalFeed(target.feed_url) });
        await applyFeed(ctx, { podcast_id, fetched: { ...fetched, feed: channel }, sync });
        return { podcast_id, status: "updated", new_episodes: sync.created_ids.length };
      },
    },
  },
  methods: {
    async fetchFeed(this: FeedsThis, p: FeedRequest): Promise<FetchedFeed> {
      // A video channel has no RSS: the vidsite service reads it through the search service's extraction tool.
      if (isVidsiteFeed(p.url)) return channelFeed(this.broker, { url: p.url, content_hash: p.content_hash ?? null });
      // A local folder is read by the local service, the one that may read LOCAL_MEDIA_DIR.
      if (isLocalFeed(p.url)) return localFeed(this.broker, { url: p.url, content_hash: p.content_hash ?? null });
      const res = await fetchUrl(p.url, {
        rights: p.rights,
        etag: p.etag,
        lastModified: p.last_modified,
        username: p.username,
        password: p.password,
        accept: FEED_ACCEPT,
      });
      const base = { final_url: res.finalUrl, etag: res.etag, last_modified: res.lastModified, moved_to: res.movedTo };
      if (res.notModified) return { unchanged: true, ...base, content_hash: p.content_hash ?? null, feed: null };
      const content_hash = sha256Hex(res.body!);
      if (content_hash === p.content_hash) return { unchanged: true, ...base, content_hash, feed: null };
      const feed = parseFeed(res.body!, { charset: charsetOf(res.contentType), baseUrl: res.finalUrl });
      return { unchanged: false, ...base, moved_to: res.movedTo ?? (p.newFeedUrl ? await this.newFeedUrl(p, res, feed) : null), content_hash, feed };
    },
    /**
     * The itunes:new-feed-url of a feed, when it names another address that answers a feed now (the same rights
     * and credentials): a podcaster's move. Many feeds name their own address there; one that does not answer
     * (a typo, a move announced early) moves nothing.
     */
    async newFeedUrl(this: FeedsThis, p: FeedRequest, res: FetchResult, feed: ParsedFeed): Promise<string | null> {
      const named = feed.new_feed_url?.trim();
      if (!named || !/^https?:\/\//i.test(named) || named === p.url || named === res.finalUrl) return null;
      try {
        const next = await fetchUrl(named, { rights: p.rights, username: p.username, password: p.password, accept: FEED_ACCEPT });
        parseFeed(next.body!, { charset: charsetOf(next.contentType), baseUrl: next.finalUrl });
        return next.movedTo ?? named;
      } catch (err) {
        this.logger.info("itunes:new-feed-url does not answer a feed: not moved", { error: (err as Error)?.message });
        return null;
      }
    },
    /**
     * Refreshes podcasts with REFRESH_CONCURRENCY calls in flight per feeds replica, each call sent to
     * the replicas in turn (the broker would keep them on this node: preferLocal).
     */
    async refreshMany(this: FeedsThis, ids: number[]): Promise<RefreshSummary> {
      const summary: RefreshSummary = { refreshed: 0, updated: 0, unchanged: 0, failed: 0, new_episodes: 0 };
      // The registry lists each service with its node (moleculer's types give it as a schema, without nodeID).
      const listed = this.broker.registry.getServiceList({ onlyAvailable: true }) as unknown as { name: string; nodeID: string }[];
      const nodes: string[] = Array.from(new Set<string>(listed.filter((s) => s.name === this.name).map((s) => s.nodeID)));
      if (!nodes.length) nodes.push(this.broker.nodeID);
      let next = 0;
      const worker = async () => {
        while (next < ids.length) {
          const i = next++;
          const podcast_id = ids[i];
          let result: RefreshResult;
          try {
            result = await refreshFeed(this.broker, { podcast_id }, { nodeID: nodes[i % nodes.length] })
              // A replica that left meanwhile: any other one.
              .catch((err: Error) => (err?.name === "ServiceNotAvailableError" ? refreshFeed(this.broker, { podcast_id }) : Promise.reject(err)));
          } catch (err) {
            this.logger.warn("feed refresh failed", { podcast_id, error: (err as Error)?.message });
            result = { podcast_id, status: "failed", new_episodes: 0 };
          }
          summary.refreshed++;
          if (result.status === "updated") summary.updated++;
          else if (result.status === "failed") summary.failed++;
          else summary.unchanged++;
          summary.new_episodes += result.new_episodes;
        }
      };
      await Promise.all(Array.from({ length: Math.max(1, config.refreshConcurrency * nodes.length) }, worker));
      return summary;
    },
    async runFullRefresh(this: FeedsThis): Promise<RefreshSummary> {
      const started = Date.now();
      const targets: RefreshTarget[] = await refreshTargets(this.broker, {});
      const summary: RefreshSummary = await this.refreshMany(targets.map((t) => t.podcast_id));
      this.logger.info("scheduled refresh done", { ...summary, ms: Date.now() - started });
      return summary;
    },
  },
};

export default FeedsService;
