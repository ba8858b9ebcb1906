/**
 * Downloads, tasks and media over HTTP: a download watched over the tasks WebSocket, the file served
 * whole and in ranges, delete, the admin's toggle, permanent and interrupted failures, a restart that
 * resumes a job, and who may call what.
 */
import fs from "fs";
import path from "path";
import WebSocket from "ws";
import { config } from "../../shared/config";
import { api, asUsers, expectErrorBody } from "../helpers/client";
import { Loopback, startLoopback } from "../helpers/loopback";
import { audioBytes, mediaRoute, waitForTask } from "../helpers/media";
import { createUsers, rssFeed } from "../helpers/podcasts";
import { startServer, tempDir, TestServer } from "../helpers/server";
import { until } from "../helpers/wait";

const SIZE = 300_000;

describe("downloads, tasks and media", () => {
  let server: TestServer;
  let media: Loopback;
  let u: Record<string, { id: number; key: string }>;
  const ep: Record<string, number> = {};
  let podcastId = 0;
  const audio = audioBytes(SIZE);
  const other = audioBytes(50_000);
  const { get, post } = asUsers(() => ({ url: server.url, users: u }));
  const hits = (p: string) => media.requests.filter((r) => r.url === p && r.method === "GET").length;
  const download = async (who: string, episode: string) => {
    const res = await post("/api/data/download_podcast", who, { episode_id: ep[episode], user_id: u[who].id });
    expect(res.status).toBe(200);
    return waitForTask(server.url, u[who].key, res.body.task_id);
  };
  const list = async (who: string) => (await get("/api/data/download_episode_list", who, { user_id: u[who].id })).body.downloaded_episodes;

  beforeAll(async () => {
    Object.assign(config, { refreshInterval: 0, downloadDir: tempDir("podcast-dl-"), workerPollMs: 100, taskRetryBaseMs: 20, taskMaxAttempts: 2 });
    media = await startLoopback({
      "/ep1.mp3": mediaRoute(audio),
      "/ep2.mp3": mediaRoute(other),
      "/page.mp3": { headers: { "Content-Type": "text/html" }, body: "<html>a login page</html>" },
      "/cut.mp3": (_req, res) => {
        res.writeHead(200, { "Content-Type": "audio/mpeg", "Content-Length": String(SIZE) });
        res.write(audio.subarray(0, 1000), () => res.destroy());
      },
    });
    const items = ["ep1", "ep2", "page", "gone", "cut"].map((t, i) => ({
      title: t,
      guid: t,
      url: `${media.url}/${t}.mp3`,
      date: `2024-01-0${i + 1}T00:00:00Z`,
    }));
    media.route("/feed.xml", { headers: { "Content-Type": "application/rss+xml" }, body: rssFeed("Media Show", items) });
    server = await startServer();
    u = await createUsers(server.url, ["alice", "bob"]);
    const added = await post("/api/data/add_podcast", "alice", { podcast_values: { pod_feed_url: `${media.url}/feed.xml`, user_id: u.alice.id } });
    podcastId = added.body.podcast_id;
    const eps = await get("/api/data/podcast_episodes", "alice", { user_id: u.alice.id, podcast_id: podcastId });
    for (const e of eps.body.episodes) ep[e.episodetitle] = e.episodeid;
  });
  afterAll(async () => {
    await server?.stop();
    await media?.close();
  });

  test("a download goes PENDING -> DOWNLOADING -> SUCCESS over the WebSocket, and the file equals the source", async () => {
    const ws = new WebSocket(`${server.url.replace("http", "ws")}/ws/api/tasks/${u.alice.id}?api_key=${u.alice.key}`);
    const messages: any[] = [];
    ws.on("message", (m) => messages.push(JSON.parse((m as Buffer).toString())));
    await new Promise((r) => ws.once("open", r));
    await until(() => messages.length > 0, 15_000);
    expect(messages[0]).toMatchObject({ event: "initial", tasks: [] });

    const task = await download("alice", "ep1");
    expect(task).toMatchObject({
      status: "SUCCESS",
      progress: 100,
      task_type: "download_episode",
      user_id: u.alice.id,
      episode_title: "ep1",
      podcast_name: "Media Show",
    });
    await until(() => messages.some((m) => m.task?.status === "SUCCESS"), 15_000);
    const seen = messages.filter((m) => m.event === "update" && m.task.id === task.id).map((m) => m.task.status);
    expect(seen[0]).toBe("PENDING");
    expect(seen).toContain("DOWNLOADING");
    expect(seen[seen.length - 1]).toBe("SUCCESS");
    ws.close();

    const [item] = await list("alice");
    expect(item).toMatchObject({
      episodeid: ep.ep1,
      podcastid: podcastId,
      podcastname: "Media Show",
      episodetitle: "ep1",
      episodeurl: `${media.url}/ep1.mp3`,
      websiteurl: "https://example.test/",
      podcastindexid: null,
      listenduration: null,
      completed: false,
      is_vidsite: false,
    });
    expect(item.downloadedlocation).toBe(path.join(config.downloadDir, "Media Show", `ep1 (${ep.ep1}).mp3`));
    expect(fs.readFileSync(item.downloadedlocation).equals(audio)).toBe(true);
    // A second request answers with a message and fetches nothing.
    const again = await post("/api/data/download_podcast", "alice", { episode_id: ep.ep1, user_id: u.alice.id });
    expect(again.body).toEqual({ detail: "Episode already downloaded", task_id: null });
    expect(hits("/ep1.mp3")).toBe(1);
  });

  test("the downloaded file is streamed whole, in ranges, as HEAD and as an attachment", async () => {
    const stream = (range?: string) => {
      const req = api(server.url).get(`/api/data/stream/${ep.ep1}`).query({ api_key: u.alice.key, user_id: u.alice.id }).buffer(true).parse(binary);
      return range ? req.set("Range", range) : req;
    };
    const full = await stream();
    expect(full.status).toBe(200);
    expect(full.headers["content-type"]).toBe("audio/mpeg");
    expect(full.headers["content-length"]).toBe(String(SIZE));
    expect(full.headers["accept-ranges"]).toBe("bytes");
    expect(Buffer.compare(full.body, audio)).toBe(0);

    const part = await stream("bytes=1000-1999");
    expect(part.status).toBe(206);
    expect(part.headers["content-range"]).toBe(`bytes 1000-1999/${SIZE}`);
    expect(Buffer.compare(part.body, audio.subarray(1000, 2000))).toBe(0);
    const tail = await stream("bytes=-100");
    expect(Buffer.compare(tail.body, audio.subarray(SIZE - 100))).toBe(0);

    const out = await stream(`bytes=${SIZE}-`);
    expect(out.status).toBe(416);
    expect(out.headers["content-range"]).toBe(`bytes */${SIZE}`);

    const head = await api(server.url).head(`/api/data/stream/${ep.ep1}`).query({ api_key: u.alice.key, user_id: u.alice.id });
    expect(head.status).toBe(200);
    expect(head.headers["content-length"]).toBe(String(SIZE));
    expect(head.headers["content-type"]).toBe("audio/mpeg");

    const file = await api(server.url).get(`/api/episodes/${ep.ep1}/download`).set("Api-Key", u.alice.key).buffer(true).parse(binary);
    expect(file.status).toBe(200);
    expect(file.headers["content-disposition"]).toMatch(/^attachment; filename="ep1\.mp3"/);
    expect(Buffer.compare(file.body, audio)).toBe(0);
    expect(hits("/ep1.mp3")).toBe(1); // all of it from the downloaded file
  });

  test("an episode not downloaded is proxied from its enclosure, ranges included", async () => {
    const q = { api_key: u.alice.key, user_id: u.alice.id };
    const full = await api(server.url).get(`/api/data/stream/${ep.ep2}`).query(q).buffer(true).parse(binary);
    expect(full.status).toBe(200);
    expect(full.headers["content-type"]).toBe("audio/mpeg");
    expect(Buffer.compare(full.body, other)).toBe(0);
    const part = await api(server.url).get(`/api/data/stream/${ep.ep2}`).query(q).set("Range", "bytes=10-19").buffer(true).parse(binary);
    expect(part.status).toBe(206);
    expect(part.headers["content-range"]).toBe(`bytes 10-19/${other.length}`);
    expect(Buffer.compare(part.body, other.subarray(10, 20))).toBe(0);
    const out = await api(server.url).get(`/api/data/stream/${ep.ep2}`).query(q).set("Range", "bytes=999999-");
    expect(out.status).toBe(416);
  });

  test("enclosures follow the outbound URL policy with the requester's rights", async () => {
    config.outboundAllowPrivate = "false"; // loopback media: an admin's rights only
    try {
      const res = await api(server.url).get(`/api/data/stream/${ep.ep2}`).query({ api_key: u.alice.key, user_id: u.alice.id });
      expectErrorBody(res, 403);
      expect(await download("alice", "ep2")).toMatchObject({ status: "FAILED", message: expect.stringMatching(/not allowed|private/i) });
      const admin = await api(server.url).get(`/api/data/stream/${ep.ep2}`).query({ api_key: u.admin.key, user_id: u.admin.id }).buffer(true).parse(binary);
      expect(admin.status).toBe(200);
      expect(Buffer.compare(admin.body, other)).toBe(0);
    } finally {
      config.outboundAllowPrivate = "127.0.0.1/32";
    }
  });

  test("permanent errors fail with their reason; an interrupted body retries, then fails and leaves no file", async () => {
    expect(await download("alice", "page")).toMatchObject({ status: "FAILED", message: expect.stringMatching(/Not an audio or video file/) });
    expect(await download("alice", "gone")).toMatchObject({ status: "FAILED", message: expect.stringMatching(/HTTP 404/) });
    const cut = await download("alice", "cut");
    expect(cut).toMatchObject({ status: "FAILED", message: expect.stringMatching(/gave up after 2 attempts/) });
    expect(hits("/cut.mp3")).toBe(2);
    expect((await list("alice")).map((i: any) => i.episodeid)).toEqual([ep.ep1]);
    expect(fs.readdirSync(path.join(config.downloadDir, "Media Show"))).toEqual([`ep1 (${ep.ep1}).mp3`]);
  });

  test("bulk download skips downloaded episodes; summary, paged list and status count them", async () => {
    const res = await post("/api/data/bulk_download_episodes", "alice", { episode_ids: [ep.ep1, ep.ep2], user_id: u.alice.id });
    expect(res.body).toMatchObject({ processed_count: 2, failed_count: null, message: expect.stringMatching(/Queued 1 downloads; 1 already downloaded/) });
    await until(async () => (await list("alice")).length === 2, 15_000);
    const summary = await get(`/api/data/podcast_download_summary/${u.alice.id}`, "alice");
    expect(summary.body.podcasts).toEqual([
      expect.objectContaining({ podcastid: podcastId, podcastname: "Media Show", episode_count: 2, total_size: SIZE + other.length }),
    ]);
    const paged = await get(`/api/data/podcast_downloads_paged/${u.alice.id}/${podcastId}`, "alice", { limit: 1, sort_by: "title", sort_order: "asc" });
    expect(paged.body.total).toBe(2);
    expect(paged.body.episodes.map((e: any) => e.episodetitle)).toEqual(["ep1"]);
    const searched = await get(`/api/data/podcast_downloads_paged/${u.alice.id}/${podcastId}`, "alice", { search: "EP2" });
    expect(searched.body.episodes.map((e: any) => e.episodetitle)).toEqual(["ep2"]);
    const status = await get(`/api/data/download_status/${u.alice.id}`, "alice");
    expect(status.body).toMatchObject({ total_downloaded: 2, downloads_enabled: true, active_downloads: 0 });
    expectErrorBody(await get(`/api/data/podcast_downloads_paged/${u.alice.id}/${podcastId}`, "alice", { sort_by: "nonsense" }), 400);
  });

  test("delete removes the file (metadata kept); bulk delete counts what it removed", async () => {
    const item = (await list("alice")).find((i: any) => i.episodeid === ep.ep2);
    expect((await post("/api/data/delete_episode", "alice", { episode_id: ep.ep2, user_id: u.alice.id })).body).toEqual({
      detail: "Downloaded episode deleted",
    });
    expect(fs.existsSync(item.downloadedlocation)).toBe(false);
    expectErrorBody(await post("/api/data/delete_episode", "alice", { episode_id: ep.ep2, user_id: u.alice.id }), 404);
    const eps = await get("/api/data/podcast_episodes", "alice", { user_id: u.alice.id, podcast_id: podcastId });
    expect(eps.body.episodes.map((e: any) => e.episodeid)).toContain(ep.ep2);
    const bulk = await post("/api/data/bulk_delete_downloaded_episodes", "alice", { episode_ids: [ep.ep1, ep.ep2], user_id: u.alice.id });
    expect(bulk.body).toMatchObject({ processed_count: 1, failed_count: 1 });
    expect(await list("alice")).toEqual([]);
  });

  test("a whole podcast's download is a download_all_episodes task, as both PinePods clients name it; one stored under the old name still runs", async () => {
    // Queued as a server before this change stored it (a data folder upgraded with the job pending).
    const before: any = await server.broker.call("tasks.create", {
      tasks: [
        {
          task_type: "download_podcast",
          user_id: u.alice.id,
          item_id: podcastId,
          podcast_name: "Media Show",
          payload: { podcast_id: podcastId, episode_ids: [ep.ep1], rights: "user" },
          dedupe_key: `podcast:${u.alice.id}:${podcastId}`,
        },
      ],
    });
    expect(await waitForTask(server.url, u.alice.key, before.created[0].id)).toMatchObject({ status: "SUCCESS", task_type: "download_podcast" });
    expect((await list("alice")).map((d: any) => d.episodeid)).toEqual([ep.ep1]);
    const all = await post("/api/data/download_all_podcast", "alice", { podcast_id: podcastId, user_id: u.alice.id });
    expect((await get(`/api/tasks/${all.body.task_id}`, "alice")).body.task_type).toBe("download_all_episodes");
    await waitForTask(server.url, u.alice.key, all.body.task_id);
    await post("/api/data/bulk_delete_downloaded_episodes", "alice", { episode_ids: (await list("alice")).map((d: any) => d.episodeid), user_id: u.alice.id });
    expect(await list("alice")).toEqual([]);
  });

  test("list items, episode metadata and get_stats show what the user downloaded; deleting it shows false again", async () => {
    const a = u.alice.id;
    const mine = { user_id: a, is_vidsite: false };
    for (const t of ["ep1", "ep2"]) {
      await post("/api/data/queue_pod", "alice", { ...mine, episode_id: ep[t] });
      await post("/api/data/save_episode", "alice", { ...mine, episode_id: ep[t] });
      await post("/api/data/record_podcast_history", "alice", { ...mine, episode_id: ep[t], episode_pos: 5 });
    }
    const playlist = (
      await post("/api/data/create_playlist", "alice", {
        user_id: a,
        name: "All media",
        podcast_ids: [podcastId],
        include_unplayed: true,
        include_partially_played: true,
        include_played: true,
        sort_order: "date_desc",
        group_by_podcast: false,
        icon_name: "ph-list",
      })
    ).body.playlist_id;
    /** episodeid -> downloaded, per list. */
    const flags = async () => {
      const byId = (items: any[], key = "episodeid") =>
        Object.fromEntries(items.filter((i) => i[key] === ep.ep1 || i[key] === ep.ep2).map((i) => [i[key], i.downloaded]));
      const [queue, saved, history, episodes, latest, inPlaylist, search, meta, stats] = await Promise.all([
        get("/api/data/get_queued_episodes", "alice", { user_id: a }),
        get(`/api/data/saved_episode_list/${a}`, "alice"),
        get(`/api/data/user_history/${a}`, "alice"),
        get("/api/data/podcast_episodes", "alice", { user_id: a, podcast_id: podcastId }),
        get(`/api/data/return_episodes/${a}`, "alice"),
        get("/api/data/get_playlist_episodes", "alice", { user_id: a, playlist_id: playlist }),
        post("/api/data/search_data", "alice", { user_id: a, search_term: "ep", filter: "episodes" }),
        post("/api/data/get_episode_metadata", "alice", { user_id: a, episode_id: ep.ep1 }),
        get("/api/data/get_stats", "alice", { user_id: a }),
      ]);
      return {
        queue: byId(queue.body.data),
        saved: byId(saved.body.saved_episodes),
        history: byId(history.body.data),
        episodes: byId(episodes.body.episodes),
        latest: byId(latest.body.episodes),
        playlist: byId(inPlaylist.body.episodes),
        search: byId(search.body.data, "episode_id"),
        metadata: meta.body.episode.is_downloaded,
        stats: stats.body.episodes_downloaded,
      };
    };
    const lists = (e1: boolean) => ({ [ep.ep1]: e1, [ep.ep2]: false });
    const everywhere = (e1: boolean) => ({
      queue: lists(e1),
      saved: lists(e1),
      history: lists(e1),
      episodes: lists(e1),
      latest: lists(e1),
      playlist: lists(e1),
      search: lists(e1),
      metadata: e1,
      stats: e1 ? 1 : 0,
    });
    expect(await flags()).toEqual(everywhere(false));
    expect(await download("alice", "ep1")).toMatchObject({ status: "SUCCESS" });
    expect(await flags()).toEqual(everywhere(true));
    expect((await post("/api/data/delete_episode", "alice", { ...mine, episode_id: ep.ep1 })).status).toBe(200);
    expect(await flags()).toEqual(everywhere(false));
  });

  test("auto-download: new episodes of a podcast with auto_download on are downloaded for that subscriber", async () => {
    expect((await post("/api/data/enable_auto_download", "alice", { podcast_id: podcastId, user_id: u.alice.id, auto_download: true })).status).toBe(200);
    const items = ["ep1", "ep2", "page", "gone", "cut", "fresh"].map((t, i) => ({
      title: t,
      guid: t,
      url: `${media.url}/${t === "fresh" ? "ep2" : t}.mp3`,
      date: `2024-01-0${i + 1}T00:00:00Z`,
    }));
    media.route("/feed.xml", { headers: { "Content-Type": "application/rss+xml" }, body: rssFeed("Media Show", items) });
    // The refresh itself is a job: its figures come back with its task_id.
    const refresh = await get("/api/data/refresh_pods", "alice");
    expect(refresh.body).toMatchObject({ new_episodes: 1, refreshed: 1, task_id: expect.any(String) });
    expect((await get(`/api/tasks/${refresh.body.task_id}`, "alice")).body).toMatchObject({ task_type: "refresh_pods", status: "SUCCESS", progress: 100 });
    await until(async () => (await list("alice")).some((i: any) => i.episodetitle === "fresh"), 15_000);
    const tasks = (await get(`/api/tasks/user/${u.alice.id}`, "alice")).body;
    expect(tasks.find((t: any) => t.episode_title === "fresh")).toMatchObject({ status: "SUCCESS", task_type: "download_episode" });
    await post("/api/data/enable_auto_download", "alice", { podcast_id: podcastId, user_id: u.alice.id, auto_download: false });
    await post("/api/data/bulk_delete_downloaded_episodes", "alice", { episode_ids: (await list("alice")).map((i: any) => i.episodeid), user_id: u.alice.id });
  });

  test("the admin's toggle turns downloads off (403 with a reason) and on", async () => {
    expect((await post("/api/data/enable_disable_downloads", "admin", {})).body).toMatchObject({ downloads_enabled: false });
    const status = await get("/api/data/download_status", "alice");
    expect(status.headers["content-type"]).toMatch(/^text\/plain/);
    expect(status.text).toBe("false");
    const refused = await post("/api/data/download_podcast", "alice", { episode_id: ep.ep1, user_id: u.alice.id });
    expectErrorBody(refused, 403);
    expect(refused.body.message).toMatch(/Downloads are disabled/);
    expectErrorBody(await post("/api/data/enable_disable_downloads", "alice", {}), 403);
    expect((await post("/api/data/enable_disable_downloads", "admin", {})).body).toMatchObject({ downloads_enabled: true });
    expect((await get("/api/data/download_status", "alice")).text).toBe("true");
  });

  test("authorization: no key 401, bad key 401, another user's id 403, the owner 200", async () => {
    const a = u.alice.id;
    const routes: [string, Record<string, unknown>][] = [
      [`/api/tasks/user/${a}`, {}],
      ["/api/data/download_episode_list", { user_id: a }],
      [`/api/data/podcast_download_summary/${a}`, {}],
      [`/api/data/podcast_downloads_paged/${a}/${podcastId}`, {}],
      [`/api/data/download_status/${a}`, {}],
      [`/api/data/stream/${ep.ep2}`, { user_id: a }],
    ];
    for (const [route, query] of routes) {
      expectErrorBody(await api(server.url).get(route).query(query), 401);
      expectErrorBody(await api(server.url).get(route).query(query).set("Api-Key", "not-a-key"), 401);
      expectErrorBody(await get(route, "bob", query), 403);
      expect((await get(route, "alice", query)).status).toBe(200);
    }
    expectErrorBody(await api(server.url).get(`/api/data/stream/${ep.ep2}`).query({ user_id: a, api_key: "wrong" }), 401);
    expectErrorBody(await post("/api/data/download_podcast", "bob", { episode_id: ep.ep1, user_id: a }), 403);
    // bob is not subscribed: the episode is not his to fetch, stream or download.
    expectErrorBody(await post("/api/data/download_podcast", "bob", { episode_id: ep.ep1, user_id: u.bob.id }), 404);
    expectErrorBody(await api(server.url).get(`/api/episodes/${ep.ep1}/download`).set("Api-Key", u.bob.key), 404);
    expectErrorBody(await get("/api/tasks/active", "alice").set("Api-Key", "nope"), 401);
    // Task records: the owner and admins only.
    const tasks = (await get(`/api/tasks/user/${a}`, "alice")).body;
    expect(tasks.length).toBeGreaterThan(0);
    expectErrorBody(await get(`/api/tasks/${tasks[0].id}`, "bob"), 403);
    expect((await get(`/api/tasks/${tasks[0].id}`, "admin")).status).toBe(200);
    expectErrorBody(await get("/api/tasks/999999", "alice"), 404);
    expectErrorBody(await get("/api/tasks/abc", "alice"), 404);
    expect((await get("/api/tasks/active", "bob")).body).toEqual([]);
    expectErrorBody(await post("/api/data/bulk_download_episodes", "alice", { episode_ids: "x", user_id: a }), 400);
  });

  test("the WebSocket refuses a bad key (401) and another user's id (403)", async () => {
    const status = (path: string) =>
      new Promise<number>((resolve, reject) => {
        const ws = new WebSocket(`${server.url.replace("http", "ws")}${path}`);
        ws.on("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0));
        ws.on("open", () => reject(new Error("opened")));
        ws.on("error", () => undefined);
      });
    expect(await status(`/ws/api/tasks/${u.alice.id}`)).toBe(401);
    expect(await status(`/ws/api/tasks/${u.alice.id}?api_key=wrong`)).toBe(401);
    expect(await status(`/ws/api/tasks/${u.alice.id}?api_key=${u.bob.key}`)).toBe(403);
  });

  test("unsubscribing removes the user's downloads of that podcast", async () => {
    await post("/api/data/add_podcast", "bob", { podcast_values: { pod_feed_url: `${media.url}/feed.xml`, user_id: u.bob.id } });
    expect(await download("bob", "ep1")).toMatchObject({ status: "SUCCESS" });
    const [item] = await list("bob");
    expect(fs.existsSync(item.downloadedlocation)).toBe(true);
    expect((await post("/api/data/remove_podcast_id", "bob", { podcast_id: podcastId, user_id: u.bob.id })).status).toBe(200);
    await until(async () => (await list("bob")).length === 0, 15_000);
    await until(() => !fs.existsSync(item.downloadedlocation), 15_000);
  });

  test("cleanup_tasks removes finished tasks; startup_tasks needs an admin key in the body", async () => {
    expectErrorBody(await api(server.url).post("/api/init/startup_tasks").send({ api_key: u.alice.key }), 403);
    expectErrorBody(await api(server.url).post("/api/init/startup_tasks").send({}), 401);
    const started = await api(server.url).post("/api/init/startup_tasks").send({ api_key: u.admin.key });
    expect(started.body).toMatchObject({ detail: "Startup tasks completed" });
    const cleaned = await get("/api/data/cleanup_tasks", "alice");
    expect(cleaned.body.removed).toBeGreaterThan(0);
    expect((await get(`/api/tasks/user/${u.alice.id}`, "alice")).body).toEqual([]);
  });
});

describe("a job survives a restart of the server", () => {
  test("a download cut short by a stop is resumed by the next start and finishes once", async () => {
    Object.assign(config, { refreshInterval: 0, downloadDir: tempDir("podcast-dl-"), workerPollMs: 100, taskLeaseSeconds: 2, taskMaxAttempts: 5 });
    const audio = audioBytes(100_000);
    let first = true;
    const media = await startLoopback({
      // The first answer stops half-way (the server stops meanwhile); later ones are whole.
      "/slow.mp3": (req, res) => {
        if (!first) return mediaRoute(audio)(req, res);
        first = false;
        res.writeHead(200, { "Content-Type": "audio/mpeg", "Content-Length": String(audio.length) });
        res.write(audio.subarray(0, 50_000));
      },
    });
    media.route("/feed.xml", { body: rssFeed("Restart Show", [{ title: "slow", guid: "slow", url: `${media.url}/slow.mp3`, date: "2024-01-01T00:00:00Z" }]) });
    const dataDir = tempDir();
    let server = await startServer({ dataDir });
    const users = await createUsers(server.url, []);
    const key = users.admin.key;
    const added = await api(server.url)
      .post("/api/data/add_podcast")
      .set("Api-Key", key)
      .send({ podcast_values: { pod_feed_url: `${media.url}/feed.xml`, user_id: users.admin.id } });
    const eps = await api(server.url)
      .get("/api/data/podcast_episodes")
      .set("Api-Key", key)
      .query({ user_id: users.admin.id, podcast_id: added.body.podcast_id });
    const res = await api(server.url)
      .post("/api/data/download_podcast")
      .set("Api-Key", key)
      .send({ episode_id: eps.body.episodes[0].episodeid, user_id: users.admin.id });
    await until(() => fs.existsSync(path.join(config.downloadDir, "Restart Show")), 15_000);
    await server.stop();

    server = await startServer({ dataDir });
    try {
      const task = await waitForTask(server.url, key, res.body.task_id);
      expect(task).toMatchObject({ status: "SUCCESS", progress: 100 });
      const list = await api(server.url).get("/api/data/download_episode_list").set("Api-Key", key).query({ user_id: users.admin.id });
      expect(list.body.downloaded_episodes).toHaveLength(1);
      expect(fs.readFileSync(list.body.downloaded_episodes[0].downloadedlocation).equals(audio)).toBe(true);
      // The stopped run's partial file went with the finished download.
      expect(fs.readdirSync(path.join(config.downloadDir, "Restart Show"))).toEqual([path.basename(list.body.downloaded_episodes[0].downloadedlocation)]);
    } finally {
      await server.stop();
      await media.close();
    }
  });
});

function binary(res: any, done: (err: Error | null, body: Buffer) => void) {
  const chunks: Buffer[] = [];
  res.on("data", (c: Buffer) => chunks.push(c));
  res.on("end", () => done(null, Buffer.concat(chunks)));
}
