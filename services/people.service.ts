/**
 * Podcast people (spec: podpeople/discover, podpeople/host_podcasts, refresh_hosts) from the podcast
 * people database at PEOPLE_URL (its public API: /api/recent-hosts, /api/popular-podcasts, /api/stats,
 * /api/hosts/{directory id}) and the directory's person search (search service).
 * Collection podcast_hosts: the hosts the people database lists for each subscribed podcast, by
 * directory id, renewed by refresh_hosts and read in batches through podcast_hosts.
 */
import type { ServiceSchema } from "moleculer";
import { config } from "../shared/config";
import { DbMixin } from "../shared/db.mixin";
import { ServiceUnavailableError } from "../shared/errors";
import { namesPattern } from "../shared/regex";
import { fetchProviderJson, PROVIDER_CIRCUIT_BREAKER as circuitBreaker } from "../shared/provider";
import type { HostedBy } from "../shared/contracts/following";
import { DiscoverAnswer, HostPodcastsAnswer, RefreshHostsAnswer } from "../shared/contracts/people";
import type { Static } from "../shared/contracts/answers";
import { search } from "../shared/contracts/search";
import { indexIds } from "../shared/contracts/podcasts";
import type { Ctx, DbThis } from "../shared/service-types";

/** discover kinds: the people database's listing endpoints (underscore spellings accepted). */
const DISCOVER_KINDS = ["recent-hosts", "popular-podcasts", "stats"];
/** Host lookups in flight during refresh_hosts. */
const REFRESH_CONCURRENCY = 4;

interface PodcastHostsDoc {
  _id: number;
  hosts: unknown[];
  refreshed_at: Date;
}

type PeopleThis = DbThis<PodcastHostsDoc>;

/** A podcast of the directory's person search, as the search service builds it from the episodes found (search.parts/providers.ts). */
interface PersonSearchFeed {
  id: number;
  title: string;
  url: string;
  author: string | null;
  artwork: string;
  image: string;
  description: string | null;
}

function peopleUrl(path: string): string {
  if (!config.peopleUrl) throw new ServiceUnavailableError("The podcast people database is not configured (PEOPLE_URL)");
  return `${config.peopleUrl.replace(/\/$/, "")}${path}`;
}

