/**
 * OIDC login end to end: a real OpenID provider (oidc-provider, with its dev login and consent pages) on
 * loopback, driven over plain HTTP as a browser would (manual redirects, a cookie jar), against the
 * gateway: store_state -> authorize -> login -> consent -> callback -> 302 with a key.
 */
import crypto from "crypto";
import http from "http";
import type { AddressInfo } from "net";
import Provider from "oidc-provider";
import { api, basic, expectErrorBody } from "../helpers/client";
import { capturingLogger } from "../helpers/logs";
import { startServer, TestServer } from "../helpers/server";
import { config } from "../../shared/config";

const GOOD_CLIENT = { client_id: "podcasts-web", client_secret: "correct-horse-battery-staple" };
// Registered at the provider with one secret, configured at the gateway with another.
const MISCONFIGURED_CLIENT = { client_id: "podcasts-misconfigured", client_secret: "the-real-secret" };
// Configured at the gateway with one endpoint on the cloud metadata address.
const GUARDED_CLIENT = { client_id: "podcasts-guarded", client_secret: "guarded-client-secret" };

/** Accounts the provider knows: the login name typed on its login page -> claims. */
const ACCOUNTS: Record<string, Record<string, unknown>> = {
  alice: { email: "alice@example.org", email_verified: true, name: "Alice Liddell", preferred_username: "Alice", groups: ["podcast-users"] },
  "carol-sso": { email: "Carol@Example.org", name: "Carol from SSO", preferred_username: "carol.sso", groups: ["podcast-users"] },
  eve: { email: "eve@example.org", name: "Eve", preferred_username: "alice", groups: ["podcast-users"] },
  root: { email: "root@example.org", name: "Root", preferred_username: "root", groups: ["podcast-users", "podcast-admins"] },
  promoted: { email: "promoted@example.org", name: "Promoted", preferred_username: "promoted", groups: ["podcast-admins"] },
  nobody: { email: "nobody@example.org", name: "Nobody", preferred_username: "nobody", groups: [] },
  unverified: { email: "unverified@example.org", email_verified: false, preferred_username: "unverified", groups: ["podcast-users"] },
};

/** A browser: follows nothing on its own, keeps the provider's cookies. */
class Browser {
  private cookies = new Map<string, string>();

