/**
 * OPML import and export over HTTP: a real export (its feed hosts moved onto loopback) imported as a
 * background job with progress, failures by URL and reason, already-subscribed feeds skipped; the
 * export round-trips into the same library; quirky documents; 1,000 feeds answered at once.
 */
import fs from "fs";
import path from "path";
import { config } from "../../shared/config";
import { api, asUsers, expectErrorBody } from "../helpers/client";
import { Loopback, startLoopback } from "../helpers/loopback";
import { waitForTask } from "../helpers/media";
import { createUsers, fixture } from "../helpers/podcasts";
import { startServer, tempDir, TestServer } from "../helpers/server";

const OPML_DIR = path.join(__dirname, "..", "fixtures", "opml");

describe("OPML import and export", () => {
  let server: TestServer;
  let feeds: Loopback;
  let u: Record<string, { id: number; key: string }>;
  const { get, post } = asUsers(() => ({ url: server.url, users: u }));
  /** The real export with every feed host moved under the loopback server: /f/<host>/<path>. */
  const realExport = () => fs.readFileSync(path.join(OPML_DIR, "antennapod_export.opml"), "utf8").replace(/xmlUrl="https?:\/\//g, `xmlUrl="${feeds.url}/f/`);
  const library = async (who: string) => {
    const res = await get(`/api/data/return_pods/${u[who].id}`, who);
    return res.body.pods.map((p: any) => ({ title: p.title, feed_url: p.feed_url })).sort((a: any, b: any) => a.feed_url.localeCompare(b.feed_url));
  };
  const importAndWait = async (who: string, body: object) => {
    const res = await post("/api/data/import_opml", who, { user_id: u[who].id, ...body });
    expect(res.status).toBe(200);
    const task = await waitForTask(server.url, u[who].key, res.body.task_id, 60_000);
    expect(task.status).toBe("SUCCESS");
    return { started: res.body, task };
  };

  beforeAll(async () => {
    Object.assign(config, { refreshInterval: 0, workerPollMs: 100, addPodcastSyncEpisodes: 30 });
    const feed = fixture("minimal_itunes_3items.xml");
    feeds = await startLoopback((req, res) => {
      const p = (req.url ?? "").split("?")[0];
      if (p.includes("alternativlos")) return void res.writeHead(404).end("gone");
      if (p.includes("chaosradio")) return void res.writeHead(200, { "Content-Type": "text/html" }).end("<html><body>not a feed</body></html>");
      res.writeHead(200, { "Content-Type": "application/rss+xml" }).end(feed);
    });
    server = await startServer();
    u = await createUsers(server.url, ["alice", "bob"]);
  });
  afterAll(async () => {
    await server?.stop();
    await feeds?.close();
  });

  test("a real export imports in the background: progress, failures by URL and reason, subscribed feeds skipped", async () => {
    const before = await post("/api/data/add_custom_podcast", "alice", { feed_url: `${feeds.url}/f/www.heise.de/heiseshow.rss`, user_id: u.alice.id });
    expect(before.status).toBe(200);
    const { started, task } = await importAndWait("alice", { opml: realExport() });
    expect(started).toMatchObject({ success: true, total: 31, rejected: [] });
    expect(task.result).toMatchObject({ imported: 28, skipped: 1 });
    expect(task.result.failed).toHaveLength(2);
    expect(task.result.failed).toEqual(
      expect.arrayContaining([
        { url: `${feeds.url}/f/www.alternativlos.org/ogg.rss`, reason: expect.stringMatching(/404/) },
        { url: `${feeds.url}/f/chaosradio.ccc.de/chaosradio-latest.rss`, reason: expect.any(String) },
      ]),
    );
    const progress = await get(`/api/data/import_progress/${u.alice.id}`, "alice");
    expect(progress.status).toBe(200);
    expect(progress.body).toMatchObject({ current: 31, total: 31, status: "SUCCESS", imported: 28, skipped: 1, current_podcast: expect.any(String) });
    expect(progress.body.failed.map((f: any) => f.url).sort()).toEqual([
      `${feeds.url}/f/chaosradio.ccc.de/chaosradio-latest.rss`,
      `${feeds.url}/f/www.alternativlos.org/ogg.rss`,
    ]);
    expect(await library("alice")).toHaveLength(29);
  });

  test("backup_user exports OPML 2.0 that re-imports into the same library", async () => {
    const exported = await post("/api/data/backup_user", "alice", { user_id: u.alice.id });
    expect(exported.status).toBe(200);
    expect(exported.headers["content-type"]).toMatch(/^text\/plain/);
    expect(exported.text).toMatch(/<opml version="2.0">/);
    const before = await library("alice");
    const pods = (await get(`/api/data/return_pods/${u.alice.id}`, "alice")).body.pods;
    for (const p of pods) expect((await post("/api/data/remove_podcast_id", "alice", { user_id: u.alice.id, podcast_id: p.podcast_id })).status).toBe(200);
    expect(await library("alice")).toEqual([]);
    const { task } = await importAndWait("alice", { opml: exported.text });
    expect(task.result).toMatchObject({ imported: 29, skipped: 0, failed: [] });
    expect(await library("alice")).toEqual(before);
  });

  test("quirky OPML: BOM, nested folders, no type, url instead of xmlUrl, HTML entities; bad entries reported", async () => {
    const doc = `\uFEFF<?xml version="1.0" encoding="UTF-8"?>
<opml version="1.0"><head><title>Caf&eacute;</title></head><body>
  <outline text="News"><outline text="Deep"><outline text="Caf&eacute; &amp; Co" xmlurl="${feeds.url}/q/one?x=1&amp;y=2"/></outline></outline>
  <outline text="no type" url="${feeds.url}/q/two"/>
  <outline type="link" url="${feeds.url}/q/not-a-feed"/>
</body></opml>`;
    const { started, task } = await importAndWait("bob", { opml: doc, podcasts: ["ftp://example.org/feed", `${feeds.url}/q/two`] });
    expect(started.total).toBe(2);
    expect(started.rejected).toEqual([{ url: "ftp://example.org/feed", reason: "Not an http(s) URL" }]);
    expect(task.result).toMatchObject({ imported: 2, skipped: 0, failed: [{ url: "ftp://example.org/feed", reason: "Not an http(s) URL" }] });
    expect((await library("bob")).map((p: any) => p.feed_url)).toEqual([`${feeds.url}/q/one?x=1&y=2`, `${feeds.url}/q/two`]);
  });

  test("bad input is a 400, another user's import a 403, no key a 401", async () => {
    expectErrorBody(await post("/api/data/import_opml", "bob", { user_id: u.bob.id }), 400);
    expectErrorBody(await post("/api/data/import_opml", "bob", { user_id: u.bob.id, opml: "<rss><channel/></rss>" }), 400);
    expectErrorBody(await post("/api/data/import_opml", "bob", { user_id: u.bob.id, podcasts: "https://x.example/" }), 400);
    expectErrorBody(await post("/api/data/import_opml", "bob", { user_id: u.alice.id, podcasts: [`${feeds.url}/q/x`] }), 403);
    expectErrorBody(await get(`/api/data/import_progress/${u.alice.id}`, "bob"), 403);
    expectErrorBody(await post("/api/data/backup_user", "bob", { user_id: u.alice.id }), 403);
    expectErrorBody(await api(server.url).post("/api/data/import_opml").send({ user_id: u.bob.id, podcasts: [] }), 401);
  });

  test("1,000 feeds: the request answers at once with the job, a second import waits for it (409)", async () => {
    const urls = Array.from({ length: 1000 }, (_, i) => `${feeds.url}/many/${i}.xml`);
    const t0 = Date.now();
    const res = await post("/api/data/import_opml", "bob", { user_id: u.bob.id, podcasts: urls });
    expect(res.status).toBe(200);
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(res.body).toMatchObject({ success: true, total: 1000, task_id: expect.any(String) });
    expectErrorBody(await post("/api/data/import_opml", "bob", { user_id: u.bob.id, podcasts: urls.slice(0, 1) }), 409);
    const progress = await get(`/api/data/import_progress/${u.bob.id}`, "bob");
    expect(progress.body).toMatchObject({ total: 1000, task_id: res.body.task_id });
    expect(["PENDING", "RUNNING"]).toContain(progress.body.status);
  });
});

describe("an OPML import survives a restart of the server", () => {
  test("a job cut short by a stop is resumed by the next start: every feed ends up in the library once", async () => {
    Object.assign(config, { refreshInterval: 0, workerPollMs: 100, taskLeaseSeconds: 1 });
    const feed = fixture("minimal_itunes_3items.xml");
    // Slow feeds, so that the stop falls in the middle of the import.
    const peer = await startLoopback((_req, res) => void setTimeout(() => res.writeHead(200).end(feed), 150));
    const dataDir = tempDir();
    let server = await startServer({ dataDir });
    const users = await createUsers(server.url, []);
    const { id, key } = users.admin;
    const urls = Array.from({ length: 40 }, (_, i) => `${peer.url}/r/${i}.xml`);
    const started = await api(server.url).post("/api/data/import_opml").set("Api-Key", key).send({ user_id: id, podcasts: urls });
    expect(started.status).toBe(200);
    const progress = () => api(server.url).get(`/api/data/import_progress/${id}`).set("Api-Key", key);
    for (let i = 0; i < 200 && (await progress()).body.current < 10; i++) await new Promise((r) => setTimeout(r, 50));
    await server.stop();
    server = await startServer({ dataDir });
    try {
      const task = await waitForTask(server.url, key, started.body.task_id, 60_000);
      expect(task.status).toBe("SUCCESS");
      expect(task.result.imported + task.result.skipped).toBe(40);
      expect(task.result.failed).toEqual([]);
      const pods = await api(server.url).get(`/api/data/return_pods/${id}`).set("Api-Key", key);
      expect(pods.body.pods.map((p: any) => p.feed_url).sort()).toEqual([...urls].sort());
      expect((await progress()).body).toMatchObject({ current: 40, total: 40, status: "SUCCESS" });
    } finally {
      await server.stop();
      await peer.close();
    }
  });
});
