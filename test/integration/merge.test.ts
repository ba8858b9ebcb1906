/** Merged podcasts over HTTP: per user, shown as one in lists and episode lists, unmerged back. */
import { config } from "../../shared/config";
import { asUsers, expectErrorBody } from "../helpers/client";
import { Loopback, startLoopback } from "../helpers/loopback";
import { createUsers, fixture, rssFeed } from "../helpers/podcasts";
import { startServer, TestServer } from "../helpers/server";

describe("merged podcasts", () => {
  let server: TestServer;
  let peer: Loopback;
  let u: Record<string, { id: number; key: string }>;
  const p: Record<string, number> = {};
  const { get, post } = asUsers(() => ({ url: server.url, users: u }));
  const listed = async (who: string) => (await get(`/api/data/return_pods/${u[who].id}`, who)).body.pods.map((x: any) => x.podcast_id).sort();
  const episodes = async (who: string, podcast_id: number) => (await get("/api/data/podcast_episodes", who, { user_id: u[who].id, podcast_id })).body;

  beforeAll(async () => {
    Object.assign(config, { refreshInterval: 0 });
    peer = await startLoopback({
      "/a.xml": { body: fixture("all_things_chemical_4items.xml") },
      "/b.xml": { body: fixture("minimal_itunes_3items.xml") },
      "/c.xml": {
        body: rssFeed("C", [
          { title: "c1", guid: "c1", url: "https://m.example/c1.mp3", date: "2024-01-01T00:00:00Z" },
          { title: "c2", guid: "c2", url: "https://m.example/c2.mp3", date: "2024-01-02T00:00:00Z" },
        ]),
      },
    });
    server = await startServer();
    u = await createUsers(server.url, ["alice", "bob"]);
    for (const [who, names] of [
      ["alice", ["a", "b", "c"]],
      ["bob", ["a", "b"]],
    ] as const) {
      for (const n of names) p[n] = (await post("/api/data/add_custom_podcast", who, { feed_url: `${peer.url}/${n}.xml`, user_id: u[who].id })).body.podcast_id;
    }
  });
  afterAll(async () => {
    await server?.stop();
    await peer?.close();
  });

  test("merge: one podcast in the user's lists, the episodes of all in its episode list; other users unchanged", async () => {
    const res = await post(`/api/data/${p.a}/merge`, "alice", { secondary_podcast_ids: [p.b, p.c] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: expect.any(String) });
    expect(await listed("alice")).toEqual([p.a]);
    expect((await get(`/api/data/return_pods_extra/${u.alice.id}`, "alice")).body.pods.map((x: any) => x.podcast_id)).toEqual([p.a]);
    const eps = await episodes("alice", p.a);
    expect(eps.total).toBe(9);
    expect(new Set(eps.episodes.map((e: any) => e.podcastid))).toEqual(new Set([p.a, p.b, p.c]));
    expect(eps.episodes.find((e: any) => e.podcastid === p.c).podcastname).toBe("C");
    expect((await get(`/api/data/${p.a}/merged`, "alice")).body).toEqual({ merged_podcast_ids: [p.b, p.c].sort((x, y) => x - y) });
    expect(await listed("bob")).toEqual([p.a, p.b].sort());
    expect((await get(`/api/data/${p.a}/merged`, "bob")).body).toEqual({ merged_podcast_ids: [] });
    expect((await episodes("bob", p.a)).total).toBe(4);
  });

  test("unmerge restores the podcast; removing the primary shows the rest again", async () => {
    const res = await post(`/api/data/${p.a}/unmerge/${p.c}`, "alice", {});
    expect(res.status).toBe(200);
    expect(await listed("alice")).toEqual([p.a, p.c].sort());
    expect((await episodes("alice", p.a)).total).toBe(7);
    expect((await get(`/api/data/${p.a}/merged`, "alice")).body.merged_podcast_ids).toEqual([p.b]);
    expect((await post("/api/data/remove_podcast_id", "alice", { user_id: u.alice.id, podcast_id: p.a })).status).toBe(200);
    expect(await listed("alice")).toEqual([p.b, p.c].sort());
  });

  test("bad requests: 400 for itself, a bad body or id; 404 for podcasts the caller does not have or that are not merged", async () => {
    expectErrorBody(await post(`/api/data/${p.b}/merge`, "alice", { secondary_podcast_ids: [p.b] }), 400);
    expectErrorBody(await post(`/api/data/${p.b}/merge`, "alice", {}), 400);
    expectErrorBody(await post(`/api/data/${p.b}/merge`, "alice", { secondary_podcast_ids: "x" }), 400);
    expectErrorBody(await post("/api/data/abc/merge", "alice", { secondary_podcast_ids: [p.c] }), 400);
    expectErrorBody(await post(`/api/data/${p.b}/merge`, "alice", { secondary_podcast_ids: [999999] }), 404);
    expectErrorBody(await post(`/api/data/${p.a}/merge`, "bob", { secondary_podcast_ids: [p.c] }), 404);
    expectErrorBody(await post(`/api/data/${p.b}/unmerge/${p.c}`, "alice", {}), 404);
    expectErrorBody(await get(`/api/data/${p.c}/merged`, "bob"), 404);
  });
});
