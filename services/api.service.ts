/**
 * The API gateway (moleculer-web) on PORT: the route table, authentication once per request, the JSON
 * error body, request logging without secrets, and the few operations that belong to the server itself.
 */
import { STATUS_CODES } from "http";
import type { Server, ServerResponse } from "http";
import type { Socket } from "net";
import type { Cacher, CallingOptions, LoggerInstance, ServiceSchema, ServiceSettingSchema } from "moleculer";
import ApiGateway from "moleculer-web";
import type { GatewayResponse, IncomingRequest, Route } from "moleculer-web";
import { aliasIndexMixin, type AliasIndexThis } from "../shared/alias-index.mixin";
import { toNeutralNames, withClientNames } from "../shared/client-names";
import { routes, toAliases } from "./api.routes";
import { attachTaskSocket, type TaskSocket } from "./api.tasks-socket";
import { clientAddress, publicOrigin, trustedProxyList } from "../shared/client-address";
import { config } from "../shared/config";
import { docsRoute, gatewayOpsMixin, type GatewayOpsThis } from "../shared/gateway-ops.mixin";
import { keyCacheMixin, type KeyCacheThis } from "../shared/key-cache.mixin";
import { firstSegments, webAppMiddleware } from "../shared/web-app";
import { BadRequestError, ERROR_CATEGORIES, ForbiddenError, toErrorResponse, UnauthorizedError } from "../shared/errors";
import { responseCheck } from "../shared/response-check";
import { hashApiKey, requestApiKey } from "../shared/secrets";
import { readCookie, SESSION_COOKIE, sessionCookie } from "../shared/cookies";
import { SYNC_ONLY_KINDS, type AuthUser, type RouteDef } from "../shared/types";
import type { Caller } from "../shared/contracts/call";
import type { Ctx } from "../shared/service-types";
import { tasksChanged, userTasks, type TaskRecord } from "../shared/contracts/tasks";
import { openSyncSession, syncLogin } from "../shared/contracts/auth";
import { ConfigAnswer, HealthAnswer, ServiceCheckAnswer, ServiceVersionAnswer } from "../shared/contracts/api";

/**
 * A request as moleculer-web hands it to the hooks: its alias is an entry of the route table (toAliases), with
 * the path's keys; its body as the body parser read it (JSON of any shape, or text).
 */
type ApiRequest = Omit<IncomingRequest, "$params"> & {
  $alias: Partial<RouteDef> & { keys?: { name: string }[] };
  /** The action's params as moleculer-web gathers them (query, path keys, an object body): typed `any` there. */
  $params: Record<string, unknown>;
  body?: unknown;
  socket: Socket & { encrypted?: boolean };
};

/** ctx.meta as the gateway fills it: GatewayMeta, and what media routes (Range, HEAD), backups and feeds read. */

interface ApiMethods {
  authenticate(ctx: Ctx<unknown>, route: Route, req: ApiRequest, res: GatewayResponse, alias: RouteDef): Promise<AuthUser | null>;
  authorize(ctx: Ctx<unknown>, route: Route, req: ApiRequest): void;
  userForKey(ctx: Caller, key: string | undefined, level: RouteDef["auth"]): Promise<AuthUser>;
  syncCaller(ctx: Ctx<unknown>, req: ApiRequest, res: ServerResponse, alias: RouteDef & { keys?: { name: string }[] }): Promise<AuthUser>;
  basicSyncCaller(ctx: Ctx<unknown>, basic: { username: string; password: string }): Promise<AuthUser>;
  storeHealth(ctx: Caller): Promise<{ healthy: boolean; services: string[] }>;
  cacheHealthy(): Promise<boolean>;
}

type ApiThis = KeyCacheThis &
  GatewayOpsThis &
  AliasIndexThis &
  ApiMethods & {
    /** moleculer-web's HTTP server. */
    server: Server;
    taskSocket?: TaskSocket;
  };

/** The JSON error answer of an error; failures of the server itself (5xx) are logged. */
function errorAnswer(logger: LoggerInstance, req: ApiRequest, err: unknown): { status: number; body: object } {
  const { status, body } = toErrorResponse(err);
  const e = err as Error | undefined;
  if (status >= 500) logger.error("request failed", { method: req.method, path: pathOf(req), status, error: e?.message, name: e?.name });
  return { status, body };
}

