/**
 * Accounts across processes over a real NATS server: two gateway replicas, users and auth each in its own
 * process. An MFA login started on one gateway finishes on the other; admin-flag changes and user removal
 * reach the auth process as events and take effect on keys it had cached. Failed logins count in the
 * auth service, not in a gateway: a guesser's address is locked out through either gateway. Every node
 * shares one Redis cache (CACHER, as deployed).
 */
import { api, basic, expectErrorBody } from "../helpers/client";
import { tempDir } from "../helpers/server";
import { clusterPeers, ensureBuilt, findNatsServer, freePort, Proc, startNode, waitClusterHealthy } from "../helpers/processes";
import { totp } from "../helpers/totp";

const natsBin = findNatsServer();
const externalNats = process.env.NATS_URL;
const describeCluster = natsBin || externalNats ? describe : describe.skip;

describeCluster("accounts, cluster runtime (two gateways, users and auth over NATS)", () => {
  const procs: Record<string, Proc> = {};
  let peers: Awaited<ReturnType<typeof clusterPeers>> | null = null;
  let urlA = "";
  let urlB = "";

  beforeAll(async () => {
    ensureBuilt();
    peers = await clusterPeers(natsBin);
    const [portA, portB] = [await freePort(), await freePort()];
    const common = { ...peers.env, NAMESPACE: `acc-${process.pid}-${Date.now()}`, DATA_DIR: tempDir("podcast-cluster-acc-") };
    // The test's loopback peer is a trusted proxy: X-Forwarded-For plays the clients' addresses.
    procs.gatewayA = startNode({ ...common, PORT: String(portA), NODE_ID: "gateway-a", TRUSTED_PROXIES: "127.0.0.1,::1" }, ["api"]);
    procs.gatewayB = startNode({ ...common, PORT: String(portB), NODE_ID: "gateway-b", TRUSTED_PROXIES: "127.0.0.1,::1" }, ["api"]);
    procs.users = startNode({ ...common, NODE_ID: "users-1" }, ["users"]);
    procs.auth = startNode({ ...common, NODE_ID: "auth-1" }, ["auth"]);
    urlA = `http://127.0.0.1:${portA}`;
    urlB = `http://127.0.0.1:${portB}`;
    await waitClusterHealthy([urlA, urlB], procs, ["auth", "users"]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all(Object.values(procs).map((p) => p.stop()));
    await peers?.stop();
  });

  test("MFA login across gateways; admin flag and removal reach cached keys", async () => {
    const [a, b] = [api(urlA), api(urlB)];
    expect(
      (await a.post("/api/data/create_first").send({ username: "root", password: "root password", email: "root@example.org", fullname: "Root" })).status,
    ).toBe(200);
    const adminKey = (await b.get("/api/data/get_key").set("Authorization", basic("root", "root password"))).body.retrieved_key;
    const added = await a
      .post("/api/data/add_user")
      .set("Api-Key", adminKey)
      .send({ fullname: "Ivy", username: "ivy", email: "ivy@example.org", hash_pw: "ivy password" });
    const ivyId: number = added.body.user_id;
    const ivyKey = (await a.get("/api/data/get_key").set("Authorization", basic("ivy", "ivy password"))).body.retrieved_key;

    const secret = (await a.get(`/api/data/generate_mfa_secret/${ivyId}`).set("Api-Key", ivyKey)).body.secret;
    expect(
      (
        await b
          .post("/api/data/verify_temp_mfa")
          .set("Api-Key", ivyKey)
          .send({ user_id: ivyId, mfa_code: totp(secret) })
      ).body,
    ).toEqual({ verified: true });
    const started = await a.get("/api/data/get_key").set("Authorization", basic("ivy", "ivy password"));
    expect(started.body).toMatchObject({ status: "mfa_required", mfa_required: true, retrieved_key: null });
    const finished = await b.post("/api/data/verify_mfa_and_get_key").send({ mfa_session_token: started.body.mfa_session_token, mfa_code: totp(secret) });
    expect(finished.body).toEqual({ status: "success", retrieved_key: expect.any(String), verified: true });
    expect(
      (await a.post("/api/data/verify_mfa_and_get_key").send({ mfa_session_token: started.body.mfa_session_token, mfa_code: totp(secret) })).body.status,
    ).toBe("invalid_session");
    const mfaKey: string = finished.body.retrieved_key;

    // Both keys' lookups are cached in the auth process as a normal user's.
    expectErrorBody(await a.post("/api/data/enable_disable_guest").set("Api-Key", ivyKey), 403);
    expectErrorBody(await b.post("/api/data/enable_disable_guest").set("Api-Key", mfaKey), 403);
    expect((await b.put("/api/data/user/set_isadmin").set("Api-Key", adminKey).send({ user_id: ivyId, isadmin: true })).status).toBe(200);
    expect((await a.post("/api/data/enable_disable_guest").set("Api-Key", ivyKey)).status).toBe(200);
    expect((await b.post("/api/data/enable_disable_guest").set("Api-Key", mfaKey)).status).toBe(200);

    expect((await a.delete(`/api/data/user/delete/${ivyId}`).set("Api-Key", adminKey)).status).toBe(200);
    expectErrorBody(await b.get("/api/data/verify_key").set("Api-Key", ivyKey), 401);
    expectErrorBody(await a.get("/api/data/verify_key").set("Api-Key", mfaKey), 401);
    expect((await b.get("/api/data/verify_key").set("Api-Key", adminKey)).status).toBe(200);
  });

  test("shared Redis cache: a key deleted, or an admin's rights taken away, through one gateway is refused by both within a second", async () => {
    const [a, b] = [api(urlA), api(urlB)];
    const rootKey = (await a.get("/api/data/get_key").set("Authorization", basic("root", "root password"))).body.retrieved_key;
    const added = await a
      .post("/api/data/add_user")
      .set("Api-Key", rootKey)
      .send({ fullname: "Joe", username: "joe", email: "joe@example.org", hash_pw: "joe password" });
    const joeId: number = added.body.user_id;
    expect((await b.put("/api/data/user/set_isadmin").set("Api-Key", rootKey).send({ user_id: joeId, isadmin: true })).status).toBe(200);
    const made = await a.post("/api/data/create_api_key").set("Api-Key", rootKey).send({ user_id: 1, rssonly: false });
    const doomed: string = made.body.api_key;
    const joeKey = (await b.get("/api/data/get_key").set("Authorization", basic("joe", "joe password"))).body.retrieved_key;
    // Every lookup cached: in Redis (auth.resolve_key) and in each gateway's own key cache.
    for (const gw of [a, b]) {
      expect((await gw.get("/api/data/verify_key").set("Api-Key", doomed)).status).toBe(200);
      expect((await gw.post("/api/data/enable_disable_guest").set("Api-Key", joeKey)).status).toBe(200);
    }
    const refusedWithinASecond = async (check: () => Promise<boolean>) => {
      const end = Date.now() + 1000;
      while (!(await check())) {
        if (Date.now() > end) return false;
        await new Promise((r) => setTimeout(r, 50));
      }
      return true;
    };
    expect((await a.delete("/api/data/delete_api_key").set("Api-Key", rootKey).send({ api_id: made.body.api_id })).status).toBe(200);
    for (const gw of [b, a])
      expect(await refusedWithinASecond(async () => (await gw.get("/api/data/verify_key").set("Api-Key", doomed)).status === 401)).toBe(true);
    expect((await a.put("/api/data/user/set_isadmin").set("Api-Key", rootKey).send({ user_id: joeId, isadmin: false })).status).toBe(200);
    for (const gw of [b, a])
      expect(await refusedWithinASecond(async () => (await gw.post("/api/data/enable_disable_guest").set("Api-Key", joeKey)).status === 403)).toBe(true);
    // And it stays refused: no stale lookup came back into a cache meanwhile.
    await new Promise((r) => setTimeout(r, 1500));
    for (const gw of [a, b]) {
      expect((await gw.get("/api/data/verify_key").set("Api-Key", doomed)).status).toBe(401);
      expect((await gw.post("/api/data/enable_disable_guest").set("Api-Key", joeKey)).status).toBe(403);
    }
  });

  test("shared Redis cache: rights taken away while both gateways are busy with the key stay taken away (no stale lookup cached again)", async () => {
    const [a, b] = [api(urlA), api(urlB)];
    const rootKey = (await a.get("/api/data/get_key").set("Authorization", basic("root", "root password"))).body.retrieved_key;
    const added = await a
      .post("/api/data/add_user")
      .set("Api-Key", rootKey)
      .send({ fullname: "Kim", username: "kim", email: "kim@example.org", hash_pw: "kim password" });
    const kimId: number = added.body.user_id;
    const kimKey = (await b.get("/api/data/get_key").set("Authorization", basic("kim", "kim password"))).body.retrieved_key;
    for (let round = 0; round < 4; round++) {
      expect((await a.put("/api/data/user/set_isadmin").set("Api-Key", rootKey).send({ user_id: kimId, isadmin: true })).status).toBe(200);
      await new Promise((r) => setTimeout(r, 300));
      // Both gateways look the key up over and over while the rights change.
      let busy = true;
      const hammer = async (url: string) => {
        while (busy) await fetch(`${url}/api/data/admin_self_service_status`, { headers: { "Api-Key": kimKey } }).then((r) => r.arrayBuffer());
      };
      const hammers = [urlA, urlB, urlA, urlB].map(hammer);
      await new Promise((r) => setTimeout(r, 100));
      expect((await b.put("/api/data/user/set_isadmin").set("Api-Key", rootKey).send({ user_id: kimId, isadmin: false })).status).toBe(200);
      await new Promise((r) => setTimeout(r, 300));
      busy = false;
      await Promise.all(hammers);
      await new Promise((r) => setTimeout(r, 1000));
      for (const gw of [a, b]) expect((await gw.post("/api/data/enable_disable_guest").set("Api-Key", kimKey)).status).toBe(403);
    }
  });

  test("failed logins through one gateway lock that address out through the other too; the owner's address stays open", async () => {
    const login = (url: string, password: string, from: string) =>
      api(url).get("/api/data/get_key").set("Authorization", basic("root", password)).set("X-Forwarded-For", from);
    for (let i = 0; i < 10; i++) expectErrorBody(await login(i % 2 ? urlA : urlB, `guess ${i}`, "198.51.100.7"), 401);
    expectErrorBody(await login(urlA, "root password", "198.51.100.7"), 429);
    expectErrorBody(await login(urlB, "root password", "198.51.100.7"), 429);
    expect((await login(urlB, "root password", "203.0.113.5")).status).toBe(200);
  });
});
