/**
 * Video channels on the main server (issue 11), black-box over HTTP: channel search, subscribe (409
 * the second time), check, the videos as episodes, refresh by the feeds scheduler, is_vidsite in
 * lists, removal. The search service runs in the same server with a fake yt-dlp.
 */
import { config } from "../../shared/config";
import { asUsers } from "../helpers/client";
import { createUsers } from "../helpers/podcasts";
import { FAKE_YTDLP } from "../helpers/providers";
import { startServer, TestServer } from "../helpers/server";

const CHANNEL_URL = "https://www.youtube.com/channel/UCEABC123";

describe("video channels", () => {
  let server: TestServer;
  let u: Record<string, { id: number; key: string }>;
  const saved = { ...config };
  const { get, post } = asUsers(() => ({ url: server.url, users: u }));
  const subscribe = (who: string, query: Record<string, unknown>) => post(`/api/data/vidsite/subscribe?${new URLSearchParams(query as any)}`, who, {});

  beforeAll(async () => {
    config.refreshInterval = 0; // the refresh below is started by hand
    config.ytdlpPath = FAKE_YTDLP;
    server = await startServer();
    u = await createUsers(server.url, ["alice", "bob"]);
  });
  afterAll(async () => {
    await server?.stop();
    Object.assign(config, saved);
    delete process.env.FAKE_YTDLP_NEW_VIDEO;
  });

  test("search_vidsite_channels: channels with the documented fields, max_results (default 5)", async () => {
    const res = await get("/api/data/search_vidsite_channels", "alice", { query: "pinchflat", user_id: u.alice.id });
    expect(res.status).toBe(200);
    expect(res.body.channels).toHaveLength(3);
    expect(res.body.channels[0]).toEqual({
      channel_id: "UCEABC123",
      name: "PinchflatTestChannel",
      description: "",
      subscriber_count: null,
      thumbnail: expect.any(String),
      url: CHANNEL_URL,
    });
    const two = await get("/api/data/search_vidsite_channels", "alice", { query: "many", user_id: u.alice.id, max_results: 2 });
    expect(two.body.channels).toHaveLength(2);
    expect((await get("/api/data/search_vidsite_channels", "alice", { query: "many", user_id: u.alice.id })).body.channels).toHaveLength(5);
    expect((await get("/api/data/search_vidsite_channels", "alice", { user_id: u.alice.id })).status).toBe(400);
    expect((await get("/api/data/search_vidsite_channels", "alice", { query: "x", user_id: u.bob.id })).status).toBe(403);
  });

  test("subscribe, 409 the second time, check, is_vidsite in lists, the videos as episodes, feed cutoff 30", async () => {
    const res = await subscribe("alice", { channel_id: "UCEABC123", user_id: u.alice.id });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: expect.any(String), podcast_id: expect.any(Number) });
    const podcast_id = res.body.podcast_id;
    expect((await subscribe("alice", { channel_id: "UCEABC123", user_id: u.alice.id })).status).toBe(409);

    const check = (who: string) =>
      get("/api/data/check_vidsite_channel", who, { user_id: u[who].id, channel_name: "PinchflatTestChannel", channel_url: CHANNEL_URL });
    expect((await check("alice")).body).toEqual({ exists: true });
    expect((await check("bob")).body).toEqual({ exists: false });

    const pods = (await get(`/api/data/return_pods/${u.alice.id}`, "alice")).body.pods;
    expect(pods).toEqual([expect.objectContaining({ podcast_id, title: "PinchflatTestChannel", feed_url: CHANNEL_URL, is_vidsite: true, episode_count: 15 })]);
    expect((await get(`/api/data/return_pods_extra/${u.alice.id}`, "alice")).body.pods[0]).toMatchObject({ is_vidsite: true, feed_cutoff_days: 30 });

    const eps = await get("/api/data/vidsite_episodes", "alice", { user_id: u.alice.id, podcast_id });
    expect(eps.status).toBe(200);
    expect(eps.body.episodes).toHaveLength(15);
    const [video] = eps.body.episodes;
    expect(video).toMatchObject({
      episode_id: expect.any(Number),
      episode_title: "Channel video 0",
      episode_description: "Description of video 0",
      episode_url: "https://www.youtube.com/embed/chv00000000a",
      episode_artwork: expect.stringMatching(/^https:/),
      episode_duration: 3725,
      episode_pubdate: expect.any(String),
      listened: false,
      completed: false,
    });
    // The documents' fields first, then the list item PinePods' web client reads a video as.
    expect(Object.keys(video).slice(0, 8)).toEqual([
      "episode_id",
      "episode_title",
      "episode_description",
      "episode_url",
      "episode_artwork",
      "episode_duration",
      "episode_pubdate",
      "listened",
    ]);
    expect(video).toMatchObject({
      episodeid: video.episode_id,
      podcastid: podcast_id,
      episodetitle: "Channel video 0",
      episodeduration: 3725,
      is_vidsite: true,
      is_youtube: true,
    });
    const list = await get("/api/data/podcast_episodes", "alice", { user_id: u.alice.id, podcast_id });
    expect(list.body.episodes.every((e: any) => e.is_vidsite === true)).toBe(true);
    expect((await get("/api/data/vidsite_episodes", "bob", { user_id: u.bob.id, podcast_id })).status).toBe(404);
  });

  test("the scheduler's refresh picks up a new video of a subscribed channel", async () => {
    process.env.FAKE_YTDLP_NEW_VIDEO = "1";
    await server.broker.cacher!.clean(); // the search service keeps channel details for SEARCH_CACHE_TTL
    const summary = await server.broker.getLocalService("feeds").runFullRefresh();
    expect(summary).toMatchObject({ updated: 1, failed: 0, new_episodes: 1 });
    const { podcast_id } = (await get(`/api/data/return_pods/${u.alice.id}`, "alice")).body.pods[0];
    const eps = await get("/api/data/vidsite_episodes", "alice", { user_id: u.alice.id, podcast_id });
    expect(eps.body.episodes[0].episode_title).toBe("A new video");
    // Nothing changed since: no write.
    await server.broker.cacher!.clean();
    expect(await server.broker.getLocalService("feeds").runFullRefresh()).toMatchObject({ updated: 0, unchanged: 1 });
  });

  test("bad and unknown channels; remove_vidsite_channel, 404 when not subscribed", async () => {
    expect((await subscribe("bob", { channel_id: "-rf", user_id: u.bob.id })).status).toBe(400);
    expect((await subscribe("bob", { channel_id: "UCnotfound", user_id: u.bob.id })).status).toBe(404);
    expect((await subscribe("bob", { channel_id: "UCEABC123", user_id: u.alice.id })).status).toBe(403);
    const remove = (who: string) =>
      post("/api/data/remove_vidsite_channel", who, { user_id: u[who].id, channel_name: "PinchflatTestChannel", channel_url: CHANNEL_URL });
    expect((await remove("bob")).status).toBe(404);
    const res = await remove("alice");
    expect([res.status, res.body]).toEqual([200, { success: true }]);
    expect((await get(`/api/data/return_pods/${u.alice.id}`, "alice")).body.pods).toEqual([]);
  });
});
