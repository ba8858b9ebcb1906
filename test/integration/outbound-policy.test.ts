/**
 * The outbound URL policy (docs/library.md "Outbound URL policy") through the gateway, as a client sees it: the
 * server runs with the default setting (OUTBOUND_ALLOW_PRIVATE=false) unless a test changes it, and
 * the feeds are served from loopback, a private address.
 */
import { config } from "../../shared/config";
import { api, asUsers, expectErrorBody } from "../helpers/client";
import { Loopback, startLoopback } from "../helpers/loopback";
import { createUsers, fixture } from "../helpers/podcasts";
import { startServer, TestServer } from "../helpers/server";

describe("outbound URL policy", () => {
  let server: TestServer;
  let feeds: Loopback;
  let redirector: Loopback;
  let inRange: Loopback;
  let outOfRange: Loopback;
  let u: Record<string, { id: number; key: string }>;
  const { get, post } = asUsers(() => ({ url: server.url, users: u }));
  const FEED = { headers: { "Content-Type": "application/rss+xml" }, body: fixture("minimal_itunes_3items.xml") };
  const addPodcast = (who: string, url: string) => post("/api/data/add_podcast", who, { podcast_values: { pod_feed_url: url, user_id: u[who].id } });
  const pods = async (who: string) => (await get(`/api/data/return_pods/${u[who].id}`, who)).body.pods.map((p: any) => p.feed_url);
  const storedPodcasts = () => server.broker.getLocalService("podcasts").adapter.count();

  /** A 400 refusal in the project's JSON error body, without any upstream status. */
  function expectRefused(res: any, why: RegExp) {
    expectErrorBody(res, 400);
    expect(res.body.message).toMatch(/^This address is not allowed: /);
    expect(res.body.message).toMatch(why);
    expect(res.body.message).not.toMatch(/HTTP \d|ECONNREFUSED|request failed/);
  }

  beforeAll(async () => {
    config.refreshInterval = 0;
    feeds = await startLoopback({ "/feed.xml": FEED, "/shared.xml": FEED });
    inRange = await startLoopback({ "/feed.xml": FEED }, "127.0.0.3");
    outOfRange = await startLoopback({ "/feed.xml": FEED }, "127.0.0.4");
    redirector = await startLoopback(
      {
        "/to-loopback": { status: 302, headers: { Location: `${feeds.url}/feed.xml` } },
        "/to-decimal": { status: 302, headers: { Location: `http://2130706433:${feeds.port}/feed.xml` } },
        "/to-mapped": { status: 302, headers: { Location: `http://[::ffff:127.0.0.1]:${feeds.port}/feed.xml` } },
        "/to-metadata": { status: 302, headers: { Location: "http://169.254.169.254/latest/meta-data/" } },
      },
      "127.0.0.2",
    );
    server = await startServer({ allowPrivate: "false" });
    u = await createUsers(server.url, ["alice"]);
  });
  afterEach(() => {
    config.outboundAllowPrivate = "false";
  });
  afterAll(async () => {
    await server?.stop();
    await Promise.all([feeds, redirector, inRange, outOfRange].map((l) => l?.close()));
  });

  const PORT = () => feeds.port;
  const privateUrls = () => [
    `${feeds.url}/feed.xml`,
    `http://localhost:${PORT()}/feed.xml`,
    `http://[::1]:${PORT()}/feed.xml`,
    `http://2130706433:${PORT()}/feed.xml`,
    `http://0177.0.0.1:${PORT()}/feed.xml`,
    `http://0x7f.1:${PORT()}/feed.xml`,
    `http://127.1:${PORT()}/feed.xml`,
    `http://[::ffff:127.0.0.1]:${PORT()}/feed.xml`,
    `http://[::ffff:7f00:1]:${PORT()}/feed.xml`,
    "http://10.0.0.1/feed.xml",
    "http://192.168.1.1/feed.xml",
    "http://172.16.0.1/feed.xml",
    "http://100.64.0.1/feed.xml",
    "http://[fd12:3456::1]/feed.xml",
  ];
  const forbiddenUrls = [
    "http://169.254.169.254/latest/meta-data/iam/security-credentials/",
    "http://[::ffff:169.254.169.254]/latest/meta-data/",
    "http://2852039166/latest/meta-data/",
    "http://[fd00:ec2::254]/latest/meta-data/",
    "http://100.100.100.200/latest/meta-data/",
    "http://[fe80::1]/feed.xml",
    "http://0.0.0.0:80/feed.xml",
    "http://224.0.0.1/feed.xml",
  ];

  test("a normal user's add_podcast of loopback, private, link-local and metadata addresses in any spelling: 400, nothing stored", async () => {
    for (const url of privateUrls()) expectRefused(await addPodcast("alice", url), /admins only/);
    for (const url of forbiddenUrls) expectRefused(await addPodcast("alice", url), /always refused/);
    expect(feeds.requests).toHaveLength(0);
    expect(await pods("alice")).toEqual([]);
    expect(await storedPodcasts()).toBe(0);
  });

  test("add_custom_podcast, fetch_podcast_feed and get_podcast_details_dynamic follow the same policy", async () => {
    const url = `http://0x7f.1:${PORT()}/feed.xml`;
    expectRefused(await post("/api/data/add_custom_podcast", "alice", { feed_url: url, user_id: u.alice.id }), /admins only/);
    expectRefused(await get("/api/data/fetch_podcast_feed", "alice", { podcast_feed: url }), /admins only/);
    expectRefused(await get("/api/data/fetch_podcast_feed", "admin", { podcast_feed: forbiddenUrls[0] }), /always refused/);
    expectRefused(
      await get("/api/data/get_podcast_details_dynamic", "alice", {
        user_id: u.alice.id,
        podcast_title: "x",
        podcast_url: url,
        podcast_index_id: 0,
        added: false,
      }),
      /admins only/,
    );
    expect(feeds.requests).toHaveLength(0);
    const raw = await get("/api/data/fetch_podcast_feed", "admin", { podcast_feed: url });
    expect(raw.status).toBe(200);
    expect(raw.body.episodes.length).toBeGreaterThan(0);
  });

  test("the answer does not tell whether anything listens there", async () => {
    const closed = await startLoopback();
    await closed.close();
    const open = await addPodcast("alice", `http://127.0.0.1:${PORT()}/feed.xml`);
    const shut = await addPodcast("alice", `http://127.0.0.1:${closed.port}/feed.xml`);
    expect(open.status).toBe(400);
    expect(shut.body).toEqual({ ...open.body, message: open.body.message.replace(String(PORT()), String(closed.port)), detail: expect.any(String) });
    expect(shut.body.detail).toBe(open.body.detail.replace(String(PORT()), String(closed.port)));
  });

  test("a redirect from an allowed host to loopback or metadata is refused at that hop", async () => {
    config.outboundAllowPrivate = "127.0.0.2/32";
    const before = feeds.requests.length;
    for (const path of ["/to-loopback", "/to-decimal", "/to-mapped"]) expectRefused(await addPodcast("alice", `${redirector.url}${path}`), /admins only/);
    expectRefused(await addPodcast("alice", `${redirector.url}/to-metadata`), /always refused/);
    expect(redirector.requests).toHaveLength(4);
    expect(feeds.requests).toHaveLength(before);
    expect(await pods("alice")).toEqual([]);
  });

  test("an operator CIDR lets exactly that range through for normal users", async () => {
    config.outboundAllowPrivate = "127.0.0.2/31";
    expect((await addPodcast("alice", `${inRange.url}/feed.xml`)).status).toBe(200);
    expectRefused(await addPodcast("alice", `${outOfRange.url}/feed.xml`), /admins only/);
    expectRefused(await addPodcast("alice", `${feeds.url}/feed.xml`), /admins only/);
    expectRefused(await addPodcast("alice", forbiddenUrls[0]), /always refused/);
    // Moving the subscription to another feed URL is checked the same way.
    const podcast_id = (await get(`/api/data/return_pods/${u.alice.id}`, "alice")).body.pods[0].podcast_id;
    const moved = await api(server.url)
      .put("/api/data/update_podcast_info")
      .set("Api-Key", u.alice.key)
      .send({ user_id: u.alice.id, podcast_id, feed_url: `${outOfRange.url}/feed.xml` });
    expectRefused(moved, /admins only/);
    expect(outOfRange.requests).toHaveLength(0);
    expect(await pods("alice")).toEqual([`${inRange.url}/feed.xml`]);
  });

  test("an admin reaches loopback (any spelling, by redirect too) but never link-local or metadata", async () => {
    expect((await addPodcast("admin", `${feeds.url}/feed.xml`)).status).toBe(200);
    expect((await addPodcast("admin", `http://2130706433:${PORT()}/feed.xml`)).status).toBe(200);
    expect((await addPodcast("admin", `${redirector.url}/to-loopback`)).status).toBe(200);
    for (const url of forbiddenUrls) expectRefused(await addPodcast("admin", url), /always refused/);
    expectRefused(await addPodcast("admin", `${redirector.url}/to-metadata`), /always refused/);
    expect(await pods("admin")).toHaveLength(3);
  });

  test("a shared feed an admin added at a private address: refused to a user exactly like a new one, refreshed for the admin", async () => {
    config.outboundAllowPrivate = "127.0.0.2/31"; // alice's feed on 127.0.0.3 keeps refreshing
    const shared = `${feeds.url}/shared.xml`;
    expect((await addPodcast("admin", shared)).status).toBe(200);
    const known = await addPodcast("alice", shared);
    const unknown = await addPodcast("alice", `${feeds.url}/nobody-has-this.xml`);
    expectRefused(known, /admins only/);
    expect(known.body.message).toBe(unknown.body.message.replace("/nobody-has-this.xml", "/shared.xml"));
    expect(await pods("alice")).toEqual([`${inRange.url}/feed.xml`]);
    // The scheduler's refresh has no caller: the record keeps the admin rights it was added with.
    expect((await get("/api/data/refresh_pods", "admin")).body).toMatchObject({ failed: 0 });

    // Once a user may reach it (operator's list) and joins, the feed is refreshed under user rights.
    config.outboundAllowPrivate = "127.0.0.1/32, 127.0.0.2/31";
    expect((await addPodcast("alice", shared)).status).toBe(200);
    config.outboundAllowPrivate = "127.0.0.2/31";
    expect((await get("/api/data/refresh_pods", "alice")).body).toMatchObject({ refreshed: 2, failed: 1 });
    expect((await get("/api/data/refresh_pods", "admin")).body).toMatchObject({ failed: 1 });
  });
});
