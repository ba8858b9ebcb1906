/**
 * Every environment variable the server reads, with defaults that work on a laptop (house rule 9, docs/architecture.md).
 * Nothing else in the code base reads process.env.
 */
import path from "path";

const env = process.env;

function int(name: string, def: number): number {
  const v = env[name];
  if (v === undefined || v === "") return def;
  const n = Number(v);
  if (!Number.isFinite(n)) throw new Error(`Environment variable ${name} must be a number, got "${v}"`);
  return n;
}

function bool(name: string, def: boolean): boolean {
  const v = env[name];
  if (v === undefined || v === "") return def;
  return ["1", "true", "yes", "on"].includes(v.toLowerCase());
}

export const config = {
  /** Port of the API gateway. */
  port: int("PORT", 8040),
  /** Interface the gateway binds to. */
  host: env.HOST || "0.0.0.0",
  /** Folder of the embedded NeDB files (used when MONGO_URI is not set). */
  dataDir: path.resolve(env.DATA_DIR || "./data"),
  /** The built web app the gateway serves at "/" (`npm run build` writes it): dist/web beside the compiled code. */
  webDir: path.resolve(env.WEB_DIR || path.join(__dirname, "..", path.basename(path.join(__dirname, "..")) === "dist" ? "web" : "dist/web")),
  /**
   * Seconds a node waits for the live holder of its embedded data to stop before refusing to start: a
   * standby started before the one-instance node it replaces stops (0 = refuse at once).
   */
  dataLockWait: int("DATA_LOCK_WAIT", 0),
  /** Episode states the episodes service keeps in memory, whole users at a time (least recently read leave first). */
  stateCacheStates: int("STATE_CACHE_STATES", 500_000),
  /**
   * Seconds between an episodes replica's checks of the catalogue's change mark: a write whose broadcast it
   * missed (a NATS drop, a start) is read in within two checks.
   */
  catalogReconcileSeconds: int("CATALOG_RECONCILE_SECONDS", 10),
  /** MongoDB connection string; when set, every collection lives in MongoDB. */
  mongoUri: env.MONGO_URI || "",
  /** Moleculer transporter, e.g. nats://127.0.0.1:4222; empty = all services in one process. */
  transporter: env.TRANSPORTER || "",
  /** Encoding of the packets between nodes over the transporter (moleculer serializer: JSON, CBOR, Notepack); every node of a cluster must use the same. */
  serializer: env.SERIALIZER || "JSON",
  /**
   * Test-time check of every answer against its route's response schema (shared/response-check.ts): a
   * mismatch answers 500 naming the route and the schema path. Set by the test suite; off in production.
   */
  responseSchemaCheck: bool("RESPONSE_SCHEMA_CHECK", false),
  /** Moleculer cacher: "memory" (default) or a redis:// URL (shared by every node). */
  cacher: env.CACHER || "memory",
  /** Moleculer node id; defaults to hostname-pid. */
  nodeId: env.NODE_ID || undefined,
  /** Namespace separates clusters that share a NATS server. */
  namespace: env.NAMESPACE || "",
  logLevel: (env.LOG_LEVEL || "info") as "fatal" | "error" | "warn" | "info" | "debug" | "trace",
  /** Log line format: "json" (one object a line, for log collectors) or "short" (for a terminal). */
  logFormat: (env.LOG_FORMAT || "short") as "json" | "short" | "full" | "simple",
  /** Port of this node's /live and /ready probes (every process, gateway or not); 0 = none. */
  healthPort: int("HEALTH_PORT", 0),
  /** Port of this node's Prometheus /metrics; 0 = metrics off. */
  metricsPort: int("METRICS_PORT", 0),
  /** Request timeout between services, in ms. */
  requestTimeout: int("REQUEST_TIMEOUT", 30_000),
  /** Seconds between heartbeats, and without one before a node counts as dead (a killed pod says no goodbye). */
  heartbeatInterval: int("HEARTBEAT_INTERVAL", 5),
  heartbeatTimeout: int("HEARTBEAT_TIMEOUT", 15),
  /** Largest accepted request body. */
  maxBodySize: env.MAX_BODY_SIZE || "1mb",
  /** Largest body of a sync upload route (RouteDef.largeBody): gPodder clients send all pending actions at once. */
  syncMaxBodySize: env.SYNC_MAX_BODY_SIZE || "32mb",
  /** Failed logins, MFA codes and reset codes per username (or e-mail) and client address per minute before 429. */
  loginMaxFailures: int("LOGIN_MAX_FAILURES", 10),
  /** The same from one client address across all usernames. */
  loginMaxFailuresPerAddress: int("LOGIN_MAX_FAILURES_PER_ADDRESS", 30),
  /** Comma list of proxy addresses / CIDRs whose X-Forwarded-For names the client; empty = the socket's peer is the client. */
  trustedProxies: (env.TRUSTED_PROXIES || "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean),
  /** Time an API key lookup stays cached in the auth service and in each gateway, in seconds. */
  keyCacheTtl: int("KEY_CACHE_TTL", 60),
  /** Login keys kept per user; get_key issues a new one each time, the oldest beyond this go. */
  maxLoginKeys: int("MAX_LOGIN_KEYS", 50),
  /** API keys (create_api_key) a user may hold, and app passwords likewise: one more is refused (409) until one is deleted. */
  maxUserKeys: int("MAX_USER_KEYS", 100),
  /** Custom themes a user may hold: one more is refused (409) until one is deleted. */
  maxCustomThemes: int("MAX_CUSTOM_THEMES", 50),
  /** The gPodder / Nextcloud sync server (routes of auth level "sync"); false answers them 403 for everyone. */
  syncServerEnabled: bool("SYNC_SERVER_ENABLED", true),
  /** Days a sync session (the sessionid cookie a gPodder or Nextcloud login gets) stays valid. */
  syncSessionDays: int("SYNC_SESSION_DAYS", 14),
  /** Sync sessions kept per user: each Basic login without a valid cookie opens one, the oldest beyond this go. */
  maxSyncSessions: int("MAX_SYNC_SESSIONS", 50),
  /** Self-service registration at first start (an admin toggles it later). */
  selfServiceDefault: bool("SELF_SERVICE", false),
  /** Public addresses reported by /api/data/config. */
  apiUrl: env.API_URL || "",
  proxyUrl: env.PROXY_URL || "",
  proxyHost: env.PROXY_HOST || "",
  proxyPort: env.PROXY_PORT || "",
  proxyProtocol: env.PROXY_PROTOCOL || "",
  reverseProxy: env.REVERSE_PROXY || "False",
  peopleUrl: env.PEOPLE_URL || "",
  /** Service name shown in health/version answers and OTP issuers. */
  serviceName: env.SERVICE_NAME || "podcast-server",
  version: "0.1.0",

  // Outbound HTTP (shared/http.ts): feeds, media and the image proxy.
  /** Deadline of one outbound fetch (all redirects and the body), in ms. */
  httpTimeoutMs: int("HTTP_TIMEOUT_MS", 30_000),
  /** Largest decoded body an outbound fetch accepts, in bytes. */
  httpMaxBytes: int("HTTP_MAX_BYTES", 50 * 1024 * 1024),
  /** Most redirects an outbound fetch follows. */
  httpMaxRedirects: int("HTTP_MAX_REDIRECTS", 5),
  /**
   * Loopback and private addresses that URLs of normal users (feeds, image proxy) may reach: "false" (admins only), "true"
   * (everyone), or a comma list of addresses / CIDRs. Link-local and metadata addresses stay refused. PROXY_ALLOW_PRIVATE is its older name.
   */
  outboundAllowPrivate: env.OUTBOUND_ALLOW_PRIVATE || env.PROXY_ALLOW_PRIVATE || "false",

  // OIDC login (services/oidc.service.ts).
  /** Tells clients to hide the username/password form (public_oidc_providers). */
  oidcDisableStandardLogin: bool("OIDC_DISABLE_STANDARD_LOGIN", false),
  /** Redirect URI given to providers; empty = {API_URL or the request's origin}/api/auth/callback. */
  oidcRedirectUri: env.OIDC_REDIRECT_URI || "",
  /** Comma list of URL prefixes (besides the server's own origin) that may receive the key after login, e.g. app schemes. */
  oidcAllowedRedirects: (env.OIDC_ALLOWED_REDIRECTS || "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean),
  /** Accept http:// provider endpoints (loopback tests, trusted LANs); https only otherwise. */
  oidcAllowHttp: bool("OIDC_ALLOW_HTTP", false),

  // Accounts and settings (services/users.service.ts).
  /** Language code get_server_default_language reports; one of get_available_languages. */
  defaultLanguage: env.DEFAULT_LANGUAGE || "en",

  // Feeds and subscriptions (services/feeds.service.ts, podcasts.service.ts).
  /** Minutes between two scheduled refreshes of every subscribed feed; 0 turns the scheduler off. */
  refreshInterval: int("REFRESH_INTERVAL", 30),
  /** Milliseconds refresh_pods waits for its refresh job to answer with the figures; a longer refresh answers with its task_id. */
  refreshWaitMs: int("REFRESH_WAIT_MS", 20_000),
  /** Feed refreshes in flight per feeds replica during a refresh. */
  refreshConcurrency: int("REFRESH_CONCURRENCY", 16),
  /** Seconds the scheduler lease lasts unless renewed (renewed every third of it) before another replica takes over. */
  refreshLeaseSeconds: int("REFRESH_LEASE_SECONDS", 60),
  /** fetch_podcast_feed calls per user per minute before 429. */
  feedFetchPerMinute: int("FEED_FETCH_PER_MINUTE", 30),
  /** Newest episodes of a new feed stored before add_podcast answers; the older ones follow right after. */
  addPodcastSyncEpisodes: int("ADD_PODCAST_SYNC_EPISODES", 30),

  // Search service (services/search.service.ts) and its gateway (services/search-api.service.ts).
  /** Port and interface of the search gateway. */
  searchPort: int("SEARCH_PORT", 5000),
  searchHost: env.SEARCH_HOST || "0.0.0.0",
  /** Directory provider credentials; directory requests answer 500 while either is missing. */
  apiKey: env.API_KEY || "",
  apiSecret: env.API_SECRET || "",
  /** Provider base URLs (tests point them at loopback peers). */
  directoryApiUrl: env.DIRECTORY_API_URL || "https://api.podcastindex.org/api/1.0",
  storeApiUrl: env.STORE_API_URL || "https://itunes.apple.com",
  vidsiteUrl: env.VIDSITE_URL || "https://www.youtube.com",
  /** The video extraction tool (yt-dlp): a name on PATH or a full path. */
  ytdlpPath: env.YTDLP_PATH || "yt-dlp",
  /** Extraction tool processes running at once per search replica. */
  ytdlpConcurrency: int("YTDLP_CONCURRENCY", 4),
  /** Deadline of one provider call (HTTP or the extraction tool), in ms. */
  searchProviderTimeoutMs: int("SEARCH_PROVIDER_TIMEOUT_MS", 30_000),
  /** Seconds a provider answer stays in the broker's cacher. */
  searchCacheTtl: int("SEARCH_CACHE_TTL", 300),
  /** Counter increments are summed in memory and written with one $inc at most this often, in ms. */
  searchStatsFlushMs: int("SEARCH_STATS_FLUSH_MS", 1000),

  // Sync and notifications (services/sync.service.ts, notifications.service.ts).
  /** Key that seals sync and notification passwords at rest; empty = generated into DATA_DIR/secret.key (set it when replicas share MongoDB). */
  secretKey: env.SECRET_KEY || "",
  /** Minutes between scheduled syncs of each user with sync turned on; 0 turns the scheduler off. */
  syncInterval: int("SYNC_INTERVAL", 15),
  /** Seconds a replica holds a user's sync before another may take it over. */
  syncLeaseSeconds: int("SYNC_LEASE_SECONDS", 300),
  /** How long a sync request waits for its task to answer with the figures; after that it answers with the task_id only. */
  syncWaitMs: int("SYNC_WAIT_MS", 20_000),
  /** Seconds between the sync server's retries of feeds phones sent that could not be subscribed yet (services/gpodder.service.ts); 0 turns retries off. */
  gpodderRetrySeconds: int("GPODDER_RETRY_SECONDS", 300),
  /** Notifications per user per minute; more are dropped (and logged) so a flood of new episodes cannot spam. */
  notifyPerMinute: int("NOTIFY_PER_MINUTE", 20),
  /** Delivery attempts of one notification (with a short growing pause between them). */
  notifyAttempts: int("NOTIFY_ATTEMPTS", 3),

  // Tasks, downloads and media (services/tasks, downloads, workers .service.ts; house rule 6, docs/architecture.md).
  /** Folder of downloaded episodes: one folder per podcast, one file per episode. */
  downloadDir: path.resolve(env.DOWNLOAD_DIR || "./downloads"),
  /** Largest episode file a download accepts, in bytes. */
  downloadMaxBytes: int("DOWNLOAD_MAX_BYTES", 2 * 1024 ** 3),
  /** Free space in MB a download must leave on the disk of DOWNLOAD_DIR. */
  downloadMinFreeMb: int("DOWNLOAD_MIN_FREE_MB", 100),
  /** Downloads allowed at first start (the admin toggles it with enable_disable_downloads). */
  downloadsEnabledDefault: bool("DOWNLOADS_ENABLED", true),
  /** Minutes between two auto-delete passes (downloads of completed episodes past their podcast's days), fractions allowed; 0 turns it off. */
  autoDeleteInterval: int("AUTO_DELETE_INTERVAL", 60),
  /** Seconds the auto-delete lease lasts unless renewed (renewed every third of it) before another replica takes over. */
  autoDeleteLeaseSeconds: int("AUTO_DELETE_LEASE_SECONDS", 120),
  /** Milliseconds the retention pass waits between a deletion's file and its record: only for the tests that kill a pass mid-way (0 otherwise). */
  retentionStepDelayMs: int("RETENTION_STEP_DELAY_MS", 0),
  /** Jobs one workers replica runs at once. */
  workerConcurrency: int("WORKER_CONCURRENCY", 4),
  /** Milliseconds between a worker's polls for jobs (a new job also wakes every worker at once). */
  workerPollMs: int("WORKER_POLL_MS", 2000),
  /** Seconds a claimed job stays its worker's unless renewed (every third of it); then another worker takes it over. */
  taskLeaseSeconds: int("TASK_LEASE_SECONDS", 30),
  /** Runs of a job that keeps failing with a network error, and the first back-off in ms (doubled each time). */
  taskMaxAttempts: int("TASK_MAX_ATTEMPTS", 5),
  taskRetryBaseMs: int("TASK_RETRY_BASE_MS", 2000),
  /** Hours a finished task is kept before cleanup_tasks (also run hourly) removes it. */
  taskRetentionHours: int("TASK_RETENTION_HOURS", 24),

  // Library extras (services/opml, rss, sharing, p20, proxy, local .service.ts).
  /** RSS-only keys kept per user: get_rss_key issues a new one each time, the oldest beyond this go. */
  maxRssKeys: int("MAX_RSS_KEYS", 10),
  /** Episodes in the user's RSS feed when the request gives no limit (at most 1000). */
  rssDefaultLimit: int("RSS_DEFAULT_LIMIT", 100),
  /** The user RSS feeds on at first start (an admin switches them with toggle_rss_feeds; while off, every feed answers 403). */
  rssFeedsEnabledDefault: bool("RSS_FEEDS_ENABLED", true),
  /** Seconds a user's recommendations are kept on the node that worked them out (recommendations?refresh=1 works them out again). */
  recommendationsTtl: int("RECOMMENDATIONS_TTL", 3600),
  /** Seconds fetched chapters and transcripts stay in the broker cacher. */
  p20CacheTtl: int("P20_CACHE_TTL", 3600),
  /** Largest image the image proxy passes on, in bytes. */
  imageProxyMaxBytes: int("IMAGE_PROXY_MAX_BYTES", 10 * 1024 * 1024),
  /** Memory each node gives the image proxy's cache of recent images, in MB (0: no cache). */
  imageProxyCacheMb: int("IMAGE_PROXY_CACHE_MB", 32),
  /** Seconds clients and caches in between may keep a proxied image (Cache-Control max-age). */
  imageProxyMaxAge: int("IMAGE_PROXY_MAX_AGE", 86_400),
  /** Folder of local podcast folders (services/local.service.ts); nothing outside it is read. */
  localMediaDir: path.resolve(env.LOCAL_MEDIA_DIR || "./media"),
  /** Largest artwork upload (add_local_podcast_artwork), in bytes; larger ones get 413. */
  artworkMaxBytes: int("ARTWORK_MAX_BYTES", 5 * 1024 * 1024),

  // Server backups (services/backups.service.ts).
  /** Folder of server backup files: scheduled ones are written there, list/restore/delete_backup_file read only there. */
  backupDir: path.resolve(env.BACKUP_DIR || "./backups"),
  /** Password backup_server accepts as database_pass besides the calling admin's own; empty = only the admin's. */
  backupPassword: env.BACKUP_PASSWORD || "",
  /** Milliseconds between two checks of the backup scheduler (lease renewal, and a due scheduled backup runs). */
  backupSchedulerMs: int("BACKUP_SCHEDULER_MS", 30_000),
  /** Seconds the backup scheduler lease lasts unless renewed; another replica takes over this long after the holder died. */
  backupLeaseSeconds: int("BACKUP_LEASE_SECONDS", 120),
  /** Scheduled backup files kept in BACKUP_DIR (the oldest beyond go after each run); 0 = keep all. */
  backupKeep: int("BACKUP_KEEP", 7),
};
