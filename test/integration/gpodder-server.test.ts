/**
 * This server as a gPodder API v2 / Nextcloud gpoddersync server, black-box over HTTP: gPodder's own client
 * library (python3-mygpoclient) drives two devices of one user, the Nextcloud routes are called as AntennaPod
 * calls them, and the library here and the devices are checked to follow each other both ways. Feeds come
 * from a loopback server.
 */
import { spawn, spawnSync } from "child_process";
import path from "path";
import { config } from "../../shared/config";
import { api, asUsers, basic, expectErrorBody } from "../helpers/client";
import { Loopback, startLoopback } from "../helpers/loopback";
import { pythonWithMygpoclient } from "../helpers/mygpoclient";
import { createUsers, episodeByUrl, libraryFeeds, rssFeed, serveTwoEpisodeFeeds } from "../helpers/podcasts";
import { startServer, TestServer } from "../helpers/server";
import { until } from "../helpers/wait";

const PASSWORD = "a long password"; // createUsers' password
const SCENARIO = path.join(__dirname, "..", "helpers", "mygpoclient-scenario.py");

describe("sync server for phones (gPodder API v2, Nextcloud gpoddersync)", () => {
  let server: TestServer;
  let feeds: Loopback;
  let u: Record<string, { id: number; key: string }>;
  const { post } = asUsers(() => ({ url: server.url, users: u }));
  const feed = (n: number) => `${feeds.url}/feed-${n}.xml`;
  const episodeUrl = (n: number, e: number) => `${feeds.url}/media/feed-${n}-${e}.mp3`;
  const auth = (who = "alice") => basic(who, PASSWORD);
  // As apps do: Basic once at login.json, then the session cookie (a password check per call would be slow).
  const sessions: Record<string, string> = {};
  const sync = {
    get: (p: string, who = "alice") => api(server.url).get(p).set("Cookie", sessions[who]),
    post: (p: string, body: unknown, who = "alice") =>
      api(server.url)
        .post(p)
        .set("Cookie", sessions[who])
        .send(body as object),
  };
  const library = (who = "alice") => libraryFeeds(server.url, u[who]);
  const episodeOf = (n: number, e: number, who = "alice") => episodeByUrl(server.url, u[who], feed(n), episodeUrl(n, e));

  beforeAll(async () => {
    Object.assign(config, { refreshInterval: 0, syncInterval: 0, gpodderRetrySeconds: 1 });
    feeds = await startLoopback();
    serveTwoEpisodeFeeds(feeds, "feed", 8);
    server = await startServer();
    u = await createUsers(server.url, ["alice", "bob"]);
    for (const who of ["alice", "bob"]) {
      const login = await api(server.url).post(`/api/2/auth/${who}/login.json`).set("Authorization", auth(who));
      sessions[who] = String(login.headers["set-cookie"][0]).split(";")[0];
    }
  });
  afterAll(async () => {
    await server?.stop();
    await feeds?.close();
  });

  test("gPodder's client library: devices, subscription changes both ways with since, 1,000 and 20,000 actions in one call, the simple API in json, txt and opml", async () => {
    const python = pythonWithMygpoclient();
    // Not spawnSync: the server answers from this process. BULK: a first sync's upload, over MAX_BODY_SIZE
    // (GPODDER_BULK=100000 by hand for the size).
    const bulk = process.env.GPODDER_BULK || "20000";
    const env = { ...process.env, SERVER: server.url, USERNAME: "alice", PASSWORD, FEEDS: JSON.stringify([0, 1, 2, 3, 4].map(feed)), BULK: bulk };
    const child = spawn(python, [SCENARIO], { env });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const status = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    if (status !== 0) throw new Error(`mygpoclient scenario failed (${status}):\n${stderr}\n${stdout}`);
    const out = JSON.parse(stdout.trim().split("\n").pop()!);
    expect(out.subscriptions).toEqual([feed(0), feed(4)].sort());
    console.log(`mygpoclient: ${bulk} actions uploaded in one call in ${out.bulk_upload_s} s, downloaded in ${out.bulk_download_s} s`);
  });

  test("one library: the devices' feeds are subscribed here, removed ones unsubscribed", async () => {
    await until(async () => JSON.stringify(await library()) === JSON.stringify([feed(0), feed(4)].sort()), 20_000, 100);
    // Bob's library is his own.
    expect(await library("bob")).toEqual([]);
  });

  test("a position recorded here reaches the phone as a play action of the server's device, feed URL as podcast", async () => {
    const since = (await sync.get("/api/2/episodes/alice.json")).body.timestamp;
    const ep = await episodeOf(0, 2);
    expect((await post("/api/data/record_listen_duration", "alice", { episode_id: ep.episodeid, user_id: u.alice.id, listen_duration: 420 })).status).toBe(200);
    await until(async () => (await sync.get(`/api/2/episodes/alice.json?since=${since}`)).body.actions.length > 0, 10_000, 50);
    const res = await sync.get(`/api/2/episodes/alice.json?since=${since}`);
    expect(res.body.actions).toEqual([
      {
        podcast: feed(0),
        episode: episodeUrl(0, 2),
        guid: "feed-0-2",
        device: "podcast-server",
        action: "play",
        timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/),
        started: 0,
        position: 420,
        total: 3000,
      },
    ]);
    // Completed here: played to its end.
    await post("/api/data/mark_episode_completed", "alice", { episode_id: ep.episodeid, user_id: u.alice.id });
    await until(async () => (await sync.get(`/api/2/episodes/alice.json?since=${res.body.timestamp}`)).body.actions.length > 0, 10_000, 50);
    expect((await sync.get(`/api/2/episodes/alice.json?since=${res.body.timestamp}`)).body.actions).toMatchObject([
      { episode: episodeUrl(0, 2), position: 3000, total: 3000 },
    ]);
  });

  test("a device's updates: added podcasts and new episodes with data from the catalogue here, each episode's status its newest action; mygpoclient parses them", async () => {
    const res = await sync.get("/api/2/updates/alice/phone.json?since=0&include_actions=true");
    expect(res.status).toBe(200);
    expect(res.body.add).toContainEqual({
      url: feed(0),
      title: "feed 0",
      description: expect.any(String),
      website: expect.any(String),
      logo_url: null,
      subscribers: 1,
      subscribers_last_week: 1,
      mygpo_link: "",
    });
    const played = res.body.updates.find((e: any) => e.url === episodeUrl(0, 2));
    expect(played).toEqual({
      title: "feed 0 episode 2",
      url: episodeUrl(0, 2),
      podcast_title: "feed 0",
      podcast_url: feed(0),
      description: expect.any(String),
      website: expect.any(String),
      mygpo_link: "",
      released: "2024-02-01T00:00:00",
      status: "play",
      action: expect.objectContaining({ podcast: feed(0), episode: episodeUrl(0, 2), action: "play", position: 3000 }),
    });
    expect(res.body.updates.find((e: any) => e.url === episodeUrl(0, 1))).toMatchObject({ status: "new", podcast_title: "feed 0" });
    expect(res.body.updates.find((e: any) => e.url === episodeUrl(0, 1)).action).toBeUndefined();
    // Only episodes stored here since `since`; without include_actions no action.
    expect((await sync.get(`/api/2/updates/alice/phone.json?since=${res.body.timestamp}`)).body).toMatchObject({ add: [], remove: [], updates: [] });
    expect((await sync.get("/api/2/updates/alice/phone.json?since=0")).body.updates.every((e: any) => e.action === undefined)).toBe(true);
    // gPodder's client library reads the podcasts and episodes of the answer with its own classes.
    const parse =
      "import json, sys\nfrom mygpoclient import public, simple\nd = json.load(sys.stdin)\nprint(len([simple.Podcast.from_dict(p) for p in d['add']]), len([public.Episode.from_dict(e) for e in d['updates']]))";
    const parsed = spawnSync(pythonWithMygpoclient(), ["-c", parse], { input: JSON.stringify(res.body), encoding: "utf8" });
    expect(parsed.stderr).toBe("");
    expect(parsed.stdout.trim()).toBe(`${res.body.add.length} ${res.body.updates.length}`);
  });

  test("a play from a phone sets the position here (newest timestamp wins) and does not come back as the server's", async () => {
    const now = new Date().toISOString().slice(0, 19);
    const up = await sync.post("/api/2/episodes/alice.json", [
      { podcast: feed(4), episode: episodeUrl(4, 1), device: "phone", action: "play", timestamp: now, started: 0, position: 1200, total: 3000 },
    ]);
    expect(up.status).toBe(200);
    expect(up.body).toEqual({ timestamp: expect.any(Number), update_urls: [] });
    await until(async () => (await episodeOf(4, 1))?.listenduration === 1200, 10_000, 50);
    // An older play uploaded late does not win; matched by guid when the URL is unknown.
    await sync.post("/api/2/episodes/alice.json", [
      {
        podcast: feed(4),
        episode: "http://elsewhere.example/x.mp3",
        guid: "feed-4-1",
        action: "PLAY",
        timestamp: "2020-01-01T00:00:00",
        position: 5,
        total: 3000,
      },
    ]);
    await sync.post("/api/2/episodes/alice.json", [
      { podcast: feed(4), episode: "http://elsewhere.example/y.mp3", guid: "feed-4-2", action: "play", timestamp: now, position: 77, total: 3000 },
    ]);
    await until(async () => (await episodeOf(4, 2))?.listenduration === 77, 10_000, 50);
    expect((await episodeOf(4, 1)).listenduration).toBe(1200);
    const after = await sync.get(`/api/2/episodes/alice.json?since=${up.body.timestamp}`);
    expect(after.body.actions.filter((a: any) => a.device === "podcast-server")).toEqual([]);
    // download, delete and new are kept and relayed only.
    const kept = await sync.post("/api/2/episodes/alice.json", [
      { podcast: feed(4), episode: episodeUrl(4, 1), device: "phone", action: "download", timestamp: now },
      { podcast: feed(4), episode: episodeUrl(4, 1), device: "phone", action: "new" },
    ]);
    const relayed = await sync.get(`/api/2/episodes/alice.json?since=${kept.body.timestamp - 1}&device=phone`);
    expect(relayed.body.actions.map((a: any) => a.action)).toEqual(["download", "new"]);
    expect((await episodeOf(4, 1)).listenduration).toBe(1200);
    const aggregated = await sync.get(`/api/2/episodes/alice.json?podcast=${encodeURIComponent(feed(4))}&aggregated=true`);
    expect(aggregated.body.actions.filter((a: any) => a.episode === episodeUrl(4, 1)).map((a: any) => a.action)).toEqual(["new"]);
    // Removed on a phone: unsubscribed here, the position kept (back on a resubscribe).
    await sync.post("/api/2/subscriptions/alice/phone.json", { add: [], remove: [feed(4)] });
    await until(async () => !(await library()).includes(feed(4)), 10_000, 50);
    await sync.post("/api/2/subscriptions/alice/phone.json", { add: [feed(4)], remove: [] });
    await until(async () => (await library()).includes(feed(4)), 10_000, 50);
    expect((await episodeOf(4, 1)).listenduration).toBe(1200);
  });

  test("subscriptions added and removed here reach every device as changes of the server's device", async () => {
    const since = (await sync.get("/api/2/subscriptions/alice/phone.json")).body.timestamp;
    const added = await post("/api/data/add_podcast", "alice", { podcast_values: { pod_feed_url: feed(5), user_id: u.alice.id } });
    expect(added.status).toBe(200);
    await until(async () => (await sync.get(`/api/2/subscriptions/alice/phone.json?since=${since}`)).body.add.length > 0, 10_000, 50);
    const change = (await sync.get(`/api/2/subscriptions/alice/laptop.json?since=${since}`)).body;
    expect(change).toEqual({ add: [feed(5)], remove: [], timestamp: expect.any(Number) });
    await post("/api/data/remove_podcast_id", "alice", { user_id: u.alice.id, podcast_id: added.body.podcast_id });
    await until(async () => (await sync.get(`/api/2/subscriptions/alice/phone.json?since=${change.timestamp}`)).body.remove.length > 0, 10_000, 50);
    expect((await sync.get(`/api/2/subscriptions/alice/phone.json?since=${change.timestamp}`)).body).toEqual({
      add: [],
      remove: [feed(5)],
      timestamp: expect.any(Number),
    });
  });

  test("a feed that cannot be fetched yet is kept in the devices' lists, reported, and subscribed once it can be", async () => {
    const missing = `${feeds.url}/later.xml`;
    const up = await sync.post("/api/2/subscriptions/alice/phone.json", { add: [missing], remove: [] });
    expect(up.status).toBe(200);
    let report: any;
    await until(
      async () => {
        report = (await sync.get("/api/2/updates/alice/phone.json?since=0")).body;
        return report.not_applied.some((f: any) => f.url === missing && f.library === "failed");
      },
      10_000,
      50,
    );
    expect(report.not_applied.find((f: any) => f.url === missing).last_error).toEqual(expect.any(String));
    expect((await sync.get("/subscriptions/alice/laptop.json")).body).toContain(missing);
    feeds.route("/later.xml", { body: rssFeed("Later", [{ title: "Later 1", url: `${feeds.url}/media/later-1.mp3`, date: "2024-03-01T00:00:00Z" }]) });
    await until(async () => (await library()).includes(missing), 20_000, 200);
    expect((await sync.get("/api/2/updates/alice/phone.json?since=0")).body.not_applied).toEqual([]);
  });

  test("Nextcloud gpoddersync, as AntennaPod calls it: subscriptions and episode actions with since", async () => {
    const first = await sync.get("/index.php/apps/gpoddersync/subscriptions?since=0");
    expect(first.status).toBe(200);
    expect(first.body.add).toEqual(expect.arrayContaining([feed(0), feed(4)]));
    const created = await sync.post("/index.php/apps/gpoddersync/subscription_change/create", { add: [feed(6)], remove: [feed(0)] });
    expect(created.status).toBe(200);
    const later = await sync.get(`/index.php/apps/gpoddersync/subscriptions?since=${first.body.timestamp}`);
    expect(later.body).toMatchObject({ add: [feed(6)], remove: [feed(0)] });
    const actions = [
      {
        podcast: feed(6),
        episode: episodeUrl(6, 1),
        guid: "feed-6-1",
        action: "PLAY",
        timestamp: "2024-01-31T10:00:00",
        started: 10,
        position: 600,
        total: 3000,
      },
      {
        podcast: feed(6),
        episode: episodeUrl(6, 2),
        guid: "feed-6-2",
        action: "Download",
        timestamp: "2024-01-31T10:00:00",
        started: -1,
        position: -1,
        total: -1,
      },
    ];
    const up = await sync.post("/index.php/apps/gpoddersync/episode_action/create", actions);
    expect(up.status).toBe(200);
    const got = await sync.get(`/index.php/apps/gpoddersync/episode_action?since=${up.body.timestamp - 1}`);
    expect(got.body.actions).toEqual([
      { ...actions[0], action: "PLAY" },
      { ...actions[1], action: "DOWNLOAD" },
    ]);
    await until(async () => (await episodeOf(6, 1))?.listenduration === 600, 20_000, 100);
    // The Nextcloud user is one device of the user: the gPodder API shows its actions too.
    expect((await sync.get(`/api/2/episodes/alice.json?since=${up.body.timestamp - 1}&device=nextcloud`)).body.actions).toHaveLength(2);
  });

  test("sync groups: synchronize and stop-synchronize", async () => {
    const res = await sync.post("/api/2/sync-devices/alice.json", { synchronize: [["phone", "laptop"]] });
    expect(res.status).toBe(200);
    expect(res.body.synchronized).toEqual([["phone", "laptop"]]);
    expect(res.body["not-synchronized"]).toEqual(expect.arrayContaining(["tablet"]));
    const stopped = await sync.post("/api/2/sync-devices/alice.json", { "stop-synchronize": ["laptop"] });
    expect(stopped.body.synchronized).toEqual([]);
    // Groups stay apart: one left by a device, then a new one of that device.
    expect((await sync.post("/api/2/devices/alice/desk.json", { caption: "Desk", type: "desktop" })).status).toBe(200);
    await sync.post("/api/2/sync-devices/alice.json", { synchronize: [["phone", "laptop", "tablet"]] });
    await sync.post("/api/2/sync-devices/alice.json", { "stop-synchronize": ["phone"] });
    const two = await sync.post("/api/2/sync-devices/alice.json", { synchronize: [["phone", "desk"]] });
    expect(two.body.synchronized.map((g: string[]) => [...g].sort())).toEqual(
      expect.arrayContaining([
        ["laptop", "tablet"],
        ["desk", "phone"],
      ]),
    );
    expect(two.body.synchronized).toHaveLength(2);
    expectErrorBody(await sync.post("/api/2/sync-devices/alice.json", { synchronize: [["phone", "nope"]] }), 400);
  });

  test("the simple API answers each format with its content type", async () => {
    const txt = await sync.get("/subscriptions/alice.txt");
    expect(txt.headers["content-type"]).toBe("text/plain; charset=utf-8");
    expect(txt.text.split("\n")).toContain(feed(4));
    const opml = await sync.get("/subscriptions/alice/phone.opml");
    expect(opml.headers["content-type"]).toBe("text/x-opml; charset=utf-8");
    expect(opml.text).toContain(`xmlUrl="${feed(4)}"`);
    const json = await sync.get("/subscriptions/alice.json");
    expect(json.headers["content-type"]).toMatch(/^application\/json/);
    expect(json.body.map((p: any) => p.url)).toContain(feed(4));
    expectErrorBody(await sync.get("/subscriptions/alice.xml"), 400);
  });

  test("a removed account's sync data goes with it", async () => {
    await sync.post("/api/2/subscriptions/bob/phone.json", { add: [feed(7)], remove: [] }, "bob");
    await sync.post("/api/2/episodes/bob.json", [{ podcast: feed(7), episode: episodeUrl(7, 1), action: "download" }], "bob");
    const gpodder: any = server.broker.getLocalService("gpodder");
    const count = async () =>
      (await Promise.all([gpodder.stores.gpodder_devices, gpodder.stores.gpodder_feeds, gpodder.stores.gpodder_actions].map((s: any) => s.count({})))).reduce(
        (x: number, y: number) => x + y,
        0,
      );
    const before = await count();
    expect((await api(server.url).delete(`/api/data/user/delete/${u.bob.id}`).set("Api-Key", u.admin.key)).status).toBe(200);
    await until(async () => (await count()) === before - 3, 10_000, 50);
    expect(await gpodder.adapter.findOne({ _id: u.bob.id })).toBeNull();
  });

  test("bad input is a 4xx and stores nothing; another user's path is refused", async () => {
    const before = (await sync.get("/api/2/episodes/alice.json")).body;
    const malformed = await api(server.url)
      .post("/api/2/episodes/alice.json")
      .set("Cookie", sessions.alice)
      .set("Content-Type", "application/json")
      .send('[{"podcast": ');
    expectErrorBody(malformed, 400);
    expectErrorBody(
      await sync.post("/api/2/episodes/alice.json", [
        { podcast: feed(4), episode: episodeUrl(4, 1), action: "play" },
        { episode: episodeUrl(4, 1), action: "play" },
      ]),
      400,
    );
    expectErrorBody(await sync.post("/api/2/episodes/alice.json", [{ podcast: feed(4), action: "play" }]), 400);
    expectErrorBody(await sync.post("/api/2/episodes/alice.json", [{ podcast: "ftp://example.org/feed", episode: "x", action: "play" }]), 400);
    expectErrorBody(await sync.post("/api/2/episodes/alice.json", [{ podcast: feed(4), episode: "x", action: "jump" }]), 400);
    expectErrorBody(await sync.post("/api/2/subscriptions/alice/phone.json", { add: ["ftp://example.org/feed.xml"] }), 400);
    expectErrorBody(await sync.post("/api/2/subscriptions/alice/phone.json", { add: ["javascript:alert(1)"] }), 400);
    expectErrorBody(await sync.post("/api/2/subscriptions/alice/bad device!.json", { add: [feed(7)] }), 400);
    // Upload routes take up to SYNC_MAX_BODY_SIZE (a 10 MB body is read, and its 10 MB episode URL refused); above it, 413.
    const huge = [{ podcast: feed(4), episode: "x".repeat(10 * 1024 * 1024), action: "play" }];
    expectErrorBody(await sync.post("/api/2/episodes/alice.json", huge), 400);
    expect([config.maxBodySize, config.syncMaxBodySize]).toEqual(["1mb", "32mb"]); // the defaults, which the sizes below exceed
    const MB = 1024 * 1024;
    const tooLarge = [{ podcast: feed(4), episode: "x".repeat(32 * MB), action: "play" }];
    for (const route of ["/api/2/episodes/alice.json", "/index.php/apps/gpoddersync/episode_action/create"])
      expectErrorBody(await sync.post(route, tooLarge), 413);
    expectErrorBody(
      await api(server.url)
        .put("/subscriptions/alice/phone.txt")
        .set("Cookie", sessions.alice)
        .send("x".repeat(33 * MB)),
      413,
    );
    // Other routes keep MAX_BODY_SIZE.
    expectErrorBody(await sync.post("/api/2/devices/alice/phone.json", { caption: "x".repeat(MB) }), 413);
    expect((await sync.get("/api/2/episodes/alice.json")).body).toEqual(before);
    expect((await sync.get(`/api/2/subscriptions/alice/phone.json?since=${before.timestamp}`)).body).toMatchObject({ add: [], remove: [] });
    expect((await sync.get("/api/2/devices/alice.json", "bob")).status).toBe(401);
    expect((await api(server.url).get("/api/2/devices/alice.json")).status).toBe(401);
  });
});