const PeopleService: ServiceSchema<Record<string, never>, PeopleThis> = {
  name: "people",
  // hosts.name (sparse, MongoDB): the podcasts of some hosts, without reading every podcast's hosts.
  mixins: [DbMixin({ name: "podcast_hosts", indexes: [{ fields: { "hosts.name": 1 }, sparse: true, mongoOnly: true }] })],
  actions: {
    /** GET /api/data/podpeople/discover: a listing of the people database, at most limit entries. */
    discover: {
      idempotent: true,
      response: DiscoverAnswer,
      circuitBreaker,
      params: {
        kind: { type: "enum", values: [...DISCOVER_KINDS, ...DISCOVER_KINDS.map((k) => k.replace("-", "_"))] },
        limit: { type: "number", integer: true, min: 1, max: 200, convert: true, optional: true },
      },
      async handler(this: PeopleThis, ctx: Ctx<{ kind: string; limit?: number }>): Promise<Static<typeof DiscoverAnswer>> {
        const kind = ctx.params.kind.replace("_", "-");
        // The people database's JSON object or array (fetchProviderJson), passed on as it is.
        const json: unknown = await fetchProviderJson("people", peopleUrl(`/api/${kind}`));
        const data = json as Static<typeof DiscoverAnswer>;
        return Array.isArray(data) && ctx.params.limit ? data.slice(0, ctx.params.limit) : data;
      },
    },
    /** GET /api/data/podpeople/host_podcasts: the podcasts a person hosts or appears in (directory person search). */
    host_podcasts: {
      idempotent: true,
      response: HostPodcastsAnswer,
      circuitBreaker,
      params: { hostname: { type: "string", trim: true, min: 1, max: 200 } },
      async handler(this: PeopleThis, ctx: Ctx<{ hostname: string }>): Promise<Static<typeof HostPodcastsAnswer>> {
        // A person search of the directory: its feeds are built from the episodes found.
        const found = (await search(ctx, { query: ctx.params.hostname, index: "directory", search_type: "person" })) as { feeds: PersonSearchFeed[] };
        return {
          success: true,
          podcasts: found.feeds.map((f) => ({
            podcastid: f.id,
            podcastname: f.title,
            feedurl: f.url,
            podcast_index_id: f.id,
            title: f.title,
            feed_url: f.url,
            author: f.author ?? null,
            artwork_url: f.artwork || f.image || null,
            description: f.description ?? null,
          })),
        };
      },
    },
    /** GET /api/data/refresh_hosts (admin): renews the hosts of every subscribed podcast that has a directory id. */
    refresh_hosts: {
      idempotent: false,
      response: RefreshHostsAnswer,
      circuitBreaker,
      params: {},
      async handler(this: PeopleThis, ctx: Ctx): Promise<Static<typeof RefreshHostsAnswer>> {
        const ids: number[] = await indexIds(ctx, {});
        // Not configured: one clear 503 rather than a failure per podcast (nothing to refresh needs no database).
        if (ids.length) peopleUrl("/");
        let next = 0;
        let failed = 0;
        const worker = async () => {
          while (next < ids.length) {
            const id = ids[next++];
            try {
              // A JSON object or array (fetchProviderJson): the list itself, or one under hosts.
              const data: unknown = await fetchProviderJson("people", peopleUrl(`/api/hosts/${id}`));
              const listed: unknown = Array.isArray(data) ? undefined : (data as { hosts?: unknown }).hosts;
              const hosts: unknown[] = Array.isArray(data) ? data : Array.isArray(listed) ? listed : [];
              const set = { hosts, refreshed_at: new Date() };
              if (!(await this.adapter.updateMany({ _id: id }, { $set: set })))
                await this.insertUnique(this.adapter, { _id: id, ...set }, "refreshed twice at once");
            } catch (err) {
              failed++;
              this.logger.warn("host refresh failed", { podcast_index_id: id, error: (err as Error)?.message });
            }
          }
        };
        await Promise.all(Array.from({ length: REFRESH_CONCURRENCY }, worker));
        return { success: failed === 0, detail: `Refreshed the hosts of ${ids.length - failed} podcasts`, refreshed: ids.length - failed, failed };
      },
    },

    // --- Internal actions (not in the route table) ---

    /** The stored hosts of podcasts by directory id, in one call. */
    podcast_hosts: {
      visibility: "public",
      params: { podcast_index_ids: { type: "array", items: "number" } },
      async handler(this: PeopleThis, ctx: Ctx<{ podcast_index_ids: number[] }>): Promise<Record<number, unknown[]>> {
        const docs: PodcastHostsDoc[] = await this.adapter.find({ query: { _id: { $in: ctx.params.podcast_index_ids } } });
        return Object.fromEntries(docs.map((d) => [d._id, d.hosts]));
      },
    },
    /** By lower-cased name, the directory ids of the stored podcasts these people host, and their picture (following.service). */
    hosted_by: {
      visibility: "public",
      params: { names: { type: "array", items: "string", max: 1000 } },
      async handler(this: PeopleThis, ctx: Ctx<{ names: string[] }>): Promise<HostedBy> {
        const out: HostedBy = Object.fromEntries(ctx.params.names.map((n) => [n.toLowerCase(), { podcast_index_ids: [], img: null }]));
        if (!ctx.params.names.length) return out;
        // Only the podcasts one of these people hosts; the loop below picks which host of each matched.
        const docs: PodcastHostsDoc[] = await this.adapter.find({ query: { "hosts.name": { $regex: namesPattern(ctx.params.names) } } });
        for (const d of docs) {
          for (const h of d.hosts as { name?: unknown; img?: unknown }[]) {
            const entry = typeof h?.name === "string" ? out[h.name.toLowerCase()] : undefined;
            if (!entry) continue;
            entry.podcast_index_ids.push(d._id);
            if (!entry.img && typeof h.img === "string") entry.img = h.img;
          }
        }
        return out;
      },
    },
  },
};

export default PeopleService;
