/**
 * The user's RSS feed over HTTP: RSS keys, the feed parsed back by a real parser (rss-parser), its
 * enclosures played through the stream route with the same key, limits, sources, a key limited to
 * podcast_ids, and who may read which feed.
 */
import Parser from "rss-parser";
import { config } from "../../shared/config";
import { api, asUsers, expectErrorBody } from "../helpers/client";
import { Loopback, startLoopback } from "../helpers/loopback";
import { audioBytes, mediaRoute } from "../helpers/media";
import { createUsers, fixture, rssFeed } from "../helpers/podcasts";
import { startServer, TestServer } from "../helpers/server";

describe("the user's RSS feed", () => {
  let server: TestServer;
  let peer: Loopback;
  let u: Record<string, { id: number; key: string }>;
  const pods: Record<string, number> = {};
  let rssKey = "";
  const audio = audioBytes(20_000);
  const { get, post } = asUsers(() => ({ url: server.url, users: u }));
  const feed = (user_id: number, query: Record<string, unknown>) => api(server.url).get(`/api/feed/${user_id}`).query(query);
  const parse = (xml: string) => new Parser().parseString(xml);

  beforeAll(async () => {
    Object.assign(config, { refreshInterval: 0 });
    peer = await startLoopback({ "/ep.mp3": mediaRoute(audio), "/minimal.xml": { body: fixture("minimal_itunes_3items.xml") } });
    const items = ["one", "two", "three & four"].map((t, i) => ({
      title: t,
      guid: `g${i}`,
      url: `${peer.url}/ep.mp3?n=${i}`,
      date: `2024-02-0${i + 1}T00:00:00Z`,
    }));
    peer.route("/media.xml", { headers: { "Content-Type": "application/rss+xml" }, body: rssFeed("Media <Show>", items) });
    server = await startServer();
    u = await createUsers(server.url, ["alice", "bob"]);
    for (const name of ["media", "minimal"]) {
      const res = await post("/api/data/add_custom_podcast", "alice", { feed_url: `${peer.url}/${name}.xml`, user_id: u.alice.id });
      pods[name] = res.body.podcast_id;
    }
    const key = await get("/api/data/get_rss_key", "alice", { user_id: u.alice.id });
    expect(key.status).toBe(200);
    rssKey = key.body.rss_key;
  });
  afterAll(async () => {
    await server?.stop();
    await peer?.close();
  });

  test("valid RSS 2.0 with the itunes namespace, newest first, enclosures on the stream route with the key", async () => {
    const res = await feed(u.alice.id, { api_key: rssKey });
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^application\/rss\+xml/);
    expect(res.text).toMatch(/<rss version="2.0" xmlns:itunes="http:\/\/www.itunes.com\/dtds\/podcast-1.0.dtd">/);
    const parsed = await parse(res.text);
    expect(parsed.title).toBe("alice's podcasts");
    expect(parsed.items).toHaveLength(6);
    const dates = parsed.items.map((i) => Date.parse(i.pubDate!));
    expect([...dates].sort((a, b) => b - a)).toEqual(dates);
    expect(parsed.items.map((i) => i.title)).toContain("three & four");
    for (const i of parsed.items) {
      expect(i.enclosure!.url).toMatch(new RegExp(`^${server.url}/api/data/stream/\\d+\\?api_key=${encodeURIComponent(rssKey)}&user_id=${u.alice.id}$`));
      expect(i.guid).toMatch(/-episode-\d+$/);
    }
    const media = parsed.items.find((i) => i.title === "one")!;
    const played = await api(server.url).get(media.enclosure!.url.slice(server.url.length)).buffer(true);
    expect(played.status).toBe(200);
    expect(Buffer.compare(played.body, audio)).toBe(0);
  });

  test("limit and podcast_id", async () => {
    expect((await parse((await feed(u.alice.id, { api_key: rssKey, limit: 2 })).text)).items).toHaveLength(2);
    const one = await parse((await feed(u.alice.id, { api_key: rssKey, podcast_id: pods.media })).text);
    expect(one.title).toBe("Media <Show>");
    expect(one.items.map((i) => i.title)).toEqual(["three & four", "two", "one"]);
    expectErrorBody(await feed(u.alice.id, { api_key: rssKey, limit: 0 }), 400);
    expectErrorBody(await feed(u.alice.id, { api_key: rssKey, source: "nonsense" }), 400);
  });

  test("source=saved lists the saved episodes; a source whose service is not running answers 400", async () => {
    const all = await parse((await feed(u.alice.id, { api_key: rssKey, podcast_id: pods.media })).text);
    const two = Number(all.items.find((i) => i.title === "two")!.enclosure!.url.match(/stream\/(\d+)/)![1]);
    await server.broker.call("episodes.update_state", { user_id: u.alice.id, episode_id: two, saved: true });
    const saved = await parse((await feed(u.alice.id, { api_key: rssKey, source: "saved" })).text);
    expect(saved.items.map((i) => i.title)).toEqual(["two"]);
    const downloads = await parse((await feed(u.alice.id, { api_key: rssKey, source: "downloads" })).text);
    expect(downloads.items).toEqual([]);
    const queue = await feed(u.alice.id, { api_key: rssKey, source: "queue" });
    if (server.broker.getLocalService("queue")) expect((await parse(queue.text)).items).toEqual([]);
    else expectErrorBody(queue, 400);
    expectErrorBody(await feed(u.alice.id, { api_key: rssKey, source: "playlist" }), 400); // playlist_id missing
    if (server.broker.getLocalService("playlists")) {
      const lists = await get("/api/data/get_playlists", "alice", { user_id: u.alice.id });
      const playlist_id = lists.body.playlists[0].playlist_id;
      const res = await feed(u.alice.id, { api_key: rssKey, source: "playlist", playlist_id });
      expect(res.status).toBe(200);
      await parse(res.text);
      const bobs = (await get("/api/data/get_playlists", "bob", { user_id: u.bob.id })).body.playlists[0].playlist_id;
      expect([403, 404]).toContain((await feed(u.alice.id, { api_key: rssKey, source: "playlist", playlist_id: bobs })).status);
    }
  });

  test("a key limited to podcast_ids lists and plays only those", async () => {
    const created = await post("/api/data/create_api_key", "alice", { user_id: u.alice.id, rssonly: true, podcast_ids: [pods.minimal] });
    const limited = created.body.api_key;
    const parsed = await parse((await feed(u.alice.id, { api_key: limited })).text);
    expect(parsed.items).toHaveLength(3);
    expect(parsed.items.every((i) => !i.enclosure!.url.includes("ep.mp3"))).toBe(true);
    expect((await parse((await feed(u.alice.id, { api_key: limited, podcast_id: pods.media })).text)).items).toEqual([]);
    const full = await parse((await feed(u.alice.id, { api_key: rssKey, podcast_id: pods.media })).text);
    const other = full.items[0].enclosure!.url.slice(server.url.length).replace(encodeURIComponent(rssKey), encodeURIComponent(limited));
    expectErrorBody(await api(server.url).get(other), 404);
  });

  test("who may read: no key 401, a bad key 401, another user's feed 403, an RSS key elsewhere 403, the owner 200", async () => {
    expectErrorBody(await feed(u.alice.id, {}), 401);
    expectErrorBody(await feed(u.alice.id, { api_key: "not-a-key" }), 401);
    expectErrorBody(await feed(u.alice.id, { api_key: u.bob.key }), 403);
    expectErrorBody(await api(server.url).get(`/api/data/return_pods/${u.alice.id}`).set("Api-Key", rssKey), 403);
    expectErrorBody(await api(server.url).get("/api/data/get_rss_key").query({ user_id: u.alice.id }).set("Api-Key", rssKey), 403);
    expect((await feed(u.alice.id, { api_key: u.alice.key })).status).toBe(200);
    expect((await feed(u.alice.id, { api_key: u.admin.key })).status).toBe(200);
    const bobs = await get("/api/data/get_rss_key", "bob", { user_id: u.bob.id });
    expectErrorBody(await feed(u.alice.id, { api_key: bobs.body.rss_key }), 403);
    expect((await feed(u.bob.id, { api_key: bobs.body.rss_key })).status).toBe(200);
  });
});
