/**
 * The API gateway (moleculer-web) on PORT: the route table, authentication once per request, the JSON
 * error body, request logging without secrets, and the few operations that belong to the server itself.
 */
import { STATUS_CODES } from "http";
import type { Socket } from "net";
import type { Context, ServiceSchema } from "moleculer";
import ApiGateway from "moleculer-web";
import { aliasIndexMixin } from "../shared/alias-index.mixin";
import { routes, toAliases } from "./api.routes";
import { attachTaskSocket } from "./api.tasks-socket";
import { clientAddress, trustedProxyList } from "../shared/client-address";
import { config } from "../shared/config";
import { docsRoute, gatewayOpsMixin } from "../shared/gateway-ops.mixin";
import { keyCacheMixin } from "../shared/key-cache.mixin";
import { BadRequestError, ERROR_CATEGORIES, ForbiddenError, toErrorResponse, UnauthorizedError } from "../shared/errors";
import { responseCheck } from "../shared/response-check";
import { hashApiKey } from "../shared/secrets";
import type { AuthUser, RouteDef } from "../shared/types";
import { TASK_CHANGED, TaskRecord } from "../shared/contracts/tasks";
import { ConfigAnswer, HealthAnswer, ServiceCheckAnswer, ServiceVersionAnswer } from "../shared/contracts/api";

/** The JSON error answer of an error; failures of the server itself (5xx) are logged. */
function errorAnswer(logger: any, req: any, err: any): { status: number; body: object } {
  const { status, body } = toErrorResponse(err);
  if (status >= 500) logger.error("request failed", { method: req.method, path: pathOf(req), status, error: err?.message, name: err?.name });
  return { status, body };
}

function sendError(this: any, req: any, res: any, err: any) {
  const { status, body } = errorAnswer(this.logger, req, err);
  if (res.headersSent) return;
  res.setHeader("Content-Type", "application/json; charset=utf-8");
  if (status === 401 && req.$alias?.auth === "basic") res.setHeader("WWW-Authenticate", 'Basic realm="podcast-server"');
  res.writeHead(status);
  res.end(JSON.stringify(body));
}

/**
 * moleculer-web's multipart handler answers a rejected upload action twice: its catch sends the error
 * at once (through busboy's "error"), then the form's end sends the caught error again as the result
 * ("Headers have already sent"). So the upload's call never rejects: the error becomes the JSON error
 * answer, sent once through the normal response when the form ends (the rest of the file drained).
 */
function answerUploadErrorsOnce(logger: any, ctx: Context<any, any>, req: any) {
  const call = ctx.call.bind(ctx);
  (ctx as any).call = (action: string, file: any, opts?: object) =>
    call(action, file, opts).catch((err: unknown) => {
      file?.resume?.();
      const { status, body } = errorAnswer(logger, req, err);
      Object.assign(ctx.meta, { $statusCode: status, $responseType: "application/json; charset=utf-8", $responseHeaders: undefined });
      return body;
    });
}

/** Path without the query string: query strings may carry api_key. */
function pathOf(req: any): string {
  return String(req.originalUrl || req.url || "").split("?")[0];
}

function parseBasic(header: string | undefined): { username: string; password: string } | null {
  if (!header || !/^basic /i.test(header)) return null;
  const decoded = Buffer.from(header.slice(6).trim(), "base64").toString("utf8");
  const sep = decoded.indexOf(":");
  if (sep < 0) return null;
  return { username: decoded.slice(0, sep), password: decoded.slice(sep + 1) };
}

