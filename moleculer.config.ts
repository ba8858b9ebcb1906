/**
 * Broker options, all from shared/config.ts. Without TRANSPORTER every service runs in this one process;
 * with TRANSPORTER=nats://... the same services spread over many processes (moleculer-runner SERVICES=...).
 */
import type { BrokerOptions } from "moleculer";
import { config } from "./shared/config";
import { OwnershipMiddleware } from "./shared/ownership.middleware";

const brokerConfig: BrokerOptions = {
  namespace: config.namespace,
  nodeID: config.nodeId,
  logger: { type: "Console", options: { level: config.logLevel, formatter: config.logFormat, colors: config.logFormat !== "json" } },
  transporter: config.transporter || null,
  cacher: config.cacher.startsWith("redis://")
    ? { type: "Redis", options: { redis: config.cacher, prefix: `${config.serviceName}-cache`, ttl: 300 } }
    : { type: "Memory", options: { ttl: 300, clone: true } },
  serializer: "JSON",
  requestTimeout: config.requestTimeout,
  // Only errors Moleculer marks retryable (a node leaving mid-call) are retried, so writes never run twice.
  retryPolicy: { enabled: true, retries: 3, delay: 100, maxDelay: 1000, factor: 2, check: (err: any) => !!err?.retryable },
  circuitBreaker: { enabled: true, threshold: 0.5, windowTime: 60, minRequestCount: 20, halfOpenTime: 10_000, check: (err: any) => !!err && (err.code >= 500 || !err.code) },
  registry: { strategy: "RoundRobin", preferLocal: true },
  // Lets a stopping node finish the requests it has (rolling updates on Kubernetes).
  tracking: { enabled: true, shutdownTimeout: 10_000 },
  validator: true,
  middlewares: [OwnershipMiddleware],
};

export = brokerConfig;
