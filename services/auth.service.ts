/**
 * Logins and API keys: get_key (HTTP Basic), key resolution for the gateway (cached), key management,
 * and the credentials of the sync routes (services/auth.parts/sync.actions.ts: app passwords, sync
 * sessions). Keys are stored as SHA-256 hashes with their last four characters (house rule 10, docs/architecture.md), so
 * get_key cannot hand back an old key: every login issues a new key, and the oldest login keys beyond
 * MAX_LOGIN_KEYS are retired. A sync session is a key of kind "session" with an expiry, so every gateway
 * replica resolves it and drops it from its cache exactly like a key.
 */
import crypto from "crypto";
import type { ServiceSchema } from "moleculer";
import { DbMixin } from "../shared/db.mixin";
import { userRemovedEvent } from "../shared/user-data";
import { config } from "../shared/config";
import { ConflictError, ForbiddenError, NotFoundError, TooManyRequestsError, UnauthorizedError } from "../shared/errors";
import { generateApiKey, hashApiKey } from "../shared/secrets";
import type { AuthUser, KeyKind } from "../shared/types";
import type { UserAuthInfo, UserEvent, VerifiedLogin } from "../shared/contracts/users";
import { checkMfaCode, getAuthInfo, userCredentialsChanged, userRemoved, userRightsChanged, usersVerifyPassword } from "../shared/contracts/users";
import { keysRemoved, resolveKey } from "../shared/contracts/auth";
import type { Ctx, Query } from "../shared/service-types";
import { syncActions } from "./auth.parts/sync.actions";
import { loginFlowActions, loginFlowMethods } from "./auth.parts/login-flow.actions";
import type { ApiKeyDoc, AttemptDoc, AuthThis, KeyExtra, MfaSessionDoc } from "./auth.parts/this";
import { ApiInfoAnswer, CreateApiKeyAnswer, GetKeyAnswer, GetUserAnswer, RssKeyAnswer, VerifyKeyAnswer, VerifyMfaKeyAnswer } from "../shared/contracts/auth";
import { DetailAnswer } from "../shared/contracts/answers";
import type { Static } from "../shared/contracts/answers";

export type { ApiKeyDoc };
/** Kinds of which only the newest few per user are kept, and how many. */
const KEPT_PER_USER: Partial<Record<KeyKind, () => number>> = {
  login: () => config.maxLoginKeys,
  rss: () => config.maxRssKeys,
  session: () => config.maxSyncSessions,
};
/** Kinds a user creates on purpose: none is ever dropped for a new one, which is refused at the limit instead. */
const LIMITED_PER_USER: Partial<Record<KeyKind, { max: () => number; what: string }>> = {
  user: { max: () => config.maxUserKeys, what: "API keys" },
  app: { max: () => config.maxUserKeys, what: "app passwords" },
};

const userIdParam = { type: "number", integer: true, positive: true, convert: true };
const FAILURE_WINDOW_SECONDS = 60;

/** The spec's session token lifetime. */
const MFA_SESSION_SECONDS = 300;
const MFA_SESSION_PURGE_SECONDS = 3600;
/** Wrong codes a session token survives; then it is gone, so the 6 digits cannot be walked through. */
const MFA_MAX_ATTEMPTS = 5;

/** A login step's answer to verify_mfa_and_get_key. */
type MfaStatus = Static<typeof VerifyMfaKeyAnswer>["status"];

