/**
 * Accounts across processes over a real NATS server: two gateway replicas, users and auth each in its own
 * process. An MFA login started on one gateway finishes on the other; admin-flag changes and user removal
 * reach the auth process as events and take effect on keys it had cached. Failed logins count in the
 * auth service, not in a gateway: a guesser's address is locked out through either gateway.
 */
import { api, basic, expectErrorBody } from "../helpers/client";
import { tempDir } from "../helpers/server";
import { clusterNats, ensureBuilt, findNatsServer, freePort, Proc, startNode, waitClusterHealthy } from "../helpers/processes";
import { totp } from "../helpers/totp";

const natsBin = findNatsServer();
const externalNats = process.env.NATS_URL;
const describeCluster = natsBin || externalNats ? describe : describe.skip;

describeCluster("accounts, cluster runtime (two gateways, users and auth over NATS)", () => {
  const procs: Record<string, Proc> = {};
  let nats: Proc | null = null;
  let urlA = "";
  let urlB = "";

  beforeAll(async () => {
    ensureBuilt();
    const { url: transporter, proc } = await clusterNats(natsBin);
    nats = proc;
    const [portA, portB] = [await freePort(), await freePort()];
    const common = { TRANSPORTER: transporter, NAMESPACE: `acc-${process.pid}-${Date.now()}`, DATA_DIR: tempDir("podcast-cluster-acc-") };
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
    await nats?.stop();
  });

  test("MFA login across gateways; admin flag and removal reach cached keys", async () => {
    const [a, b] = [api(urlA), api(urlB)];
    expect((await a.post("/api/data/create_first").send({ username: "root", password: "root password", email: "root@example.org", fullname: "Root" })).status).toBe(200);
    const adminKey = (await b.get("/api/data/get_key").set("Authorization", basic("root", "root password"))).body.retrieved_key;
    const added = await a.post("/api/data/add_user").set("Api-Key", adminKey).send({ fullname: "Ivy", username: "ivy", email: "ivy@example.org", hash_pw: "ivy password" });
    const ivyId: number = added.body.user_id;
    const ivyKey = (await a.get("/api/data/get_key").set("Authorization", basic("ivy", "ivy password"))).body.retrieved_key;

    const secret = (await a.get(`/api/data/generate_mfa_secret/${ivyId}`).set("Api-Key", ivyKey)).body.secret;
    expect((await b.post("/api/data/verify_temp_mfa").set("Api-Key", ivyKey).send({ user_id: ivyId, mfa_code: totp(secret) })).body).toEqual({ verified: true });
    const started = await a.get("/api/data/get_key").set("Authorization", basic("ivy", "ivy password"));
    expect(started.body).toMatchObject({ status: "mfa_required", mfa_required: true, retrieved_key: null });
    const finished = await b.post("/api/data/verify_mfa_and_get_key").send({ mfa_session_token: started.body.mfa_session_token, mfa_code: totp(secret) });
    expect(finished.body).toEqual({ status: "success", retrieved_key: expect.any(String), verified: true });
    expect((await a.post("/api/data/verify_mfa_and_get_key").send({ mfa_session_token: started.body.mfa_session_token, mfa_code: totp(secret) })).body.status).toBe("invalid_session");
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

  test("failed logins through one gateway lock that address out through the other too; the owner's address stays open", async () => {
    const login = (url: string, password: string, from: string) => api(url).get("/api/data/get_key").set("Authorization", basic("root", password)).set("X-Forwarded-For", from);
    for (let i = 0; i < 10; i++) expectErrorBody(await login(i % 2 ? urlA : urlB, `guess ${i}`, "198.51.100.7"), 401);
    expectErrorBody(await login(urlA, "root password", "198.51.100.7"), 429);
    expectErrorBody(await login(urlB, "root password", "198.51.100.7"), 429);
    expect((await login(urlB, "root password", "203.0.113.5")).status).toBe(200);
  });
});
