/**
 * The gateway's own cache of API key lookups. auth.resolve_key is cached on the auth node, so without
 * this every request over NATS pays a round trip just to learn who is calling (half of the gateway's
 * NATS traffic on a simple read; bench/RESULTS.md, gateway). Entries live KEY_CACHE_TTL seconds at most and go at
 * once on the broadcasts that already drop the auth node's cache: auth.keys_removed (keys deleted or
 * retired), user.rights_changed (admin flag changed, user deleted) and backup.restored (every key
 * replaced by a backup's). Only found keys are kept. App passwords and sync sessions (the sessionid
 * cookie of the sync routes) are keys too: a logout or a revocation reaches every gateway the same way.
 *
 * With the shared Redis cacher the auth node's cached lookups are in Redis, and the auth node drops them
 * when the same broadcast reaches it, which may be after this gateway has looked the key up again and
 * kept the old answer for KEY_CACHE_TTL. So the gateway drops them from the shared cacher itself, then
 * drops its own entries once more: a lookup that was answered meanwhile from the old entry is not kept.
 */
import type { Service } from "moleculer";
import { config } from "./config";
import { keysRemoved, resolveKey } from "./contracts/auth";
import { backupRestored } from "./contracts/backups";
import { userRightsChanged } from "./contracts/users";
import type { Caller } from "./contracts/call";
import { type Ctx, mixin } from "./service-types";
import type { AuthUser } from "./types";

// A bound on memory: past it the cache starts over (a burst of distinct keys cannot grow it further).
const MAX_ENTRIES = 10_000;

/** What the mixin adds to the gateway's `this`. */
export interface KeyCacheThis extends Service {
  keyCache: Map<string, { user: AuthUser; until: number }>;
  keyCacheGeneration: number;
  forgetLookups(dropLocal: () => void, hashes: string[] | null): Promise<void>;
  resolveKey(ctx: Caller, keyHash: string): Promise<AuthUser | null>;
}

export const keyCacheMixin = mixin<KeyCacheThis>({
  name: "key-cache",
  created(this: KeyCacheThis) {
    this.keyCache = new Map<string, { user: AuthUser; until: number }>();
    // Bumped by every invalidation: a lookup that was in flight meanwhile may carry what was just revoked.
    this.keyCacheGeneration = 0;
  },
  events: {
    [keysRemoved.eventName](this: KeyCacheThis, ctx: Ctx<{ key_hashes: string[] }>) {
      const hashes = ctx.params.key_hashes ?? [];
      return this.forgetLookups(() => hashes.forEach((hash) => this.keyCache.delete(hash)), hashes);
    },
    [backupRestored.eventName](this: KeyCacheThis) {
      return this.forgetLookups(() => this.keyCache.clear(), null);
    },
    [userRightsChanged.eventName](this: KeyCacheThis, ctx: Ctx<{ user_id: number }>) {
      return this.forgetLookups(() => {
        for (const [hash, entry] of this.keyCache) if (entry.user.id === ctx.params.user_id) this.keyCache.delete(hash);
      }, null);
    },
  },
  methods: {
    /** Drops entries here (dropLocal), then the auth service's cached lookups of `hashes` (null: all), then here again. */
    async forgetLookups(this: KeyCacheThis, dropLocal: () => void, hashes: string[] | null): Promise<void> {
      this.keyCacheGeneration++;
      dropLocal();
      const cacher = this.broker.cacher;
      if (!cacher) return;
      const keyOf = (hash: string) => cacher.getCacheKey("auth.resolve_key", { key_hash: hash }, {}, ["key_hash"]);
      await (hashes ? cacher.del(hashes.map(keyOf)) : cacher.clean("auth.resolve_key**"));
      this.keyCacheGeneration++;
      dropLocal();
    },
    async resolveKey(this: KeyCacheThis, ctx: Caller, keyHash: string): Promise<AuthUser | null> {
      const hit = this.keyCache.get(keyHash);
      if (hit && hit.until > Date.now()) return hit.user;
      const generation = this.keyCacheGeneration;
      const user = await resolveKey(ctx, { key_hash: keyHash });
      if (user && config.keyCacheTtl > 0 && generation === this.keyCacheGeneration) {
        if (this.keyCache.size >= MAX_ENTRIES) this.keyCache.clear();
        this.keyCache.set(keyHash, { user, until: Date.now() + config.keyCacheTtl * 1000 });
      } else {
        this.keyCache.delete(keyHash);
      }
      return user;
    },
  },
});
