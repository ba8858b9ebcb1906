/**
 * The search service (docs/spec/search-service-api.md): podcast search in the directory and store
 * providers, video channel search and details, and the per-provider request counters. Its gateway is
 * search-api.service.ts. Provider answers are cached in the broker's cacher for SEARCH_CACHE_TTL
 * seconds; the counters live in this service's search_stats collection (one document, $inc only),
 * so every replica shares them and they survive restarts.
 */
import type { ServiceSchema } from "moleculer";
import { config } from "../shared/config";
import type { ProviderLookup, SearchAnswer, SearchParams, SearchProvider, SearchStats, VidsiteChannelDetails } from "../shared/contracts/search";
import { providerCall } from "../shared/contracts/search";
import type { Caller } from "../shared/contracts/call";
import type { Ctx, DbThis } from "../shared/service-types";
import { CHANNEL_ID } from "../shared/contracts/vidsite";
import { DbMixin } from "../shared/db.mixin";
import { BadRequestError } from "../shared/errors";
import { PROVIDER_CIRCUIT_BREAKER as circuitBreaker } from "../shared/provider";
import { directoryPodcast, directorySearch, storeSearch } from "./search.parts/providers";
import { channelDetails, searchChannels } from "./search.parts/vidsite";

/** The index values accepted: the neutral words and the spellings real clients send (PinePods' web and mobile clients: podcast_index). */
const INDEXES: Record<string, SearchProvider> = {
  directory: "directory",
  podcastindex: "directory",
  podcast_index: "directory",
  store: "store",
  itunes: "store",
  vidsite: "vidsite",
  youtube: "vidsite",
};
const STATS_ID = "api_usage";
const PROVIDERS: SearchProvider[] = ["store", "directory", "vidsite"];
/** Plain-text answer of GET /api/search without query and index: clients use it to test the address. */
const CONNECTION_OK = "Successful connection to the search service";

/** The counters document: requests per provider ({provider}_hits), $inc only. */
type StatsDoc = { _id: string } & Partial<Record<`${SearchProvider}_hits`, number>>;

interface SearchMethods {
  lookup<R>(ctx: Caller, params: ProviderLookup): Promise<R>;
  count(provider: SearchProvider): void;
  flushStats(): Promise<void>;
}

type SearchThis = DbThis<StatsDoc> &
  SearchMethods & {
    /** Requests counted since the last flush, per provider. */
    pending: Record<SearchProvider, number>;
    /** The counts of the flush on its way to the store. */
    flushing: Record<string, number>;
    /** Provider calls in flight, by what they ask: concurrent requests share one. */
    inflight: Map<string, Promise<unknown>>;
    flushTimer: NodeJS.Timeout;
  };

