/**
 * Feeds and episodes that move, black-box over HTTP with feeds on loopback that change between refreshes: a 301 and
 * an itunes:new-feed-url move the podcast for every subscriber (one podcast, the old URL an alias), an enclosure with
 * a new address or query string stays the same episode with its listening state, and a gPodder device (gPodder's own
 * client library) follows the move: it is told, its old URL is answered with the new one in update_urls, and the
 * play actions it sent under the old addresses still apply.
 */
import { config } from "../../shared/config";
import { asUsers } from "../helpers/client";
import { Loopback, startLoopback } from "../helpers/loopback";
import { mygpoclient, pythonWithMygpoclient } from "../helpers/mygpoclient";
import { createUsers, libraryFeeds, rssFeed } from "../helpers/podcasts";
import { startServer, TestServer } from "../helpers/server";
import { until } from "../helpers/wait";

const PASSWORD = "a long password"; // createUsers' password
const DATE = "2024-03-01T00:00:00Z";

describe("feeds and episodes that move", () => {
  let server: TestServer;
  let feeds: Loopback;
  let u: Record<string, { id: number; key: string }>;
  const { get, post } = asUsers(() => ({ url: server.url, users: u }));
  const at = (p: string) => `${feeds.url}${p}`;
  const podcasts = async (who: string) => (await get(`/api/data/return_pods/${u[who].id}`, who)).body.pods as any[];
  const episodes = async (who: string, podcast_id: number) =>
    (await get(`/api/data/podcast_episodes?user_id=${u[who].id}&podcast_id=${podcast_id}`, who)).body.episodes as any[];
  const refresh = async () => expect((await get("/api/data/refresh_pods", "admin")).status).toBe(200);
  const subscribe = async (who: string, url: string) => {
    const res = await post("/api/data/add_podcast", who, { podcast_values: { pod_feed_url: url, user_id: u[who].id } });
    expect(res.status).toBe(200);
    return res.body.podcast_id as number;
  };

  beforeAll(async () => {
    Object.assign(config, { refreshInterval: 0, syncInterval: 0, gpodderRetrySeconds: 1 });
    feeds = await startLoopback();
    server = await startServer();
    u = await createUsers(server.url, ["alice", "bob", "carol"]);
  });
  afterAll(async () => {
    await server?.stop();
    await feeds?.close();
  });

  test("a 301 moves the podcast for every subscriber: one podcast, the old URL an alias, listening kept", async () => {
    const item = { title: "Move 1", guid: "move-1", url: at("/media/move-1.mp3"), date: DATE, duration: 600 };
    feeds.route("/old.xml", { body: rssFeed("Moving show", [item]) });
    const id = await subscribe("alice", at("/old.xml"));
    expect(await subscribe("bob", at("/old.xml"))).toBe(id);
    const [ep] = await episodes("alice", id);
    expect((await post("/api/data/record_listen_duration", "alice", { episode_id: ep.episodeid, user_id: u.alice.id, listen_duration: 321 })).status).toBe(200);

    // The feed moves for good, its content unchanged (a CDN move): the refresh follows the 301.
    feeds.route("/new.xml", { body: rssFeed("Moving show", [item]) });
    feeds.route("/old.xml", { status: 301, headers: { Location: "/new.xml" } });
    await refresh();
    for (const who of ["alice", "bob"]) {
      const pods = await podcasts(who);
      expect(pods.map((p) => [p.podcast_id, p.feed_url])).toEqual([[id, at("/new.xml")]]);
    }
    const [after] = await episodes("alice", id);
    expect(after.episodeid).toBe(ep.episodeid);
    expect(after.listenduration).toBe(321);
    // Subscribing to the old address (which still redirects, or not) finds the same podcast.
    expect(await subscribe("carol", at("/old.xml"))).toBe(id);
    feeds.route("/old.xml", { status: 404 });
    expect((await post("/api/data/add_podcast", "carol", { podcast_values: { pod_feed_url: at("/old.xml"), user_id: u.carol.id } })).status).toBe(409);
    expect(await libraryFeeds(server.url, u.carol)).toEqual([at("/new.xml")]);
  });

  test("a temporary redirect moves nothing", async () => {
    const item = { title: "Stay 1", guid: "stay-1", url: at("/media/stay-1.mp3"), date: DATE };
    feeds.route("/stay.xml", { body: rssFeed("Staying show", [item]) });
    const id = await subscribe("alice", at("/stay.xml"));
    feeds.route("/elsewhere.xml", { body: rssFeed("Staying show", [item, { ...item, title: "Stay 2", guid: "stay-2", url: at("/media/stay-2.mp3") }]) });
    feeds.route("/stay.xml", { status: 302, headers: { Location: "/elsewhere.xml" } });
    await refresh();
    const pod = (await podcasts("alice")).find((p) => p.podcast_id === id);
    expect(pod.feed_url).toBe(at("/stay.xml"));
    expect(await episodes("alice", id)).toHaveLength(2);
  });

  test("itunes:new-feed-url moves the podcast once the new address answers a feed", async () => {
    const item = { title: "Renamed 1", guid: "renamed-1", url: at("/media/renamed-1.mp3"), date: DATE };
    const announcing = (target: string) =>
      rssFeed("Renamed show", [item]).replace("<channel>", `<channel><itunes:new-feed-url>${target}</itunes:new-feed-url>`);
    feeds.route("/renamed-old.xml", { body: rssFeed("Renamed show", [item]) });
    const id = await subscribe("bob", at("/renamed-old.xml"));
    // Announced before the new address works: nothing moves.
    feeds.route("/renamed-old.xml", { body: announcing(at("/renamed-new.xml")) });
    await refresh();
    expect((await podcasts("bob")).find((p) => p.podcast_id === id).feed_url).toBe(at("/renamed-old.xml"));
    feeds.route("/renamed-new.xml", { body: rssFeed("Renamed show", [item]) });
    feeds.route("/renamed-old.xml", { body: announcing(at("/renamed-new.xml")) + "\n" });
    await refresh();
    expect((await podcasts("bob")).find((p) => p.podcast_id === id).feed_url).toBe(at("/renamed-new.xml"));
  });

  test("an enclosure that moves, or gets a new query string, is the same episode with its state (guid or not)", async () => {
    const withGuid = { title: "Cdn 1", guid: "cdn-1", url: at("/media/cdn-1.mp3"), date: DATE, duration: 900 };
    const guidless = { title: "Bare 1", url: at("/media/bare-1.mp3?updated=1"), date: DATE, duration: 900 };
    feeds.route("/cdn.xml", { body: rssFeed("Cdn show", [withGuid, guidless]) });
    const id = await subscribe("alice", at("/cdn.xml"));
    const before = await episodes("alice", id);
    for (const e of before)
      expect((await post("/api/data/record_listen_duration", "alice", { episode_id: e.episodeid, user_id: u.alice.id, listen_duration: 111 })).status).toBe(
        200,
      );
    expect((await post("/api/data/save_episode", "alice", { episode_id: before[0].episodeid, user_id: u.alice.id })).status).toBe(200);
    feeds.route("/cdn.xml", {
      body: rssFeed("Cdn show", [
        { ...withGuid, url: "http://cdn.example.test/media/cdn-1.mp3" },
        { ...guidless, url: at("/media/bare-1.mp3?updated=2") },
      ]),
    });
    await refresh();
    const after = await episodes("alice", id);
    expect(after.map((e) => e.episodeid).sort()).toEqual(before.map((e) => e.episodeid).sort());
    expect(after.map((e) => e.listenduration)).toEqual([111, 111]);
    expect(after.find((e) => e.episodeid === before[0].episodeid).saved).toBe(true);
    expect(after.map((e) => e.episodeurl).sort()).toEqual(["http://cdn.example.test/media/cdn-1.mp3", at("/media/bare-1.mp3?updated=2")].sort());
  });

  test("gPodder devices follow a move: told of it, the old URL answered with the new one, old actions applied", async () => {
    pythonWithMygpoclient();
    const old = at("/gp-old.xml");
    const moved = at("/gp-new.xml");
    const items = [1, 2].map((n) => ({ title: `Gp ${n}`, guid: `gp-${n}`, url: at(`/media/gp-${n}.mp3`), date: `2024-03-0${n}T00:00:00Z`, duration: 1000 }));
    feeds.route("/gp-old.xml", { body: rssFeed("Gp show", items) });
    const client = (calls: [string, ...unknown[]][]) => mygpoclient(server.url, "bob", PASSWORD, calls);
    const [first] = await client([["update_subscriptions", "phone", [old], []]]);
    await until(async () => (await libraryFeeds(server.url, u.bob)).includes(old), 20_000, 100);
    const [{ since }] = await client([["pull_subscriptions", "phone", 0]]);
    expect(since).toBeGreaterThanOrEqual(first.since);

    // The feed moves (a 308), and its first episode's enclosure moves to a CDN.
    feeds.route("/gp-new.xml", { body: rssFeed("Gp show", [{ ...items[0], url: "http://cdn.example.test/gp-1.mp3" }, items[1]]) });
    feeds.route("/gp-old.xml", { status: 308, headers: { Location: moved } });
    await refresh();
    await until(async () => (await libraryFeeds(server.url, u.bob)).includes(moved), 10_000, 100);
    // The phone is told: the old URL removed, the new one added.
    await until(async () => (await client([["pull_subscriptions", "phone", since]]))[0].add.includes(moved), 10_000, 100);
    const [change] = await client([["pull_subscriptions", "phone", since]]);
    expect(change.add).toEqual([moved]);
    expect(change.remove).toEqual([old]);
    // A device that still sends the old URL is answered with the new one, and nothing is duplicated.
    const [laptop] = await client([["update_subscriptions", "laptop", [old], []]]);
    expect(laptop.update_urls).toEqual([[old, moved]]);
    expect((await libraryFeeds(server.url, u.bob)).filter((url) => url.includes("/gp-"))).toEqual([moved]);
    // Play actions sent under the old feed URL and the old enclosure URL (without guid) still reach the episode.
    const play = (episode: string, position: number) => ({
      podcast: old,
      episode,
      device: "laptop",
      action: "play",
      timestamp: "2024-04-01T10:00:00",
      started: 0,
      position,
      total: 1000,
    });
    await client([["upload_episode_actions", [play(items[0].url, 410), play(items[1].url, 420)]]]);
    const pod = (await podcasts("bob")).find((p) => p.feed_url === moved);
    await until(async () => (await episodes("bob", pod.podcast_id)).every((e) => e.listenduration > 0), 10_000, 100);
    const eps = await episodes("bob", pod.podcast_id);
    expect(eps).toHaveLength(2);
    expect(Object.fromEntries(eps.map((e) => [e.episodetitle, e.listenduration]))).toEqual({ "Gp 1": 410, "Gp 2": 420 });
  });
});
