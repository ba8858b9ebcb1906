/**
 * The foundation's black-box checks, as a client sees them. The same scenario runs against the embedded
 * runtime (test/integration) and against services spread over processes on NATS (test/cluster), so the
 * two must give the same answers.
 */
import argon2 from "argon2";
import { api, basic, expectErrorBody } from "./client";

export function foundationScenario(target: { url: string }) {
  const s: Record<string, any> = {};
  const http = () => api(target.url);

  test("health and service_check answer without a key", async () => {
    const health = await http().get("/api/health");
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({ status: "healthy", database: true, redis: true });
    expect(Date.parse(health.body.timestamp)).not.toBeNaN();
    const check = await http().get("/api/service_check");
    expect(check.body).toEqual({ status_code: 200, service_instance: true, pinepods_instance: true });
  });

  test("self_service_status before any admin exists", async () => {
    const res = await http().get("/api/data/self_service_status");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: false, first_admin_created: false });
  });

  test("create_first rejects bad input with 400 and changes nothing", async () => {
    const good = { username: "Admin", password: "correct horse", email: "admin@example.org", fullname: "The Admin" };
    expectErrorBody(
      await http()
        .post("/api/data/create_first")
        .send({ ...good, email: undefined }),
      400,
    );
    expectErrorBody(
      await http()
        .post("/api/data/create_first")
        .send({ ...good, username: 123 }),
      400,
    );
    expectErrorBody(
      await http()
        .post("/api/data/create_first")
        .send({ ...good, username: { $gt: "" } }),
      400,
    );
    expectErrorBody(
      await http()
        .post("/api/data/create_first")
        .send({ ...good, email: "not-an-email" }),
      400,
    );
    expectErrorBody(
      await http()
        .post("/api/data/create_first")
        .send({ ...good, password: "short" }),
      400,
    );
    expectErrorBody(await http().post("/api/data/create_first").set("Content-Type", "application/json").send('{"username": "x",'), 400);
    expectErrorBody(await http().post("/api/data/create_first").set("Content-Type", "application/json").send("[1,2,3]"), 400);
    const status = await http().get("/api/data/self_service_status");
    expect(status.body.first_admin_created).toBe(false);
  });

  test("create_first creates the admin once, then answers 409", async () => {
    const body = { username: "Admin", password: "correct horse", email: "admin@example.org", fullname: "The Admin" };
    const first = await http().post("/api/data/create_first").send(body);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ message: expect.any(String), user_id: expect.any(Number) });
    s.adminId = first.body.user_id;
    expectErrorBody(
      await http()
        .post("/api/data/create_first")
        .send({ ...body, username: "other", email: "o@example.org" }),
      409,
    );
    const status = await http().get("/api/data/self_service_status");
    expect(status.body).toEqual({ status: false, first_admin_created: true });
  });

  test("get_key: right credentials (username case-insensitive), wrong, missing", async () => {
    const ok = await http().get("/api/data/get_key").set("Authorization", basic("ADMIN", "correct horse"));
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ status: "success", retrieved_key: expect.any(String), mfa_required: false, user_id: s.adminId, mfa_session_token: null });
    s.adminKey = ok.body.retrieved_key;
    expectErrorBody(await http().get("/api/data/get_key").set("Authorization", basic("admin", "wrong password")), 401);
    expectErrorBody(await http().get("/api/data/get_key").set("Authorization", basic("nobody", "correct horse")), 401);
    expectErrorBody(await http().get("/api/data/get_key"), 401);
    expectErrorBody(await http().get("/api/data/get_key").set("Authorization", "Basic !!!"), 401);
    // Keys are stored hashed, so each login issues a new key; both keep working.
    const again = await http().get("/api/data/get_key").set("Authorization", basic("admin", "correct horse"));
    expect(again.body.retrieved_key).not.toBe(s.adminKey);
    expect((await http().get("/api/data/verify_key").set("Api-Key", again.body.retrieved_key)).status).toBe(200);
  });

  test("verify_key, get_user and config need a valid key", async () => {
    const ok = await http().get("/api/data/verify_key").set("Api-Key", s.adminKey);
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ status: "success" });
    expectErrorBody(await http().get("/api/data/verify_key"), 401);
    expectErrorBody(await http().get("/api/data/verify_key").set("Api-Key", "not-a-key"), 401);
    const user = await http().get("/api/data/get_user").set("Api-Key", s.adminKey);
    expect(user.body).toEqual({ status: "success", retrieved_id: s.adminId });
    const cfg = await http().get("/api/data/config").set("Api-Key", s.adminKey);
    expect(cfg.status).toBe(200);
    for (const f of ["api_url", "proxy_url", "proxy_host", "proxy_port", "proxy_protocol", "reverse_proxy", "people_url"])
      expect(typeof cfg.body[f]).toBe("string");
  });

  test("self-service registration: 403 while off, open once an admin turns it on, 409 on duplicates", async () => {
    const alice = { fullname: "Alice Liddell", username: "Alice", email: "alice@example.org", hash_pw: "alice password" };
    expectErrorBody(await http().post("/api/data/add_login_user").send(alice), 403);
    const toggled = await http().post("/api/data/enable_disable_self_service").set("Api-Key", s.adminKey);
    expect(toggled.status).toBe(200);
    expect((await http().get("/api/data/self_service_status")).body.status).toBe(true);
    expect((await http().get("/api/data/admin_self_service_status").set("Api-Key", s.adminKey)).body).toEqual({ status: true });
    const created = await http().post("/api/data/add_login_user").send(alice);
    expect(created.status).toBe(200);
    expect(created.body).toEqual({ detail: expect.any(String), user_id: expect.any(Number) });
    s.aliceId = created.body.user_id;
    expectErrorBody(
      await http()
        .post("/api/data/add_login_user")
        .send({ ...alice, email: "other@example.org", username: "ALICE" }),
      409,
    );
    expectErrorBody(
      await http()
        .post("/api/data/add_login_user")
        .send({ ...alice, username: "alice2" }),
      409,
    );
    expectErrorBody(
      await http()
        .post("/api/data/add_login_user")
        .send({ ...alice, username: "bob", email: "bob@example.org", hash_pw: 42 }),
      400,
    );
    // A password hashed by the client (Argon2id, as the web and mobile clients do) is stored as is.
    const clientHash = await argon2.hash("bobs clear password", { type: argon2.argon2id });
    const bob = await http().post("/api/data/add_login_user").send({ fullname: "Bob", username: "bob", email: "bob@example.org", hash_pw: clientHash });
    expect(bob.status).toBe(200);
    s.bobId = bob.body.user_id;
    const bobKey = await http().get("/api/data/get_key").set("Authorization", basic("bob", "bobs clear password"));
    expect(bobKey.status).toBe(200);
    s.bobKey = bobKey.body.retrieved_key;
    await http().post("/api/data/enable_disable_self_service").set("Api-Key", s.adminKey);
    expectErrorBody(
      await http()
        .post("/api/data/add_login_user")
        .send({ ...alice, username: "carol", email: "carol@example.org" }),
      403,
    );
    const login = await http().get("/api/data/get_key").set("Authorization", basic("alice", "alice password"));
    expect(login.status).toBe(200);
    s.aliceKey = login.body.retrieved_key;
  });

  test("ownership: a user reads their own info, gets 403 for another, an admin reads anyone", async () => {
    const own = await http().get(`/api/data/my_user_info/${s.aliceId}`).set("Api-Key", s.aliceKey);
    expect(own.status).toBe(200);
    // The spec's five fields, then the preferences PinePods' web client reads there (issue 21).
    expect(own.body).toEqual({
      userid: s.aliceId,
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
    expectErrorBody(await http().get(`/api/data/my_user_info/${s.adminId}`).set("Api-Key", s.aliceKey), 403);
    expectErrorBody(await http().get(`/api/data/user_details_id/${s.bobId}`).set("Api-Key", s.aliceKey), 403);
    const byAdmin = await http().get(`/api/data/my_user_info/${s.aliceId}`).set("Api-Key", s.adminKey);
    expect(byAdmin.status).toBe(200);
    expect(byAdmin.body.username).toBe("alice");
    const details = await http().get(`/api/data/user_details_id/${s.aliceId}`).set("Api-Key", s.adminKey);
    expect(details.body).toEqual({ UserID: s.aliceId, Fullname: "Alice Liddell", Username: "alice", Email: "alice@example.org", Hashed_PW: null, Salt: null });
    expectErrorBody(await http().get("/api/data/my_user_info/999999").set("Api-Key", s.adminKey), 404);
    expectErrorBody(await http().get("/api/data/my_user_info/abc").set("Api-Key", s.adminKey), 400);
    expect((await http().get(`/api/data/first_login_done/${s.aliceId}`).set("Api-Key", s.aliceKey)).body).toEqual({ FirstLogin: true });
    expect((await http().get(`/api/data/user_admin_check/${s.aliceId}`).set("Api-Key", s.aliceKey)).body).toEqual({ is_admin: false });
    expect((await http().get(`/api/data/user_admin_check/${s.adminId}`).set("Api-Key", s.adminKey)).body).toEqual({ is_admin: true });
  });

  test("admin-only operations refuse a normal key", async () => {
    const carol = { fullname: "Carol", username: "carol", email: "carol@example.org", hash_pw: "carol password" };
    expectErrorBody(await http().post("/api/data/add_user").set("Api-Key", s.aliceKey).send(carol), 403);
    expectErrorBody(await http().post("/api/data/enable_disable_self_service").set("Api-Key", s.aliceKey), 403);
    expectErrorBody(await http().post("/api/data/enable_disable_guest").set("Api-Key", s.aliceKey), 403);
    const added = await http().post("/api/data/add_user").set("Api-Key", s.adminKey).send(carol);
    expect(added.status).toBe(200);
    expect(added.body.user_id).toEqual(expect.any(Number));
    const guest = await http().post("/api/data/enable_disable_guest").set("Api-Key", s.adminKey);
    expect(guest.body).toMatchObject({ success: true, status: true });
  });

  test("API keys: create, list by last four, rssonly restriction, delete", async () => {
    expectErrorBody(await http().post("/api/data/create_api_key").set("Api-Key", s.aliceKey).send({ user_id: s.bobId, rssonly: false }), 403);
    expectErrorBody(await http().post("/api/data/create_api_key").set("Api-Key", s.aliceKey).send({ user_id: s.aliceId }), 400);
    const made = await http().post("/api/data/create_api_key").set("Api-Key", s.aliceKey).send({ user_id: s.aliceId, rssonly: false });
    expect(made.status).toBe(200);
    const key: string = made.body.api_key;
    expect((await http().get("/api/data/get_user").set("Api-Key", key)).body.retrieved_id).toBe(s.aliceId);
    const rss = await http()
      .post("/api/data/create_api_key")
      .set("Api-Key", s.aliceKey)
      .send({ user_id: s.aliceId, rssonly: true, podcast_ids: [1, 2] });
    expect(rss.status).toBe(200);
    expectErrorBody(await http().get("/api/data/verify_key").set("Api-Key", rss.body.api_key), 403);

    const info = await http().get(`/api/data/get_api_info/${s.aliceId}`).set("Api-Key", s.aliceKey);
    expect(info.status).toBe(200);
    const mine = info.body.api_info.find((k: any) => k.apikeyid === made.body.api_id);
    expect(mine).toMatchObject({ userid: s.aliceId, username: "alice", lastfourdigits: key.slice(-4), rssonly: false });
    expect(JSON.stringify(info.body)).not.toContain(key);
    expect(info.body.api_info.every((k: any) => k.userid === s.aliceId)).toBe(true);
    expect(info.body.api_info.find((k: any) => k.apikeyid === rss.body.api_id)).toMatchObject({ rssonly: true, podcastids: [1, 2] });
    expectErrorBody(await http().get(`/api/data/get_api_info/${s.bobId}`).set("Api-Key", s.aliceKey), 403);
    const all = await http().get(`/api/data/get_api_info/${s.adminId}`).set("Api-Key", s.adminKey);
    expect(all.body.api_info.some((k: any) => k.userid === s.aliceId)).toBe(true);

    expectErrorBody(
      await http()
        .delete("/api/data/delete_api_key")
        .set("Api-Key", s.bobKey)
        .send({ api_id: String(made.body.api_id) }),
      403,
    );
    expectErrorBody(await http().delete("/api/data/delete_api_key").set("Api-Key", s.aliceKey).send({ api_id: "999999" }), 404);
    const del = await http()
      .delete("/api/data/delete_api_key")
      .set("Api-Key", s.aliceKey)
      .send({ api_id: String(made.body.api_id) });
    expect(del.status).toBe(200);
    expectErrorBody(await http().get("/api/data/verify_key").set("Api-Key", key), 401);
    expect((await http().get("/api/data/verify_key").set("Api-Key", s.aliceKey)).status).toBe(200);
  });

  test("unknown routes, wrong methods and oversized bodies get JSON errors", async () => {
    expectErrorBody(await http().get("/api/data/no_such_operation"), 404);
    expectErrorBody(await http().get("/nothing/here"), 404);
    expectErrorBody(await http().get("/api/data/create_first"), 404);
    const big = JSON.stringify({ username: "x".repeat(1_100_000), password: "p", email: "e@x.org", fullname: "f" });
    expectErrorBody(await http().post("/api/data/create_first").set("Content-Type", "application/json").send(big), 413);
  });

  test("at most 10 failed logins a minute per username from one address, then 429 even for the right password", async () => {
    for (let i = 0; i < 10; i++) {
      expectErrorBody(
        await http()
          .get("/api/data/get_key")
          .set("Authorization", basic("carol", `wrong ${i}`)),
        401,
      );
    }
    expectErrorBody(await http().get("/api/data/get_key").set("Authorization", basic("Carol", "carol password")), 429);
    // Other accounts are not affected.
    expect((await http().get("/api/data/get_key").set("Authorization", basic("alice", "alice password"))).status).toBe(200);
  });

  return s;
}
