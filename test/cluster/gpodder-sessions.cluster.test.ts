/**
 * Sync sessions across gateways over a real NATS server: a phone signs in as gPodder's client library does
 * (HTTP Basic after the 401 challenge, then only the sessionid cookie) through one gateway and keeps
 * working with the cookie through another; a logout through one is refused through the other at once.
 * Each service group in its own process, as deployed (gateway, auth and users, sync with the library).
 */
import { api, basic, expectErrorBody } from "../helpers/client";
import { tempDir } from "../helpers/server";
import { clusterPeers, ensureBuilt, findNatsServer, freePort, Proc, startNode, waitClusterHealthy } from "../helpers/processes";

const natsBin = findNatsServer();
const externalNats = process.env.NATS_URL;
const describeCluster = natsBin || externalNats ? describe : describe.skip;

describeCluster("sync sessions, cluster runtime (two gateways, auth and the gpodder service over NATS)", () => {
  const procs: Record<string, Proc> = {};
  let peers: Awaited<ReturnType<typeof clusterPeers>> | null = null;
  let urlA = "";
  let urlB = "";

  beforeAll(async () => {
    ensureBuilt();
    peers = await clusterPeers(natsBin);
    const [portA, portB] = [await freePort(), await freePort()];
    const common = { ...peers.env, NAMESPACE: `gps-${process.pid}-${Date.now()}`, DATA_DIR: tempDir("podcast-cluster-gps-") };
    procs.gatewayA = startNode({ ...common, PORT: String(portA), NODE_ID: "gateway-a" }, ["api"]);
    procs.gatewayB = startNode({ ...common, PORT: String(portB), NODE_ID: "gateway-b" }, ["api"]);
    procs.accounts = startNode({ ...common, NODE_ID: "accounts-1" }, ["users", "auth"]);
    procs.sync = startNode({ ...common, NODE_ID: "sync-1" }, ["gpodder", "podcasts", "episodes"]);
    urlA = `http://127.0.0.1:${portA}`;
    urlB = `http://127.0.0.1:${portB}`;
    await waitClusterHealthy([urlA, urlB], procs, ["auth", "users", "gpodder", "podcasts", "episodes"]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all(Object.values(procs).map((p) => p.stop()));
    await peers?.stop();
  });

  test("a session opened through one gateway works through the other; a logout through one ends it on both", async () => {
    const [a, b] = [api(urlA), api(urlB)];
    expect(
      (await a.post("/api/data/create_first").send({ username: "root", password: "root password", email: "root@example.org", fullname: "Root" })).status,
    ).toBe(200);
    // gPodder's client library: no credentials until the 401 challenge, then Basic once; the cookie from then on.
    const challenged = await a.get("/api/2/devices/root.json");
    expectErrorBody(challenged, 401);
    expect(challenged.headers["www-authenticate"]).toMatch(/^Basic /);
    const login = await a.post("/api/2/auth/root/login.json").set("Authorization", basic("root", "root password"));
    expect(login.status).toBe(200);
    const cookie = String(login.headers["set-cookie"][0]).split(";")[0];
    expect(cookie).toMatch(/^sessionid=./);

    expect((await b.post("/api/2/devices/root/phone.json").set("Cookie", cookie).send({ caption: "Phone", type: "mobile" })).status).toBe(200);
    const devices = await b.get("/api/2/devices/root.json").set("Cookie", cookie);
    expect(devices.status).toBe(200);
    expect(devices.body).toContainEqual(expect.objectContaining({ id: "phone", caption: "Phone", type: "mobile" }));
    const up = await b
      .post("/api/2/episodes/root.json")
      .set("Cookie", cookie)
      .send([{ podcast: "http://127.0.0.1:9/feed.xml", episode: "http://127.0.0.1:9/1.mp3", device: "phone", action: "download" }]);
    expect(up.status).toBe(200);
    expect((await a.get(`/api/2/episodes/root.json?since=${up.body.timestamp - 1}`).set("Cookie", cookie)).body.actions).toHaveLength(1);

    // A first sync's upload (over NATS's default 1 MB message) reaches the gpodder service.
    const many = Array.from({ length: 20_000 }, (_, i) => ({
      podcast: "http://127.0.0.1:9/feed.xml",
      episode: `http://127.0.0.1:9/${i}.mp3`,
      device: "phone",
      action: "play",
      timestamp: "2024-01-31T10:00:00",
      position: i,
      total: 30_000,
    }));
    const bulk = await a.post("/api/2/episodes/root.json").set("Cookie", cookie).send(many);
    expect(bulk.status).toBe(200);
    expect((await b.get(`/api/2/episodes/root.json?since=${bulk.body.timestamp - 1}`).set("Cookie", cookie)).body.actions).toHaveLength(20_000);

    // Both gateways have the session cached by now; the logout through B ends it through A at once.
    expect((await b.post("/api/2/auth/root/logout.json").set("Cookie", cookie)).status).toBe(200);
    expectErrorBody(await a.get("/api/2/devices/root.json").set("Cookie", cookie), 401);
    expectErrorBody(await b.get("/api/2/devices/root.json").set("Cookie", cookie), 401);
  });
});
