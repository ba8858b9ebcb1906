/**
 * GET /api/data/proxy_search: a podcast search of the search service (docs/spec/search-service-api.md, GET
 * /api/search) for PinePods' web and mobile clients, which search through this server with their key
 * instead of reaching the search service themselves. The call goes through the broker.
 */
import type { ServiceActionsSchema } from "moleculer";
import type { Ctx } from "../../shared/service-types";
import type { PodcastsThis } from "./this";
import { search } from "../../shared/contracts/search";
import { PROVIDER_CIRCUIT_BREAKER as circuitBreaker } from "../../shared/provider";
import { ProxySearchAnswer, type SearchParams } from "../../shared/contracts/search";

export const directoryActions: ServiceActionsSchema = {
  proxy_search: {
    idempotent: true,
    circuitBreaker,
    params: {
      query: { type: "string", trim: true, min: 1, max: 500 },
      // The search service checks the values (its neutral words and the clients' spellings).
      index: { type: "string", trim: true, min: 1, max: 32, optional: true },
      search_type: { type: "string", trim: true, min: 1, max: 16, optional: true },
    },
    response: ProxySearchAnswer,
    async handler(this: PodcastsThis, ctx: Ctx<SearchParams & { query: string }>): Promise<ProxySearchAnswer> {
      const { query, index, search_type } = ctx.params;
      // With a query the search service answers the index's results, never its plain-text connection check.
      return (await search(ctx, { query, index, search_type })) as ProxySearchAnswer;
    },
  },
};