function sendError(this: ApiThis, req: ApiRequest, res: ServerResponse, err: unknown) {
  const { status, body } = errorAnswer(this.logger, req, err);
  if (res.headersSent) return;
  res.setHeader("Content-Type", "application/json; charset=utf-8");
  // Not for the web app's own calls (X-Requested-With): a browser would put up its password dialog over the page.
  if (status === 401 && (req.$alias?.auth === "basic" || req.$alias?.auth === "sync") && !req.headers["x-requested-with"])
    res.setHeader("WWW-Authenticate", 'Basic realm="podcast-server"');
  res.writeHead(status);
  res.end(JSON.stringify(body));
}

/**
 * moleculer-web's multipart handler answers a rejected upload action twice: its catch sends the error
 * at once (through busboy's "error"), then the form's end sends the caught error again as the result
 * ("Headers have already sent"). So the upload's call never rejects: the error becomes the JSON error
 * answer, sent once through the normal response when the form ends (the rest of the file drained).
 */
function answerUploadErrorsOnce(logger: LoggerInstance, ctx: Ctx<unknown>, req: ApiRequest) {
  const call = ctx.call.bind(ctx);
  // Object.assign: Context.call's overloads cannot be restated by one function; this one takes the same arguments.
  Object.assign(ctx, {
    call: (action: string, file?: NodeJS.ReadableStream, opts?: CallingOptions) =>
      call(action, file, opts).catch((err: unknown) => {
        file?.resume?.();
        const { status, body } = errorAnswer(logger, req, err);
        Object.assign(ctx.meta, { $statusCode: status, $responseType: "application/json; charset=utf-8", $responseHeaders: undefined });
        return body;
      }),
  });
}

/** Path without the query string: query strings may carry api_key. */
function pathOf(req: ApiRequest): string {
  return String(req.originalUrl || req.url || "").split("?")[0];
}

function parseBasic(header: string | undefined): { username: string; password: string } | null {
  if (!header || !/^basic /i.test(header)) return null;
  const decoded = Buffer.from(header.slice(6).trim(), "base64").toString("utf8");
  const sep = decoded.indexOf(":");
  if (sep < 0) return null;
  return { username: decoded.slice(0, sep), password: decoded.slice(sep + 1) };
}

/**
 * The part of the route table whose bodies are read one way (RouteDef.body) up to one limit (RouteDef.largeBody), with
 * or without PinePods' clients' names (RouteDef.clientNames: those have a gateway route of their own, so that no
 * other answer passes an extra hook).
 */
function routesWithBody(body: RouteDef["body"], largeBody = false, clientNames = false): Record<string, RouteDef> {
  return Object.fromEntries(
    Object.entries(routes).filter(([, def]) => def.body === body && !!def.largeBody === largeBody && !!def.clientNames === clientNames),
  );
}

const DEFAULT_PARSERS = { json: { strict: false, limit: config.maxBodySize }, urlencoded: { extended: true, limit: config.maxBodySize } };

/**
 * A route per body kind (RouteDef.body) and limit: MAX_BODY_SIZE, or SYNC_MAX_BODY_SIZE for the sync
 * server's uploads (RouteDef.largeBody: a phone's first sync sends its whole history in one request).
 */
function bodyRoutes() {
  const kinds = [
    ["json", false],
    ["text", false],
    ["json", true],
    ["text", true],
  ] as const;
  return kinds
    .flatMap(([body, large]) => [false, true].map((names) => [body, large, names] as const))
    .filter(([body, large, names]) => Object.keys(routesWithBody(body, large, names)).length > 0)
    .map(([body, large, names]) => {
      const limit = large ? config.syncMaxBodySize : config.maxBodySize;
      const parsers = body === "json" ? { json: { strict: false, limit, type: () => true } } : { json: false, text: { type: () => true, limit } };
      return apiRoute(`api-${body}${large ? "-sync" : ""}${names ? "-client-names" : ""}`, routesWithBody(body, large, names), parsers, names);
    });
}

/**
 * The gateway's route for part of the route table: auth, the hooks and the body parsers of those routes. With
 * clientNames (RouteDef.clientNames), the params' keys in PinePods' clients' words are renamed to the neutral ones
 * before the call, and the answer gets the clients' names beside the neutral ones (shared/client-names.ts).
 */
