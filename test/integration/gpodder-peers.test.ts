/**
 * Server to server: a second instance of this server syncs against the first with its own clients, podsync
 * (gPodder API v2) for alice and cloudsync (Nextcloud gpoddersync, signed in through the first one's Login
 * Flow v2 page) for bob, both ways: subscriptions and play positions made on either side reach the other
 * library. Both instances run in this process on their own ports and data directories; feeds come from
 * a loopback server.
 */
import { config } from "../../shared/config";
import { api, basic } from "../helpers/client";
import { Loopback, startLoopback } from "../helpers/loopback";
import { createUsers, episodeByUrl, libraryFeeds, serveTwoEpisodeFeeds } from "../helpers/podcasts";
import { startServer, TestServer } from "../helpers/server";
import { until } from "../helpers/wait";

const PASSWORD = "a long password"; // createUsers' password

describe("server to server: podsync and cloudsync of a second instance against this sync server", () => {
  let first: TestServer;
  let second: TestServer;
  let feeds: Loopback;
  let one: Record<string, { id: number; key: string }>;
  let two: Record<string, { id: number; key: string }>;
  const feed = (n: number) => `${feeds.url}/peer-${n}.xml`;
  const episodeUrl = (n: number, e: number) => `${feeds.url}/media/peer-${n}-${e}.mp3`;
  const as = (server: () => TestServer, users: () => Record<string, { id: number; key: string }>) => ({
    get: (p: string, who: string, query: Record<string, unknown> = {}) => api(server().url).get(p).query(query).set("Api-Key", users()[who].key),
    post: (p: string, who: string, body: unknown) =>
      api(server().url)
        .post(p)
        .set("Api-Key", users()[who].key)
        .send(body as object),
  });
  const a = as(
    () => first,
    () => one,
  );
  const b = as(
    () => second,
    () => two,
  );
  const library = (server: TestServer, user: { id: number; key: string }) => libraryFeeds(server.url, user);
  const position = (server: TestServer, user: { id: number; key: string }, n: number, e: number) => episodeByUrl(server.url, user, feed(n), episodeUrl(n, e));

  beforeAll(async () => {
    Object.assign(config, { refreshInterval: 0, syncInterval: 0, gpodderRetrySeconds: 1 });
    feeds = await startLoopback();
    serveTwoEpisodeFeeds(feeds, "peer", 6);
    first = await startServer();
    one = await createUsers(first.url, ["alice", "bob"]);
    second = await startServer();
    two = await createUsers(second.url, ["alice", "bob"]);
  });
  afterAll(async () => {
    await second?.stop();
    await first?.stop();
    await feeds?.close();
  });

  test("podsync: subscriptions and positions both ways", async () => {
    // Here (first): feed 0, and a phone's play of it. There (second): feed 1.
    await a.post("/api/data/add_podcast", "alice", { podcast_values: { pod_feed_url: feed(0), user_id: one.alice.id } });
    const now = new Date().toISOString().slice(0, 19);
    await api(first.url)
      .post("/api/2/episodes/alice.json")
      .set("Authorization", basic("alice", PASSWORD))
      .send([{ podcast: feed(0), episode: episodeUrl(0, 1), device: "phone", action: "play", timestamp: now, started: 0, position: 1200, total: 3000 }]);
    await until(async () => (await position(first, one.alice, 0, 1))?.listenduration === 1200, 10_000, 100);
    await b.post("/api/data/add_podcast", "alice", { podcast_values: { pod_feed_url: feed(1), user_id: two.alice.id } });

    expect(
      (await b.post("/api/data/add_podsync_server", "alice", { podsync_url: first.url, podsync_username: "alice", podsync_password: PASSWORD })).status,
    ).toBe(200);
    const synced = await b.post("/api/podsync/sync", "alice", {});
    expect(synced.status).toBe(200);
    expect(synced.body).toMatchObject({ success: true, subscriptions_added_here: 1, subscriptions_uploaded: 1 });
    expect(await library(second, two.alice)).toEqual([feed(0), feed(1)]);
    expect((await position(second, two.alice, 0, 1)).listenduration).toBe(1200);
    // The second instance's upload is applied to the first library.
    await until(async () => JSON.stringify(await library(first, one.alice)) === JSON.stringify([feed(0), feed(1)]), 10_000, 100);

    // A position recorded there reaches the first library at the next sync.
    const ep = await position(second, two.alice, 1, 2);
    await b.post("/api/data/record_listen_duration", "alice", { episode_id: ep.episodeid, user_id: two.alice.id, listen_duration: 300 });
    expect((await b.post("/api/podsync/sync", "alice", {})).body.actions_uploaded).toBeGreaterThanOrEqual(1);
    await until(async () => (await position(first, one.alice, 1, 2))?.listenduration === 300, 10_000, 100);
  });

  test("cloudsync: signed in through the first instance's Login Flow page, subscriptions and positions both ways", async () => {
    await a.post("/api/data/add_podcast", "bob", { podcast_values: { pod_feed_url: feed(2), user_id: one.bob.id } });
    await b.post("/api/data/add_podcast", "bob", { podcast_values: { pod_feed_url: feed(3), user_id: two.bob.id } });
    const start = await b.post("/api/data/initiate_cloudsync_login", "bob", { user_id: two.bob.id, cloudsync_url: first.url });
    expect(start.status).toBe(200);
    // Bob opens the page of the first instance and grants access.
    const page = await api(start.body.login_url).get("");
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)![1];
    const cookie = String(page.headers["set-cookie"][0]).split(";")[0];
    const granted = await api(start.body.login_url).post("").type("form").set("Cookie", cookie).send({ user: "bob", password: PASSWORD, csrf });
    expect(granted.status).toBe(200);
    const added = await b.post("/api/data/add_cloudsync_server", "bob", {
      user_id: two.bob.id,
      token: start.body.token,
      poll_endpoint: start.body.poll_endpoint,
      cloudsync_url: first.url,
    });
    expect(added.body.status).toBe("connected");

    const synced = await b.get("/api/data/refresh_cloudsync_subscriptions", "bob");
    expect(synced.body).toMatchObject({ subscriptions_added_here: 1, subscriptions_uploaded: 1 });
    expect(await library(second, two.bob)).toEqual([feed(2), feed(3)]);
    await until(async () => JSON.stringify(await library(first, one.bob)) === JSON.stringify([feed(2), feed(3)]), 10_000, 100);

    // Positions: recorded on the first instance, and on the second.
    const here = await position(first, one.bob, 2, 1);
    await a.post("/api/data/record_listen_duration", "bob", { episode_id: here.episodeid, user_id: one.bob.id, listen_duration: 700 });
    const there = await position(second, two.bob, 3, 2);
    await b.post("/api/data/record_listen_duration", "bob", { episode_id: there.episodeid, user_id: two.bob.id, listen_duration: 900 });
    await until(async () => (await b.post("/api/podsync/sync", "bob", {})).status === 200, 10_000, 100);
    await until(async () => (await position(second, two.bob, 2, 1))?.listenduration === 700, 10_000, 200);
    await until(async () => (await position(first, one.bob, 3, 2))?.listenduration === 900, 10_000, 200);
  });
});
