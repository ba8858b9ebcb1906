/**
 * An episode's transcript where PinePods' web client reads it (pod_req.rs call_get_episode_transcript:
 * GET episode_transcript?episode_id&user_id -> { transcript: { source, language, model, status,
 * full_text, segments } | null }), from the feed's podcast:transcript, fetched once and cached.
 */
import fs from "fs";
import path from "path";
import { config } from "../../shared/config";
import { api, asUsers, expectErrorBody } from "../helpers/client";
import { Loopback, startLoopback } from "../helpers/loopback";
import { createUsers } from "../helpers/podcasts";
import { startServer, TestServer } from "../helpers/server";

const file = (name: string) => fs.readFileSync(path.join(__dirname, "..", "fixtures", "transcripts", name), "utf8");

function feed(base: string): string {
  const item = (n: number, title: string, transcripts: string) =>
    `<item><title>${title}</title><guid>t-${n}</guid><pubDate>${new Date(Date.now() - n * 3_600_000).toUTCString()}</pubDate>` +
    `<enclosure url="https://media.test/${n}.mp3" length="1" type="audio/mpeg"/>${transcripts}</item>`;
  return `<?xml version="1.0"?><rss version="2.0" xmlns:podcast="https://podcastindex.org/namespace/1.0"><channel><title>Talk</title>
${item(1, "Both", `<podcast:transcript url="${base}/t/a.srt" type="application/srt"/><podcast:transcript url="${base}/t/a.json" type="application/json" language="en"/>`)}
${item(2, "None", "")}
${item(3, "Broken", `<podcast:transcript url="${base}/t/missing.vtt" type="text/vtt"/>`)}
</channel></rss>`;
}

describe("episode_transcript", () => {
  let server: TestServer;
  let peer: Loopback;
  let u: Record<string, { id: number; key: string }>;
  const ep: Record<string, number> = {};
  const { get } = asUsers(() => ({ url: server.url, users: u }));
  const transcript = (who: string, episode_id: number) => get("/api/data/episode_transcript", who, { episode_id, user_id: u[who].id });

  beforeAll(async () => {
    config.refreshInterval = 0;
    peer = await startLoopback({
      "/t/a.srt": { body: file("podcast_namespace_transcript_example.srt") },
      "/t/a.json": { headers: { "Content-Type": "application/json" }, body: file("podcast_namespace_transcript_example.json") },
    });
    peer.route("/feed.xml", { body: feed(peer.url) });
    server = await startServer();
    u = await createUsers(server.url, ["alice", "bob"]);
    const { post } = asUsers(() => ({ url: server.url, users: u }));
    const podcast_id = (await post("/api/data/add_custom_podcast", "alice", { feed_url: `${peer.url}/feed.xml`, user_id: u.alice.id })).body.podcast_id;
    const eps = await get("/api/data/podcast_episodes", "alice", { user_id: u.alice.id, podcast_id });
    for (const e of eps.body.episodes) ep[e.episodetitle] = e.episodeid;
  });
  afterAll(async () => {
    await server?.stop();
    await peer?.close();
  });

  test("the richest format the feed names, read into full text and timed segments; fetched once", async () => {
    const res = await transcript("alice", ep.Both);
    expect(res.status).toBe(200);
    const t = res.body.transcript;
    expect(t).toMatchObject({ source: "feed", url: `${peer.url}/t/a.json`, format: "json", language: "en", model: null, status: "completed", error: null });
    const segments = JSON.parse(t.segments);
    expect(segments[0]).toEqual({ start: expect.any(Number), end: expect.any(Number), text: expect.stringMatching(/^Darth Vader: /) });
    expect(segments.length).toBeGreaterThan(1);
    expect(t.full_text.length).toBeGreaterThan(20);
    expect(t.full_text).not.toMatch(/Darth Vader:/);
    await transcript("alice", ep.Both);
    expect(peer.requests.filter((r) => r.url === "/t/a.json")).toHaveLength(1);
  });

  test("null without a transcript; failed (still 200) when the document cannot be fetched", async () => {
    expect((await transcript("alice", ep.None)).body).toEqual({ transcript: null });
    const broken = (await transcript("alice", ep.Broken)).body.transcript;
    expect(broken).toMatchObject({ status: "failed", format: "vtt", full_text: null, segments: null, error: expect.any(String) });
  });

  test("no key 401, another user's id 403, an episode of a podcast the user does not have 404", async () => {
    expectErrorBody(await api(server.url).get("/api/data/episode_transcript").query({ episode_id: ep.Both, user_id: u.alice.id }), 401);
    expectErrorBody(await get("/api/data/episode_transcript", "bob", { episode_id: ep.Both, user_id: u.alice.id }), 403);
    expectErrorBody(await transcript("bob", ep.Both), 404);
  });
});
