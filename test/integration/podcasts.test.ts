/**
 * Podcasts and subscriptions, black-box over HTTP: real fixture feeds served from a loopback HTTP
 * server, the whole gateway in-process on NeDB files.
 */
import fs from "fs";
import path from "path";
import type { ServiceSchema } from "moleculer";
import { config } from "../../shared/config";
import { api, asUsers, basic, expectErrorBody } from "../helpers/client";
import { Loopback, startLoopback } from "../helpers/loopback";
import { createUsers, fixture, rssFeed } from "../helpers/podcasts";
import { ALL_SERVICES, startServer, TestServer } from "../helpers/server";

const events: { created: any[]; removed: any[] } = { created: [], removed: [] };
const Probe: ServiceSchema = {
  name: "probe",
  events: {
    "episodes.created"(ctx: any) {
      events.created.push(ctx.params);
    },
    "subscriptions.removed"(ctx: any) {
      events.removed.push(ctx.params);
    },
  },
};

describe("podcasts and subscriptions", () => {
  let server: TestServer;
  let feeds: Loopback;
  let u: Record<string, { id: number; key: string }>;
  const http = () => api(server.url);
  const { get, post } = asUsers(() => ({ url: server.url, users: u }));
  const hits = (p: string) => feeds.requests.filter((r) => r.url.split("?")[0] === p).length;
  const addPodcast = (who: string, feedPath: string) =>
    post("/api/data/add_podcast", who, { podcast_values: { pod_feed_url: feeds.url + feedPath, user_id: u[who].id, pod_title: "from the directory" } });

  beforeAll(async () => {
    config.refreshInterval = 0; // refreshes in these tests are the ones they trigger
    config.feedFetchPerMinute = 3;
    config.addPodcastSyncEpisodes = 30;
    feeds = await startLoopback({
      "/chemical.xml": { headers: { "Content-Type": "application/rss+xml" }, body: fixture("all_things_chemical_4items.xml") },
      "/npr.xml": { body: fixture("npr_planet_money_355items_large.xml") },
      "/minimal.xml": { body: fixture("minimal_itunes_3items.xml") },
      "/atom.xml": { body: fixture("handmade_atom_2entries.xml") },
      "/page.html": { headers: { "Content-Type": "text/html" }, body: "<!doctype html><html><body>not a feed</body></html>" },
      "/truncated.xml": { body: fixture("minimal_itunes_3items.xml").slice(0, 800) },
    });
    server = await startServer({ services: [...ALL_SERVICES, Probe] });
    u = await createUsers(server.url, ["alice", "bob"]);
  });
  afterAll(async () => {
    await server?.stop();
    await feeds?.close();
  });

  test("add_podcast stores the feed and answers podcast_id and the newest episode", async () => {
    const res = await addPodcast("alice", "/chemical.xml");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, podcast_id: expect.any(Number), first_episode_id: expect.any(Number) });
    const pods = await get(`/api/data/return_pods/${u.alice.id}`, "alice");
    expect(pods.status).toBe(200);
    expect(pods.body.pods).toHaveLength(1);
    const pod = pods.body.pods[0];
    expect(Object.keys(pod).sort()).toEqual(
      [
        "podcast_id",
        "title",
        "description",
        "artwork_url",
        "feed_url",
        "website_url",
        "author",
        "categories",
        "last_episode_date",
        "episode_count",
        "subscribed_date",
        "is_vidsite",
        // the same podcast by the names PinePods' clients read (test/integration/mobile-client.test.ts)
        "is_youtube",
        "podcastid",
        "podcastname",
        "artworkurl",
        "feedurl",
        "websiteurl",
        "episodecount",
        "explicit",
        "podcastindexid",
        "is_favorite",
      ].sort(),
    );
    expect(pod).toMatchObject({
      podcast_id: res.body.podcast_id,
      title: "All Things Chemical",
      feed_url: feeds.url + "/chemical.xml",
      episode_count: 4,
      last_episode_date: "2018-11-29T10:30:00.000Z",
    });
    expect(Array.isArray(pod.categories)).toBe(true);
    const eps = await get("/api/data/podcast_episodes", "alice", { user_id: u.alice.id, podcast_id: pod.podcast_id });
    expect(eps.body.total).toBe(4);
    expect(eps.body.episodes[0]).toMatchObject({
      episodeid: res.body.first_episode_id,
      episodetitle: "Confidential Business Information under TSCA",
      episodepubdate: "2018-11-29T10:30:00.000Z",
      episodeduration: 2398,
      episodeurl: "https://traffic.libsyn.com/secure/allthingschemical/ep3_final_96.mp3?dest-id=814653",
      podcastname: "All Things Chemical",
      completed: false,
      saved: false,
    });
    expect(events.created).toEqual([]); // a first import is not "new episodes"
  });

  test("a second add of the same feed answers 409", async () => {
    expectErrorBody(await addPodcast("alice", "/chemical.xml"), 409);
  });

  test("a feed shared by two users is fetched and stored once", async () => {
    const before = hits("/chemical.xml");
    const res = await addPodcast("bob", "/chemical.xml");
    expect(res.status).toBe(200);
    expect(hits("/chemical.xml")).toBe(before);
    const [a, b] = await Promise.all([get(`/api/data/return_pods/${u.alice.id}`, "alice"), get(`/api/data/return_pods/${u.bob.id}`, "bob")]);
    expect(b.body.pods[0].podcast_id).toBe(a.body.pods[0].podcast_id);
    expect(res.body.podcast_id).toBe(a.body.pods[0].podcast_id);
  });

  test("anything that is not a feed answers 400 JSON, never 500", async () => {
    for (const p of ["/page.html", "/truncated.xml", "/missing.xml"]) {
      const res = await addPodcast("alice", p);
      expectErrorBody(res, 400);
    }
    expect((await addPodcast("alice", "/page.html")).body.message).toMatch(/not a podcast feed/);
    expectErrorBody(await post("/api/data/add_podcast", "alice", { podcast_values: { pod_feed_url: "not a url", user_id: u.alice.id } }), 400);
    expectErrorBody(await post("/api/data/add_podcast", "alice", { podcast_values: { user_id: u.alice.id } }), 400);
    const pods = await get(`/api/data/return_pods/${u.alice.id}`, "alice");
    expect(pods.body.pods).toHaveLength(1);
  });

  test("403 for another user's id, 404 for another user's podcast", async () => {
    expectErrorBody(await post("/api/data/add_podcast", "alice", { podcast_values: { pod_feed_url: feeds.url + "/minimal.xml", user_id: u.bob.id } }), 403);
    expectErrorBody(await get(`/api/data/return_pods/${u.bob.id}`, "alice"), 403);
    expectErrorBody(await get(`/api/data/return_pods_extra/${u.bob.id}`, "alice"), 403);
    const mine = await addPodcast("alice", "/minimal.xml");
    expect(mine.status).toBe(200);
    const q = { user_id: u.bob.id, podcast_id: mine.body.podcast_id };
    expectErrorBody(await get("/api/data/get_podcast_details", "bob", q), 404);
    expectErrorBody(await get("/api/data/podcast_episodes", "bob", q), 404);
    expectErrorBody(await post("/api/data/remove_podcast_id", "bob", q), 404);
    expectErrorBody(await post("/api/data/get_auto_download_status", "bob", q), 404);
    expectErrorBody(await get("/api/data/get_podcast_id_from_ep_id", "bob", { user_id: u.bob.id, episode_id: mine.body.first_episode_id }), 404);
    expectErrorBody(
      await post("/api/data/update_episode_duration", "bob", { episode_id: mine.body.first_episode_id, new_duration: 5, is_vidsite: false }),
      404,
    );
    // An admin reads any podcast.
    const asAdmin = await get("/api/data/get_podcast_details", "admin", { user_id: u.admin.id, podcast_id: mine.body.podcast_id });
    expect(asAdmin.status).toBe(200);
  });

  test("return_pods lists the newest subscription first; return_pods_extra adds the user's figures", async () => {
    const pods = await get(`/api/data/return_pods/${u.alice.id}`, "alice");
    expect(pods.body.pods.map((p: any) => p.title)).toEqual(["Podcasting 2.0 Namespace Example", "All Things Chemical"]);
    const dates = pods.body.pods.map((p: any) => Date.parse(p.subscribed_date));
    expect(dates[0]).toBeGreaterThanOrEqual(dates[1]);
    const extra = await get(`/api/data/return_pods_extra/${u.alice.id}`, "alice");
    expect(extra.body.pods[1]).toMatchObject({
      title: "All Things Chemical",
      total_episodes: 4,
      unplayed_episodes: 4,
      last_played: null,
      total_listen_time: 0,
      auto_download: false,
      notifications_enabled: false,
      feed_cutoff_days: 0,
    });
  });

  test("a large feed: the newest episodes before the answer, all of them soon after; paging, sorting, search", async () => {
    const res = await addPodcast("alice", "/npr.xml");
    expect(res.status).toBe(200);
    const q = { user_id: u.alice.id, podcast_id: res.body.podcast_id };
    let total = 0;
    for (let i = 0; i < 200 && total < 355; i++) {
      total = (await get("/api/data/podcast_episodes", "alice", { ...q, limit: 1 })).body.total;
      if (total < 355) await new Promise((r) => setTimeout(r, 50));
    }
    expect(total).toBe(355);
    const first = await get("/api/data/podcast_episodes", "alice", { ...q, limit: 10, offset: 0 });
    const second = await get("/api/data/podcast_episodes", "alice", { ...q, limit: 10, offset: 10 });
    expect(first.body.episodes).toHaveLength(10);
    expect(first.body.episodes[0].episodeid).toBe(res.body.first_episode_id);
    expect(first.body.episodes[0].episodetitle).toBe("#980: The Fed Fights The Virus");
    const all = [...first.body.episodes, ...second.body.episodes];
    expect(new Set(all.map((e: any) => e.episodeid)).size).toBe(20);
    const times = all.map((e: any) => Date.parse(e.episodepubdate));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    const asc = await get("/api/data/podcast_episodes", "alice", { ...q, limit: 3, sort_order: "asc" });
    expect(Date.parse(asc.body.episodes[0].episodepubdate)).toBeLessThan(Date.parse(asc.body.episodes[2].episodepubdate) + 1);
    const found = await get("/api/data/podcast_episodes", "alice", { ...q, search: "fed fights" });
    expect(found.body.total).toBe(1);
    expect(found.body.episodes[0].episodetitle).toBe("#980: The Fed Fights The Virus");
    expectErrorBody(await get("/api/data/podcast_episodes", "alice", { ...q, sort_by: "nonsense" }), 400);
    const details = await get("/api/data/get_podcast_details", "alice", q);
    expect(details.body.podcast).toMatchObject({ podcast_id: q.podcast_id, title: "Planet Money", total_episodes: 355, auto_download: false });
    expect(details.body.recent_episodes.length).toBeGreaterThan(0);
    expect(details.body.recent_episodes.length).toBeLessThan(355);
    expect(details.body.recent_episodes[0]).toMatchObject({
      episode_id: res.body.first_episode_id,
      title: "#980: The Fed Fights The Virus",
      is_played: false,
      is_saved: false,
      progress: 0,
    });
    const pods = await get(`/api/data/return_pods/${u.alice.id}`, "alice");
    expect(pods.body.pods[0]).toMatchObject({ title: "Planet Money", episode_count: 355 });
  });

  test("feed_cutoff_days hides older episodes from that subscriber only", async () => {
    const pods = await get(`/api/data/return_pods/${u.alice.id}`, "alice");
    const chem = pods.body.pods.find((p: any) => p.title === "All Things Chemical").podcast_id;
    const q = { user_id: u.alice.id, podcast_id: chem };
    expect((await get("/api/data/get_feed_cutoff_days", "alice", q)).body).toEqual({ ...q, feed_cutoff_days: 0 });
    expectErrorBody(await post("/api/data/update_feed_cutoff_days", "alice", { ...q, feed_cutoff_days: 366 }), 400);
    expectErrorBody(await post("/api/data/update_feed_cutoff_days", "alice", { ...q, feed_cutoff_days: -1 }), 400);
    const set = await post("/api/data/update_feed_cutoff_days", "alice", { ...q, feed_cutoff_days: 30 });
    expect(set.status).toBe(200);
    expect(set.body.detail).toEqual(expect.any(String));
    expect((await get("/api/data/get_feed_cutoff_days", "alice", q)).body.feed_cutoff_days).toBe(30);
    expect((await get("/api/data/podcast_episodes", "alice", q)).body.total).toBe(0);
    expect((await get("/api/data/podcast_episodes", "bob", { user_id: u.bob.id, podcast_id: chem })).body.total).toBe(4);
    const extra = await get(`/api/data/return_pods_extra/${u.alice.id}`, "alice");
    expect(extra.body.pods.find((p: any) => p.podcast_id === chem)).toMatchObject({ total_episodes: 0, feed_cutoff_days: 30 });
    await post("/api/data/update_feed_cutoff_days", "alice", { ...q, feed_cutoff_days: 0 });
    expect((await get("/api/data/podcast_episodes", "alice", q)).body.total).toBe(4);
  });

  test("lookups: check_podcast, get_podcast_id, episode lookups by name, url and id", async () => {
    const feed = feeds.url + "/chemical.xml";
    const chem = (await get(`/api/data/return_pods/${u.alice.id}`, "alice")).body.pods.find((p: any) => p.title === "All Things Chemical").podcast_id;
    expect((await get("/api/data/check_podcast", "alice", { user_id: u.alice.id, podcast_name: "All Things Chemical", podcast_url: feed })).body).toEqual({
      exists: true,
    });
    expect((await get("/api/data/check_podcast", "alice", { user_id: u.alice.id, podcast_name: "all things chemical", podcast_url: feed })).body).toEqual({
      exists: false,
    });
    expect((await get("/api/data/get_podcast_id", "alice", { user_id: u.alice.id, podcast_feed: feed, podcast_title: "All Things Chemical" })).body).toEqual({
      episodes: chem,
      podcast_id: chem,
    });
    expectErrorBody(await get("/api/data/get_podcast_id", "alice", { user_id: u.alice.id, podcast_feed: feed, podcast_title: "Nope" }), 404);
    const url = "https://traffic.libsyn.com/secure/allthingschemical/ep3_final_96.mp3?dest-id=814653";
    const title = "Confidential Business Information under TSCA";
    expect((await get(`/api/data/check_episode_in_db/${u.alice.id}`, "alice", { episode_title: title, episode_url: url })).body).toEqual({
      episode_in_db: true,
    });
    expect((await get(`/api/data/check_episode_in_db/${u.alice.id}`, "alice", { episode_title: "other", episode_url: url })).body).toEqual({
      episode_in_db: false,
    });
    const byName = await get("/api/data/get_podcast_id_from_ep_name", "alice", { user_id: u.alice.id, episode_name: title, episode_url: url });
    expect(byName.body).toEqual({ podcast_id: chem, episode_id: expect.any(Number) });
    expect((await get("/api/data/get_podcast_id_from_ep_id", "alice", { user_id: u.alice.id, episode_id: byName.body.episode_id })).body).toEqual({
      podcast_id: chem,
    });
    expect((await get("/api/data/get_episode_id_ep_name", "alice", { user_id: u.alice.id, episode_url: url })).text).toBe(String(byName.body.episode_id));
    expectErrorBody(await get("/api/data/get_podcast_id_from_ep_id", "alice", { user_id: u.alice.id, episode_id: 999999 }), 404);
    const dur = await post("/api/data/update_episode_duration", "alice", { episode_id: byName.body.episode_id, new_duration: 1234, is_vidsite: false });
    expect(dur.status).toBe(200);
    const eps = await get("/api/data/podcast_episodes", "alice", { user_id: u.alice.id, podcast_id: chem, limit: 1 });
    expect(eps.body.episodes[0].episodeduration).toBe(1234);
    const recent = await get(`/api/data/return_episodes/${u.alice.id}`, "alice", { since: "2020-01-01T00:00:00Z", limit: 5 });
    const everything = await get(`/api/data/return_episodes/${u.alice.id}`, "alice", { limit: 1 });
    expect(everything.body.total).toBeGreaterThan(355);
    expect(recent.body.total).toBeGreaterThan(5);
    expect(recent.body.total).toBeLessThan(everything.body.total);
    expect(recent.body.episodes).toHaveLength(5);
    expect(recent.body.episodes.every((e: any) => Date.parse(e.episodepubdate) > Date.parse("2020-01-01"))).toBe(true);
  });

  test("per-user settings: categories, auto-download, podcast info overrides", async () => {
    const chem = (await get(`/api/data/return_pods/${u.alice.id}`, "alice")).body.pods.find((p: any) => p.title === "All Things Chemical").podcast_id;
    const q = { user_id: u.alice.id, podcast_id: chem };
    await post("/api/data/add_category", "alice", { ...q, category: "Chemistry" });
    let pod = (await get(`/api/data/return_pods/${u.alice.id}`, "alice")).body.pods.find((p: any) => p.podcast_id === chem);
    expect(pod.categories).toContain("Chemistry");
    await post("/api/data/remove_category", "alice", { ...q, category: "Chemistry" });
    pod = (await get(`/api/data/return_pods/${u.alice.id}`, "alice")).body.pods.find((p: any) => p.podcast_id === chem);
    expect(pod.categories).not.toContain("Chemistry");
    expect((await post("/api/data/get_auto_download_status", "alice", q)).body).toEqual({ auto_download: false });
    expect((await post("/api/data/enable_auto_download", "alice", { ...q, auto_download: true })).status).toBe(200);
    expect((await post("/api/data/get_auto_download_status", "alice", q)).body).toEqual({ auto_download: true });
    expectErrorBody(await post("/api/data/get_auto_download_status", "alice", { ...q, podcast_id: 999999 }), 404);
    const upd = await http()
      .put("/api/data/update_podcast_info")
      .set("Api-Key", u.alice.key)
      .send({ ...q, podcast_name: "My Chemistry" });
    expect(upd.body).toMatchObject({ success: true, message: expect.any(String) });
    const mine = (await get(`/api/data/return_pods/${u.alice.id}`, "alice")).body.pods.find((p: any) => p.podcast_id === chem);
    const bobs = (await get(`/api/data/return_pods/${u.bob.id}`, "bob")).body.pods.find((p: any) => p.podcast_id === chem);
    expect(mine.title).toBe("My Chemistry");
    expect(bobs.title).toBe("All Things Chemical");
  });

  test("a basic-auth feed: credentials used, stored, never returned", async () => {
    const secret = "s3cret-pass";
    feeds.route("/private.xml", (req, res) => {
      if (req.headers.authorization !== "Basic " + Buffer.from(`carol:${secret}`).toString("base64")) {
        res.writeHead(401, { "WWW-Authenticate": "Basic" });
        return void res.end();
      }
      res.end(fixture("handmade_atom_2entries.xml"));
    });
    expectErrorBody(await post("/api/data/add_custom_podcast", "bob", { feed_url: feeds.url + "/private.xml", user_id: u.bob.id }), 400);
    const res = await post("/api/data/add_custom_podcast", "bob", {
      feed_url: feeds.url + "/private.xml",
      user_id: u.bob.id,
      username: "carol",
      password: secret,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, podcast_id: expect.any(Number) });
    const pods = await get(`/api/data/return_pods_extra/${u.bob.id}`, "bob");
    expect(JSON.stringify(pods.body)).not.toContain(secret);
    const details = await get("/api/data/get_podcast_details", "bob", { user_id: u.bob.id, podcast_id: res.body.podcast_id });
    expect(JSON.stringify(details.body)).not.toContain(secret);
    expect(details.body.podcast.title).toBe("Atom Cast");
    expect(details.body.recent_episodes).toHaveLength(2);
    const refresh = await get("/api/data/refresh_pods", "bob");
    expect(refresh.body).toMatchObject({ failed: 0 });
  });

  test("a refresh after the feed gains an item stores exactly one new episode; guid-less items keep their identity", async () => {
    const items = [
      { title: "One", guid: "g1", url: "https://cdn.example.test/1.mp3", date: "2024-01-01T10:00:00Z" },
      { title: "Two", url: "https://cdn.example.test/2.mp3?token=a", date: "2024-01-02T10:00:00Z" },
      { title: "Three", url: "https://cdn.example.test/3.mp3?token=a", date: "2024-01-03T10:00:00Z" },
    ];
    let body = rssFeed("Changing", items);
    feeds.route("/changing.xml", (_req, res) => void res.end(body));
    const add = await addPodcast("alice", "/changing.xml");
    const q = { user_id: u.alice.id, podcast_id: add.body.podcast_id };
    expect((await get("/api/data/podcast_episodes", "alice", q)).body.total).toBe(3);
    events.created.length = 0;

    body = rssFeed("Changing", [...items, { title: "Four", guid: "g4", url: "https://cdn.example.test/4.mp3", date: "2024-01-04T10:00:00Z" }]);
    const refresh = await get("/api/data/refresh_pods", "alice");
    expect(refresh.status).toBe(200);
    expect(refresh.body).toMatchObject({ new_episodes: 1, failed: 0 });
    const eps = await get("/api/data/podcast_episodes", "alice", q);
    expect(eps.body.total).toBe(4);
    expect(eps.body.episodes.map((e: any) => e.episodetitle)).toEqual(["Four", "Three", "Two", "One"]);
    expect(events.created).toEqual([{ podcast_id: q.podcast_id, episode_ids: [eps.body.episodes[0].episodeid] }]);

    // Signed URLs change on every fetch: the items without guid are the same episodes.
    body = body.replace(/token=a/g, "token=b");
    const again = await get("/api/data/refresh_pods", "alice");
    expect(again.body.new_episodes).toBe(0);
    const after = await get("/api/data/podcast_episodes", "alice", q);
    expect(after.body.total).toBe(4);
    expect(after.body.episodes.find((e: any) => e.episodetitle === "Two").episodeurl).toBe("https://cdn.example.test/2.mp3?token=b");
    expect(after.body.episodes.map((e: any) => e.episodeid)).toEqual(eps.body.episodes.map((e: any) => e.episodeid));
    expect((await get(`/api/data/return_pods/${u.alice.id}`, "alice")).body.pods.find((p: any) => p.podcast_id === q.podcast_id).episode_count).toBe(4);
  });

  // The embedded store's files are looked at: the MongoDB path has none.
  (process.env.TEST_STORE === "mongo" ? test.skip : test)("an unchanged feed (304 or same body) writes nothing", async () => {
    const etag = '"v1"';
    feeds.route("/etag.xml", (req, res) => {
      if (req.headers["if-none-match"] === etag) {
        res.writeHead(304, { ETag: etag });
        return void res.end();
      }
      res.writeHead(200, { ETag: etag, "Content-Type": "application/rss+xml" });
      res.end(fixture("podcast_help_desk_rawvoice.rss"));
    });
    const add = await addPodcast("bob", "/etag.xml");
    expect(add.status).toBe(200);
    await get("/api/data/refresh_pods", "bob"); // settles the basic-auth feed's first refresh too
    events.created.length = 0;
    // The stores' files and their write-ahead logs: a write changes a log's size or time (a rewind after a checkpoint keeps the size).
    const files = ["podcasts", "episodes", "episode_states", "subscriptions"]
      .flatMap((f) => [`${f}.sqlite`, `${f}.sqlite-wal`])
      .map((f) => path.join(server.dataDir, f));
    const sizes = () => files.map((f) => [fs.statSync(f).size, fs.statSync(f).mtimeMs]);
    const before = sizes();
    const seen = feeds.requests.length;
    const refresh = await get("/api/data/refresh_pods", "bob");
    expect(refresh.body).toMatchObject({ refreshed: 3, updated: 0, unchanged: 3, failed: 0, new_episodes: 0 });
    const sent = feeds.requests.slice(seen).find((r) => r.url === "/etag.xml");
    expect(sent?.headers["if-none-match"]).toBe(etag);
    expect(sizes()).toEqual(before);
    expect(events.created).toEqual([]);
  });

  test("a feed that breaks later is reported as failed by the refresh, never a 500", async () => {
    let broken = false;
    feeds.route("/breaks.xml", (_req, res) => void res.end(broken ? "<html>oops</html>" : fixture("rss092_enclosures_heraldsun.rss")));
    await addPodcast("bob", "/breaks.xml");
    broken = true;
    const refresh = await get("/api/data/refresh_pods", "bob");
    expect(refresh.status).toBe(200);
    expect(refresh.body.failed).toBe(1);
  });

  test("get_podcast_details_dynamic reads a feed that nobody subscribed without storing it", async () => {
    const q = { user_id: u.alice.id, podcast_title: "Atom", podcast_url: feeds.url + "/atom.xml", podcast_index_id: 0, added: false };
    const res = await get("/api/data/get_podcast_details_dynamic", "alice", q);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ podcastid: 0, podcastname: "Atom Cast", feedurl: q.podcast_url, episodecount: 2, explicit: false, is_vidsite: false });
    expect((await get(`/api/data/return_pods/${u.alice.id}`, "alice")).body.pods.some((p: any) => p.feed_url === q.podcast_url)).toBe(false);
    const known = await get("/api/data/get_podcast_details_dynamic", "alice", { ...q, podcast_url: feeds.url + "/chemical.xml", added: true });
    expect(known.body.podcastid).toBeGreaterThan(0);
    expectErrorBody(await get("/api/data/get_podcast_details_dynamic", "alice", { ...q, podcast_url: feeds.url + "/page.html" }), 400);
    expectErrorBody(await get("/api/data/get_podcast_details_dynamic", "alice", { user_id: u.alice.id, podcast_url: q.podcast_url }), 400);
  });

  test("fetch_podcast_feed reads a feed's episodes without storing them and answers 429 past the per-user ceiling", async () => {
    const res = await get("/api/data/fetch_podcast_feed", "bob", { podcast_feed: feeds.url + "/minimal.xml" });
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(res.body.episodes.length);
    expect(res.body.episodes[0]).toMatchObject({
      feedurl: feeds.url + "/minimal.xml",
      episodetitle: expect.any(String),
      episodeurl: expect.any(String),
      episodeduration: expect.any(Number),
    });
    expectErrorBody(await get("/api/data/fetch_podcast_feed", "bob", { podcast_feed: feeds.url + "/missing.xml" }), 400);
    await get("/api/data/fetch_podcast_feed", "bob", { podcast_feed: feeds.url + "/minimal.xml" });
    expectErrorBody(await get("/api/data/fetch_podcast_feed", "bob", { podcast_feed: feeds.url + "/minimal.xml" }), 429);
    // Another user has their own allowance.
    expect((await get("/api/data/fetch_podcast_feed", "alice", { podcast_feed: feeds.url + "/minimal.xml" })).status).toBe(200);
  });

  test("remove_podcast matches the name case-sensitively; removals announce subscriptions.removed", async () => {
    const feed = feeds.url + "/minimal.xml";
    const body = { user_id: u.alice.id, podcast_name: "podcasting 2.0 namespace example", podcast_url: feed };
    expectErrorBody(await post("/api/data/remove_podcast", "alice", body), 404);
    expectErrorBody(await post("/api/data/remove_podcast", "bob", body), 403);
    const pid = (await get(`/api/data/return_pods/${u.alice.id}`, "alice")).body.pods.find((p: any) => p.feed_url === feed).podcast_id;
    const ok = await post("/api/data/remove_podcast", "alice", { ...body, podcast_name: "Podcasting 2.0 Namespace Example" });
    expect(ok.body).toEqual({ success: true });
    expect(events.removed).toContainEqual({ user_id: u.alice.id, podcast_id: pid });
    expect((await get(`/api/data/return_pods/${u.alice.id}`, "alice")).body.pods.some((p: any) => p.podcast_id === pid)).toBe(false);
    expectErrorBody(await post("/api/data/remove_podcast_name", "alice", { ...body, podcast_name: "Podcasting 2.0 Namespace Example" }), 404);
    const chem = (await get(`/api/data/return_pods/${u.bob.id}`, "bob")).body.pods.find((p: any) => p.title === "All Things Chemical").podcast_id;
    expect((await post("/api/data/remove_podcast_id", "bob", { user_id: u.bob.id, podcast_id: chem })).body).toEqual({ success: true });
    // Alice still has the shared feed and its episodes.
    expect((await get("/api/data/podcast_episodes", "alice", { user_id: u.alice.id, podcast_id: chem })).body.total).toBe(4);
    // Re-subscribing works again and needs no fetch.
    const seen = hits("/chemical.xml");
    expect((await addPodcast("bob", "/chemical.xml")).status).toBe(200);
    expect(hits("/chemical.xml")).toBe(seen);
  });

  test("refresh_pods: a user refreshes their own podcasts, an admin all of them", async () => {
    const mine = await get("/api/data/refresh_pods", "alice");
    const alicePods = (await get(`/api/data/return_pods/${u.alice.id}`, "alice")).body.pods.length;
    expect(mine.body.refreshed).toBe(alicePods);
    const all = await get("/api/data/refresh_pods", "admin");
    expect(all.body.refreshed).toBeGreaterThan(alicePods);
    expectErrorBody(await http().get("/api/data/refresh_pods"), 401);
  });
  test("deleting a user removes their subscriptions and episode states; other subscribers keep the feed", async () => {
    const made = await post("/api/data/add_user", "admin", { fullname: "Carol", username: "carol", email: "carol@example.org", hash_pw: "carol password" });
    const login = await http().get("/api/data/get_key").set("Authorization", basic("carol", "carol password"));
    const carol = { id: made.body.user_id as number, key: login.body.retrieved_key as string };
    const added = await http()
      .post("/api/data/add_podcast")
      .set("Api-Key", carol.key)
      .send({ podcast_values: { pod_feed_url: feeds.url + "/chemical.xml", user_id: carol.id } });
    expect(added.status).toBe(200);
    // A user's views are kept between calls while neither store is written (the same answer), and read again after a write (below);
    // on MongoDB, where other replicas write, nothing is kept.
    const views = await server.broker.call("podcasts.user_subscriptions", { user_id: carol.id });
    if (process.env.TEST_STORE !== "mongo") expect(await server.broker.call("podcasts.user_subscriptions", { user_id: carol.id })).toBe(views);
    await server.broker.call("episodes.update_state", { user_id: carol.id, episode_id: added.body.first_episode_id, saved: true, listen_duration: 30 });
    const episodes: any = server.broker.getLocalService("episodes");
    expect(await episodes.stores.episode_states.count({ query: { user_id: carol.id } })).toBe(1);
    const del = await http().delete(`/api/data/user/delete/${carol.id}`).set("Api-Key", u.admin.key);
    expect(del.status).toBe(200);
    // Events are delivered asynchronously: poll the owners until they have removed the data.
    for (let i = 0; i < 50; i++) {
      const subs: any[] = await server.broker.call("podcasts.user_subscriptions", { user_id: carol.id });
      const states = await episodes.stores.episode_states.count({ query: { user_id: carol.id } });
      if (!subs.length && !states) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(await server.broker.call("podcasts.user_subscriptions", { user_id: carol.id })).toEqual([]);
    expect(await episodes.stores.episode_states.count({ query: { user_id: carol.id } })).toBe(0);
    const alicePods = (await get(`/api/data/return_pods/${u.alice.id}`, "alice")).body.pods;
    expect(alicePods.some((p: any) => p.feed_url === feeds.url + "/chemical.xml")).toBe(true);
  });
});