const ApiService: ServiceSchema = {
  name: "api",
  mixins: [aliasIndexMixin, ApiGateway, gatewayOpsMixin(routes), keyCacheMixin],
  settings: {
    port: config.port,
    ip: config.host,
    // moleculer-web would log full URLs (with api_key query values): we log method, path and status only.
    logRequest: null,
    logResponse: null,
    logRequestParams: null, // params carry passwords and keys, even at debug level
    logResponseData: null,
    use: [
      function requestLog(this: any, req: any, res: any, next: any) {
        const start = process.hrtime.bigint();
        res.once("finish", () => {
          const ms = Number(process.hrtime.bigint() - start) / 1e6;
          this.logger.info("request", { method: req.method, path: pathOf(req), status: res.statusCode, ms });
          this.observeRequest(req, res.statusCode, ms);
        });
        next();
      },
    ],
    routes: [
      docsRoute,
      {
        path: "/",
        authentication: true,
        authorization: true,
        mappingPolicy: "restrict",
        autoAliases: false,
        // moleculer-web's own request/response log lines are off (logRequest/logResponse null), but with
        // route logging on it still builds a coloured duration string for every response: requestLog logs.
        logging: false,
        aliases: toAliases(routes),
        bodyParsers: {
          json: { strict: false, limit: config.maxBodySize },
          urlencoded: { extended: true, limit: config.maxBodySize },
        },
        onBeforeCall(this: any, ctx: Context<any, any>, _route: any, req: any) {
          if (req.$alias?.auth === "basic") ctx.meta.basic = parseBasic(req.headers.authorization);
          ctx.meta.requestOrigin = `${req.socket?.encrypted ? "https" : "http"}://${req.headers.host}`;
          // Media routes answer ranges and HEAD themselves.
          if (req.headers.range) ctx.meta.range = String(req.headers.range);
          if (req.method === "HEAD") ctx.meta.method = "HEAD";
          // Large downloads (backup_server) are gzip-encoded for clients that accept it.
          if (req.headers["accept-encoding"]) ctx.meta.acceptEncoding = String(req.headers["accept-encoding"]);
          ctx.meta.clientIp = clientAddress(req.socket?.remoteAddress, req.headers["x-forwarded-for"], config.trustedProxies);
        },
        onError: sendError,
        // Test-time only (RESPONSE_SCHEMA_CHECK): with the setting off the route has no onAfterCall at all.
        ...(config.responseSchemaCheck ? { onAfterCall: responseCheck() } : {}),
      },
    ],
    onError: sendError,
  },
  created() {
    trustedProxyList(config.trustedProxies); // a wrong TRUSTED_PROXIES entry stops the start, not a login
  },
  started(this: any) {
    // Requests Node's HTTP parser refuses (oversized headers, garbage) get the JSON error body too.
    this.server.on("clientError", (err: any, socket: Socket) => {
      if (!socket.writable || err.code === "ECONNRESET") return socket.destroy();
      const status = err.code === "HPE_HEADER_OVERFLOW" ? 431 : 400;
      const message = status === 431 ? "Request headers too large" : "Malformed HTTP request";
      const body = JSON.stringify({ error: ERROR_CATEGORIES[status], message, detail: message, status_code: status });
      socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
    });
    this.taskSocket = attachTaskSocket(
      this.server,
      (key) => this.userForKey(this.broker, key, "key"),
      (user_id) => this.broker.call("tasks.user_tasks", { user_id }),
      this.logger,
    );
  },
  stopped(this: any) {
    this.taskSocket?.close();
  },
  events: {
    /** Broadcast by the tasks service: pushed to the WebSockets of the task's user on this gateway. */
    [TASK_CHANGED](this: any, ctx: Context<TaskRecord>) {
      this.taskSocket?.push(ctx.params);
    },
  },
  actions: {
    /**
     * moleculer-web's per-request action, called by its own HTTP server only. The circuit breaker watches
     * remote endpoints; here it would only put a promise step on every request (the calls api.rest makes
     * keep theirs). Retries and tracking stay: a restart and a drain rely on them.
     */
    rest: { circuitBreaker: { enabled: false } },
    health: {
      params: {},
      response: HealthAnswer,
      async handler(this: any, ctx: Context): Promise<HealthAnswer> {
        const [stores, redis] = await Promise.all([this.storeHealth(ctx), this.cacheHealthy()]);
        const database = stores.healthy;
        // Until this node's own services have all started, requests could still reach a missing one.
        const healthy = database && redis && this.broker.started;
        if (!healthy) (ctx.meta as any).$statusCode = 503;
        return { status: healthy ? "healthy" : "unhealthy", database, redis, timestamp: new Date().toISOString(), version: config.version, services: stores.services };
      },
    },
    service_check: {
      params: {},
      response: ServiceCheckAnswer,
      handler(): ServiceCheckAnswer {
        return { status_code: 200, service_instance: true };
      },
    },
    /** GET /api/data/get_service_version */
    service_version: {
      params: {},
      response: ServiceVersionAnswer,
      handler(): ServiceVersionAnswer {
        return { data: config.version };
      },
    },
    config: {
      params: {},
      response: ConfigAnswer,
      handler(): ConfigAnswer {
        return {
          api_url: config.apiUrl,
          proxy_url: config.proxyUrl,
          proxy_host: config.proxyHost,
          proxy_port: config.proxyPort,
          proxy_protocol: config.proxyProtocol,
          reverse_proxy: config.reverseProxy,
          people_url: config.peopleUrl,
          version: config.version,
        };
      },
    },
  },
  methods: {
    /** Resolves Api-Key once per request (cached here and in the auth service) and checks the route's level. */
    async authenticate(this: any, ctx: Context<any, any>, _route: any, req: any, _res: any, alias: RouteDef): Promise<AuthUser | null> {
      const level = alias.auth;
      const header = req.headers["api-key"];
      let key = Array.isArray(header) ? header[0] : header;
      // Routes with keyIn also take the key as api_key in the query or body; it never reaches the action.
      if (alias.keyIn) {
        const source = alias.keyIn === "query" ? req.query : req.body;
        if (!key && typeof source?.api_key === "string") key = source.api_key;
        if (req.$params) delete req.$params.api_key;
      }
      if (level === "none" || level === "basic") return null;
      if (!key && level === "optional") return null;
      const user = await this.userForKey(ctx, key, level);
      // The user's RSS feed hands its own key on to the players it serves (enclosure URLs); never logged.
      if (level === "rss") ctx.meta.feedKey = key;
      return user;
    },
    /**
     * moleculer-web's hook after authentication, before the action: an upload route takes
     * multipart/form-data only (its form parser would fail on anything else with a 500), and its
     * action's errors are answered once.
     */
    authorize(this: any, ctx: Context, _route: any, req: any) {
      const upload: string | undefined = req.$alias?.upload;
      if (!upload) return;
      if (!/^multipart\/form-data\b/i.test(String(req.headers["content-type"] ?? ""))) {
        throw new BadRequestError(`Send multipart/form-data with the file in the field ${upload}`);
      }
      answerUploadErrorsOnce(this.logger, ctx, req);
    },
    /** The caller of a key at a route's level: 401 missing or unknown, 403 an rssonly key elsewhere or not an admin. */
    async userForKey(this: any, ctx: Pick<Context, "call">, key: string | undefined, level: RouteDef["auth"]): Promise<AuthUser> {
      if (!key) throw new UnauthorizedError("Missing Api-Key header");
      const user: AuthUser | null = await this.resolveKey(ctx, hashApiKey(String(key)));
      if (!user) throw new UnauthorizedError("Invalid API key");
      if (user.rssOnly && level !== "rss") throw new ForbiddenError("This key may only read RSS feeds");
      if (level === "admin" && !user.isAdmin) throw new ForbiddenError("Admin rights required");
      return user;
    },
    /** Every service with a store answers db_health; the database is healthy when all of them do. */
    async storeHealth(this: any, ctx: Context): Promise<{ healthy: boolean; services: string[] }> {
      const actions: string[] = this.broker.registry
        .getActionList({ onlyAvailable: false, skipInternal: true, withEndpoints: false })
        .filter((a: any) => a.name.endsWith(".db_health"))
        .map((a: any) => a.name);
      const names = Array.from(new Set(actions)).sort();
      const results = await Promise.all(names.map((name) => ctx.call(name, {}, { timeout: 5000, retries: 0 }).then(() => true, () => false)));
      return { healthy: names.length > 0 && results.every(Boolean), services: names.map((n) => n.split(".")[0]) };
    },
    async cacheHealthy(this: any): Promise<boolean> {
      const cacher = this.broker.cacher;
      if (!cacher?.client?.ping) return true; // the in-process memory cache is always there
      try {
        return (await Promise.race([cacher.client.ping(), new Promise((_, rej) => setTimeout(() => rej(new Error("timeout")), 2000))])) === "PONG";
      } catch {
        return false;
      }
    },
  },
};

export default ApiService;
