/**
 * Following people across podcasts, called as PinePods' web client calls it (people_req.rs:
 * person/subscribe, unsubscribe, subscriptions, episodes, feed): people named by feeds (podcast:person
 * of a channel or an episode) and by the people database (refresh_hosts against a loopback one),
 * across the feeds on this server, new episodes found by a refresh, authorization and the user cascade.
 */
import { config } from "../../shared/config";
import { asUsers, expectErrorBody } from "../helpers/client";
import { Loopback, startLoopback } from "../helpers/loopback";
import { createUsers } from "../helpers/podcasts";
import { fixture } from "../helpers/providers";
import { startServer, TestServer } from "../helpers/server";
import { eventually } from "../helpers/library";
import request from "supertest";

type Item = { title: string; hours: number; people?: string };

function feed(title: string, items: Item[], channelPeople = ""): string {
  const body = items
    .map(
      (i, n) =>
        `<item><title>${i.title}</title><guid>${title}-${n}</guid><pubDate>${new Date(Date.now() - i.hours * 3_600_000).toUTCString()}</pubDate>` +
        `<enclosure url="https://media.test/${encodeURIComponent(title)}/${n}.mp3" length="1" type="audio/mpeg"/>${i.people ?? ""}</item>`,
    )
    .join("\n");
  return `<?xml version="1.0"?><rss version="2.0" xmlns:podcast="https://podcastindex.org/namespace/1.0"><channel><title>${title}</title>${channelPeople}\n${body}\n</channel></rss>`;
}
const guest = (name: string) => `<podcast:person role="guest">${name}</podcast:person>`;
const ADA = `<podcast:person role="host" img="https://img.test/ada.jpg">Ada Lovelace</podcast:person>`;
const SCIENCE: Item[] = [
  { title: "S1", hours: 30 },
  { title: "S2 with Grace", hours: 20, people: guest("Grace Hopper") },
  { title: "S3", hours: 10 },
];

