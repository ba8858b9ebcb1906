/**
 * Recommendations on a generated library (GET /api/data/recommendations as PinePods' web client calls
 * it, and recommendations/episodes): groups of listeners with their own tastes (science, comedy,
 * history), a podcast with a person the user follows, and a user whose ranking must be sensible: their
 * group's other podcasts first (the most heard first), the followed person's podcast next, the other
 * groups' podcasts last; a user without podcasts gets what is most followed here.
 */
import { config } from "../../shared/config";
import { api, asUsers, expectErrorBody } from "../helpers/client";
import { Loopback, startLoopback } from "../helpers/loopback";
import { createUsers } from "../helpers/podcasts";
import { startServer, TestServer } from "../helpers/server";

const CATEGORY: Record<string, string> = { sci: "Science", com: "Comedy", his: "History", arts: "Arts" };
const SHOWS = ["sci1", "sci2", "sci3", "sci4", "com1", "com2", "com3", "com4", "his1", "his2", "his3", "arts1"];

function feed(show: string): string {
  const category = CATEGORY[show.replace(/\d+$/, "")];
  const person = show === "arts1" ? `<podcast:person role="host">Grace Hopper</podcast:person>` : "";
  const items = [0, 1, 2]
    .map(
      (n) =>
        `<item><title>${show} episode ${n}</title><guid>${show}-${n}</guid><pubDate>${new Date(Date.now() - (n + 1) * 86_400_000).toUTCString()}</pubDate>` +
        `<itunes:duration>1200</itunes:duration><enclosure url="https://media.test/${show}/${n}.mp3" length="1" type="audio/mpeg"/></item>`,
    )
    .join("\n");
  return (
    `<?xml version="1.0"?><rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd" xmlns:podcast="https://podcastindex.org/namespace/1.0">` +
    `<channel><title>${show}</title><itunes:category text="${category}"/>${person}\n${items}\n</channel></rss>`
  );
}

/** Who follows what: three taste groups, and tara who has two science podcasts. */
const LIBRARY: Record<string, string[]> = {
  s1: ["sci1", "sci2", "sci3", "sci4"],
  s2: ["sci1", "sci2", "sci3", "sci4"],
  s3: ["sci1", "sci3", "sci4"],
  c1: ["com1", "com2", "com3", "com4"],
  c2: ["com1", "com2", "com3"],
  c3: ["com1", "com2", "com4"],
  c4: ["com1", "com3"],
  h1: ["his1", "his2", "his3", "com1"],
  h2: ["his1", "his2", "his3"],
  a1: ["arts1"],
  tara: ["sci1", "sci2"],
  newbie: [],
};