const AuthService: ServiceSchema<Record<string, never>, AuthThis> = {
  name: "auth",
  mixins: [
    DbMixin(
      {
        name: "api_keys",
        indexes: [{ fields: { key_hash: 1 }, unique: true }, { fields: { user_id: 1 } }, { fields: { expires_at: 1 }, expireAfterSeconds: 0, sparse: true }],
      },
      [
        {
          name: "login_failures",
          indexes: [{ fields: { at: 1 }, expireAfterSeconds: FAILURE_WINDOW_SECONDS }, { fields: { address: 1, username: 1 } }],
        },
        {
          name: "mfa_sessions",
          indexes: [
            { fields: { token_hash: 1 }, unique: true },
            { fields: { purge_at: 1 }, expireAfterSeconds: 0 },
          ],
        },
        {
          name: "login_flows",
          indexes: [
            { fields: { poll_hash: 1 }, unique: true },
            { fields: { flow_hash: 1 }, unique: true },
            { fields: { expires_at: 1 }, expireAfterSeconds: 0 },
          ],
        },
      ],
    ),
  ],
  actions: {
    get_key: {
      idempotent: false,
      params: {},
      response: GetKeyAnswer,
      async handler(this: AuthThis, ctx: Ctx): Promise<Static<typeof GetKeyAnswer>> {
        const basic = ctx.meta.basic;
        if (!basic || !basic.username) throw new UnauthorizedError("HTTP Basic credentials required");
        const username = basic.username.toLowerCase();
        const { login, attempt } = await this.checkPassword(ctx, username, basic.password, "login failed");
        await this.forgetAttempt(attempt._id);
        if (login.mfa_enabled) {
          const token = await this.createMfaSession(login.user_id, username);
          return { status: "mfa_required", retrieved_key: null, mfa_required: true, user_id: login.user_id, mfa_session_token: token };
        }
        const { key } = await this.issueKey(login.user_id, "login", false, null);
        return { status: "success", retrieved_key: key, mfa_required: false, user_id: login.user_id, mfa_session_token: null };
      },
    },
    /** The spec's MFA login table: success (key, token consumed), invalid_code, session_expired; invalid_session for unknown tokens. */
    verify_mfa_and_get_key: {
      params: {
        mfa_session_token: { type: "string", min: 1, max: 256 },
        mfa_code: { type: "string", convert: true, trim: true, min: 1, max: 16 },
      },
      response: VerifyMfaKeyAnswer,
      async handler(this: AuthThis, ctx: Ctx<{ mfa_session_token: string; mfa_code: string }>): Promise<Static<typeof VerifyMfaKeyAnswer>> {
        const answer = (status: MfaStatus, key: string | null = null) => ({ status, retrieved_key: key, verified: status === "success" });
        const session: MfaSessionDoc | null = await this.stores.mfa_sessions.findOne({ token_hash: hashApiKey(ctx.params.mfa_session_token) });
        if (!session) return answer("invalid_session");
        if (new Date(session.expires_at).getTime() <= Date.now()) return answer("session_expired");
        const attempt = await this.beginAttempt(session.username, ctx.meta.clientIp);
        const valid: boolean = await checkMfaCode(ctx, { user_id: session.user_id, mfa_code: ctx.params.mfa_code });
        if (!valid) {
          if (session.attempts + 1 >= MFA_MAX_ATTEMPTS) await this.stores.mfa_sessions.removeMany({ _id: session._id });
          else await this.stores.mfa_sessions.updateMany({ _id: session._id }, { $inc: { attempts: 1 } });
          this.logger.warn("MFA code refused", { user_id: session.user_id, address: attempt.address });
          return answer("invalid_code");
        }
        await this.forgetAttempt(attempt._id);
        // Single use: of two concurrent requests with the same token only the one that removes it gets a key.
        if ((await this.stores.mfa_sessions.removeMany({ _id: session._id })) !== 1) return answer("invalid_session");
        const { key } = await this.issueKey(session.user_id, "login", false, null);
        return answer("success", key);
      },
    },
    verify_key: {
      idempotent: true,
      params: {},
      response: VerifyKeyAnswer,
      handler(this: AuthThis): Static<typeof VerifyKeyAnswer> {
        return { status: "success" };
      },
    },
    get_user: {
      idempotent: true,
      params: {},
      response: GetUserAnswer,
      handler(this: AuthThis, ctx: Ctx): Static<typeof GetUserAnswer> {
        return { status: "success", retrieved_id: ctx.meta.user!.id };
      },
    },
    create_api_key: {
      params: {
        user_id: userIdParam,
        rssonly: { type: "boolean", convert: true },
        podcast_ids: { type: "array", items: { type: "number", integer: true, positive: true, convert: true }, optional: true, nullable: true, max: 10000 },
      },
      response: CreateApiKeyAnswer,
      async handler(
        this: AuthThis,
        ctx: Ctx<{ user_id: number; rssonly: boolean; podcast_ids?: number[] | null }>,
      ): Promise<Static<typeof CreateApiKeyAnswer>> {
        const podcastIds = ctx.params.podcast_ids?.length ? ctx.params.podcast_ids : null;
        const { key, doc } = await this.issueKey(ctx.params.user_id, "user", ctx.params.rssonly, podcastIds);
        return { api_key: key, api_id: doc._id, rssonly: doc.rssonly, podcast_ids: doc.podcast_ids };
      },
    },
    delete_api_key: {
      params: { api_id: { type: "number", integer: true, positive: true, convert: true } },
      response: DetailAnswer,
      async handler(this: AuthThis, ctx: Ctx<{ api_id: number }>): Promise<Static<typeof DetailAnswer>> {
        const doc: ApiKeyDoc | null = await this.adapter.findOne({ _id: ctx.params.api_id });
        const caller = ctx.meta.user!;
        // Sync sessions are not listed as keys either: logout.json ends them.
        if (!doc || doc.kind === "session") throw new NotFoundError("API key not found");
        if (doc.user_id !== caller.id && !caller.isAdmin) throw new ForbiddenError("You can only delete your own API keys");
        await this.removeKeys({ _id: doc._id });
        // A revoked app password's sessions end with it: the phone's cookie opens nothing more.
        if (doc.kind === "app") await this.removeKeys({ kind: "session", opened_by: doc._id });
        return { detail: "API key deleted" };
      },
    },
    /** POST /api/data/sign_out: the web app's sign-out; the caller's own key, whatever its kind, stops opening anything. */
    sign_out: {
      params: {},
      response: DetailAnswer,
      async handler(this: AuthThis, ctx: Ctx): Promise<Static<typeof DetailAnswer>> {
        await this.removeKeys({ _id: ctx.meta.user!.keyId });
        return { detail: "Signed out" };
      },
    },
    get_api_info: {
      idempotent: true,
      params: { user_id: userIdParam },
      response: ApiInfoAnswer,
      async handler(this: AuthThis, ctx: Ctx<{ user_id: number }>): Promise<Static<typeof ApiInfoAnswer>> {
        // An admin sees every key of the server; anyone else their own.
        const owner = ctx.meta.user!.isAdmin ? {} : { user_id: ctx.params.user_id };
        const query = { ...owner, kind: { $ne: "session" } };
        const docs: ApiKeyDoc[] = await this.adapter.find({ query, sort: ["_id"] });
        const owners: UserAuthInfo[] = await getAuthInfo(ctx, { user_ids: [...new Set(docs.map((d) => d.user_id))] });
        const names = new Map(owners.map((o) => [o.id, o.username]));
        return {
          api_info: docs.map((d) => ({
            apikeyid: d._id,
            userid: d.user_id,
            username: names.get(d.user_id) ?? "",
            lastfourdigits: d.last4,
            created: new Date(d.created_at).toISOString(),
            podcastids: d.podcast_ids ?? [],
            rssonly: d.rssonly,
            kind: d.kind,
            name: d.name ?? null,
          })),
        };
      },
    },

    // --- Internal actions ---

    /**
     * The attempt limits for another service's secrets (password-reset codes): begin_attempt before the
     * check (429 when limited; the client address comes from ctx.meta), attempt_succeeded after a match.
     */
    begin_attempt: {
      visibility: "public",
      params: { username: { type: "string", min: 1, max: 255 } },
      async handler(this: AuthThis, ctx: Ctx<{ username: string }>): Promise<{ attempt_id: string }> {
        return { attempt_id: (await this.beginAttempt(ctx.params.username.toLowerCase(), ctx.meta.clientIp))._id };
      },
    },
    attempt_succeeded: {
      visibility: "public",
      params: { attempt_id: { type: "string", length: 36 } },
      async handler(this: AuthThis, ctx: Ctx<{ attempt_id: string }>): Promise<void> {
        await this.forgetAttempt(ctx.params.attempt_id);
      },
    },
    /** A new login key for a user another service has authenticated (OIDC callback). */
    issue_login_key: {
      visibility: "public",
      params: { user_id: userIdParam },
      async handler(this: AuthThis, ctx: Ctx<{ user_id: number }>): Promise<{ key: string }> {
        const { key } = await this.issueKey(ctx.params.user_id, "login", false, null);
        return { key };
      },
    },
    /** GET /api/data/get_rss_key: a new RSS-only key for the user's feed (keys are stored as hashes, so an old one cannot be shown again). */
    get_rss_key: {
      idempotent: false,
      params: { user_id: userIdParam },
      response: RssKeyAnswer,
      async handler(this: AuthThis, ctx: Ctx<{ user_id: number }>): Promise<Static<typeof RssKeyAnswer>> {
        const { key } = await this.issueKey(ctx.params.user_id, "rss", true, null);
        return { rss_key: key };
      },
    },
    /** The gateway's one lookup per request: key hash -> ctx.meta.user, or null. Cached by hash. */
    resolve_key: {
      idempotent: true,
      visibility: "public",
      cache: { keys: ["key_hash"], ttl: config.keyCacheTtl },
      params: { key_hash: { type: "string", length: 64 } },
      async handler(this: AuthThis, ctx: Ctx<{ key_hash: string }>): Promise<AuthUser | null> {
        const doc: ApiKeyDoc | null = await this.adapter.findOne({ key_hash: ctx.params.key_hash });
        // An expired session may still be stored until the store's expiry sweep.
        if (!doc || (doc.expires_at && new Date(doc.expires_at).getTime() <= Date.now())) return null;
        const [owner]: UserAuthInfo[] = await getAuthInfo(ctx, { user_ids: [doc.user_id] });
        if (!owner) return null;
        return this.callerOf(owner, doc);
      },
    },
    ...syncActions,
    ...loginFlowActions,
  },
  methods: {
    ...loginFlowMethods,
    /**
     * Counts an attempt of `username` from `address` and answers 429 when, with it, the failures of the
     * last minute pass the limit for this username from this address or for this address overall: a
     * guesser locks out its own address only, and the owner still logs in from anywhere else.
     */
    async beginAttempt(this: AuthThis, username: string, address: string = "local"): Promise<AttemptDoc> {
      const doc: AttemptDoc = { _id: crypto.randomUUID(), username, address, at: new Date() };
      await this.stores.login_failures.insert(doc);
      const since = new Date(Date.now() - FAILURE_WINDOW_SECONDS * 1000);
      const count = (query: Query) => this.stores.login_failures.count({ query: { ...query, at: { $gt: since } } });
      const [mine, fromAddress] = await Promise.all([count({ username, address }), count({ address })]);
      if (mine > config.loginMaxFailures || fromAddress > config.loginMaxFailuresPerAddress) {
        this.logger.warn("attempt limited", { username, address });
        throw new TooManyRequestsError("Too many failed attempts from your address; try again in a minute");
      }
      return doc;
    },
    async forgetAttempt(this: AuthThis, id: string): Promise<void> {
      await this.stores.login_failures.removeMany({ _id: id });
    },
    /**
     * A username's password, checked under the login limits (beginAttempt's 429): a wrong one is logged as
     * `failure` and answers 401. The attempt stays counted until the caller forgets it, once the whole
     * login (MFA included) has succeeded.
     */
    async checkPassword(
      this: AuthThis,
      ctx: Ctx<unknown>,
      username: string,
      password: string,
      failure: string,
    ): Promise<{ login: VerifiedLogin; attempt: AttemptDoc }> {
      const attempt: AttemptDoc = await this.beginAttempt(username, ctx.meta.clientIp);
      const login: VerifiedLogin | null = await usersVerifyPassword(ctx, { username, password });
      if (!login) {
        this.logger.warn(failure, { username, address: attempt.address });
        throw new UnauthorizedError("Invalid username or password");
      }
      return { login, attempt };
    },
    /** ctx.meta.user for a key's owner; key null: the account password (a sync route's Basic login). */
    callerOf(this: AuthThis, owner: UserAuthInfo, key: ApiKeyDoc | null): AuthUser {
      return {
        id: owner.id,
        isAdmin: owner.isAdmin,
        keyId: key?._id ?? 0,
        rssOnly: key?.rssonly ?? false,
        podcastIds: key?.podcast_ids ?? null,
        kind: key?.kind ?? "password",
        username: owner.username,
        syncServer: owner.syncServer,
        ...(key?.expires_at ? { expiresAt: new Date(key.expires_at).getTime() } : {}),
      };
    },
    async issueKey(
      this: AuthThis,
      userId: number,
      kind: KeyKind,
      rssonly: boolean,
      podcastIds: number[] | null,
      extra: KeyExtra = {},
    ): Promise<{ key: string; doc: ApiKeyDoc }> {
      const limit = LIMITED_PER_USER[kind];
      if (limit && (await this.adapter.count({ query: { user_id: userId, kind } })) >= limit.max()) {
        throw new ConflictError(`This account has ${limit.max()} ${limit.what}, the most it may hold: delete one first`);
      }
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
        ...extra,
      };
      await this.adapter.insert(doc);
      if (KEPT_PER_USER[kind]) await this.retireOldKeys(userId, kind);
      return { key, doc };
    },
    async createMfaSession(this: AuthThis, userId: number, username: string): Promise<string> {
      const token = generateApiKey();
      const now = Date.now();
      const doc: MfaSessionDoc = {
        _id: await this.nextId("mfa_sessions"),
        token_hash: hashApiKey(token),
        user_id: userId,
        username,
        attempts: 0,
        expires_at: new Date(now + MFA_SESSION_SECONDS * 1000),
        purge_at: new Date(now + MFA_SESSION_PURGE_SECONDS * 1000),
      };
      await this.stores.mfa_sessions.insert(doc);
      return token;
    },
    /** Login keys beyond MAX_LOGIN_KEYS, RSS keys beyond MAX_RSS_KEYS and sync sessions beyond MAX_SYNC_SESSIONS, oldest first, are retired. */
    async retireOldKeys(this: AuthThis, userId: number, kind: KeyKind): Promise<void> {
      const keys: ApiKeyDoc[] = await this.adapter.find({ query: { user_id: userId, kind }, sort: ["-_id"] });
      await this.dropKeys(keys.slice(KEPT_PER_USER[kind]!()));
    },
    /** Removes the keys a query matches and drops their cached lookups everywhere. */
    async removeKeys(this: AuthThis, query: Query): Promise<void> {
      await this.dropKeys(await this.adapter.find({ query }));
    },
    /** Removes these keys and drops their cached lookups everywhere. */
    async dropKeys(this: AuthThis, keys: ApiKeyDoc[]): Promise<void> {
      if (!keys.length) return;
      await this.adapter.removeMany({ _id: { $in: keys.map((k) => k._id) } });
      await this.forgetKeys(keys.map((k) => k.key_hash));
    },
    /** Drops cached lookups of removed keys on every auth instance (memory caches are per node). */
    async forgetKeys(this: AuthThis, hashes: string[]): Promise<void> {
      return keysRemoved.broadcast(this.broker, { key_hashes: hashes });
    },
  },
  events: {
    /**
     * The account is gone: its keys and pending MFA logins go too (other nodes drop the cached lookups), and
     * a granted login flow not yet polled (it holds a sealed app password of the account).
     */
    [userRemoved.eventName]: userRemovedEvent<AuthThis>({ mfa_sessions: "user_id", login_flows: "granted.user_id" }, async function (user_id, removeData) {
      await this.removeKeys({ user_id });
      await removeData();
    }),
    /** The password changed or MFA was turned on or off: sessions opened with the old credentials end. */
    [userCredentialsChanged.eventName]: {
      params: { user_id: "number" },
      async handler(this: AuthThis, ctx: Ctx<UserEvent>) {
        await this.removeKeys({ user_id: ctx.params.user_id, kind: "session" });
      },
    },
    /** Cached lookups carry the admin flag, username and sync switch; this node's memory cache drops them all (the event is broadcast). */
    [userRightsChanged.eventName]: {
      params: { user_id: "number" },
      async handler(this: AuthThis) {
        if (this.broker.cacher) await this.broker.cacher.clean(`${resolveKey.actionName}**`);
      },
    },
    [keysRemoved.eventName]: {
      params: { key_hashes: { type: "array", items: "string" } },
      async handler(this: AuthThis, ctx: Ctx<{ key_hashes: string[] }>) {
        if (!this.broker.cacher) return;
        for (const hash of ctx.params.key_hashes)
          await this.broker.cacher.del(this.broker.cacher.getCacheKey(resolveKey.actionName, { key_hash: hash }, {}, ["key_hash"]));
      },
    },
  },
};

export default AuthService;