describe("following people", () => {
  let server: TestServer;
  let feeds: Loopback;
  let people: Loopback;
  let u: Record<string, { id: number; key: string }>;
  const pods: Record<string, number> = {};
  const saved = { ...config };
  const { get, post } = asUsers(() => ({ url: server.url, users: u }));
  const http = (method: "get" | "post" | "put" | "delete", path: string, who: string | null) => {
    const req = request(server.url)[method](path);
    return who ? req.set("Api-Key", u[who].key) : req;
  };
  const follow = (who: string, name: string, person_id = 0, podcast_id = 0) =>
    http("post", `/api/data/person/subscribe/${u[who].id}/${person_id}`, who).send({ person_name: name, person_img: null, podcast_id });
  const followed = async (who: string) => (await get(`/api/data/person/subscriptions/${u[who].id}`, who)).body.subscriptions as any[];
  const episodesOf = async (who: string, person_id: number) => {
    const res = await get(`/api/data/person/episodes/${u[who].id}/${person_id}`, who, { limit: 50, offset: 0 });
    expect(res.status).toBe(200);
    return res.body.episodes as any[];
  };

  beforeAll(async () => {
    config.refreshInterval = 0;
    feeds = await startLoopback({
      "/science.xml": { body: feed("Science Hour", SCIENCE, ADA) },
      "/tech.xml": {
        body: feed("Tech Talk", [
          { title: "T1 with Grace", hours: 5, people: guest("Grace Hopper") },
          { title: "T2", hours: 50 },
        ]),
      },
      "/batman.xml": {
        body: feed("Batman University", [
          { title: "B1", hours: 40 },
          { title: "B2", hours: 45 },
        ]),
      },
    });
    people = await startLoopback({ "/api/hosts/75075": { headers: { "Content-Type": "application/json" }, body: fixture("podpeople_api_hosts_75075.json") } });
    config.peopleUrl = people.url;
    server = await startServer();
    u = await createUsers(server.url, ["alice", "bob"]);
    const add = async (who: string, path: string, extra: object = {}) =>
      (await post("/api/data/add_podcast", who, { podcast_values: { pod_feed_url: `${feeds.url}${path}`, user_id: u[who].id }, ...extra })).body
        .podcast_id as number;
    pods.science = await add("alice", "/science.xml");
    pods.tech = await add("bob", "/tech.xml");
    pods.batman = await add("alice", "/batman.xml", { podcast_index_id: 75075 });
    expect((await get("/api/data/refresh_hosts", "admin")).status).toBe(200);
  });
  afterAll(async () => {
    await server?.stop();
    await Promise.all([feeds?.close(), people?.close()]);
    Object.assign(config, saved);
  });

  test("a guest: their episodes across the feeds on this server, the user's own with their state", async () => {
    const res = await follow("alice", "Grace Hopper", 0, pods.science);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: expect.any(String), person_id: expect.any(Number) });
    const grace = res.body.person_id;
    expect((await follow("alice", "grace hopper")).body.person_id).toBe(grace); // once per person
    expect(await followed("alice")).toEqual([
      { personid: grace, userid: u.alice.id, name: "Grace Hopper", image: "", peopledbid: null, associatedpodcasts: 0, episode_count: 2 },
    ]);
    const eps = await episodesOf("alice", grace);
    expect(eps.map((e) => [e.episodetitle, e.is_subscribed])).toEqual([
      ["T1 with Grace", false],
      ["S2 with Grace", true],
    ]);
    expect(eps[1]).toMatchObject({ podcastid: pods.science, podcastname: "Science Hour", completed: false, saved: false });
  });

  test("a host named by the channel: every episode of their podcast; person/feed by name with podcasts and picture", async () => {
    const ada = (await follow("alice", "ada lovelace")).body.person_id;
    const mine = (await followed("alice")).find((p) => p.personid === ada);
    expect(mine).toMatchObject({ name: "ada lovelace", image: "https://img.test/ada.jpg", associatedpodcasts: 1, episode_count: 3 });
    const hostFeed = await get(`/api/data/person/feed/${u.alice.id}`, "alice", { name: "Ada Lovelace", include_podcasts: true });
    expect(hostFeed.status).toBe(200);
    expect(hostFeed.body.person).toEqual({ name: "ada lovelace", image: "https://img.test/ada.jpg" });
    expect(hostFeed.body.podcasts).toEqual([
      expect.objectContaining({ podcastid: pods.science, podcastname: "Science Hour", is_subscribed: true, podcastindexid: 0 }),
    ]);
    expect(hostFeed.body.episodes.map((e: any) => e.episodetitle)).toEqual(["S3", "S2 with Grace", "S1"]);
    // bob is not subscribed to it, and need not follow anyone to read a feed
    const forBob = await get(`/api/data/person/feed/${u.bob.id}`, "bob", { name: "Ada Lovelace", include_podcasts: false });
    expect(forBob.body.podcasts).toEqual([]);
    expect(forBob.body.episodes.every((e: any) => e.is_subscribed === false)).toBe(true);
  });

  test("a host the people database lists: the episodes of the podcasts it names them for", async () => {
    const tony = (await follow("alice", "Tony Sindelar", 12)).body.person_id;
    expect((await followed("alice")).find((p) => p.personid === tony)).toMatchObject({
      peopledbid: 12,
      associatedpodcasts: 1,
      episode_count: 2,
      image: "https://www.theincomparable.com/imgs/people/tony_sindelar.jpg",
    });
    expect((await episodesOf("alice", tony)).map((e) => e.episodetitle)).toEqual(["B1", "B2"]);
  });

  test("episodes a refresh finds are among the person's at once, and the follower is notified", async () => {
    const grace = (await followed("alice")).find((p) => p.name === "Grace Hopper").personid;
    const hooks: any[] = [];
    feeds.route("/hook", (req, res) => {
      let body = "";
      req
        .on("data", (c) => (body += c))
        .on("end", () => {
          hooks.push(JSON.parse(body));
          res.end("ok");
        });
    });
    const put = await http("put", "/api/data/user/notification_settings", "alice").send({
      user_id: u.alice.id,
      platform: "http",
      enabled: true,
      http_url: `${feeds.url}/hook`,
    });
    expect(put.status).toBe(200);
    feeds.route("/science.xml", { body: feed("Science Hour", [...SCIENCE, { title: "S4 with Grace again", hours: 1, people: guest("Grace Hopper") }], ADA) });
    expect((await get("/api/data/refresh_pods", "alice")).status).toBe(200);
    await eventually(async () => expect((await episodesOf("alice", grace))[0].episodetitle).toBe("S4 with Grace again"), 5000);
    // One message for each followed person the new episode has: Grace (named in it) and Ada (the podcast's host).
    await eventually(
      async () =>
        expect(hooks.map((h) => [h.event, h.person]).sort()).toEqual([
          ["person.episode", "Grace Hopper"],
          ["person.episode", "ada lovelace"],
        ]),
      5000,
    );
    expect(hooks.find((h) => h.person === "Grace Hopper")).toMatchObject({
      title: "New episode with Grace Hopper",
      episode_title: "S4 with Grace again",
      user_id: u.alice.id,
    });
  });

  test("unfollow by name or id; authorization: no key 401, another user's ids 403", async () => {
    const list = await followed("alice");
    const grace = list.find((p) => p.name === "Grace Hopper").personid;
    const routes: ["get" | "post" | "delete", string][] = [
      ["post", `/api/data/person/subscribe/${u.alice.id}/0`],
      ["delete", `/api/data/person/unsubscribe/${u.alice.id}/${grace}`],
      ["get", `/api/data/person/subscriptions/${u.alice.id}`],
      ["get", `/api/data/person/episodes/${u.alice.id}/${grace}`],
      ["get", `/api/data/person/feed/${u.alice.id}?name=Grace%20Hopper`],
    ];
    for (const [method, path] of routes) {
      expectErrorBody(await http(method, path, null).send({ person_name: "Grace Hopper" }), 401);
      expectErrorBody(await http(method, path, "bob").send({ person_name: "Grace Hopper" }), 403);
    }
    expectErrorBody(await get(`/api/data/person/episodes/${u.bob.id}/${grace}`, "bob"), 403);
    expectErrorBody(await follow("alice", ""), 400);

    expect((await http("delete", `/api/data/person/unsubscribe/${u.alice.id}/0`, "alice").send({ person_name: "GRACE HOPPER" })).status).toBe(200);
    const tony = list.find((p) => p.name === "Tony Sindelar").personid;
    expect((await http("delete", `/api/data/person/unsubscribe/${u.alice.id}/12`, "alice").send({ person_name: "someone else" })).status).toBe(200); // by the people database's id
    expect((await followed("alice")).map((p) => p.name)).toEqual(["ada lovelace"]);
    expectErrorBody(await http("delete", `/api/data/person/unsubscribe/${u.alice.id}/${tony}`, "alice").send({}), 404);
  });

  test("a deleted user's followed people go (user.removed)", async () => {
    await follow("bob", "Grace Hopper");
    const store: any = server.broker.getLocalService("following");
    expect(await store.adapter.count({ query: { user_id: u.bob.id } })).toBe(1);
    expect((await request(server.url).delete(`/api/data/user/delete/${u.bob.id}`).set("Api-Key", u.admin.key)).status).toBe(200);
    await eventually(async () => expect(await store.adapter.count({ query: { user_id: u.bob.id } })).toBe(0));
  });
});
