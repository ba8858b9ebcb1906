/**
 * The search service's own gateway (moleculer-web) on SEARCH_PORT, all interfaces: the four routes of
 * docs/spec/search-service-api.md, CORS for any origin (preflight included), and plain-text errors.
 * It scales apart from the podcast API gateway (SERVICES=search-api,search).
 */
import type { IncomingMessage, ServerResponse } from "http";
import type { Context, Service, ServiceSchema, ServiceSettingSchema } from "moleculer";
import ApiGateway from "moleculer-web";
import { search, searchPodcast, searchStats, vidsiteChannel } from "../shared/contracts/search";
import { aliasIndexMixin } from "../shared/alias-index.mixin";
import { config } from "../shared/config";
import { toErrorResponse } from "../shared/errors";

/** Messages the search service wrote for the client; any other failure stays a generic text. */
const CLIENT_FACING_TYPES = new Set(["internal_error", "service_unavailable"]);

type SearchApiThis = Service;

function sendPlainError(this: SearchApiThis, req: IncomingMessage, res: ServerResponse, err: Error & { type?: string }) {
  const { status, body } = toErrorResponse(err);
  const message = status >= 500 && CLIENT_FACING_TYPES.has(err?.type ?? "") ? err.message : body.message;
  if (status >= 500) this.logger.warn("search request failed", { path: String(req.url ?? "").split("?")[0], status, error: message });
  if (res.headersSent) return;
  res.writeHead(status, { "Content-Type": "text/plain; charset=utf-8" });
  res.end(message);
}

const SearchApiService: ServiceSchema<ServiceSettingSchema, SearchApiThis> = {
  name: "search-api",
  mixins: [aliasIndexMixin, ApiGateway],
  settings: {
    port: config.searchPort,
    ip: config.searchHost,
    // Query strings are search terms of users: the request line is not logged at info level.
    logRequest: "debug",
    logResponse: null,
    logRequestParams: null,
    logResponseData: null,
    routes: [
      {
        // Mounted at "/", not "/api": a request that found no search node (a rolling restart) is retried
        // with the same req, whose url moleculer-web has already cut by the route's path; "/" leaves it whole.
        path: "/",
        mappingPolicy: "restrict",
        autoAliases: false,
        cors: { origin: "*", methods: ["GET", "OPTIONS"], maxAge: 86400 },
        aliases: {
          "GET /api/search": search.actionName,
          "GET /api/podcast": searchPodcast.actionName,
          "GET /api/vidsite/channel": vidsiteChannel.actionName,
          "GET /api/stats": searchStats.actionName,
        },
        // The provider deadline plus the way there and back.
        callOptions: { timeout: config.searchProviderTimeoutMs + 10_000, retries: 0 },
        onAfterCall(
          this: SearchApiThis,
          ctx: Context<unknown, { $responseType?: string }>,
          _route: unknown,
          _req: IncomingMessage,
          _res: ServerResponse,
          data: unknown,
        ) {
          if (typeof data === "string") ctx.meta.$responseType = "text/plain; charset=utf-8";
          return data;
        },
        onError: sendPlainError,
      },
    ],
    onError: sendPlainError,
  },
};

export default SearchApiService;
