/**
 * The sync routes' credentials (auth level "sync", checked once in the gateway), through gPodder's
 * login.json / logout.json as a phone calls them: HTTP Basic with the account password or an app
 * password, answered with a sessionid cookie that later calls send instead; 401 with WWW-Authenticate
 * otherwise; get_key's login limits; MFA leaves only app passwords; app passwords open nothing else.
 */
import { api, basic, expectErrorBody } from "../helpers/client";
import { addAccount, createAdmin } from "../helpers/accounts";
import { startServer, TestServer, trustLoopbackProxy } from "../helpers/server";
import { totp } from "../helpers/totp";
import { freezeClock } from "../helpers/clock";
import { config } from "../../shared/config";

describe("sync credentials (gPodder login.json / logout.json)", () => {
  let server: TestServer;
  let adminKey = "";
  let untrust = () => {};
  const http = () => api(server.url);
  const login = (path: string, auth?: { basic?: [string, string]; cookie?: string; from?: string }) => {
    const req = http().post(`/api/2/auth/${path}/login.json`);
    if (auth?.basic) req.set("Authorization", basic(...auth.basic));
    if (auth?.cookie) req.set("Cookie", auth.cookie);
    if (auth?.from) req.set("X-Forwarded-For", auth.from);
    return req;
  };
  /** "sessionid=..." of a response's Set-Cookie, checked for the attributes a browser and a phone need. */
  const sessionOf = (res: { headers: Record<string, any> }): string => {
    const cookies: string[] = res.headers["set-cookie"] ?? [];
    expect(cookies).toHaveLength(1);
    expect(cookies[0]).toMatch(/^sessionid=[A-Za-z0-9_-]{43}; Max-Age=\d+; Path=\/; HttpOnly; SameSite=Lax$/);
    return cookies[0].split(";")[0];
  };
  const newUser = (name: string) => addAccount(server.url, adminKey, name);
  const appPassword = async (u: { id: number; key: string }, name?: string) => {
    const res = await http().post("/api/data/create_app_password").set("Api-Key", u.key).send({ user_id: u.id, name });
    expect(res.status).toBe(200);
    return res.body as { app_password: string; api_id: number; name: string };
  };
  const expectChallenge = (res: any) => {
    expectErrorBody(res, 401);
    expect(res.headers["www-authenticate"]).toBe('Basic realm="podcast-server"');
    expect(res.headers["set-cookie"]).toBeUndefined();
  };

  beforeAll(async () => {
    untrust = trustLoopbackProxy();
    server = await startServer();
    adminKey = await createAdmin(server.url);
  });
  afterEach(() => jest.useRealTimers());
  afterAll(async () => {
    untrust();
    await server?.stop();
  });

  test("Basic login answers a session cookie; the cookie alone opens the next calls; logout ends it", async () => {
    const u = await newUser("gina");
    expectChallenge(await login("gina"));
    const first = await login("gina", { basic: ["gina", u.password] });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ username: "gina" });
    const cookie = sessionOf(first);
    // The cookie alone, and the path's name in any case (gpodder.net compares case-insensitively).
    const again = await login("GINA", { cookie });
    expect(again.status).toBe(200);
    expect(again.headers["set-cookie"]).toBeUndefined();
    // Basic with the same user's valid cookie keeps that session.
    expect((await login("gina", { basic: ["gina", u.password], cookie })).headers["set-cookie"]).toBeUndefined();

    // A session cookie is no API key, and an unknown cookie is no session.
    const token = cookie.split("=")[1];
    expectErrorBody(await http().get("/api/data/verify_key").set("Api-Key", token), 403);
    expectChallenge(await login("gina", { cookie: "sessionid=not-a-session" }));

    const out = await http().post("/api/2/auth/gina/logout.json").set("Cookie", cookie);
    expect(out.status).toBe(200);
    expect(out.headers["set-cookie"][0]).toMatch(/^sessionid=; Max-Age=0; Path=\/; HttpOnly; SameSite=Lax$/);
    expectChallenge(await login("gina", { cookie }));
    // Sessions are not keys: get_api_info does not list them.
    const info = await http().get(`/api/data/get_api_info/${u.id}`).set("Api-Key", u.key);
    expect(info.body.api_info.map((k: any) => k.kind)).toEqual(["login"]);
  });

  test("wrong or missing credentials and another user's name in the path: 401 with the challenge, no session", async () => {
    const u = await newUser("hank");
    await newUser("iris");
    expectChallenge(await login("hank", { basic: ["hank", "wrong password"] }));
    expectChallenge(await login("hank", { basic: ["nobody", u.password] }));
    expectChallenge(await login("hank", { basic: ["", u.password] }));
    // Right credentials, someone else's name: refused before any session is opened.
    expectChallenge(await login("iris", { basic: ["hank", u.password] }));
    const cookie = sessionOf(await login("hank", { basic: ["hank", u.password] }));
    expectChallenge(await login("iris", { cookie }));
    expectChallenge(await http().post("/api/2/auth/iris/logout.json").set("Cookie", cookie));
    // The same on the data routes: {username} before ".json", ".opml" or a device.
    for (const path of ["/api/2/devices/iris.json", "/subscriptions/iris.opml", "/api/2/subscriptions/iris/phone.json", "/api/2/episodes/iris.json"]) {
      expectChallenge(await http().get(path).set("Cookie", cookie));
    }
    expect((await http().get("/api/2/devices/HANK.json").set("Cookie", cookie)).body).toEqual([]);
    expect((await login("hank", { cookie })).status).toBe(200);
  });

  test("failed sync logins count with get_key's: the guesser's address is locked out of the account (429)", async () => {
    const u = await newUser("jack");
    const attacker = "198.51.100.40";
    for (let i = 0; i < config.loginMaxFailures; i++) expectChallenge(await login("jack", { basic: ["jack", `guess ${i}`], from: attacker }));
    expectErrorBody(await login("jack", { basic: ["jack", u.password], from: attacker }), 429);
    expectErrorBody(await http().get("/api/data/get_key").set("Authorization", basic("jack", u.password)).set("X-Forwarded-For", attacker), 429);
    expect((await login("jack", { basic: ["jack", u.password], from: "203.0.113.40" })).status).toBe(200);
  });

  test("app passwords: sync only, listed with their kind, revocable; with MFA on only they open the sync routes", async () => {
    const u = await newUser("kate");
    const other = await newUser("liam");
    const app = await appPassword(u, "Phone");
    expect(app).toEqual({ app_password: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), api_id: expect.any(Number), name: "Phone" });
    expectErrorBody(await http().post("/api/data/create_app_password").set("Api-Key", other.key).send({ user_id: u.id }), 403);
    expectErrorBody(await http().post("/api/data/create_app_password").set("Api-Key", app.app_password).send({ user_id: u.id }), 403);

    // Opens the sync routes with the account's name, never /api/data.
    expect((await login("kate", { basic: ["kate", app.app_password] })).status).toBe(200);
    const devices = await http().get("/api/2/devices/kate.json").set("Authorization", basic("kate", app.app_password));
    expect(devices.status).toBe(200);
    expect(devices.body).toEqual([]);
    expectChallenge(await login("liam", { basic: ["liam", app.app_password] }));
    expectErrorBody(await http().get("/api/data/verify_key").set("Api-Key", app.app_password), 403);
    expectErrorBody(await http().get(`/api/data/get_api_info/${u.id}`).set("Api-Key", app.app_password), 403);

    const info = await http().get(`/api/data/get_api_info/${u.id}`).set("Api-Key", u.key);
    expect(info.body.api_info).toContainEqual(
      expect.objectContaining({ apikeyid: app.api_id, kind: "app", name: "Phone", lastfourdigits: app.app_password.slice(-4) }),
    );

    // MFA on: the account password no longer opens the sync routes (and its sessions end); app passwords do.
    const passwordSession = sessionOf(await login("kate", { basic: ["kate", u.password] }));
    const gen = await http().get(`/api/data/generate_mfa_secret/${u.id}`).set("Api-Key", u.key);
    expect(
      (
        await http()
          .post("/api/data/verify_temp_mfa")
          .set("Api-Key", u.key)
          .send({ user_id: u.id, mfa_code: totp(gen.body.secret) })
      ).body,
    ).toEqual({ verified: true });
    expectChallenge(await login("kate", { cookie: passwordSession }));
    const refused = await login("kate", { basic: ["kate", u.password] });
    expectChallenge(refused);
    expect(refused.body.message).toMatch(/app password/);
    const appSession = sessionOf(await login("kate", { basic: ["kate", app.app_password] }));
    expect((await login("kate", { cookie: appSession })).status).toBe(200);

    // Revoked: the app password and the sessions it opened are refused at once (no cache delay).
    expect((await http().delete("/api/data/delete_api_key").set("Api-Key", u.key).send({ api_id: app.api_id })).status).toBe(200);
    expectChallenge(await login("kate", { basic: ["kate", app.app_password] }));
    expectChallenge(await login("kate", { cookie: appSession }));
    expectChallenge(await http().get("/index.php/apps/gpoddersync/subscriptions").set("Authorization", basic("kate", app.app_password)));
  });

  test("a session ends after SYNC_SESSION_DAYS, even while its lookup is cached", async () => {
    const u = await newUser("lena");
    const cookie = sessionOf(await login("lena", { basic: ["lena", u.password] }));
    expect((await login("lena", { cookie })).status).toBe(200);
    freezeClock(Date.now() + config.syncSessionDays * 86400_000 + 1000);
    expectChallenge(await login("lena", { cookie }));
  });

  test("a password change, a rename and the user's deletion end sessions at once", async () => {
    const u = await newUser("mona");
    const cookie = sessionOf(await login("mona", { basic: ["mona", u.password] }));
    expect((await login("mona", { cookie })).status).toBe(200); // cached in the gateway now
    const changed = await http()
      .put(`/api/data/set_password/${u.id}`)
      .set("Api-Key", u.key)
      .send({ hash_pw: "mona new password", current_password: u.password });
    expect(changed.status).toBe(200);
    expectChallenge(await login("mona", { cookie }));
    expectChallenge(await login("mona", { basic: ["mona", u.password] }));

    const renamed = sessionOf(await login("mona", { basic: ["mona", "mona new password"] }));
    expect((await http().put("/api/data/user/set_username").set("Api-Key", u.key).send({ user_id: u.id, new_username: "monika" })).status).toBe(200);
    expectChallenge(await login("mona", { cookie: renamed }));
    expect((await login("monika", { cookie: renamed })).status).toBe(200);

    expect((await http().delete(`/api/data/user/delete/${u.id}`).set("Api-Key", adminKey)).status).toBe(200);
    expectChallenge(await login("monika", { cookie: renamed }));
  });

  test("the operator's switch: SYNC_SERVER_ENABLED=false refuses every sync call with 403, nothing opened", async () => {
    const u = await newUser("nora");
    const before = config.syncServerEnabled;
    config.syncServerEnabled = false;
    try {
      const res = await login("nora", { basic: ["nora", u.password] });
      expectErrorBody(res, 403);
      expect(res.headers["set-cookie"]).toBeUndefined();
      expectErrorBody(await http().get("/subscriptions/nora.txt").set("Authorization", basic("nora", u.password)), 403);
      const upload = await http()
        .put("/subscriptions/nora/phone.txt")
        .set("Authorization", basic("nora", u.password))
        .type("text")
        .send("https://example.org/feed.xml\n");
      expectErrorBody(upload, 403);
    } finally {
      config.syncServerEnabled = before;
    }
    expect((await login("nora", { basic: ["nora", u.password] })).status).toBe(200);
    // Nothing of the refused upload was kept.
    expect((await http().get("/subscriptions/nora.txt").set("Authorization", basic("nora", u.password))).text).toBe("");
  });

  test("the user's own switch: off, their sync credentials and sessions are refused with 403; on again, they work", async () => {
    const u = await newUser("olaf");
    const other = await newUser("pia");
    const app = await appPassword(u);
    const cookie = sessionOf(await login("olaf", { basic: ["olaf", app.app_password] }));
    const state = () => http().get(`/api/data/user/sync_server/${u.id}`).set("Api-Key", u.key);
    expect((await state()).body).toEqual({ sync_server: true, server_enabled: true });
    expectErrorBody(await http().put("/api/data/user/sync_server").set("Api-Key", other.key).send({ user_id: u.id, sync_server: false }), 403);
    expectErrorBody(await http().put("/api/data/user/sync_server").set("Api-Key", app.app_password).send({ user_id: u.id, sync_server: false }), 403);
    expectErrorBody(await http().put("/api/data/user/sync_server").set("Api-Key", u.key).send({ user_id: u.id, sync_server: "maybe" }), 400);

    const off = await http().put("/api/data/user/sync_server").set("Api-Key", u.key).send({ user_id: u.id, sync_server: false });
    expect(off.body).toEqual({ sync_server: false, server_enabled: true });
    expect((await state()).body.sync_server).toBe(false);
    for (const auth of [{ cookie }, { basic: ["olaf", app.app_password] as [string, string] }, { basic: ["olaf", u.password] as [string, string] }]) {
      const res = await login("olaf", auth);
      expectErrorBody(res, 403);
      expect(res.headers["set-cookie"]).toBeUndefined();
    }
    expectErrorBody(
      await http()
        .post("/index.php/apps/gpoddersync/subscription_change/create")
        .set("Cookie", cookie)
        .send({ add: ["https://example.org/feed.xml"], remove: [] }),
      403,
    );
    expect((await http().get("/index.php/apps/gpoddersync/subscriptions").set("Cookie", cookie)).status).toBe(403);
    // Other accounts are not affected.
    expect((await login("pia", { basic: ["pia", other.password] })).status).toBe(200);

    await http().put("/api/data/user/sync_server").set("Api-Key", u.key).send({ user_id: u.id, sync_server: true });
    expect((await login("olaf", { cookie })).status).toBe(200);
    expect((await http().get("/index.php/apps/gpoddersync/subscriptions").set("Cookie", cookie)).body).toMatchObject({ add: [], remove: [] });
  });
});
