/**
 * GET /api/data/proxy_search: a podcast search of the search service (docs/spec/search-service-api.md, GET
 * /api/search) for PinePods' web and mobile clients, which search through this server with their key
 * instead of reaching the search service themselves. The call goes through the broker.
 */
import type { Context, ServiceActionsSchema } from "moleculer";
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
    handler(ctx: Context<SearchParams>): Promise<ProxySearchAnswer> {
      const { query, index, search_type } = ctx.params;
      return ctx.call("search.search", { query, index, search_type });
    },
  },
};