const SearchService: ServiceSchema<Record<string, never>, SearchThis> = {
  name: "search",
  mixins: [DbMixin({ name: "search_stats" })],
  actions: {
    search: {
      circuitBreaker,
      params: {
        query: { type: "string", optional: true, trim: true, max: 500 },
        index: { type: "string", optional: true, trim: true, lowercase: true },
        search_type: { type: "string", optional: true, trim: true, lowercase: true },
      },
      async handler(this: SearchThis, ctx: Ctx<SearchParams>): Promise<SearchAnswer> {
        const { query, index, search_type } = ctx.params;
        if (!query && !index) return CONNECTION_OK;
        if (!query) throw new BadRequestError("query is required");
        const provider = INDEXES[index || "directory"];
        if (!provider) throw new BadRequestError("index must be directory, store or vidsite (or podcastindex, podcast_index, itunes, youtube)");
        const kind = search_type || "term";
        if (kind !== "term" && kind !== "person") throw new BadRequestError("search_type must be term or person");
        if (kind === "person" && provider !== "directory") throw new BadRequestError("search_type person is supported by the directory index only");
        return this.lookup(ctx, { provider, kind, q: query });
      },
    },
    podcast: {
      circuitBreaker,
      params: { id: { type: "string", trim: true } },
      handler(this: SearchThis, ctx: Ctx<{ id: string }>): Promise<unknown> {
        if (!/^\d{1,12}$/.test(ctx.params.id)) throw new BadRequestError("id must be a directory feed id (digits)");
        return this.lookup(ctx, { provider: "directory", kind: "podcast", q: ctx.params.id });
      },
    },
    vidsite_channel: {
      circuitBreaker,
      params: { id: { type: "string", trim: true } },
      handler(this: SearchThis, ctx: Ctx<{ id: string }>): Promise<VidsiteChannelDetails> {
        if (!CHANNEL_ID.test(ctx.params.id)) throw new BadRequestError("id must be a channel id or @handle");
        return this.lookup(ctx, { provider: "vidsite", kind: "channel", q: ctx.params.id });
      },
    },
    stats: {
      params: {},
      async handler(this: SearchThis): Promise<SearchStats> {
        const stored: Partial<StatsDoc> = (await this.adapter.findById(STATS_ID)) ?? {};
        const unsaved = (p: SearchProvider) => this.pending[p] + (this.flushing[`${p}_hits`] ?? 0);
        const counts = Object.fromEntries(PROVIDERS.map((p) => [p, (stored[`${p}_hits`] ?? 0) + unsaved(p)]));
        return {
          api_usage: {
            store_hits: counts.store,
            directory_hits: counts.directory,
            vidsite_hits: counts.vidsite,
            total_hits: counts.store + counts.directory + counts.vidsite,
          },
          timestamp: new Date().toISOString(),
        };
      },
    },
    /** The provider call behind every route, cached by what it asks (errors are not cached). */
    provider_call: {
      visibility: "protected",
      circuitBreaker,
      cache: { keys: ["provider", "kind", "q"], ttl: config.searchCacheTtl },
      params: { provider: "string", kind: "string", q: "string" },
      handler(this: SearchThis, ctx: Ctx<ProviderLookup>): Promise<unknown> {
        const { provider, kind, q } = ctx.params;
        if (provider === "store") return storeSearch(q);
        if (provider === "vidsite") return kind === "channel" ? channelDetails(q, this.logger) : searchChannels(q, this.logger);
        return kind === "podcast" ? directoryPodcast(q) : directorySearch(q, kind as "term" | "person");
      },
    },
  },
  methods: {
    /**
     * Counts the request for its provider, then answers from the cache or the provider. Concurrent
     * requests for the same thing share one call, so that a burst on a cold term asks the provider once
     * (the shared answer is read-only to its callers).
     */
    lookup<R>(this: SearchThis, ctx: Caller, params: ProviderLookup): Promise<R> {
      this.count(params.provider);
      const key = `${params.provider}\n${params.kind}\n${params.q}`;
      let call = this.inflight.get(key);
      if (!call) {
        call = providerCall(ctx, params, { timeout: config.searchProviderTimeoutMs + 5_000 }).finally(() => this.inflight.delete(key));
        this.inflight.set(key, call);
      }
      // The provider's answer for what was asked: the route's result (provider_call knows no more than unknown).
      return call as Promise<R>;
    },
    count(this: SearchThis, provider: SearchProvider) {
      this.pending[provider]++;
    },
    /** Writes the counts gathered since the last flush with one $inc (a burst costs one write, not one per request). */
    async flushStats(this: SearchThis) {
      const inc: Record<string, number> = {};
      for (const p of PROVIDERS) if (this.pending[p] > 0) inc[`${p}_hits`] = this.pending[p];
      if (Object.keys(inc).length === 0) return;
      for (const p of PROVIDERS) this.pending[p] = 0;
      this.flushing = inc; // still counted by the stats action while the write is on its way
      try {
        await this.incrementDoc(this.adapter, STATS_ID, inc);
      } catch (err) {
        // Kept for the next flush rather than lost.
        for (const p of PROVIDERS) this.pending[p] += inc[`${p}_hits`] ?? 0;
        this.logger.warn("search stats flush failed", { error: (err as Error)?.message });
      } finally {
        this.flushing = {};
      }
    },
  },
  created(this: SearchThis) {
    this.pending = { store: 0, directory: 0, vidsite: 0 };
    this.flushing = {};
    this.inflight = new Map();
  },
  started(this: SearchThis) {
    this.flushTimer = setInterval(() => void this.flushStats(), config.searchStatsFlushMs);
    this.flushTimer.unref();
  },
  async stopped(this: SearchThis) {
    clearInterval(this.flushTimer);
    await this.flushStats();
  },
};

export default SearchService;
