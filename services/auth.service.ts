/**
 * Logins and API keys: get_key (HTTP Basic), key resolution for the gateway (cached), key management.
 * Keys are stored as SHA-256 hashes with their last four characters (DESIGN.md rule 10), so get_key
 * cannot hand back an old key: every login issues a new key, and the oldest login keys beyond
 * MAX_LOGIN_KEYS are retired.
 */
import type { Context, ServiceSchema } from "moleculer";
import { DbMixin } from "../shared/db.mixin";
import { config } from "../shared/config";
import { ForbiddenError, NotFoundError, TooManyRequestsError, UnauthorizedError } from "../shared/errors";
import { generateApiKey, hashApiKey } from "../shared/secrets";
import type { AuthUser, GatewayMeta, UserAuthInfo, VerifiedLogin } from "../shared/types";

/** A stored API key. kind "login" keys come from get_key; "user" keys from create_api_key. */
export interface ApiKeyDoc {
  _id: number;
  user_id: number;
  key_hash: string;
  last4: string;
  kind: "login" | "user";
  rssonly: boolean;
  podcast_ids: number[] | null;
  created_at: Date;
}

const userIdParam = { type: "number", integer: true, positive: true, convert: true };
const FAILURE_WINDOW_SECONDS = 60;

const AuthService: ServiceSchema = {
  name: "auth",
  mixins: [
    DbMixin(
      { name: "api_keys", indexes: [{ fields: { key_hash: 1 }, unique: true }, { fields: { user_id: 1 } }] },
      [{ name: "login_failures", indexes: [{ fields: { at: 1 }, expireAfterSeconds: FAILURE_WINDOW_SECONDS }] }],
    ),
  ],
  actions: {
    get_key: {
      params: {},
      async handler(this: any, ctx: Context<any, GatewayMeta>) {
        const basic = ctx.meta.basic;
        if (!basic || !basic.username) throw new UnauthorizedError("HTTP Basic credentials required");
        const username = basic.username.toLowerCase();
        const since = new Date(Date.now() - FAILURE_WINDOW_SECONDS * 1000);
        const failures = await this.stores.login_failures.count({ query: { username, at: { $gt: since } } });
        if (failures >= config.loginMaxFailures) throw new TooManyRequestsError("Too many failed logins; try again in a minute");
        const login: VerifiedLogin | null = await ctx.call("users.verify_password", { username, password: basic.password });
        if (!login) {
          await this.stores.login_failures.insert({ username, at: new Date() });
          this.logger.warn("login failed", { username });
          throw new UnauthorizedError("Invalid username or password");
        }
        const { key } = await this.issueKey(login.user_id, "login", false, null);
        return { status: "success", retrieved_key: key, mfa_required: false, user_id: login.user_id, mfa_session_token: null };
      },
    },
    verify_key: {
      params: {},
      handler() {
        return { status: "success" };
      },
    },
    get_user: {
      params: {},
      handler(ctx: Context<any, GatewayMeta>) {
        return { status: "success", retrieved_id: ctx.meta.user!.id };
      },
    },
    create_api_key: {
      params: {
        user_id: userIdParam,
        rssonly: { type: "boolean", convert: true },
        podcast_ids: { type: "array", items: { type: "number", integer: true, positive: true, convert: true }, optional: true, nullable: true, max: 10000 },
      },
      async handler(this: any, ctx: Context<any>) {
        const podcastIds = ctx.params.podcast_ids?.length ? ctx.params.podcast_ids : null;
        const { key, doc } = await this.issueKey(ctx.params.user_id, "user", ctx.params.rssonly, podcastIds);
        return { api_key: key, api_id: doc._id, rssonly: doc.rssonly, podcast_ids: doc.podcast_ids };
      },
    },
    delete_api_key: {
      params: { api_id: { type: "number", integer: true, positive: true, convert: true } },
      async handler(this: any, ctx: Context<any, GatewayMeta>) {
        const doc: ApiKeyDoc | null = await this.adapter.findOne({ _id: ctx.params.api_id });
        const caller = ctx.meta.user!;
        if (!doc) throw new NotFoundError("API key not found");
        if (doc.user_id !== caller.id && !caller.isAdmin) throw new ForbiddenError("You can only delete your own API keys");
        await this.adapter.removeMany({ _id: doc._id });
        await this.forgetKeys([doc.key_hash]);
        return { detail: "API key deleted" };
      },
    },
    get_api_info: {
      params: { user_id: userIdParam },
      async handler(this: any, ctx: Context<any, GatewayMeta>) {
        // An admin sees every key of the server; anyone else their own.
        const query = ctx.meta.user!.isAdmin ? {} : { user_id: ctx.params.user_id };
        const docs: ApiKeyDoc[] = await this.adapter.find({ query, sort: ["_id"] });
        const owners: UserAuthInfo[] = await ctx.call("users.get_auth_info", { user_ids: [...new Set(docs.map((d) => d.user_id))] });
        const names = new Map(owners.map((o) => [o.id, o.username]));
        return {
          api_info: docs.map((d) => ({
            apikeyid: d._id,
            userid: d.user_id,
            username: names.get(d.user_id) ?? null,
            lastfourdigits: d.last4,
            created: new Date(d.created_at).toISOString(),
            podcastids: d.podcast_ids ?? [],
            rssonly: d.rssonly,
            kind: d.kind,
          })),
        };
      },
    },

    // --- Internal actions ---

    /** The gateway's one lookup per request: key hash -> ctx.meta.user, or null. Cached by hash. */
    resolve_key: {
      visibility: "public",
      cache: { keys: ["key_hash"], ttl: config.keyCacheTtl },
      params: { key_hash: { type: "string", length: 64 } },
      async handler(this: any, ctx: Context<any>): Promise<AuthUser | null> {
        const doc: ApiKeyDoc | null = await this.adapter.findOne({ key_hash: ctx.params.key_hash });
        if (!doc) return null;
        const [owner]: UserAuthInfo[] = await ctx.call("users.get_auth_info", { user_ids: [doc.user_id] });
        if (!owner) return null;
        return { id: owner.id, isAdmin: owner.isAdmin, keyId: doc._id, rssOnly: doc.rssonly, podcastIds: doc.podcast_ids };
      },
    },
  },
  methods: {
    async issueKey(this: any, userId: number, kind: ApiKeyDoc["kind"], rssonly: boolean, podcastIds: number[] | null) {
      const key = generateApiKey();
      const doc: ApiKeyDoc = {
        _id: await this.nextId("api_keys"),
        user_id: userId,
        key_hash: hashApiKey(key),
        last4: key.slice(-4),
        kind,
        rssonly,
        podcast_ids: podcastIds,
        created_at: new Date(),
      };
      await this.adapter.insert(doc);
      if (kind === "login") await this.retireOldLoginKeys(userId);
      return { key, doc };
    },
    async retireOldLoginKeys(this: any, userId: number) {
      const logins: ApiKeyDoc[] = await this.adapter.find({ query: { user_id: userId, kind: "login" }, sort: ["-_id"] });
      const old = logins.slice(config.maxLoginKeys);
      if (!old.length) return;
      await this.adapter.removeMany({ _id: { $in: old.map((d) => d._id) } });
      await this.forgetKeys(old.map((d) => d.key_hash));
    },
    /** Drops cached lookups of removed keys on every auth instance (memory caches are per node). */
    async forgetKeys(this: any, hashes: string[]) {
      this.broker.broadcast("auth.keys_removed", { key_hashes: hashes });
    },
  },
  events: {
    "auth.keys_removed": {
      params: { key_hashes: { type: "array", items: "string" } },
      async handler(this: any, ctx: Context<{ key_hashes: string[] }>) {
        if (!this.broker.cacher) return;
        for (const hash of ctx.params.key_hashes) await this.broker.cacher.del(this.broker.cacher.getCacheKey("auth.resolve_key", { key_hash: hash }, {}, ["key_hash"]));
      },
    },
  },
};

export default AuthService;
