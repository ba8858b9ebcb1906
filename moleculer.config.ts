/**
 * Broker options, all from shared/config.ts. Without TRANSPORTER every service runs in this one process;
 * with TRANSPORTER=nats://... the same services spread over many processes (moleculer-runner SERVICES=...).
 */
import type { BrokerOptions } from "moleculer";
import { config } from "./shared/config";
import { MessagePiecesMiddleware } from "./shared/message-pieces.middleware";
import { NodeHealthMiddleware } from "./shared/node-health.middleware";
import { OwnershipMiddleware } from "./shared/ownership.middleware";
import { ResilientRedisCacher } from "./shared/redis-cacher";
import { repeatSafeRetry } from "./shared/repeat-safe.middleware";

const RETRY_SAFE = new Set(["ServiceNotFoundError", "ServiceNotAvailableError", "BrokerDisconnectedError", "QueueIsFullError"]);
const repeatSafe = repeatSafeRetry();

const brokerConfig: BrokerOptions = {
  namespace: config.namespace,
  nodeID: config.nodeId,
  logger: { type: "Console", options: { level: config.logLevel, formatter: config.logFormat, colors: config.logFormat !== "json" } },
  transporter: config.transporter || null,
  // Shared by every node of the namespace (two namespaces on one Redis share no key); Redis away is a miss.
  cacher: /^rediss?:\/\//.test(config.cacher)
    ? new ResilientRedisCacher(config.cacher, [config.serviceName, config.namespace, "cache"].filter(Boolean).join("-"), 300)
    : { type: "Memory", options: { ttl: 300, clone: true } },
  serializer: config.serializer,
  requestTimeout: config.requestTimeout,
  heartbeatInterval: config.heartbeatInterval,
  heartbeatTimeout: config.heartbeatTimeout,
  // Retried only when the call surely did not run (no endpoint, or not sent): a timed-out or rejected
  // call may have run, and writes must never run twice. A call that found no endpoint fails inside the
  // gateway's own action (api.rest), which is what gets retried: 5 tries over ~10 s in all, long enough
  // for the restarted process of a one-instance group to rejoin, so a restart costs no failed request.
  // An action declared `idempotent: true` is also retried when its node died with the call (repeat-safe.middleware.ts).
  retryPolicy: { enabled: true, retries: 5, delay: 200, maxDelay: 5000, factor: 2.5, check: (err) => RETRY_SAFE.has(err?.name) || repeatSafe.check(err) },
  // An endpoint failing half its calls is skipped until its half-open probe succeeds (a dead node keeps
  // its endpoints until its heartbeat times out).
  // (Number(): the comparison `>=` would make of a code that is not a number, e.g. a system error's "ECONNRESET".)
  circuitBreaker: {
    enabled: true,
    threshold: 0.5,
    windowTime: 20,
    minRequestCount: 5,
    halfOpenTime: 5_000,
    check: (err: Error & { code?: unknown }) => !!err && (Number(err.code) >= 500 || !err.code),
  },
  registry: { strategy: "RoundRobin", preferLocal: true },
  // Lets a stopping node finish the requests it has (rolling updates on Kubernetes).
  tracking: { enabled: true, shutdownTimeout: 10_000 },
  validator: true,
  // Request counts and latency histograms per action (and the gateway's per route) for Prometheus.
  metrics: config.metricsPort
    ? { enabled: true, reporter: [{ type: "Prometheus", options: { port: config.metricsPort, path: "/metrics" } }] }
    : { enabled: false },
  // Moleculer's own middlewares, named here in their own order (INTERNAL_MIDDLEWARES of moleculer 0.14's
  // service-broker.js; test/integration/message-pieces.test.ts holds the list to it) so that MessagePieces
  // sits outside the Validator and the Cacher (they see params it has joined; the cache keeps answers before
  // it cuts them) and inside the Retry, which calls again with the params. The first named wraps innermost.
  internalMiddlewares: false,
  middlewares: [
    OwnershipMiddleware,
    NodeHealthMiddleware(),
    repeatSafe.middleware,
    "ActionHook",
    "Validator",
    "Bulkhead",
    "Cacher",
    MessagePiecesMiddleware,
    "ContextTracker",
    "CircuitBreaker",
    "Timeout",
    "Retry",
    "Fallback",
    "ErrorHandler",
    "Tracing",
    "Metrics",
    "Debounce",
    "Throttle",
  ],
  // Every packet stays under NATS's default max_payload (1 MB): large params and answers go in pieces
  // (shared/message-pieces.middleware.ts), and a stream's Buffer chunks in slices of 64 KB, which the JSON
  // serializer writes as up to 256 KB of numbers (Moleculer's default of 256 KB would make over 1 MB).
  transit: { maxChunkSize: 64 * 1024 },
};

export = brokerConfig;
