/**
 * Podcast people on the main server (issue 11): discover and refresh_hosts against a loopback people
 * database (PEOPLE_URL), host_podcasts through the directory's person search (search service).
 */
import { config } from "../../shared/config";
import { asUsers } from "../helpers/client";
import { Loopback, startLoopback } from "../helpers/loopback";
import { createUsers, fixture as feedFixture } from "../helpers/podcasts";
import { fixture, startProviders, useProviders } from "../helpers/providers";
import { startServer, TestServer } from "../helpers/server";

describe("podcast people", () => {
  let server: TestServer;
  let people: Loopback;
  let providers: Loopback;
  let feeds: Loopback;
  let u: Record<string, { id: number; key: string }>;
  const saved = { ...config };
  const { get, post } = asUsers(() => ({ url: server.url, users: u }));
  const json = (body: string) => ({ headers: { "Content-Type": "application/json" }, body });

  beforeAll(async () => {
    config.refreshInterval = 0;
    people = await startLoopback({
      "/api/recent-hosts": json(fixture("podpeople_api_recent-hosts.json")),
      "/api/hosts/75075": json(fixture("podpeople_api_hosts_75075.json")),
      "/api/stats": json('{"total_hosts":2,"total_podcasts":1}'),
    });
    providers = await startProviders();
    feeds = await startLoopback({ "/feed.xml": { body: feedFixture("minimal_itunes_3items.xml") } });
    useProviders(providers);
    config.peopleUrl = people.url;
    server = await startServer();
    u = await createUsers(server.url, ["alice"]);
  });
  afterAll(async () => {
    await server?.stop();
    await Promise.all([people?.close(), providers?.close(), feeds?.close()]);
    Object.assign(config, saved);
  });

  test("discover: the people database's listings, limit applied; unknown kind 400", async () => {
    const res = await get("/api/data/podpeople/discover", "alice", { kind: "recent_hosts", limit: 1 });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([expect.objectContaining({ name: "Tony Sindelar", podcasts: [expect.objectContaining({ podcast_id: 75075 })] })]);
    expect((await get("/api/data/podpeople/discover", "alice", { kind: "stats" })).body).toEqual({ total_hosts: 2, total_podcasts: 1 });
    expect((await get("/api/data/podpeople/discover", "alice", { kind: "everything" })).status).toBe(400);
    expect((await get("/api/data/podpeople/discover", "alice", {})).status).toBe(400);
  });

  test("host_podcasts: the podcasts of the person's episodes in the directory", async () => {
    const res = await get("/api/data/podpeople/host_podcasts", "alice", { hostname: "Adam Curry" });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(res.body.podcasts.map((p: any) => p.podcast_index_id)).toEqual([920666, 4311]);
    expect(res.body.podcasts[0]).toMatchObject({ title: "No Agenda Show", feed_url: "http://feed.nashownotes.com/rss.xml" });
    expect((await get("/api/data/podpeople/host_podcasts", "alice", {})).status).toBe(400);
  });

  test("refresh_hosts (admin): the hosts of every subscribed podcast with a directory id", async () => {
    const add = await post("/api/data/add_podcast", "alice", {
      podcast_values: { pod_feed_url: `${feeds.url}/feed.xml`, user_id: u.alice.id },
      podcast_index_id: 75075,
    });
    expect(add.status).toBe(200);
    expect((await get("/api/data/refresh_hosts", "alice")).status).toBe(403);
    const res = await get("/api/data/refresh_hosts", "admin");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, refreshed: 1, failed: 0 });
    expect(people.requests.filter((r) => r.url === "/api/hosts/75075")).toHaveLength(1);
    const stored = await server.broker.call("people.podcast_hosts", { podcast_index_ids: [75075, 1] });
    expect(stored).toEqual({ 75075: [expect.objectContaining({ name: "Tony Sindelar" })] });
    // Again: the record is replaced, not duplicated.
    await get("/api/data/refresh_hosts", "admin").expect(200);
    expect(await server.broker.call("people.podcast_hosts", { podcast_index_ids: [75075] })).toEqual(stored);
  });

  test("without PEOPLE_URL: 503, and a people database that is down: 503", async () => {
    config.peopleUrl = "";
    expect((await get("/api/data/podpeople/discover", "alice", { kind: "stats" })).status).toBe(503);
    expect((await get("/api/data/refresh_hosts", "admin")).status).toBe(503);
    config.peopleUrl = "http://127.0.0.1:1";
    expect((await get("/api/data/podpeople/discover", "alice", { kind: "stats" })).status).toBe(503);
    config.peopleUrl = people.url;
  });
});
