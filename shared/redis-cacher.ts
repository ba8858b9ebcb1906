/**
 * The shared Redis cache of a cluster (CACHER=redis://...), made so that Redis going away costs a cache
 * miss, never a failed request. Moleculer's RedisCacher hands every ioredis error to its caller: with
 * ioredis' defaults a read waits in the offline queue for 20 reconnect attempts (many seconds) and then
 * fails the request, and the write of an answer fails unhandled. Here:
 * - commands fail at once while disconnected (no offline queue) or after COMMAND_TIMEOUT_MS on a stuck
 *   connection, and ioredis keeps reconnecting every RECONNECT_MAX_MS at most, for ever;
 * - a failed read is a miss and a failed write is skipped (the answer comes from the handler);
 * - a failed invalidation (del, clean) may leave an entry that should be gone, so the whole cache of this
 *   prefix is cleaned as soon as Redis answers again (tried every CLEAN_RETRY_MS).
 * /api/health reports redis false while the client cannot ping.
 */
import { Cachers, type GenericObject } from "moleculer";

const COMMAND_TIMEOUT_MS = 1_000;
const RECONNECT_MAX_MS = 1_000;
const CLEAN_RETRY_MS = 500;

/** What close() reads of the ioredis client (unset until the cacher is initialised). */
interface RedisClient {
  status: string;
  disconnect(): void;
}

export class ResilientRedisCacher extends Cachers.Redis<RedisClient | undefined> {
  declare logger: { warn(msg: string, meta: object): void };
  /** Set while an invalidation is owed: retried (as a clean of everything) until Redis takes it. */
  private owedClean: NodeJS.Timeout | null = null;

  constructor(url: string, prefix: string, ttl: number) {
    super({
      prefix,
      ttl,
      redis: {
        ...parseUrl(url),
        enableOfflineQueue: false,
        maxRetriesPerRequest: 1,
        commandTimeout: COMMAND_TIMEOUT_MS,
        retryStrategy: (times: number) => Math.min(times * 100, RECONNECT_MAX_MS),
      },
    });
  }

  get(key: string): Promise<GenericObject | null> {
    return super.get(key).catch((err: Error) => this.failed("get", err, null));
  }

  set(key: string, data: unknown, ttl?: number): Promise<unknown> {
    return super.set(key, data, ttl).catch((err: Error) => this.failed("set", err, null));
  }

  del(keys: string | string[]): Promise<unknown> {
    return super.del(keys).catch((err: Error) => this.owe("del", err));
  }

  clean(match: string | string[] = "*"): Promise<unknown> {
    return super.clean(match).catch((err: Error) => this.owe("clean", err));
  }

  /** quit() waits for a server to answer; without a connection there is nothing to say goodbye to. */
  close(): Promise<unknown> {
    if (this.owedClean) clearTimeout(this.owedClean);
    if (this.client?.status !== "ready") return Promise.resolve(this.client?.disconnect());
    return super.close();
  }

  private failed<T>(op: string, err: Error, value: T): T {
    this.logger.warn("redis cache unavailable: a miss", { op, error: err.message });
    return value;
  }

  /** An invalidation that did not reach Redis: everything under the prefix goes once it answers again. */
  private owe(op: string, err: Error): void {
    this.logger.warn("redis cache invalidation failed: the whole cache is cleaned once Redis is back", { op, error: err.message });
    if (this.owedClean) return;
    const retry = () => {
      super.clean("*").then(
        () => (this.owedClean = null),
        () => (this.owedClean = setTimeout(retry, CLEAN_RETRY_MS)),
      );
    };
    this.owedClean = setTimeout(retry, CLEAN_RETRY_MS);
  }
}

/** ioredis options of a redis:// URL (host, port, password, db), so that options can be added to them. */
function parseUrl(url: string): Record<string, unknown> {
  const u = new URL(url);
  return {
    host: u.hostname,
    port: Number(u.port || 6379),
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    ...(u.pathname.length > 1 ? { db: Number(u.pathname.slice(1)) } : {}),
    ...(u.protocol === "rediss:" ? { tls: {} } : {}),
  };
}
