/**
 * OIDC login: the providers an admin configures, the states clients store before sending a browser to a
 * provider (5 minutes, single use, with the PKCE code_verifier), and the callback that exchanges the code
 * with openid-client, reads userinfo, logs the person into their account (users.oidc_login) and sends
 * the browser back to the client with a login key (auth.issue_login_key).
 *
 * Providers are configured with explicit endpoints and no issuer or JWKS, so the identity comes from the
 * userinfo endpoint, called with the access token (OIDC Core 5.3), not from an ID Token the server could
 * not verify. openid-client shapes the token and userinfo requests and checks the answers; its fetch is
 * replaced by shared/http.ts (rule 8) with admin rights, as admins configure the providers: loopback and
 * private providers work, link-local and cloud metadata addresses are refused before any connection.
 */
import type { ServiceSchema } from "moleculer";
import * as oidc from "openid-client";
import { publicOrigin } from "../shared/client-address";
import { DbMixin, isDuplicateKeyError } from "../shared/db.mixin";
import { config } from "../shared/config";
import { BadRequestError, ConflictError, ForbiddenError, InternalServerError, NotFoundError, UnauthorizedError } from "../shared/errors";
import { destinationRefusal, fetchUrl, FetchOptions, FetchResult, OutboundHttpError } from "../shared/http";
import type { GatewayMeta } from "../shared/types";
import type { Ctx, DbThis } from "../shared/service-types";
import type { OidcLoginParams, OidcLoginResult } from "../shared/contracts/users";
import { oidcLogin } from "../shared/contracts/users";
import { issueLoginKey } from "../shared/contracts/auth";
import { AddOidcProviderAnswer, CallbackAnswer, OidcProvidersAnswer, PublicOidcProvidersAnswer, StoreStateAnswer } from "../shared/contracts/oidc";
import { DetailAnswer } from "../shared/contracts/answers";
import type { Static } from "../shared/contracts/answers";

/** A configured provider. client_secret never leaves this service. */
export interface OidcProviderDoc {
  _id: number;
  provider_name: string;
  client_id: string;
  client_secret: string;
  authorization_url: string;
  token_url: string;
  user_info_url: string;
  button_text: string;
  scope: string;
  button_color: string;
  button_text_color: string;
  icon_svg: string | null;
  name_claim: string | null;
  email_claim: string | null;
  username_claim: string | null;
  roles_claim: string | null;
  user_role: string | null;
  admin_role: string | null;
  created_at: Date;
}

/** A login in progress: stored by the client before it opens the provider's login page. */
interface OidcStateDoc {
  _id: string;
  client_id: string;
  origin_url: string | null;
  code_verifier: string | null;
  redirect_uri: string;
  created_at: Date;
}

const STATE_TTL_SECONDS = 300;
const CALLBACK_PATH = "/api/auth/callback";

const str = (max: number) => ({ type: "string", trim: true, min: 1, max });
const optStr = (max: number) => ({ type: "string", trim: true, max, optional: true, nullable: true });
const endpoint = { type: "url", max: 2048 };
const providerIdParam = { type: "number", integer: true, positive: true, convert: true };

/** A claim by name, or by dotted path for nested claims (Keycloak's realm_access.roles). */
function claimAt(claims: Record<string, unknown>, name: string): unknown {
  if (name in claims) return claims[name];
  return name.split(".").reduce<unknown>((v, part) => (v && typeof v === "object" ? (v as Record<string, unknown>)[part] : undefined), claims);
}

/** Role claims come as arrays or as space/comma separated strings. */
function rolesOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.map(String);
  if (typeof value === "string") return value.split(/[\s,]+/).filter(Boolean);
  return [];
}

function text(value: unknown): string {
  return typeof value === "string" ? value.trim() : "";
}

/** icon_svg holds SVG markup or an image URL; clients get a URL either way. */
function iconUrl(icon: string | null): string | null {
  if (!icon) return null;
  if (/^(https?:|data:)/i.test(icon)) return icon;
  return `data:image/svg+xml;base64,${Buffer.from(icon, "utf8").toString("base64")}`;
}

function redirectUriFor(meta: GatewayMeta): string {
  return config.oidcRedirectUri || `${publicOrigin(meta)}${CALLBACK_PATH}`;
}

/**
 * The login key travels to origin_url, so only the server's own origin, relative paths and the
 * configured prefixes may receive it: a stored state must not send someone's key to a stranger's site.
 * Whoever stores a state can forge its Host header, so the callback checks again with the Host the
 * browser sent.
 */
