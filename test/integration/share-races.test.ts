/** One shared link per user and episode, also when shares race (two replicas, or requests interleaving in one process). */
import { config } from "../../shared/config";
import { asUsers } from "../helpers/client";
import { Loopback, startLoopback } from "../helpers/loopback";
import { createUsers, rssFeed } from "../helpers/podcasts";
import { startServer, TestServer } from "../helpers/server";

describe("share_episode under concurrency", () => {
  let server: TestServer;
  let peer: Loopback;
  let u: Record<string, { id: number; key: string }>;
  let episodeId = 0;
  const { get, post } = asUsers(() => ({ url: server.url, users: u }));

  beforeAll(async () => {
    Object.assign(config, { refreshInterval: 0 });
    peer = await startLoopback({});
    peer.route("/feed.xml", { body: rssFeed("Race Show", [{ title: "One", guid: "g1", url: "https://media.example/one.mp3", date: "2024-03-01T00:00:00Z" }]) });
    server = await startServer();
    u = await createUsers(server.url, ["alice"]);
    const added = await post("/api/data/add_custom_podcast", "alice", { feed_url: `${peer.url}/feed.xml`, user_id: u.alice.id });
    episodeId = (await get("/api/data/podcast_episodes", "alice", { user_id: u.alice.id, podcast_id: added.body.podcast_id })).body.episodes[0].episodeid;
  });
  afterAll(async () => {
    await server?.stop();
    await peer?.close();
  });

  test("shares of one episode at once give one link", async () => {
    const meta = { user: { id: u.alice.id, isAdmin: false, keyId: 0, rssOnly: false, podcastIds: null } };
    const answers: any[] = await Promise.all(
      Array.from({ length: 10 }, () => server.broker.call("sharing.share_episode", { episode_id: episodeId }, { meta })),
    );
    expect(new Set(answers.map((a) => a.url_key)).size).toBe(1);
    const links: any[] = await (server.broker.getLocalService("sharing") as any).adapter.find({ query: { user_id: u.alice.id, episode_id: episodeId } });
    expect(links).toHaveLength(1);
    // Over HTTP too, and sharing again later gives the same key.
    const http = await Promise.all(Array.from({ length: 5 }, () => post(`/api/data/share_episode/${episodeId}`, "alice", {})));
    expect(http.map((r) => r.body.url_key)).toEqual(Array(5).fill(answers[0].url_key));
  });
});
