/**
 * A phone's first sync over a NATS server at its default max_payload (1 MB), each service group in its own
 * process as deployed: 20,000 episode actions uploaded in one request (gPodder API v2, then the Nextcloud
 * route) and downloaded back with since=0, an API key list larger than a message, and the gateway's
 * errors of the upload routes (400 malformed JSON, 413 over SYNC_MAX_BODY_SIZE). Calls and answers over
 * 256 K characters travel in pieces (shared/message-pieces.middleware.ts); a packet over 1 MB would fail.
 */
import { connect } from "nats";
import { api, basic, expectErrorBody } from "../helpers/client";
import { tempDir } from "../helpers/server";
import { clusterPeers, ensureBuilt, findNatsServer, freePort, Proc, startNode, waitClusterHealthy } from "../helpers/processes";

const natsBin = findNatsServer();
const externalNats = process.env.NATS_URL;
const describeCluster = natsBin || externalNats ? describe : describe.skip;
const MB = 1024 * 1024;

describeCluster("large calls and answers, cluster runtime (NATS with its default 1 MB max_payload)", () => {
  const procs: Record<string, Proc> = {};
  let peers: Awaited<ReturnType<typeof clusterPeers>> | null = null;
  let url = "";
  let cookie = "";
  let key = "";

  beforeAll(async () => {
    ensureBuilt();
    peers = await clusterPeers(natsBin);
    const port = await freePort();
    const common = { ...peers.env, NAMESPACE: `big-${process.pid}-${Date.now()}`, DATA_DIR: tempDir("podcast-cluster-big-") };
    procs.gateway = startNode({ ...common, PORT: String(port), NODE_ID: "gateway-1", SYNC_MAX_BODY_SIZE: "8mb" }, ["api"]);
    procs.accounts = startNode({ ...common, NODE_ID: "accounts-1" }, ["users", "auth"]);
    procs.sync = startNode({ ...common, NODE_ID: "sync-1" }, ["gpodder", "podcasts", "episodes"]);
    url = `http://127.0.0.1:${port}`;
    await waitClusterHealthy([url], procs, ["auth", "users", "gpodder", "podcasts", "episodes"]);
    expect(
      (await api(url).post("/api/data/create_first").send({ username: "root", password: "root password", email: "root@example.org", fullname: "Root" })).status,
    ).toBe(200);
    const login = await api(url).post("/api/2/auth/root/login.json").set("Authorization", basic("root", "root password"));
    cookie = String(login.headers["set-cookie"][0]).split(";")[0];
    key = (await api(url).get("/api/data/get_key").set("Authorization", basic("root", "root password"))).body.retrieved_key;
  }, 60_000);

  afterAll(async () => {
    await Promise.all(Object.values(procs).map((p) => p.stop()));
    await peers?.stop();
  });

  test("the suite's NATS server takes messages of 1 MB at most, its default", async () => {
    if (externalNats) return; // NATS_URL names a server this suite does not start
    const nc = await connect({ servers: peers!.env.TRANSPORTER });
    expect(nc.info?.max_payload).toBe(MB);
    await nc.close();
  });

  const actions = (prefix: string) =>
    Array.from({ length: 20_000 }, (_, i) => ({
      podcast: "http://127.0.0.1:9/feed.xml",
      episode: `http://127.0.0.1:9/${prefix}-${i}.mp3`,
      action: "play",
      timestamp: "2024-01-31T10:00:00",
      started: 0,
      position: i,
      total: 30_000,
    }));

  test("a first sync: 20,000 episode actions up in one request and down with since=0, gPodder API and Nextcloud", async () => {
    const phone = actions("phone").map((a) => ({ ...a, device: "phone" }));
    expect(JSON.stringify(phone).length).toBeGreaterThan(3 * MB);
    const up = await api(url).post("/api/2/episodes/root.json").set("Cookie", cookie).send(phone);
    expect(up.status).toBe(200);
    const down = await api(url).get("/api/2/episodes/root.json?since=0").set("Cookie", cookie);
    expect(down.status).toBe(200);
    expect(down.body.actions).toHaveLength(20_000);
    expect(down.body.actions[19_999]).toMatchObject({ episode: "http://127.0.0.1:9/phone-19999.mp3", position: 19_999, device: "phone" });

    const nextcloud = await api(url).post("/index.php/apps/gpoddersync/episode_action/create").set("Cookie", cookie).send(actions("nextcloud"));
    expect(nextcloud.status).toBe(200);
    const all = await api(url).get("/index.php/apps/gpoddersync/episode_action?since=0").set("Cookie", cookie);
    expect(all.status).toBe(200);
    expect(all.body.actions).toHaveLength(40_000);
    expect(all.body.actions.filter((a: { episode: string }) => a.episode.includes("/nextcloud-"))).toHaveLength(20_000);
  }, 120_000);

  test("an answer larger than a message: the API key list", async () => {
    // Keys restricted to 10,000 podcasts each: ~60 KB a key in get_api_info.
    const podcast_ids = Array.from({ length: 10_000 }, (_, i) => i + 1);
    for (let i = 0; i < 25; i++) {
      expect((await api(url).post("/api/data/create_api_key").set("Api-Key", key).send({ user_id: 1, rssonly: false, podcast_ids })).status).toBe(200);
    }
    const info = await api(url).get("/api/data/get_api_info/1").set("Api-Key", key);
    expect(info.status).toBe(200);
    expect(info.text.length).toBeGreaterThan(MB);
    expect(info.body.api_info.filter((k: { podcastids: number[] }) => k.podcastids.length === 10_000)).toHaveLength(25);
  }, 60_000);

  test("the upload routes' errors: malformed JSON 400, a body over SYNC_MAX_BODY_SIZE 413, both as JSON", async () => {
    const malformed = await api(url).post("/api/2/episodes/root.json").set("Cookie", cookie).set("Content-Type", "application/json").send('[{"podcast": ');
    expectErrorBody(malformed, 400);
    const tooLarge = [{ podcast: "http://127.0.0.1:9/feed.xml", episode: "x".repeat(9 * MB), action: "play" }];
    for (const route of ["/api/2/episodes/root.json", "/index.php/apps/gpoddersync/episode_action/create"]) {
      expectErrorBody(await api(url).post(route).set("Cookie", cookie).send(tooLarge), 413);
    }
  });
});