function isAllowedReturn(url: string, meta: GatewayMeta): boolean {
  if (url.startsWith("/") && !url.startsWith("//") && !url.startsWith("/\\")) return true;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  const own = [config.apiUrl, meta.requestOrigin].filter(Boolean).map((o) => new URL(o as string).origin);
  if (own.includes(parsed.origin)) return true;
  return config.oidcAllowedRedirects.some((prefix) => url.startsWith(prefix));
}

/** The outbound failure behind an openid-client error (it throws what its fetch threw, or wraps it as the cause). */
function outboundCause(err: unknown): OutboundHttpError | null {
  for (let e = err, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) if (e instanceof OutboundHttpError) return e;
  return null;
}

/** What openid-client's errors (ResponseBodyError, ClientError...) or a failed fetch may say of themselves. */
interface OidcFailure {
  error?: string;
  code?: string;
  name?: string;
  status?: number;
}

/** A request body as openid-client hands it to its fetch (a form, a string or bytes). */
function bodyOf(body: oidc.CustomFetchOptions["body"]): string | Buffer | undefined {
  if (body === null || body === undefined) return undefined;
  if (typeof body === "string") return body;
  if (body instanceof URLSearchParams) return body.toString();
  if (body instanceof ArrayBuffer || body instanceof Uint8Array) return Buffer.from(body as Uint8Array);
  throw new TypeError("streamed request bodies are not sent to OIDC providers");
}

/**
 * openid-client's fetch through the outbound policy. It never follows redirects (redirect "manual"), nor
 * does this; a provider's non-2xx answer goes back to openid-client as a Response with that status (the
 * body is not kept by shared/http.ts), so it fails the step as it would with fetch.
 */
async function providerFetch(url: string, options: oidc.CustomFetchOptions): Promise<Response> {
  const { accept, "user-agent": userAgent, ...headers } = Object.fromEntries(Object.entries(options.headers).map(([k, v]) => [k.toLowerCase(), v]));
  let res: FetchResult;
  try {
    res = await fetchUrl(url, {
      rights: "admin",
      method: options.method as FetchOptions["method"],
      body: bodyOf(options.body),
      headers,
      accept,
      userAgent, // fixed: no browser-lookalike retry of a refused token or userinfo request
      maxRedirects: 0,
    });
  } catch (err) {
    if (err instanceof OutboundHttpError && err.kind === "http_status" && err.status) return new Response(null, { status: err.status });
    throw err;
  }
  return new Response(res.body?.length ? new Uint8Array(res.body) : null, {
    status: res.status,
    headers: res.contentType ? { "content-type": res.contentType } : {},
  });
}

function withKey(target: string, key: string): string {
  const [base, hash] = target.split("#", 2);
  const sep = base.includes("?") ? "&" : "?";
  return `${base}${sep}api_key=${encodeURIComponent(key)}${hash !== undefined ? `#${hash}` : ""}`;
}

/** A provider as add_oidc_provider and update_oidc_provider receive it. */
const providerParams = {
  provider_name: str(255),
  client_id: str(512),
  client_secret: str(4096),
  authorization_url: endpoint,
  token_url: endpoint,
  user_info_url: endpoint,
  button_text: str(255),
  scope: str(1024),
  button_color: str(64),
  button_text_color: str(64),
  icon_svg: optStr(100_000),
  name_claim: optStr(255),
  email_claim: optStr(255),
  username_claim: optStr(255),
  roles_claim: optStr(255),
  user_role: optStr(255),
  admin_role: optStr(255),
};
/** What a provider's record takes from those params ("" and null are none for the optional ones). */
type ProviderFields = Omit<OidcProviderDoc, "_id" | "created_at">;
const OPTIONAL_FIELDS = ["icon_svg", "name_claim", "email_claim", "username_claim", "roles_claim", "user_role", "admin_role"] as const;

/** add_oidc_provider's params as the validator leaves them (the optional ones may be absent, null or ""). */
type ProviderParams = Omit<ProviderFields, (typeof OPTIONAL_FIELDS)[number]> & { [F in (typeof OPTIONAL_FIELDS)[number]]?: string | null };
/** update_oidc_provider's: an empty or absent secret, scope or colour keeps the stored one. */
type ProviderUpdateParams = Omit<ProviderParams, "client_secret" | "scope" | "button_color" | "button_text_color"> & {
  provider_id: number;
  client_secret?: string | null;
  scope?: string | null;
  button_color?: string | null;
  button_text_color?: string | null;
};
interface StoreStateParams {
  state: string;
  client_id: string;
  origin_url?: string | null;
  code_verifier?: string | null;
}
interface CallbackParams {
  code?: string;
  state?: string;
  error?: string;
  error_description?: string;
}