describe("recommendations on a generated library", () => {
  let server: TestServer;
  let feeds: Loopback;
  let u: Record<string, { id: number; key: string }>;
  const pods: Record<string, number> = {};
  const eps: Record<string, number> = {};
  const { get, post } = asUsers(() => ({ url: server.url, users: u }));
  const recommended = async (who: string, query: Record<string, unknown> = {}) => {
    const res = await get("/api/data/recommendations", who, query);
    expect(res.status).toBe(200);
    return res.body as any[];
  };
  const titles = (list: any[]) => list.map((r) => r.title);

  beforeAll(async () => {
    config.refreshInterval = 0;
    feeds = await startLoopback(Object.fromEntries(SHOWS.map((s) => [`/${s}.xml`, { body: feed(s) }])));
    server = await startServer();
    u = await createUsers(server.url, Object.keys(LIBRARY));
    for (const [who, shows] of Object.entries(LIBRARY)) {
      for (const show of shows) {
        const res = await post("/api/data/add_podcast", who, { podcast_values: { pod_feed_url: `${feeds.url}/${show}.xml`, user_id: u[who].id } });
        expect(res.status).toBe(200);
        pods[show] = res.body.podcast_id;
      }
    }
    for (const show of SHOWS) {
      const who = Object.keys(LIBRARY).find((w) => LIBRARY[w].includes(show))!;
      const list = await get("/api/data/podcast_episodes", who, { user_id: u[who].id, podcast_id: pods[show] });
      for (const e of list.body.episodes) eps[e.episodetitle] = e.episodeid;
    }
    // The science group heard sci4 most; two of them finished "sci1 episode 2".
    const done = (who: string, title: string) => post("/api/data/mark_episode_completed", who, { user_id: u[who].id, episode_id: eps[title] });
    for (const who of ["s1", "s2", "s3"]) for (const n of [0, 1, 2]) await done(who, `sci4 episode ${n}`);
    await done("s1", "sci1 episode 2");
    await done("s2", "sci1 episode 2");
    await post(`/api/data/person/subscribe/${u.tara.id}/0`, "tara", { person_name: "Grace Hopper", person_img: null, podcast_id: 0 });
  });
  afterAll(async () => {
    await server?.stop();
    await feeds?.close();
  });

  test("the user's taste first: their group's podcasts (most heard first), then the followed person's, other groups last", async () => {
    const list = await recommended("tara");
    expect(titles(list).slice(0, 3)).toEqual(["sci4", "sci3", "arts1"]);
    expect(titles(list)).not.toContain("sci1");
    expect(titles(list)).not.toContain("sci2");
    const rank = (t: string) => titles(list).indexOf(t);
    for (const other of ["com1", "com2", "his1"]) if (rank(other) >= 0) expect(rank(other)).toBeGreaterThan(rank("arts1"));
    expect(list[0]).toMatchObject({
      podcast_id: pods.sci4,
      feedurl: `${feeds.url}/sci4.xml`,
      categories: { 1: "Science" },
      podcastindexid: null,
      reason: expect.any(String),
    });
    expect(list[0].score).toBeGreaterThan(list[1].score);
    expect(list.find((r) => r.title === "arts1").reason).toMatch(/Grace Hopper/);
    for (let i = 1; i < list.length; i++) expect(list[i - 1].score).toBeGreaterThanOrEqual(list[i].score);
  });

  test("a comedy listener gets comedy first; a user without podcasts gets the most followed", async () => {
    expect(
      titles(await recommended("c4"))
        .slice(0, 2)
        .sort(),
    ).toEqual(["com2", "com4"]);
    const cold = await recommended("newbie", { limit: 3 });
    // Followed and heard: sci4 (three listeners, each finished three episodes), com1 (five), sci1 (four, two finished one).
    expect(titles(cold)).toEqual(["sci4", "com1", "sci1"]);
    expect(cold.every((r) => r.reason === "Popular on this server")).toBe(true);
  });

  test("episodes: unplayed ones of the user's podcasts and of those recommended, those played by listeners like them first", async () => {
    const res = await get("/api/data/recommendations/episodes", "tara", { limit: 10 });
    expect(res.status).toBe(200);
    const list = res.body.episodes as any[];
    expect(list.length).toBe(10);
    // Played by all three science listeners (sci4, recommended), then by two of them (sci1, tara's own).
    expect(list.slice(0, 4).map((e) => [e.episodetitle, e.is_subscribed])).toEqual([
      ["sci4 episode 0", false],
      ["sci4 episode 1", false],
      ["sci4 episode 2", false],
      ["sci1 episode 2", true],
    ]);
    expect(list[0].reason).toBe("Played by listeners like you");
    expect(list.every((e) => !e.podcastname.startsWith("com") && !e.podcastname.startsWith("his"))).toBe(true);
    await post("/api/data/mark_episode_completed", "tara", { user_id: u.tara.id, episode_id: eps["sci1 episode 2"] });
    const after = (await get("/api/data/recommendations/episodes", "tara", { limit: 10, refresh: 1 })).body.episodes;
    expect(after.map((e: any) => e.episodetitle)).not.toContain("sci1 episode 2");
  });

  test("kept until refresh=1; no key 401", async () => {
    await post("/api/data/add_podcast", "tara", { podcast_values: { pod_feed_url: `${feeds.url}/sci3.xml`, user_id: u.tara.id } });
    expect(titles(await recommended("tara"))).toContain("sci3");
    expect(titles(await recommended("tara", { refresh: 1 }))).not.toContain("sci3");
    expectErrorBody(await api(server.url).get("/api/data/recommendations"), 401);
    expectErrorBody(await api(server.url).get("/api/data/recommendations/episodes"), 401);
  });
});
