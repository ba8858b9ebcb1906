/**
 * Retention of downloads over HTTP (GET, POST and DELETE /api/data/retention; services/podcasts.parts/retention.actions.ts)
 * and the pass that applies it (services/downloads.parts/retention.ts), with real downloads from loopback feeds:
 * keep_last by publication date, delete_after_days (the auto-delete days of the older routes, both ways),
 * keep_saved, a podcast's own settings over the user's default and cleared back to it, bad input and another
 * user's, and no file deleted while it is streamed or a download job works on its episode. The pass is run
 * as the auto-delete job runs it (its timer is off here); test/cluster/retention-kill.cluster.test.ts kills one.
 */
import fs from "fs";
import http from "http";
import { config } from "../../shared/config";
import { api, asUsers, expectErrorBody } from "../helpers/client";
import { Loopback, startLoopback } from "../helpers/loopback";
import { audioBytes, mediaRoute, waitForTask } from "../helpers/media";
import { createUsers, rssFeed } from "../helpers/podcasts";
import { startServer, tempDir, TestServer } from "../helpers/server";
import { until } from "../helpers/wait";

const DAY_MS = 86_400_000;
const BIG = 16 * 1024 * 1024;

describe("retention of downloads", () => {
  let server: TestServer;
  let media: Loopback;
  let u: Record<string, { id: number; key: string }>;
  const pod: Record<string, number> = {};
  const ep: Record<string, number> = {};
  const { get, post } = asUsers(() => ({ url: server.url, users: u }));
  const del = (who: string, query: object) => api(server.url).delete("/api/data/retention").query(query).set("Api-Key", u[who].key);
  const downloads = (): any => server.broker.getLocalService("downloads");
  const pass = (): Promise<number> => downloads().runAutoDelete();
  /** The user's downloads: episode title -> file on disk. */
  const kept = async (who: string, podcast?: string): Promise<Record<string, string>> => {
    const list = (await get("/api/data/download_episode_list", who, { user_id: u[who].id })).body.downloaded_episodes;
    return Object.fromEntries(list.filter((d: any) => !podcast || d.podcastid === pod[podcast]).map((d: any) => [d.episodetitle, d.downloadedlocation]));
  };
  const titles = async (who: string, podcast: string) => Object.keys(await kept(who, podcast)).sort();
  const download = async (who: string, ...titles: string[]) => {
    for (const t of titles) {
      const res = await post("/api/data/download_podcast", who, { episode_id: ep[t], user_id: u[who].id });
      expect(res.status).toBe(200);
      if (res.body.task_id) expect((await waitForTask(server.url, u[who].key, res.body.task_id)).status).toBe("SUCCESS");
    }
  };
  const retention = (who: string, query: object) => get("/api/data/retention", who, { user_id: u[who].id, ...query });
  const setRetention = (who: string, body: object) => post("/api/data/retention", who, { user_id: u[who].id, ...body });
  const of = (podcast: string) => ({ podcast_id: pod[podcast] });
  const age = (who: string, title: string, days: number) =>
    downloads().adapter.updateMany({ _id: `${u[who].id}:${ep[title]}` }, { $set: { downloaded_at: new Date(Date.now() - days * DAY_MS) } });

  beforeAll(async () => {
    Object.assign(config, { refreshInterval: 0, autoDeleteInterval: 0, downloadDir: tempDir("retention-dl-"), workerPollMs: 100 });
    media = await startLoopback({});
    const feed = (name: string, prefix: string, count: number, size: (n: number) => number = () => 20_000, delayMs = 0) => {
      const items = Array.from({ length: count }, (_, i) => ({
        title: `${prefix}${i + 1}`,
        url: `${media.url}/${prefix}${i + 1}.mp3`,
        date: `2024-02-0${i + 1}T00:00:00Z`,
      }));
      for (const [i, item] of items.entries()) media.route(`/${item.title}.mp3`, mediaRoute(audioBytes(size(i + 1)), "audio/mpeg", delayMs));
      // Listed oldest first: the order of publication dates, not of the feed, says which are newest.
      media.route(`/${prefix}.xml`, {
        headers: { "Content-Type": "application/rss+xml" },
        body: rssFeed(
          name,
          items.map((i, n) => ({ ...i, guid: `${prefix}-${n}` })),
        ),
      });
    };
    feed("Show", "s", 5);
    feed("Other", "o", 3);
    feed("Big", "b", 2, (n) => (n === 1 ? BIG : 20_000));
    feed("Slow", "w", 3, (n) => (n === 3 ? 1_000_000 : 20_000), 100);
    server = await startServer();
    u = await createUsers(server.url, ["alice", "bob"]);
    for (const [name, prefix] of [
      ["Show", "s"],
      ["Other", "o"],
      ["Big", "b"],
      ["Slow", "w"],
    ]) {
      const added = await post("/api/data/add_podcast", "alice", { podcast_values: { pod_feed_url: `${media.url}/${prefix}.xml`, user_id: u.alice.id } });
      expect(added.status).toBe(200);
      pod[name] = added.body.podcast_id;
      const eps = await get("/api/data/podcast_episodes", "alice", { user_id: u.alice.id, podcast_id: pod[name] });
      for (const e of eps.body.episodes) ep[e.episodetitle] = e.episodeid;
    }
    expect(Object.keys(ep)).toHaveLength(13);
  });
  afterAll(async () => {
    await server?.stop();
    await media?.close();
  });

  test("the defaults: no limit, no age, saved episodes kept; a podcast inherits them", async () => {
    const defaults = { user_id: u.alice.id, keep_last: 0, delete_after_days: 0, keep_saved: true, customized: false };
    const own = { keep_last: false, delete_after_days: false, keep_saved: false };
    expect((await retention("alice", {})).body).toEqual({ ...defaults, podcast_id: null, own });
    expect((await retention("alice", of("Show"))).body).toEqual({ ...defaults, podcast_id: pod.Show, own });
  });

  test("keep_last keeps the newest downloads by publication date and never a saved one; keep_saved false lets it go", async () => {
    await download("alice", "s1", "s2", "s3", "s4", "s5");
    expect((await post("/api/data/save_episode", "alice", { episode_id: ep.s1, user_id: u.alice.id })).status).toBe(200);
    const files = await kept("alice", "Show");
    const set = await setRetention("alice", { ...of("Show"), keep_last: 2 });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ podcast_id: pod.Show, keep_last: 2, delete_after_days: 0, keep_saved: true, customized: true });
    expect(set.body.own).toEqual({ keep_last: true, delete_after_days: false, keep_saved: false });

    expect(await pass()).toBe(2);
    expect(await titles("alice", "Show")).toEqual(["s1", "s4", "s5"]);
    for (const t of ["s2", "s3"]) expect(fs.existsSync(files[t])).toBe(false);
    for (const t of ["s1", "s4", "s5"]) expect(fs.existsSync(files[t])).toBe(true);
    // Nothing more to do: a second pass deletes nothing.
    expect(await pass()).toBe(0);

    expect((await setRetention("alice", { ...of("Show"), keep_saved: false })).body).toMatchObject({ keep_last: 2, keep_saved: false });
    expect(await pass()).toBe(1);
    expect(await titles("alice", "Show")).toEqual(["s4", "s5"]);
    expect(fs.existsSync(files.s1)).toBe(false);
  });

  test("delete_after_days is the auto-delete days of the older routes, both ways, and spares saved episodes by default", async () => {
    // The user's default, written by either route, read by both.
    expect((await setRetention("alice", { delete_after_days: 3 })).body).toMatchObject({ podcast_id: null, delete_after_days: 3 });
    expect((await post("/api/data/get_auto_download_delete_days", "alice", { user_id: u.alice.id })).body).toEqual({ days: 3, customized: false });
    expect((await post("/api/data/user/set_auto_download_delete_days", "alice", { user_id: u.alice.id, days: 5 })).status).toBe(200);
    expect((await retention("alice", {})).body.delete_after_days).toBe(5);
    // A podcast's own days, likewise.
    expect((await post("/api/data/podcast/set_auto_download_delete_days", "alice", { user_id: u.alice.id, ...of("Other"), days: 2 })).status).toBe(200);
    expect((await retention("alice", of("Other"))).body).toMatchObject({ delete_after_days: 2, customized: true, own: { delete_after_days: true } });
    expect((await setRetention("alice", { ...of("Other"), delete_after_days: 4 })).status).toBe(200);
    expect((await post("/api/data/get_auto_download_delete_days", "alice", { user_id: u.alice.id, ...of("Other") })).body).toEqual({
      days: 4,
      customized: true,
    });

    // o1 completed and old: goes. o2 completed, old and saved: stays (the days rule used to delete it). o3 old, not played: stays.
    await download("alice", "o1", "o2", "o3");
    for (const t of ["o1", "o2"])
      expect((await post("/api/data/mark_episode_completed", "alice", { episode_id: ep[t], user_id: u.alice.id })).status).toBe(200);
    expect((await post("/api/data/save_episode", "alice", { episode_id: ep.o2, user_id: u.alice.id })).status).toBe(200);
    for (const t of ["o1", "o2", "o3"]) await age("alice", t, 10);
    const files = await kept("alice", "Other");
    expect(await pass()).toBe(1);
    expect(await titles("alice", "Other")).toEqual(["o2", "o3"]);
    expect(fs.existsSync(files.o1)).toBe(false);
    expect(fs.existsSync(files.o2)).toBe(true);
  });

  test("a podcast's own settings win over the default, and DELETE clears them back to it", async () => {
    expect((await setRetention("alice", { keep_last: 1 })).body).toMatchObject({ podcast_id: null, keep_last: 1, delete_after_days: 5, keep_saved: true });
    expect((await retention("alice", of("Show"))).body).toMatchObject({ keep_last: 2, keep_saved: false, delete_after_days: 5, customized: true });
    // Other: its own days, the default's keep_last.
    expect((await retention("alice", of("Other"))).body).toMatchObject({
      keep_last: 1,
      delete_after_days: 4,
      own: { keep_last: false, delete_after_days: true },
    });

    const cleared = await del("alice", { user_id: u.alice.id, ...of("Show") });
    expect(cleared.status).toBe(200);
    expect(cleared.body).toEqual({
      user_id: u.alice.id,
      podcast_id: pod.Show,
      keep_last: 1,
      delete_after_days: 5,
      keep_saved: true,
      customized: false,
      own: { keep_last: false, delete_after_days: false, keep_saved: false },
    });
    expect((await post("/api/data/get_auto_download_delete_days", "alice", { user_id: u.alice.id, ...of("Show") })).body).toEqual({
      days: 5,
      customized: false,
    });
    // The default applies at the next pass: Show keeps s5 only; Other keeps o3 (newest) and o2 (saved).
    expect(await pass()).toBe(1);
    expect(await titles("alice", "Show")).toEqual(["s5"]);
    expect(await titles("alice", "Other")).toEqual(["o2", "o3"]);
  });

  test("bad input answers 400 and changes nothing", async () => {
    const before = [(await retention("alice", {})).body, (await retention("alice", of("Show"))).body];
    for (const body of [
      { ...of("Show"), keep_last: -1 },
      { ...of("Show"), keep_last: 1.5 },
      { ...of("Show"), keep_last: "many" },
      { ...of("Show"), delete_after_days: 99_999 },
      { ...of("Show"), keep_saved: "perhaps" },
      { ...of("Show"), keep_last: 3, delete_after_days: -2 },
      { ...of("Show") },
      { keep_last: 3, podcast_id: 0 },
      { keep_last: 3, podcast_id: "x" },
    ])
      expectErrorBody(await setRetention("alice", body), 400);
    expectErrorBody(await post("/api/data/retention", "alice", { keep_last: 3 }), 400);
    expectErrorBody(await retention("alice", { podcast_id: "x" }), 400);
    expectErrorBody(await del("alice", { user_id: u.alice.id }), 400);
    expect([(await retention("alice", {})).body, (await retention("alice", of("Show"))).body]).toEqual(before);
  });

  test("another user's retention answers 403; a podcast one is not subscribed to 404", async () => {
    const before = (await retention("alice", of("Show"))).body;
    expectErrorBody(await get("/api/data/retention", "bob", { user_id: u.alice.id }), 403);
    expectErrorBody(await post("/api/data/retention", "bob", { user_id: u.alice.id, ...of("Show"), keep_last: 9 }), 403);
    expectErrorBody(await del("bob", { user_id: u.alice.id, ...of("Show") }), 403);
    expectErrorBody(await setRetention("bob", { ...of("Show"), keep_last: 9 }), 404);
    expectErrorBody(await retention("bob", of("Show")), 404);
    expect((await retention("alice", of("Show"))).body).toEqual(before);
    // An admin may read and set anyone's.
    expect((await get("/api/data/retention", "admin", { user_id: u.alice.id, ...of("Show") })).body).toEqual(before);
  });

  test("a file being streamed is not deleted; it goes at the first pass after the stream closed", async () => {
    await download("alice", "b1", "b2");
    const files = await kept("alice", "Big");
    // Held open: the client reads the first bytes and stops, so the server's read stream waits on back-pressure.
    const req = http.get(`${server.url}/api/data/stream/${ep.b1}?api_key=${u.alice.key}&user_id=${u.alice.id}`);
    const res = await new Promise<http.IncomingMessage>((resolve) => req.once("response", resolve));
    expect(res.statusCode).toBe(200);
    await new Promise((resolve) => res.once("data", resolve));
    res.pause();
    expect(downloads().mediaHolds.held()).toEqual([ep.b1]);

    // keep_last 1 (the default) makes b1 due.
    expect(await pass()).toBe(0);
    expect(await titles("alice", "Big")).toEqual(["b1", "b2"]);
    expect(fs.existsSync(files.b1)).toBe(true);

    req.destroy();
    await until(() => downloads().mediaHolds.held().length === 0, 10_000);
    expect(await pass()).toBe(1);
    expect(await titles("alice", "Big")).toEqual(["b2"]);
    expect(fs.existsSync(files.b1)).toBe(false);
  });

  test("a download job working on an episode keeps its file; once done, the file another user keeps stays", async () => {
    await download("alice", "w1", "w2");
    const files = await kept("alice", "Slow");
    expect((await post("/api/data/add_podcast", "bob", { podcast_values: { pod_feed_url: `${media.url}/w.xml`, user_id: u.bob.id } })).status).toBe(200);
    // Bob's whole-podcast job names w1 to w3; it runs while w3 comes slowly (w1 and w2 reuse Alice's files).
    const job = await post("/api/data/download_all_podcast", "bob", { podcast_id: pod.Slow, user_id: u.bob.id });
    expect(job.status).toBe(200);
    expect(await pass()).toBe(0);
    expect(await titles("alice", "Slow")).toEqual(["w1", "w2"]);
    expect((await waitForTask(server.url, u.bob.key, job.body.task_id)).status).toBe("SUCCESS");

    expect(await pass()).toBe(1);
    expect(await titles("alice", "Slow")).toEqual(["w2"]);
    // Bob's download of w1 is the same file: it stays.
    expect(Object.keys(await kept("bob")).sort()).toEqual(["w1", "w2", "w3"]);
    expect(fs.existsSync(files.w1)).toBe(true);
  });
});