  async request(url: string, form?: Record<string, string>): Promise<Response> {
    const headers: Record<string, string> = { cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ") };
    if (form) headers["content-type"] = "application/x-www-form-urlencoded";
    const res = await fetch(url, { method: form ? "POST" : "GET", redirect: "manual", headers, body: form ? new URLSearchParams(form).toString() : undefined });
    for (const line of res.headers.getSetCookie()) {
      const pair = line.split(";")[0];
      const eq = pair.indexOf("=");
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1);
      if (!value || /expires=Thu, 01 Jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }
}

describe("OIDC login through a loopback OpenID provider", () => {
  let server: TestServer;
  let idp: http.Server;
  let issuer = "";
  let callbackUrl = "";
  let adminKey = "";
  let userKey = "";
  let goodProviderId = 0;
  let badProviderId = 0;
  const allowHttpBefore = config.oidcAllowHttp;
  const logs: string[] = [];

  const providerRecord = (client: { client_id: string }, secret: string) => ({
    provider_name: `Test IdP ${client.client_id}`,
    client_id: client.client_id,
    client_secret: secret,
    authorization_url: `${issuer}/auth`,
    token_url: `${issuer}/token`,
    user_info_url: `${issuer}/me`,
    button_text: "Log in with Test IdP",
    scope: "openid email profile groups",
    button_color: "#224488",
    button_text_color: "#ffffff",
    icon_svg: '<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>',
    roles_claim: "groups",
    user_role: "podcast-users",
    admin_role: "podcast-admins",
  });

  beforeAll(async () => {
    // oidc-provider announces its development defaults (memory adapter, dev keys, dev pages): expected here.
    jest.spyOn(console, "warn").mockImplementation(() => undefined);
    jest.spyOn(console, "info").mockImplementation(() => undefined);
    config.oidcAllowHttp = true; // the loopback provider speaks http
    server = await startServer({ broker: capturingLogger(logs) });
    callbackUrl = `${server.url}/api/auth/callback`;

    let handler: http.RequestListener = (_req, res) => res.end();
    idp = http.createServer((req, res) => handler(req, res));
    await new Promise<void>((resolve) => idp.listen(0, "127.0.0.1", resolve));
    issuer = `http://127.0.0.1:${(idp.address() as AddressInfo).port}`;
    const client = (c: { client_id: string; client_secret: string }) => ({
      ...c,
      redirect_uris: [callbackUrl],
      grant_types: ["authorization_code"],
      response_types: ["code"],
      token_endpoint_auth_method: "client_secret_post",
    });
    const provider = new Provider(issuer, {
      clients: [client(GOOD_CLIENT), client(MISCONFIGURED_CLIENT), client(GUARDED_CLIENT)],
      claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name", "preferred_username"], groups: ["groups"] },
      findAccount: async (_ctx: unknown, id: string) => ACCOUNTS[id] && { accountId: id, claims: async () => ({ sub: id, ...ACCOUNTS[id] }) },
      features: { devInteractions: { enabled: true } },
      pkce: { required: () => true },
      cookies: { keys: ["loopback-test-cookie-key"] },
    });
    handler = provider.callback();

    await api(server.url)
      .post("/api/data/create_first")
      .send({ username: "admin", password: "admin password 1", email: "admin@example.org", fullname: "Admin" })
      .expect(200);
    adminKey = (await api(server.url).get("/api/data/get_key").set("Authorization", basic("admin", "admin password 1")).expect(200)).body.retrieved_key;
    await api(server.url)
      .post("/api/data/add_user")
      .set("Api-Key", adminKey)
      .send({ username: "plainuser", hash_pw: "plain password 1", email: "plain@example.org", fullname: "Plain" })
      .expect(200);
    userKey = (await api(server.url).get("/api/data/get_key").set("Authorization", basic("plainuser", "plain password 1")).expect(200)).body.retrieved_key;
  });

  afterAll(async () => {
    jest.restoreAllMocks();
    config.oidcAllowHttp = allowHttpBefore;
    await server?.stop();
    await new Promise((resolve) => idp?.close(resolve));
  });

  /** What a client does before sending the browser to the provider: state + PKCE, then store_state. */
  async function startLogin(clientId: string, originUrl?: string) {
    const listing = await api(server.url).get("/api/data/public_oidc_providers").expect(200);
    const entry = listing.body.providers.find((p: any) => p.client_id === clientId);
    const state = crypto.randomBytes(16).toString("base64url");
    const verifier = crypto.randomBytes(32).toString("base64url");
    const challenge = crypto.createHash("sha256").update(verifier).digest("base64url");
    await api(server.url).post("/api/auth/store_state").send({ state, client_id: clientId, origin_url: originUrl, code_verifier: verifier }).expect(200);
    return { state, url: `${entry.login_url}&state=${state}&code_challenge=${challenge}&code_challenge_method=S256` };
  }

  /** The browser at the provider: log in as accountId and consent (or cancel), up to the redirect to the gateway. */
  async function atProvider(startUrl: string, accountId: string, cancel = false): Promise<string> {
    const browser = new Browser();
    let url = startUrl;
    let form: Record<string, string> | undefined;
    for (let step = 0; step < 20; step++) {
      const res = await browser.request(url, form);
      form = undefined;
      if (res.status >= 300 && res.status < 400) {
        await res.arrayBuffer();
        url = new URL(res.headers.get("location")!, url).href;
        if (url.startsWith(callbackUrl)) return url;
        continue;
      }
      const html = await res.text();
      expect(res.status).toBe(200);
      const prompt = /name="prompt" value="(\w+)"/.exec(html)?.[1];
      if (cancel) url = `${url}/abort`;
      else form = prompt === "login" ? { prompt, login: accountId, password: "any" } : { prompt: "consent" };
    }
    throw new Error("the provider never redirected back to the gateway");
  }

  async function callback(url: string) {
    return fetch(url, { redirect: "manual" });
  }

  /** A full login; returns the key the gateway handed to the client and where it sent the browser. */
  async function login(accountId: string, originUrl = `${server.url}/app/home`) {
    const { url } = await startLogin(GOOD_CLIENT.client_id, originUrl);
    const back = await callback(await atProvider(url, accountId));
    expect(back.status).toBe(302);
    const location = new URL(back.headers.get("location")!, server.url);
    const key = location.searchParams.get("api_key")!;
    expect(key).toBeTruthy();
    const me = await api(server.url).get("/api/data/get_user").set("Api-Key", key).expect(200);
    return { key, location, userId: me.body.retrieved_id as number };
  }

  test("admin adds providers: validated, admin only, unique client_id", async () => {
    const record = providerRecord(GOOD_CLIENT, GOOD_CLIENT.client_secret);
    const { button_color: _omitted, ...incomplete } = record;
    expectErrorBody(await api(server.url).post("/api/data/add_oidc_provider").set("Api-Key", adminKey).send(incomplete), 400);
    expectErrorBody(
      await api(server.url)
        .post("/api/data/add_oidc_provider")
        .set("Api-Key", adminKey)
        .send({ ...record, token_url: "not a url" }),
      400,
    );
    expectErrorBody(await api(server.url).post("/api/data/add_oidc_provider").set("Api-Key", userKey).send(record), 403);
    expectErrorBody(await api(server.url).post("/api/data/add_oidc_provider").send(record), 401);
    config.oidcAllowHttp = false;
    try {
      expectErrorBody(await api(server.url).post("/api/data/add_oidc_provider").set("Api-Key", adminKey).send(record), 400);
    } finally {
      config.oidcAllowHttp = true;
    }

    const added = await api(server.url).post("/api/data/add_oidc_provider").set("Api-Key", adminKey).send(record).expect(200);
    goodProviderId = added.body.provider_id;
    expect(goodProviderId).toEqual(expect.any(Number));
    expectErrorBody(await api(server.url).post("/api/data/add_oidc_provider").set("Api-Key", adminKey).send(record), 409);
    const bad = await api(server.url)
      .post("/api/data/add_oidc_provider")
      .set("Api-Key", adminKey)
      .send({
        ...providerRecord(MISCONFIGURED_CLIENT, "not-the-secret-the-provider-knows"),
        icon_svg: null,
        roles_claim: null,
        user_role: null,
        admin_role: null,
      })
      .expect(200);
    badProviderId = bad.body.provider_id;
  });

  test("providers are listed for admins and publicly, never with the client secret", async () => {
    const listed = await api(server.url).get("/api/data/list_oidc_providers").set("Api-Key", adminKey).expect(200);
    expect(listed.body.providers.map((p: any) => p.provider_id)).toEqual([goodProviderId, badProviderId]);
    expect(listed.body.providers[0]).toMatchObject({
      provider_name: `Test IdP ${GOOD_CLIENT.client_id}`,
      client_id: GOOD_CLIENT.client_id,
      roles_claim: "groups",
      admin_role: "podcast-admins",
    });
    expectErrorBody(await api(server.url).get("/api/data/list_oidc_providers").set("Api-Key", userKey), 403);

    const pub = await api(server.url).get("/api/data/public_oidc_providers").expect(200);
    expect(pub.body.disable_standard_login).toBe(false);
    expect(pub.body.providers).toHaveLength(2);
    const [first, second] = pub.body.providers;
    expect(first).toMatchObject({
      id: goodProviderId,
      name: `Test IdP ${GOOD_CLIENT.client_id}`,
      button_text: "Log in with Test IdP",
      button_color: "#224488",
      button_text_color: "#ffffff",
    });
    expect(first.icon_url).toMatch(/^data:image\/svg\+xml;base64,/);
    expect(second.icon_url).toBeNull();
    const loginUrl = new URL(first.login_url);
    expect(`${loginUrl.origin}${loginUrl.pathname}`).toBe(`${issuer}/auth`);
    expect(Object.fromEntries(loginUrl.searchParams)).toMatchObject({
      client_id: GOOD_CLIENT.client_id,
      redirect_uri: callbackUrl,
      response_type: "code",
      scope: "openid email profile groups",
    });

    for (const body of [JSON.stringify(listed.body), JSON.stringify(pub.body)]) {
      expect(body).not.toContain(GOOD_CLIENT.client_secret);
      expect(body).not.toContain("not-the-secret-the-provider-knows");
      expect(body).not.toContain("client_secret");
    }
  });

  test("store_state checks its input", async () => {
    const state = crypto.randomBytes(16).toString("base64url");
    expectErrorBody(await api(server.url).post("/api/auth/store_state").send({ client_id: GOOD_CLIENT.client_id }), 400);
    expectErrorBody(await api(server.url).post("/api/auth/store_state").send({ state, client_id: "nobody-registered-this" }), 400);
    // The key must not be sent to someone else's site.
    expectErrorBody(
      await api(server.url).post("/api/auth/store_state").send({ state, client_id: GOOD_CLIENT.client_id, origin_url: "https://evil.example/steal" }),
      400,
    );
    expectErrorBody(
      await api(server.url).post("/api/auth/store_state").send({ state, client_id: GOOD_CLIENT.client_id, origin_url: "//evil.example/steal" }),
      400,
    );
    expectErrorBody(await api(server.url).post("/api/auth/store_state").send({ state, client_id: GOOD_CLIENT.client_id, code_verifier: "short" }), 400);
    await api(server.url).post("/api/auth/store_state").send({ state, client_id: GOOD_CLIENT.client_id, origin_url: "/relative/page" }).expect(200);
    expectErrorBody(await api(server.url).post("/api/auth/store_state").send({ state, client_id: GOOD_CLIENT.client_id }), 409);
  });

  test("a state stored with a forged Host cannot send the key to that host", async () => {
    const listing = await api(server.url).get("/api/data/public_oidc_providers").expect(200);
    const state = crypto.randomBytes(16).toString("base64url");
    const verifier = crypto.randomBytes(32).toString("base64url");
    const challenge = crypto.createHash("sha256").update(verifier).digest("base64url");
    // A configured redirect URI does not follow the Host header, so the code exchange itself would work.
    config.oidcRedirectUri = callbackUrl;
    let res: Response;
    try {
      await api(server.url)
        .post("/api/auth/store_state")
        .set("Host", "evil.example")
        .send({ state, client_id: GOOD_CLIENT.client_id, origin_url: "http://evil.example/steal", code_verifier: verifier })
        .expect(200);
      const loginUrl = `${listing.body.providers[0].login_url}&state=${state}&code_challenge=${challenge}&code_challenge_method=S256`;
      res = await callback(await atProvider(loginUrl, "alice"));
    } finally {
      config.oidcRedirectUri = "";
    }
    expect(res.status).toBe(400);
    expect(res.headers.get("location")).toBeNull();
  });

  test("first login creates the account, the second logs into the same one", async () => {
    const first = await login("alice");
    expect(`${first.location.origin}${first.location.pathname}`).toBe(`${server.url}/app/home`);
    const info = await api(server.url).get(`/api/data/my_user_info/${first.userId}`).set("Api-Key", first.key).expect(200);
    expect(info.body).toEqual({
      userid: first.userId,
      fullname: "Alice Liddell",
      username: "alice",
      email: "alice@example.org",
      isadmin: 0,
      timezone: "UTC",
      timeformat: 24,
      dateformat: "YYYY-MM-DD",
      language: "en",
      startpage: "home",
      default_volume: 100,
    });
    await api(server.url).get("/api/data/verify_key").set("Api-Key", first.key).expect(200);

    const second = await login("alice", "/player?tab=queue");
    expect(second.userId).toBe(first.userId);
    expect(second.key).not.toBe(first.key);
    expect(second.location.pathname).toBe("/player");
    expect(second.location.searchParams.get("tab")).toBe("queue");
    // No second account: the next account created gets the very next id.
    const next = await api(server.url)
      .post("/api/data/add_user")
      .set("Api-Key", adminKey)
      .send({ username: "after-alice", hash_pw: "after alice pw 1", email: "after@example.org", fullname: "After" })
      .expect(200);
    expect(next.body.user_id).toBe(first.userId + 1);
  });

  test("a login is linked by email to an account made before, case-insensitively", async () => {
    const made = await api(server.url)
      .post("/api/data/add_user")
      .set("Api-Key", adminKey)
      .send({ username: "carol", hash_pw: "carol password 1", email: "carol@example.org", fullname: "Carol" })
      .expect(200);
    const { userId } = await login("carol-sso");
    expect(userId).toBe(made.body.user_id);
    // The local password still works beside the OIDC login.
    await api(server.url).get("/api/data/get_key").set("Authorization", basic("carol", "carol password 1")).expect(200);
  });

  test("a new account whose preferred username is taken gets a unique one", async () => {
    const { userId, key } = await login("eve");
    const info = await api(server.url).get(`/api/data/my_user_info/${userId}`).set("Api-Key", key).expect(200);
    expect(info.body).toMatchObject({ username: "alice2", email: "eve@example.org" });
  });

  test("the admin role claim makes an admin; without the user role nobody gets in", async () => {
    const root = await login("root");
    const info = await api(server.url).get(`/api/data/my_user_info/${root.userId}`).set("Api-Key", root.key).expect(200);
    expect(info.body.isadmin).toBe(1);
    await api(server.url).get("/api/data/list_oidc_providers").set("Api-Key", root.key).expect(200);

    const { url } = await startLogin(GOOD_CLIENT.client_id);
    expectErrorBody(await api(server.url).get(new URL(await atProvider(url, "nobody")).href.slice(server.url.length)), 403);
  });

  test("the admin role promotes an existing account, and its older keys get the rights at once", async () => {
    const made = await api(server.url)
      .post("/api/data/add_user")
      .set("Api-Key", adminKey)
      .send({ username: "promoted", hash_pw: "promoted password 1", email: "promoted@example.org", fullname: "Promoted" })
      .expect(200);
    const oldKey = (await api(server.url).get("/api/data/get_key").set("Authorization", basic("promoted", "promoted password 1")).expect(200)).body
      .retrieved_key;
    expectErrorBody(await api(server.url).get("/api/data/list_oidc_providers").set("Api-Key", oldKey), 403);
    const { userId } = await login("promoted");
    expect(userId).toBe(made.body.user_id);
    await api(server.url).get("/api/data/list_oidc_providers").set("Api-Key", oldKey).expect(200);
  });

  test("an email the provider marks unverified links nobody", async () => {
    const { url } = await startLogin(GOOD_CLIENT.client_id);
    const res = await callback(await atProvider(url, "unverified"));
    expect(res.status).toBe(401);
  });

  test("unknown, reused and expired states answer 400", async () => {
    expectErrorBody(await api(server.url).get("/api/auth/callback").query({ code: "abc", state: "never-stored-state" }), 400);
    expectErrorBody(await api(server.url).get("/api/auth/callback").query({ state: "never-stored-state" }), 400);

    const { url } = await startLogin(GOOD_CLIENT.client_id);
    const back = await atProvider(url, "alice");
    expect((await callback(back)).status).toBe(302);
    const replay = await callback(back);
    expect(replay.status).toBe(400);
    expect(await replay.json()).toMatchObject({ error: "bad_request", status_code: 400 });

    const stale = await startLogin(GOOD_CLIENT.client_id);
    const realNow = Date.now();
    const clock = jest.spyOn(Date, "now").mockReturnValue(realNow + 301_000);
    try {
      expectErrorBody(await api(server.url).get("/api/auth/callback").query({ code: "abc", state: stale.state }), 400);
    } finally {
      clock.mockRestore();
    }
  });

  test("the provider refusing the login answers 401", async () => {
    const { url, state } = await startLogin(GOOD_CLIENT.client_id);
    const back = await atProvider(url, "alice", true);
    expect(new URL(back).searchParams.get("error")).toBe("access_denied");
    const res = await callback(back);
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: "unauthorized", status_code: 401 });
    // The refused attempt used the state up.
    expectErrorBody(await api(server.url).get("/api/auth/callback").query({ code: "abc", state }), 400);
  });

  test("a failed token exchange (wrong client secret) answers 500 with a generic message", async () => {
    const { url } = await startLogin(MISCONFIGURED_CLIENT.client_id);
    const res = await api(server.url).get(new URL(await atProvider(url, "alice")).href.slice(server.url.length));
    expectErrorBody(res, 500);
    expect(res.body.message).toBe("Internal server error");
  });

  test("admins remove providers", async () => {
    expectErrorBody(await api(server.url).delete("/api/data/remove_oidc_provider").set("Api-Key", userKey).send({ provider_id: badProviderId }), 403);
    // The web client posts the bare id as the whole JSON body.
    const bare = (body: string) =>
      api(server.url).post("/api/data/remove_oidc_provider").set("Api-Key", adminKey).set("Content-Type", "application/json").send(body);
    expectErrorBody(await bare('"x"'), 400);
    await bare(String(badProviderId)).expect(200);
    expectErrorBody(await bare(String(badProviderId)), 404);
    expectErrorBody(await api(server.url).delete("/api/data/remove_oidc_provider").set("Api-Key", adminKey).send({ provider_id: badProviderId }), 404);
    const listed = await api(server.url).get("/api/data/list_oidc_providers").set("Api-Key", adminKey).expect(200);
    expect(listed.body.providers.map((p: any) => p.provider_id)).toEqual([goodProviderId]);
    expectErrorBody(
      await api(server.url).post("/api/auth/store_state").send({ state: "state-of-a-removed-provider", client_id: MISCONFIGURED_CLIENT.client_id }),
      400,
    );
  });

  test("a token or userinfo endpoint on a link-local / metadata address is refused when saved, and at login before anything is fetched", async () => {
    const fetched = jest.spyOn(globalThis, "fetch");
    const metadata = "http://169.254.169.254/latest/meta-data";
    const listed = async () => (await api(server.url).get("/api/data/list_oidc_providers").set("Api-Key", adminKey).expect(200)).body.providers.length;
    const before = await listed();
    for (const endpoint of [{ token_url: `${metadata}/token` }, { user_info_url: `${metadata}/userinfo` }, { token_url: "http://[fe80::1]/token" }]) {
      const refused = await api(server.url)
        .post("/api/data/add_oidc_provider")
        .set("Api-Key", adminKey)
        .send({ ...providerRecord(GUARDED_CLIENT, GUARDED_CLIENT.client_secret), ...endpoint });
      expectErrorBody(refused, 400);
      expect(refused.body.message).toMatch(new RegExp(`^${Object.keys(endpoint)[0]}: This address is not allowed: link-local, cloud metadata`));
    }
    expect(await listed()).toBe(before);
    /**
     * A login at the loopback provider with one of its endpoints on the metadata address: stored before
     * the save-time check existed (or a name whose DNS later points there), so written to the store directly.
     */
    const loginWith = async (endpoint: { token_url: string } | { user_info_url: string }) => {
      const added = await api(server.url)
        .post("/api/data/add_oidc_provider")
        .set("Api-Key", adminKey)
        .send(providerRecord(GUARDED_CLIENT, GUARDED_CLIENT.client_secret))
        .expect(200);
      await (server.broker.getLocalService("oidc") as any).adapter.updateById(added.body.provider_id, { $set: endpoint });
      try {
        const { url } = await startLogin(GUARDED_CLIENT.client_id);
        return await api(server.url).get(new URL(await atProvider(url, "alice")).href.slice(server.url.length));
      } finally {
        await api(server.url).delete("/api/data/remove_oidc_provider").set("Api-Key", adminKey).send({ provider_id: added.body.provider_id }).expect(200);
      }
    };
    try {
      // The token exchange is the spec's 500 with a generic message; the log says why.
      expectErrorBody(await loginWith({ token_url: `${metadata}/token` }), 500);
      const logged = logs.filter((line) => line.includes("oidc token exchange failed"));
      expect(logged.at(-1)).toMatch(/This address is not allowed: link-local, cloud metadata.*169\.254\.169\.254/);

      const userinfo = await loginWith({ user_info_url: `${metadata}/userinfo` });
      expectErrorBody(userinfo, 401);
      expect(userinfo.body.message).toMatch(/^The OIDC provider's userinfo endpoint is refused\. This address is not allowed: link-local, cloud metadata/);
      // Refused by the policy, not by a failed connection: nothing went to the address, by any fetch.
      expect(fetched.mock.calls.map(([url]) => (url instanceof Request ? url.url : String(url))).filter((url) => url.includes("169.254"))).toEqual([]);
    } finally {
      fetched.mockRestore();
    }
  });
});