function apiRoute(name: string, table: Record<string, RouteDef>, bodyParsers: object, clientNames = false) {
  // Test-time only (RESPONSE_SCHEMA_CHECK): the action's answer against its own schema, before the clients' names.
  const check = config.responseSchemaCheck ? responseCheck() : undefined;
  const afterCall = !clientNames
    ? check
    : function (this: ApiThis, ctx: Ctx<unknown>, route: Route, req: ApiRequest, res: ServerResponse, data: unknown) {
        return withClientNames(check ? check.call(this, ctx, route, req, res, data) : data);
      };
  return {
    name,
    path: "/",
    authentication: true,
    authorization: true,
    mappingPolicy: "restrict",
    autoAliases: false,
    // moleculer-web's own request/response log lines are off (logRequest/logResponse null), but with
    // route logging on it still builds a coloured duration string for every response: requestLog logs.
    logging: false,
    aliases: toAliases(table),
    bodyParsers,
    onBeforeCall(this: ApiThis, ctx: Ctx<unknown>, _route: Route, req: ApiRequest) {
      const meta = ctx.meta;
      if (req.$alias?.auth === "basic") meta.basic = parseBasic(req.headers.authorization);
      const wanted: string[] | undefined = req.$alias?.headers;
      if (wanted) meta.headers = Object.fromEntries(wanted.filter((h) => typeof req.headers[h] === "string").map((h) => [h, req.headers[h] as string]));
      meta.requestOrigin = `${req.socket?.encrypted ? "https" : "http"}://${req.headers.host}`;
      // Media routes answer ranges and HEAD themselves.
      if (req.headers.range) meta.range = String(req.headers.range);
      if (req.method === "HEAD") meta.method = "HEAD";
      // Large downloads (backup_server) are gzip-encoded for clients that accept it.
      if (req.headers["accept-encoding"]) meta.acceptEncoding = String(req.headers["accept-encoding"]);
      meta.clientIp = clientAddress(req.socket?.remoteAddress, req.headers["x-forwarded-for"], config.trustedProxies);
      // moleculer-web merges only an object body into the params: a list (episode actions), a text or a bare
      // number (the web client's remove_oidc_provider) arrives as params.body.
      if (req.body !== undefined && (Array.isArray(req.body) || typeof req.body === "string" || typeof req.body === "number")) {
        if (Array.isArray(req.body)) for (const k of Object.keys(req.body)) delete req.$params[k];
        req.$params.body = req.body;
      }
      if (clientNames) toNeutralNames(req.$params);
    },
    onError: sendError,
    // With the check off, the routes without clients' names have no onAfterCall at all.
    ...(afterCall ? { onAfterCall: afterCall } : {}),
  };
}

