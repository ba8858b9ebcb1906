/**
 * Podcasting 2.0 data over HTTP: the namespace's official example feed (its example.com links moved
 * onto loopback) with chapters fetched once and cached, the channel's data, transcripts of every format,
 * the outbound policy on a user's transcript URL, and who may read what.
 */
import fs from "fs";
import path from "path";
import { config } from "../../shared/config";
import { asUsers, expectErrorBody } from "../helpers/client";
import { Loopback, startLoopback } from "../helpers/loopback";
import { createUsers, fixture } from "../helpers/podcasts";
import { startServer, TestServer } from "../helpers/server";

const FIXTURES = path.join(__dirname, "..", "fixtures");
const file = (dir: string, name: string) => fs.readFileSync(path.join(FIXTURES, dir, name), "utf8");

describe("Podcasting 2.0 data", () => {
  let server: TestServer;
  let peer: Loopback;
  let u: Record<string, { id: number; key: string }>;
  let podcastId = 0;
  const ep: Record<string, number> = {};
  const { get, post } = asUsers(() => ({ url: server.url, users: u }));
  const hits = (p: string) => peer.requests.filter((r) => r.url === p).length;

  beforeAll(async () => {
    Object.assign(config, { refreshInterval: 0 });
    peer = await startLoopback({
      "/ex/ep3_chapters.json": { headers: { "Content-Type": "application/json" }, body: file("chapters", "podcast_namespace_chapters_example.json") },
      "/ex/ep2_chapters.json": { body: "not json" },
      "/t/a.srt": { body: file("transcripts", "podcast_namespace_transcript_example.srt") },
      "/t/a.vtt": { headers: { "Content-Type": "text/vtt" }, body: file("transcripts", "podcast_namespace_transcript_example.vtt") },
      "/t/a.json": { headers: { "Content-Type": "application/json" }, body: file("transcripts", "podcast_namespace_transcript_example.json") },
      "/t/a.html": { headers: { "Content-Type": "text/html" }, body: file("transcripts", "podcast_namespace_transcript_example.html") },
      "/t/subtitles": { body: file("transcripts", "pinchflat_ytdlp_subtitle.srt") },
    });
    peer.route("/feed.xml", { body: fixture("podcast_namespace_official_example.xml").replace(/https:\/\/example\.com\//g, `${peer.url}/ex/`) });
    server = await startServer();
    u = await createUsers(server.url, ["alice", "bob"]);
    podcastId = (await post("/api/data/add_custom_podcast", "alice", { feed_url: `${peer.url}/feed.xml`, user_id: u.alice.id })).body.podcast_id;
    const eps = await get("/api/data/podcast_episodes", "alice", { user_id: u.alice.id, podcast_id: podcastId });
    for (const e of eps.body.episodes) ep[e.episodeurl.match(/file-0(\d)/)[1]] = e.episodeid;
  });
  afterAll(async () => {
    await server?.stop();
    await peer?.close();
  });

  test("an episode's data: chapters fetched and read (once: cached), transcripts, people, soundbites, location", async () => {
    const res = await get("/api/data/fetch_podcasting_2_data", "alice", { episode_id: ep["3"], user_id: u.alice.id });
    expect(res.status).toBe(200);
    expect(res.body.chapters[0]).toEqual({ start_time: 0, startTime: 0, end_time: null, title: "Intro", img: null, url: null, toc: true });
    expect(res.body.chapters.find((c: any) => c.title === "Namespace")).toMatchObject({
      start_time: 410,
      url: "https://github.com/Podcastindex-org/podcast-namespace",
    });
    expect(res.body.transcripts).toEqual(
      expect.arrayContaining([expect.objectContaining({ url: `${peer.url}/ex/episode1/transcript.vtt`, type: "text/vtt", language: "es" })]),
    );
    expect(res.body.people.map((p: any) => p.name)).toEqual(["Adam Curry", "Dave Jones", "Becky Smith"]);
    expect(res.body.soundbites).toEqual([{ start_time: 33.833, duration: 60, title: null }]);
    expect(res.body.location[0]).toMatchObject({ name: "Birmingham Civil Rights Museum", country: "US" });
    await get("/api/data/fetch_podcasting_2_data", "alice", { episode_id: ep["3"], user_id: u.alice.id });
    expect(hits("/ex/ep3_chapters.json")).toBe(1);
  });

  test("a chapters document that cannot be read leaves chapters empty with the reason", async () => {
    const res = await get("/api/data/fetch_podcasting_2_data", "alice", { episode_id: ep["2"], user_id: u.alice.id });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ chapters: [], chapters_error: expect.stringMatching(/cannot be read/) });
  });

  test("a podcast's data: guid, locked, funding, location, medium", async () => {
    const res = await get("/api/data/fetch_podcasting_2_pod_data", "alice", { podcast_id: podcastId, user_id: u.alice.id });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ guid: "y0ur-gu1d-g035-h3r3", medium: "podcast", locked_owner: "podcastowner@example.com" });
    expect(res.body.locked).toBeTruthy();
    expect(res.body.funding).toEqual([{ url: `${peer.url}/ex/donate`, text: "Support the show!", description: "Support the show!" }]);
    expect(res.body.location[0]).toMatchObject({ name: "Austin, TX" });
  });

  test("a value recipient without a name attribute answers an empty name, as the answer's schema has a string", async () => {
    const feed = fixture("podcast_namespace_official_example.xml")
      .replace(/https:\/\/example\.com\//g, `${peer.url}/ex/`)
      .replace(/<podcast:valueRecipient name="[^"]*"/, "<podcast:valueRecipient");
    expect(feed).toContain("<podcast:valueRecipient type=");
    peer.route("/noname.xml", { body: feed.replace("y0ur-gu1d-g035-h3r3", "n0-n4m3-gu1d") });
    const added = await post("/api/data/add_custom_podcast", "alice", { feed_url: `${peer.url}/noname.xml`, user_id: u.alice.id });
    const res = await get("/api/data/fetch_podcasting_2_pod_data", "alice", { podcast_id: added.body.podcast_id, user_id: u.alice.id });
    expect(res.status).toBe(200);
    expect(res.body.value[0].recipients[0]).toMatchObject({ name: "", split: expect.any(String) });
    expect(res.body.value[0].recipients[1].name).toEqual(expect.any(String));
  });

  test.each([
    ["/t/a.srt", "srt", { start: 0.179, speaker: "Travis" }],
    ["/t/a.vtt", "vtt", { start: 0, speaker: "Sarah" }],
    ["/t/a.json", "json", { start: 0.5, speaker: "Darth Vader", text: "I" }],
    ["/t/a.html", "html", { start: 0, speaker: "Travis" }],
    ["/t/subtitles", "srt", { start: 0, end: 2.5, text: "Welcome to the Example Subtitle File!" }],
  ])("fetch_transcript %s reads as %s", async (p, format, first) => {
    const res = await post("/api/data/fetch_transcript", "alice", { url: peer.url + p });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, format, segments: expect.any(Array), text: expect.any(String) });
    expect(res.body.segments[0]).toMatchObject(first);
  });

  test("a user's transcript URL never reaches a private address the operator has not allowed; an admin's may", async () => {
    config.outboundAllowPrivate = "false";
    try {
      expectErrorBody(await post("/api/data/fetch_transcript", "bob", { url: `${peer.url}/t/a.vtt?x=1` }), 400);
      expect((await post("/api/data/fetch_transcript", "admin", { url: `${peer.url}/t/a.vtt?x=1` })).status).toBe(200);
    } finally {
      config.outboundAllowPrivate = "127.0.0.1/32";
    }
  });

  test("who may read: 404 for episodes and podcasts the caller does not have, 403 for another user's id, 400 for bad input", async () => {
    expectErrorBody(await get("/api/data/fetch_podcasting_2_data", "bob", { episode_id: ep["3"], user_id: u.bob.id }), 404);
    expectErrorBody(await get("/api/data/fetch_podcasting_2_pod_data", "bob", { podcast_id: podcastId, user_id: u.bob.id }), 404);
    expectErrorBody(await get("/api/data/fetch_podcasting_2_data", "bob", { episode_id: ep["3"], user_id: u.alice.id }), 403);
    expectErrorBody(await get("/api/data/fetch_podcasting_2_data", "alice", { episode_id: "x", user_id: u.alice.id }), 400);
    expectErrorBody(await post("/api/data/fetch_transcript", "alice", { url: "not a url" }), 400);
    expectErrorBody(await post("/api/data/fetch_transcript", "alice", { url: `${peer.url}/missing.srt` }), 400);
    expect((await get("/api/data/fetch_podcasting_2_data", "admin", { episode_id: ep["3"], user_id: u.admin.id })).status).toBe(200);
  });
});