interface OidcMethods {
  checkedProvider(p: ProviderParams): Promise<ProviderFields>;
  consumeState(id: string): Promise<OidcStateDoc | null>;
  clientConfig(d: OidcProviderDoc): oidc.Configuration;
  exchangeCode(cfg: oidc.Configuration, d: OidcProviderDoc, state: OidcStateDoc, p: { code: string; state: string }): Promise<string>;
  fetchClaims(cfg: oidc.Configuration, d: OidcProviderDoc, accessToken: string): Promise<Record<string, unknown>>;
  identityFrom(d: OidcProviderDoc, claims: Record<string, unknown>): OidcLoginParams;
}

type OidcThis = DbThis<OidcProviderDoc, { oidc_states: OidcStateDoc }> & OidcMethods;

const OidcService: ServiceSchema<Record<string, never>, OidcThis> = {
  name: "oidc",
  mixins: [
    DbMixin({ name: "oidc_providers", indexes: [{ fields: { client_id: 1 }, unique: true }] }, [
      { name: "oidc_states", indexes: [{ fields: { created_at: 1 }, expireAfterSeconds: STATE_TTL_SECONDS }] },
    ]),
  ],
  actions: {
    add_oidc_provider: {
      params: providerParams,
      response: AddOidcProviderAnswer,
      async handler(this: OidcThis, ctx: Ctx<ProviderParams>): Promise<Static<typeof AddOidcProviderAnswer>> {
        const fields: ProviderFields = await this.checkedProvider(ctx.params);
        const doc: OidcProviderDoc = { _id: await this.nextId("oidc_providers"), ...fields, created_at: new Date() };
        // The callback finds the provider by client_id, so it must name one provider.
        await this.insertUnique(this.adapter, doc, "A provider with this client_id already exists");
        this.logger.info("oidc provider added", { provider_id: doc._id, provider_name: doc.provider_name });
        return { detail: "OIDC provider added", provider_id: doc._id };
      },
    },
    /**
     * PUT /api/data/update_oidc_provider/{provider_id} (not in the documents; PinePods' web client edits a provider
     * so): the add record again; an empty or absent client_secret keeps the stored one (the listing never shows it),
     * and so does an absent or null scope or button colour.
     */
    update_oidc_provider: {
      params: {
        provider_id: providerIdParam,
        ...providerParams,
        client_secret: { type: "string", max: 4096, optional: true, nullable: true },
        scope: { ...str(1024), optional: true, nullable: true },
        button_color: { ...str(64), optional: true, nullable: true },
        button_text_color: { ...str(64), optional: true, nullable: true },
      },
      response: DetailAnswer,
      async handler(this: OidcThis, ctx: Ctx<ProviderUpdateParams>): Promise<Static<typeof DetailAnswer>> {
        const { provider_id, ...p } = ctx.params;
        const current: OidcProviderDoc | null = await this.adapter.findOne({ _id: provider_id });
        if (!current) throw new NotFoundError("OIDC provider not found");
        const kept = (field: "client_secret" | "scope" | "button_color" | "button_text_color") => p[field] || current[field];
        const fields: ProviderFields = await this.checkedProvider({
          ...p,
          client_secret: kept("client_secret"),
          scope: kept("scope"),
          button_color: kept("button_color"),
          button_text_color: kept("button_text_color"),
        });
        const other: OidcProviderDoc | null = await this.adapter.findOne({ client_id: fields.client_id });
        if (other && other._id !== provider_id) throw new ConflictError("A provider with this client_id already exists");
        try {
          await this.adapter.updateMany({ _id: provider_id }, { $set: fields });
        } catch (err) {
          if (isDuplicateKeyError(err)) throw new ConflictError("A provider with this client_id already exists");
          throw err;
        }
        this.logger.info("oidc provider updated", { provider_id, provider_name: fields.provider_name, secret_changed: !!p.client_secret });
        return { detail: "OIDC provider updated" };
      },
    },
    list_oidc_providers: {
      idempotent: true,
      params: {},
      response: OidcProvidersAnswer,
      async handler(this: OidcThis): Promise<Static<typeof OidcProvidersAnswer>> {
        const docs: OidcProviderDoc[] = await this.adapter.find({ query: {}, sort: ["_id"] });
        return {
          // The client secret never leaves the server.
          providers: docs.map(({ _id, client_secret: _secret, created_at, ...rest }) => {
            return {
              provider_id: _id,
              ...rest,
              enabled: true,
              initialized_from_env: false,
              created_at: new Date(created_at).toISOString(),
            };
          }),
        };
      },
    },
    /** {provider_id}, or the bare id as the whole JSON body (as the web client sends it). */
    remove_oidc_provider: {
      params: { provider_id: { ...providerIdParam, optional: true }, body: { ...providerIdParam, optional: true } },
      response: DetailAnswer,
      async handler(this: OidcThis, ctx: Ctx<{ provider_id?: number; body?: number }>): Promise<Static<typeof DetailAnswer>> {
        const provider_id: number | undefined = ctx.params.provider_id ?? ctx.params.body;
        if (provider_id === undefined) throw new BadRequestError("provider_id is required");
        const removed = await this.adapter.removeMany({ _id: provider_id });
        if (!removed) throw new NotFoundError("OIDC provider not found");
        this.logger.info("oidc provider removed", { provider_id });
        return { detail: "OIDC provider removed" };
      },
    },
    /** What a login page needs: one button per provider, and whether to hide the password form. */
    public_oidc_providers: {
      idempotent: true,
      params: {},
      response: PublicOidcProvidersAnswer,
      async handler(this: OidcThis, ctx: Ctx): Promise<Static<typeof PublicOidcProvidersAnswer>> {
        const docs: OidcProviderDoc[] = await this.adapter.find({ query: {}, sort: ["_id"] });
        const redirectUri = redirectUriFor(ctx.meta);
        return {
          providers: docs.map((d) => ({
            id: d._id,
            name: d.provider_name,
            icon_url: iconUrl(d.icon_svg),
            // The client appends state, code_challenge and code_challenge_method=S256 after store_state.
            login_url: oidc.buildAuthorizationUrl(this.clientConfig(d), { redirect_uri: redirectUri, scope: d.scope, response_type: "code" }).href,
            client_id: d.client_id,
            scope: d.scope,
            button_text: d.button_text,
            button_color: d.button_color,
            button_text_color: d.button_text_color,
            // The names both PinePods clients read a provider by (they build the login URL from authorization_url).
            provider_id: d._id,
            provider_name: d.provider_name,
            authorization_url: d.authorization_url,
            icon_svg: d.icon_svg,
          })),
          disable_standard_login: config.oidcDisableStandardLogin,
        };
      },
    },
    store_state: {
      params: {
        state: { type: "string", min: 8, max: 512 },
        client_id: { type: "string", min: 1, max: 512 },
        origin_url: { type: "string", max: 2048, optional: true, nullable: true },
        code_verifier: { type: "string", min: 43, max: 128, pattern: /^[A-Za-z0-9\-._~]+$/, optional: true, nullable: true },
      },
      response: StoreStateAnswer,
      async handler(this: OidcThis, ctx: Ctx<StoreStateParams>): Promise<Static<typeof StoreStateAnswer>> {
        const p = ctx.params;
        if (!(await this.adapter.findOne({ client_id: p.client_id }))) throw new BadRequestError("Unknown OIDC client_id");
        if (p.origin_url && !isAllowedReturn(p.origin_url, ctx.meta)) {
          throw new BadRequestError("origin_url is not an address of this server or of OIDC_ALLOWED_REDIRECTS");
        }
        const doc: OidcStateDoc = {
          _id: p.state,
          client_id: p.client_id,
          origin_url: p.origin_url || null,
          code_verifier: p.code_verifier || null,
          // The token request must repeat the redirect_uri of the authorization request.
          redirect_uri: redirectUriFor(ctx.meta),
          created_at: new Date(),
        };
        await this.insertUnique(this.stores.oidc_states, doc, "This state is already in use");
        return { detail: "State stored", expires_in: STATE_TTL_SECONDS };
      },
    },
    callback: {
      idempotent: false,
      params: {
        code: { type: "string", max: 4096, optional: true },
        state: { type: "string", max: 512, optional: true },
        error: { type: "string", max: 256, optional: true },
        error_description: { type: "string", max: 2048, optional: true },
      },
      response: CallbackAnswer,
      async handler(this: OidcThis, ctx: Ctx<CallbackParams>): Promise<Static<typeof CallbackAnswer>> {
        const p = ctx.params;
        if (p.error) {
          // The state dies with the refused attempt: it is single use.
          if (p.state) await this.consumeState(p.state);
          this.logger.warn("oidc login refused by provider", { error: p.error });
          throw new UnauthorizedError(`The OIDC provider refused the login: ${p.error}`);
        }
        if (!p.state || !p.code) throw new BadRequestError("code and state are required");
        const state: OidcStateDoc | null = await this.consumeState(p.state);
        if (!state) throw new BadRequestError("Invalid or expired state");
        if (state.origin_url && !isAllowedReturn(state.origin_url, ctx.meta)) throw new BadRequestError("origin_url is not an address of this server");
        const provider: OidcProviderDoc | null = await this.adapter.findOne({ client_id: state.client_id });
        if (!provider) throw new BadRequestError("The OIDC provider of this login no longer exists");

        const clientConfig = this.clientConfig(provider);
        const accessToken = await this.exchangeCode(clientConfig, provider, state, { code: p.code, state: p.state });
        const claims = await this.fetchClaims(clientConfig, provider, accessToken);
        const identity = this.identityFrom(provider, claims);
        const login: OidcLoginResult = await oidcLogin(ctx, identity);
        const { key } = await issueLoginKey(ctx, { user_id: login.user_id });
        this.logger.info("oidc login", { provider_id: provider._id, user_id: login.user_id, created: login.created });
        Object.assign(ctx.meta, { $statusCode: 302, $location: withKey(state.origin_url || "/", key) });
        return null;
      },
    },
  },
  methods: {
    /** A provider's fields from add or update params: endpoints https (unless OIDC_ALLOW_HTTP) and reachable under the outbound policy. */
    async checkedProvider(this: OidcThis, p: ProviderParams): Promise<ProviderFields> {
      for (const field of ["authorization_url", "token_url", "user_info_url"] as const) {
        if (!config.oidcAllowHttp && !p[field].toLowerCase().startsWith("https://")) {
          throw new BadRequestError(`${field} must be an https:// URL (set OIDC_ALLOW_HTTP=true to allow http)`);
        }
      }
      // The server fetches these two itself: an address every fetch would refuse is refused now, not at the first login.
      for (const field of ["token_url", "user_info_url"] as const) {
        const why = await destinationRefusal(p[field], "admin");
        if (why) throw new BadRequestError(`${field}: ${why}`);
      }
      const fields: ProviderFields = {
        provider_name: p.provider_name,
        client_id: p.client_id,
        client_secret: p.client_secret,
        authorization_url: p.authorization_url,
        token_url: p.token_url,
        user_info_url: p.user_info_url,
        button_text: p.button_text,
        scope: p.scope,
        button_color: p.button_color,
        button_text_color: p.button_text_color,
        icon_svg: null,
        name_claim: null,
        email_claim: null,
        username_claim: null,
        roles_claim: null,
        user_role: null,
        admin_role: null,
      };
      for (const field of OPTIONAL_FIELDS) fields[field] = p[field] ? p[field] : null;
      return fields;
    },
    /** The state once: removing it is what claims it, so two callbacks with one state cannot both win. */
    async consumeState(this: OidcThis, id: string): Promise<OidcStateDoc | null> {
      const doc: OidcStateDoc | null = await this.stores.oidc_states.findOne({ _id: id });
      if (!doc) return null;
      const removed = await this.stores.oidc_states.removeMany({ _id: id });
      if (!removed) return null;
      // TTL indexes sweep late (MongoDB once a minute), so age is checked here too.
      if (Date.now() - new Date(doc.created_at).getTime() > STATE_TTL_SECONDS * 1000) return null;
      return doc;
    },
    clientConfig(this: OidcThis, d: OidcProviderDoc): oidc.Configuration {
      const server: oidc.ServerMetadata = {
        // No issuer is configured; the ID Token (the only thing checked against it) is not used, see below.
        issuer: new URL(d.authorization_url).origin,
        authorization_endpoint: d.authorization_url,
        token_endpoint: d.token_url,
        userinfo_endpoint: d.user_info_url,
      };
      const cfg = new oidc.Configuration(server, d.client_id, undefined, oidc.ClientSecretPost(d.client_secret));
      if (config.oidcAllowHttp) oidc.allowInsecureRequests(cfg);
      // An ID Token would be checked against an issuer the server does not know; identity comes from
      // userinfo instead, so the token response is read without it.
      cfg[oidc.customFetch] = async (url, options) => {
        const res = await providerFetch(url, options);
        if (url !== d.token_url || !res.ok) return res;
        const raw = await res.text();
        let body: unknown;
        try {
          body = JSON.parse(raw);
        } catch {
          return new Response(raw, { status: res.status, headers: res.headers }); // openid-client reports it
        }
        if (body && typeof body === "object") delete (body as { id_token?: unknown }).id_token;
        return new Response(JSON.stringify(body), { status: res.status, headers: { "content-type": "application/json" } });
      };
      return cfg;
    },
    /** Code -> access token. Any failure here is the spec's 500 "token exchange failure". */
    async exchangeCode(this: OidcThis, cfg: oidc.Configuration, d: OidcProviderDoc, state: OidcStateDoc, p: { code: string; state: string }): Promise<string> {
      const current = new URL(state.redirect_uri);
      current.searchParams.set("code", p.code);
      current.searchParams.set("state", p.state);
      try {
        const tokens = await oidc.authorizationCodeGrant(cfg, current, {
          expectedState: state._id,
          pkceCodeVerifier: state.code_verifier ?? undefined,
        });
        return tokens.access_token;
      } catch (err) {
        const e = err as OidcFailure | undefined;
        // A refused or unreachable endpoint says why (the outbound error's message names the URL without its query).
        this.logger.error("oidc token exchange failed", {
          provider_id: d._id,
          error: e?.error ?? e?.code ?? e?.name,
          status: e?.status,
          outbound: outboundCause(err)?.message,
        });
        throw new InternalServerError("OIDC token exchange failed");
      }
    },
    /** userinfo with the access token; a provider that will not answer refuses the login (401). */
    async fetchClaims(this: OidcThis, cfg: oidc.Configuration, d: OidcProviderDoc, accessToken: string): Promise<Record<string, unknown>> {
      let res: Response;
      try {
        // fetchProtectedResource rather than fetchUserInfo: plain OAuth 2 userinfo endpoints omit "sub".
        res = await oidc.fetchProtectedResource(cfg, accessToken, new URL(d.user_info_url), "GET", undefined, new Headers({ accept: "application/json" }));
      } catch (err) {
        const e = err as OidcFailure | undefined;
        const outbound = outboundCause(err);
        this.logger.warn("oidc userinfo failed", { provider_id: d._id, error: e?.code ?? e?.name, outbound: outbound?.message });
        if (outbound?.kind === "blocked_address") throw new UnauthorizedError(`The OIDC provider's userinfo endpoint is refused. ${outbound.message}`);
        throw new UnauthorizedError("The OIDC provider refused the userinfo request");
      }
      const claims = res.ok ? await res.json().catch(() => null) : null;
      if (!claims || typeof claims !== "object" || Array.isArray(claims)) {
        this.logger.warn("oidc userinfo failed", { provider_id: d._id, status: res.status });
        throw new UnauthorizedError("The OIDC provider refused the userinfo request");
      }
      return claims as Record<string, unknown>;
    },
    /** Claims -> the account to log into, with the provider's claim names and role rules. */
    identityFrom(this: OidcThis, d: OidcProviderDoc, claims: Record<string, unknown>): OidcLoginParams {
      const email = text(claimAt(claims, d.email_claim || "email")).toLowerCase();
      if (!email || !email.includes("@")) throw new UnauthorizedError("The OIDC provider gave no email address");
      // Linking by email trusts the provider's address; one it says is unverified links nobody.
      if (claims.email_verified === false) throw new UnauthorizedError("The OIDC provider has not verified this email address");
      const roles = d.roles_claim ? rolesOf(claimAt(claims, d.roles_claim)) : [];
      const grantAdmin = !!(d.roles_claim && d.admin_role && roles.includes(d.admin_role));
      if (d.roles_claim && d.user_role && !grantAdmin && !roles.includes(d.user_role)) {
        throw new ForbiddenError("Your account at the OIDC provider lacks the role needed to log in");
      }
      return {
        email,
        username: text(claimAt(claims, d.username_claim || "preferred_username")) || email.split("@")[0],
        fullname: text(claimAt(claims, d.name_claim || "name")) || email.split("@")[0],
        grant_admin: grantAdmin,
      };
    },
  },
};

export default OidcService;