const ApiService: ServiceSchema<ServiceSettingSchema, ApiThis> = {
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
      function requestLog(this: ApiThis, req: ApiRequest, res: ServerResponse, next: () => void) {
        const start = process.hrtime.bigint();
        res.once("finish", () => {
          const ms = Number(process.hrtime.bigint() - start) / 1e6;
          this.logger.info("request", { method: req.method, path: pathOf(req), status: res.statusCode, ms });
          this.observeRequest(req, res.statusCode, ms);
        });
        next();
      },
      // The web app at "/" (its pages' addresses never shadow an API route: test/unit/web-pages.test.ts).
      webAppMiddleware(firstSegments(routes)),
    ],
    routes: [
      docsRoute,
      apiRoute("api", routesWithBody(undefined), DEFAULT_PARSERS),
      apiRoute("api-client-names", routesWithBody(undefined, false, true), DEFAULT_PARSERS, true),
      // Routes whose body is JSON, or text, whatever its content type (gPodder's client library labels its JSON as form data).
      ...bodyRoutes(),
    ],
    onError: sendError,
  },
  created(this: ApiThis) {
    trustedProxyList(config.trustedProxies); // a wrong TRUSTED_PROXIES entry stops the start, not a login
  },
  started(this: ApiThis) {
    // Requests Node's HTTP parser refuses (oversized headers, garbage) get the JSON error body too.
    this.server.on("clientError", (err: NodeJS.ErrnoException, socket: Socket) => {
      if (!socket.writable || err.code === "ECONNRESET") return socket.destroy();
      const status = err.code === "HPE_HEADER_OVERFLOW" ? 431 : 400;
      const message = status === 431 ? "Request headers too large" : "Malformed HTTP request";
      const body = JSON.stringify({ error: ERROR_CATEGORIES[status], message, detail: message, status_code: status });
      socket.end(
        `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    });
    this.taskSocket = attachTaskSocket(
      this.server,
      (key) => this.userForKey(this.broker, key, "key"),
      (user_id) => userTasks(this.broker, { user_id }),
      this.logger,
    );
  },
  stopped(this: ApiThis) {
    this.taskSocket?.close();
  },
  events: {
    /** Broadcast by the tasks service: pushed to the WebSockets of the task's user on this gateway. */
    [tasksChanged.eventName](this: ApiThis, ctx: Ctx<TaskRecord>) {
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
      idempotent: true,
      params: {},
      response: HealthAnswer,
      async handler(this: ApiThis, ctx: Ctx): Promise<HealthAnswer> {
        const [stores, redis] = await Promise.all([this.storeHealth(ctx), this.cacheHealthy()]);
        const database = stores.healthy;
        // Until this node's own services have all started, requests could still reach a missing one.
        const healthy = database && redis && this.broker.started;
        const meta = ctx.meta;
        if (!healthy) meta.$statusCode = 503;
        return {
          status: healthy ? "healthy" : "unhealthy",
          database,
          redis,
          timestamp: new Date().toISOString(),
          version: config.version,
          services: stores.services,
        };
      },
    },
    service_check: {
      idempotent: true,
      params: {},
      response: ServiceCheckAnswer,
      handler(this: ApiThis): ServiceCheckAnswer {
        // pinepods_instance: what PinePods' clients check (GET /api/pinepods_check answers the same).
        return { status_code: 200, service_instance: true, pinepods_instance: true };
      },
    },
    /** GET /api/data/get_service_version (and get_pinepods_version, PinePods' clients' name) */
    service_version: {
      idempotent: true,
      params: {},
      response: ServiceVersionAnswer,
      handler(this: ApiThis): ServiceVersionAnswer {
        return { data: config.version };
      },
    },
    config: {
      idempotent: true,
      params: {},
      response: ConfigAnswer,
      handler(this: ApiThis): ConfigAnswer {
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
    /** Resolves Api-Key (or X-Api-Key) once per request (cached here and in the auth service) and checks the route's level. */
    async authenticate(this: ApiThis, ctx: Ctx<unknown>, _route: Route, req: ApiRequest, res: GatewayResponse, alias: RouteDef): Promise<AuthUser | null> {
      const level = alias.auth;
      let key = requestApiKey(req.headers);
      // Routes with keyIn also take the key as api_key in the query or body; it never reaches the action.
      if (alias.keyIn) {
        const source = alias.keyIn === "query" ? req.query : (req.body as { api_key?: unknown } | undefined);
        if (!key && typeof source?.api_key === "string") key = source.api_key;
        if (req.$params) delete req.$params.api_key;
      }
      if (level === "sync") return this.syncCaller(ctx, req, res, alias);
      if (level === "none" || level === "basic") return null;
      if (!key && level === "optional") return null;
      const user = await this.userForKey(ctx, key, level);
      // The user's RSS feed hands its own key on to the players it serves (enclosure URLs); never logged.
      if (level === "rss") {
        const meta = ctx.meta;
        meta.feedKey = key;
      }
      return user;
    },
    /**
     * moleculer-web's hook after authentication, before the action: an upload route takes
     * multipart/form-data only (its form parser would fail on anything else with a 500), and its
     * action's errors are answered once.
     */
    authorize(this: ApiThis, ctx: Ctx<unknown>, _route: Route, req: ApiRequest) {
      const upload: string | undefined = req.$alias?.upload;
      if (!upload) return;
      if (!/^multipart\/form-data\b/i.test(String(req.headers["content-type"] ?? ""))) {
        throw new BadRequestError(`Send multipart/form-data with the file in the field ${upload}`);
      }
      answerUploadErrorsOnce(this.logger, ctx, req);
    },
    /** The caller of a key at a route's level: 401 missing or unknown, 403 an rssonly key elsewhere or not an admin. */
    async userForKey(this: ApiThis, ctx: Caller, key: string | undefined, level: RouteDef["auth"]): Promise<AuthUser> {
      if (!key) throw new UnauthorizedError("Missing Api-Key header");
      const user: AuthUser | null = await this.resolveKey(ctx, hashApiKey(String(key)));
      if (!user) throw new UnauthorizedError("Invalid API key");
      if (user.kind && SYNC_ONLY_KINDS.includes(user.kind)) throw new ForbiddenError("App passwords and sync sessions open only the sync routes");
      if (user.rssOnly && level !== "rss") throw new ForbiddenError("This key may only read RSS feeds");
      if (level === "admin" && !user.isAdmin) throw new ForbiddenError("Admin rights required");
      return user;
    },
    /**
     * The caller of a sync route (auth "sync"): HTTP Basic with the account password (get_key's login
     * limits; refused with MFA on) or an app password, else the sessionid cookie of an earlier sync login.
     * Basic wins over a cookie (a client switching accounts sends both). Nothing is opened unless every
     * check passes; then a Basic login without a valid cookie of that user opens a session and sets its
     * cookie, since gPodder's client sends credentials only after a 401 and at most three times per session.
     */
    async syncCaller(
      this: ApiThis,
      ctx: Ctx<unknown>,
      req: ApiRequest,
      res: ServerResponse,
      alias: RouteDef & { keys?: { name: string }[] },
    ): Promise<AuthUser> {
      if (!config.syncServerEnabled) throw new ForbiddenError("The sync server is switched off on this server");
      const token = readCookie(req.headers.cookie, SESSION_COOKIE);
      const tokenHash = token ? hashApiKey(token) : null;
      const session: AuthUser | null = tokenHash ? await this.resolveKey(ctx, tokenHash) : null;
      const cookieUser = session?.kind === "session" && session.expiresAt! > Date.now() ? session : null;
      const basic = parseBasic(req.headers.authorization);
      if (!basic && !cookieUser)
        throw new UnauthorizedError(token ? "The session has ended: sign in again" : "HTTP Basic credentials or a session cookie required");
      const user: AuthUser = basic ? await this.basicSyncCaller(ctx, basic) : cookieUser!;
      if (user.syncServer === false) throw new ForbiddenError("The sync server is switched off for this account");
      // gpodder.net answers 401 when the path names another user than the credentials.
      const pathUser = alias.keys?.some((k) => k.name === "username") ? String((req.$params?.username as string | undefined) ?? "") : null;
      if (pathUser !== null && pathUser.toLowerCase() !== user.username) throw new UnauthorizedError("These credentials are not for this user");
      if (basic && cookieUser?.id !== user.id) {
        const opened: { token: string } = await openSyncSession(ctx, { user_id: user.id, app_password_id: user.kind === "app" ? user.keyId : undefined });
        res.setHeader("Set-Cookie", sessionCookie(opened.token, publicOrigin(ctx.meta)));
        ctx.meta.syncSession = hashApiKey(opened.token);
      } else {
        ctx.meta.syncSession = tokenHash!; // here the caller is the cookie's user, so there was a cookie
      }
      ctx.meta.syncUsername = user.username;
      return user;
    },
    /** Basic on a sync route: an app password of that user (a cached key lookup: Nextcloud apps send it on every request), else the account password. */
    async basicSyncCaller(this: ApiThis, ctx: Ctx<unknown>, basic: { username: string; password: string }): Promise<AuthUser> {
      const username = basic.username.toLowerCase();
      if (!username) throw new UnauthorizedError("Invalid username or password");
      const key: AuthUser | null = await this.resolveKey(ctx, hashApiKey(basic.password));
      if (key?.kind === "app" && key.username === username) return key;
      // Every other secret (a wrong app password too) is a counted login attempt.
      return syncLogin(ctx, { username, password: basic.password });
    },
    /** Every service with a store answers db_health; the database is healthy when all of them do. */
    async storeHealth(this: ApiThis, ctx: Caller): Promise<{ healthy: boolean; services: string[] }> {
      const actions: string[] = this.broker.registry
        .getActionList({ onlyAvailable: false, skipInternal: true, withEndpoints: false })
        .filter((a) => a.name.endsWith(".db_health"))
        .map((a) => a.name);
      const names = Array.from(new Set(actions)).sort();
      const results = await Promise.all(
        names.map((name) =>
          ctx.call(name, {}, { timeout: 5000, retries: 0 }).then(
            () => true,
            () => false,
          ),
        ),
      );
      return { healthy: names.length > 0 && results.every(Boolean), services: names.map((n) => n.split(".")[0]) };
    },
    async cacheHealthy(this: ApiThis): Promise<boolean> {
      // The Redis cacher's client (ioredis) is not in Moleculer's Cacher type.
      const cacher: (Cacher & { client?: { ping?: () => Promise<string> } }) | undefined = this.broker.cacher;
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
