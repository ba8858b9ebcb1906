/** Shared episode links over HTTP: share, read without a key, expiry, delete, and who may do what. */
import { config } from "../../shared/config";
import { api, asUsers, expectErrorBody } from "../helpers/client";
import { freezeClock } from "../helpers/clock";
import { Loopback, startLoopback } from "../helpers/loopback";
import { createUsers, rssFeed } from "../helpers/podcasts";
import { startServer, TestServer } from "../helpers/server";

describe("shared episode links", () => {
  let server: TestServer;
  let peer: Loopback;
  let u: Record<string, { id: number; key: string }>;
  let episodeId = 0;
  const { get, post } = asUsers(() => ({ url: server.url, users: u }));
  const byUrl = (key: string) => api(server.url).get(`/api/data/episode_by_url/${key}`);
  const del = (who: string, body: object) => api(server.url).delete("/api/data/delete_shared_link").set("Api-Key", u[who].key).send(body);

  beforeAll(async () => {
    Object.assign(config, { refreshInterval: 0 });
    peer = await startLoopback({});
    peer.route("/feed.xml", {
      body: rssFeed("Shared Show", [{ title: "The <one>", guid: "g1", url: "https://media.example/one.mp3?token=x", date: "2024-03-01T00:00:00Z" }]),
    });
    server = await startServer();
    u = await createUsers(server.url, ["alice", "bob"]);
    const added = await post("/api/data/add_custom_podcast", "alice", { feed_url: `${peer.url}/feed.xml`, user_id: u.alice.id });
    episodeId = (await get("/api/data/podcast_episodes", "alice", { user_id: u.alice.id, podcast_id: added.body.podcast_id })).body.episodes[0].episodeid;
  });
  afterAll(async () => {
    await server?.stop();
    await peer?.close();
  });

  test("share, then anyone with the url_key reads the episode without a key; sharing again gives the same link", async () => {
    const shared = await post(`/api/data/share_episode/${episodeId}`, "alice", {});
    expect(shared.status).toBe(200);
    expect(shared.body).toMatchObject({ url_key: expect.stringMatching(/^[A-Za-z0-9_-]{32}$/), episode_id: episodeId, expires_at: null });
    expect(shared.body.share_path).toBe(`/api/data/episode_by_url/${shared.body.url_key}`);
    expect((await post(`/api/data/share_episode/${episodeId}`, "alice", {})).body.url_key).toBe(shared.body.url_key);
    const read = await byUrl(shared.body.url_key);
    expect(read.status).toBe(200);
    expect(read.body.episode).toMatchObject({
      episodeid: episodeId,
      episodetitle: "The <one>",
      podcastname: "Shared Show",
      episodeurl: "https://media.example/one.mp3?token=x",
    });
    expect(read.body.stream_url).toBe("https://media.example/one.mp3?token=x");
    expect(read.body.episode).not.toHaveProperty("listenduration");
  });

  test("an expired link answers 404; unknown and malformed keys 404 / 400", async () => {
    const shared = await post(`/api/data/share_episode/${episodeId}`, "alice", { expires_in_days: 2 });
    expect(Date.parse(shared.body.expires_at) - Date.now()).toBeGreaterThan(86_400_000);
    expect((await byUrl(shared.body.url_key)).status).toBe(200);
    freezeClock(Date.now() + 3 * 86_400_000);
    try {
      expectErrorBody(await byUrl(shared.body.url_key), 404);
    } finally {
      jest.useRealTimers();
    }
    const fresh = await post(`/api/data/share_episode/${episodeId}`, "alice", {});
    expect(fresh.body.url_key).not.toBe(shared.body.url_key);
    expectErrorBody(await byUrl("A".repeat(32)), 404);
    expectErrorBody(await byUrl("bad key!"), 400);
  });

  test("who may share and delete: 404 for an episode the caller cannot see, 403 for another user's link, 401 without a key", async () => {
    expectErrorBody(await post(`/api/data/share_episode/${episodeId}`, "bob", {}), 404);
    expectErrorBody(await post("/api/data/share_episode/999999", "alice", {}), 404);
    expectErrorBody(await post("/api/data/share_episode/abc", "alice", {}), 400);
    expectErrorBody(await post(`/api/data/share_episode/${episodeId}`, "alice", { expires_in_days: -1 }), 400);
    expectErrorBody(await api(server.url).post(`/api/data/share_episode/${episodeId}`), 401);
    const { url_key } = (await post(`/api/data/share_episode/${episodeId}`, "alice", {})).body;
    expectErrorBody(await del("bob", { url_key }), 403);
    expectErrorBody(await del("alice", {}), 400);
    const gone = await del("alice", { url_key });
    expect(gone.status).toBe(200);
    expectErrorBody(await byUrl(url_key), 404);
    expectErrorBody(await del("alice", { url_key }), 404);
    const again = (await post(`/api/data/share_episode/${episodeId}`, "alice", {})).body.url_key;
    expect((await del("alice", { episode_id: episodeId })).status).toBe(200);
    expectErrorBody(await byUrl(again), 404);
  });
});
