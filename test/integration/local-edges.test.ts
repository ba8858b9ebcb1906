/**
 * The edges where local podcasts meet the rest of the server: shared links of a local episode play
 * through their key, the OPML export leaves local folders out (so it re-imports cleanly), auto-download
 * never queues a local file, a rejected upload is answered once, and folders with subfolders (an
 * audiobook's CD1/CD2) are read down to a bounded depth, links refused.
 */
import fs from "fs";
import path from "path";
import { config } from "../../shared/config";
import { api, asUsers, expectErrorBody } from "../helpers/client";
import { mp3Bytes, pngBytes } from "../helpers/audio";
import { freezeClock } from "../helpers/clock";
import { startLoopback, Loopback } from "../helpers/loopback";
import { capturingLogger } from "../helpers/logs";
import { waitForTask } from "../helpers/media";
import { createUsers, rssFeed } from "../helpers/podcasts";
import { startServer, tempDir, TestServer } from "../helpers/server";

describe("local podcasts at the edges", () => {
  let server: TestServer;
  let peer: Loopback;
  let media: string;
  let u: Record<string, { id: number; key: string }>;
  const lines: string[] = [];
  const { get, post } = asUsers(() => ({ url: server.url, users: u }));
  const addLocal = (who: string, directory_path: string, podcast_name: string) =>
    post("/api/data/add_local_podcast", who, { user_id: u[who].id, directory_path, podcast_name });
  const episodes = async (who: string, podcast_id: number) =>
    (await get("/api/data/podcast_episodes", who, { user_id: u[who].id, podcast_id })).body.episodes as any[];
  /** A GET (or HEAD) whose body is kept as bytes, whatever its type. */
  const bytes = (url: string, range?: string) => {
    const req = api(url)
      .get("")
      .buffer(true)
      .parse((res, cb) => {
        const parts: Buffer[] = [];
        res.on("data", (c: Buffer) => parts.push(c));
        res.on("end", () => cb(null, Buffer.concat(parts)));
      });
    return range ? req.set("Range", range) : req;
  };
  const one = mp3Bytes({ title: "Show one", track: 1 }, 2);
  let showId: number;

  beforeAll(async () => {
    media = tempDir("podcast-media-");
    const outside = tempDir("podcast-outside-");
    fs.mkdirSync(path.join(media, "Show"));
    fs.writeFileSync(path.join(media, "Show", "01.mp3"), one);
    // An audiobook in discs; deeper than MAX_DEPTH, hidden and linked folders are not read.
    for (const disc of ["CD1", "CD2", "CD10"]) fs.mkdirSync(path.join(media, "Book", disc), { recursive: true });
    fs.writeFileSync(path.join(media, "Book", "intro.mp3"), mp3Bytes({ title: "Intro" }, 1));
    fs.writeFileSync(path.join(media, "Book", "CD1", "01.mp3"), mp3Bytes({ title: "Chapter 1", track: 1, year: "2023" }, 1));
    fs.writeFileSync(path.join(media, "Book", "CD1", "02.mp3"), mp3Bytes({ title: "Chapter 2", track: 2, year: "2023" }, 1));
    fs.writeFileSync(path.join(media, "Book", "CD2", "01.mp3"), mp3Bytes({ title: "Chapter 3", track: 1, year: "2001" }, 1));
    fs.writeFileSync(path.join(media, "Book", "CD10", "01.mp3"), mp3Bytes({ title: "Chapter 4", track: 1 }, 1));
    fs.mkdirSync(path.join(media, "Book", "CD2", "a", "b", "c"), { recursive: true });
    fs.writeFileSync(path.join(media, "Book", "CD2", "a", "b", "deep.mp3"), mp3Bytes({ title: "Deep" }, 1));
    fs.writeFileSync(path.join(media, "Book", "CD2", "a", "b", "c", "too-deep.mp3"), mp3Bytes({ title: "Too deep" }, 1));
    fs.mkdirSync(path.join(media, "Book", ".hidden"));
    fs.writeFileSync(path.join(media, "Book", ".hidden", "x.mp3"), mp3Bytes({ title: "Hidden" }, 1));
    fs.writeFileSync(path.join(outside, "secret.mp3"), mp3Bytes({ title: "Secret" }, 1));
    fs.symlinkSync(outside, path.join(media, "Book", "linked"));
    Object.assign(config, { localMediaDir: media, refreshInterval: 0, workerPollMs: 100 });
    peer = await startLoopback({
      "/feed.xml": { body: rssFeed("A feed", [{ title: "Remote", guid: "r1", url: "https://media.example/r.mp3", date: "2024-03-01T00:00:00Z" }]) },
    });
    server = await startServer({ broker: capturingLogger(lines) });
    u = await createUsers(server.url, ["alice", "bob"]);
    showId = (await addLocal("alice", "Show", "My show")).body.podcast_id;
  });
  afterAll(async () => {
    await server?.stop();
    await peer?.close();
  });

  test("a shared local episode plays anonymously through its key (Range, HEAD) while the link lives, and only that file", async () => {
    const [episode] = await episodes("alice", showId);
    const shared = (await post(`/api/data/share_episode/${episode.episodeid}`, "alice", { expires_in_days: 1 })).body;
    const read = await api(server.url).get(`/api/data/episode_by_url/${shared.url_key}`);
    expect(read.status).toBe(200);
    expect(read.body.episode).toMatchObject({ episodeid: episode.episodeid, episodeurl: "local:Show/01.mp3" });
    expect(read.body.stream_url).toBe(`${server.url}/api/data/shared_stream/${shared.url_key}`);
    const whole = await bytes(read.body.stream_url);
    expect([whole.status, whole.headers["content-type"], Buffer.compare(whole.body, one)]).toEqual([200, "audio/mpeg", 0]);
    const part = await bytes(read.body.stream_url, "bytes=5-54");
    expect([part.status, part.headers["content-range"], Buffer.compare(part.body, one.subarray(5, 55))]).toEqual([206, `bytes 5-54/${one.length}`, 0]);
    expect((await bytes(read.body.stream_url, `bytes=${one.length}-`)).status).toBe(416);
    const head = await api(server.url).head(`/api/data/shared_stream/${shared.url_key}`);
    expect([head.status, head.headers["content-length"]]).toEqual([200, String(one.length)]);
    expectErrorBody(await api(server.url).get(`/api/data/shared_stream/${"A".repeat(32)}`), 404);
    expectErrorBody(await api(server.url).get("/api/data/shared_stream/..%2F..%2Fetc"), 400);
    freezeClock(Date.now() + 2 * 86_400_000);
    try {
      expectErrorBody(await api(server.url).get(`/api/data/shared_stream/${shared.url_key}`), 404);
    } finally {
      jest.useRealTimers();
    }
    const again = (await post(`/api/data/share_episode/${episode.episodeid}`, "alice", {})).body.url_key;
    expect((await bytes(`${server.url}/api/data/shared_stream/${again}`)).status).toBe(200);
    expect((await api(server.url).delete("/api/data/delete_shared_link").set("Api-Key", u.alice.key).send({ url_key: again })).status).toBe(200);
    expectErrorBody(await api(server.url).get(`/api/data/shared_stream/${again}`), 404);
  });

  test("a shared feed episode keeps its own address; shared_stream does not proxy it", async () => {
    const feed = await post("/api/data/add_custom_podcast", "bob", { feed_url: `${peer.url}/feed.xml`, user_id: u.bob.id });
    const [episode] = await episodes("bob", feed.body.podcast_id);
    const { url_key } = (await post(`/api/data/share_episode/${episode.episodeid}`, "bob", {})).body;
    expect((await api(server.url).get(`/api/data/episode_by_url/${url_key}`)).body.stream_url).toBe("https://media.example/r.mp3");
    expectErrorBody(await api(server.url).get(`/api/data/shared_stream/${url_key}`), 404);
  });

  test("the OPML export leaves local folders out, so that it re-imports without failures", async () => {
    await post("/api/data/add_custom_podcast", "alice", { feed_url: `${peer.url}/feed.xml`, user_id: u.alice.id });
    const exported = await post("/api/data/backup_user", "alice", { user_id: u.alice.id });
    expect(exported.text).toContain(`${peer.url}/feed.xml`);
    expect(exported.text).not.toContain("local:");
    const started = await post("/api/data/import_opml", "alice", { user_id: u.alice.id, opml: exported.text });
    expect(started.body).toMatchObject({ total: 1, rejected: [] });
    const task = await waitForTask(server.url, u.alice.key, started.body.task_id);
    expect(task.result).toMatchObject({ imported: 0, skipped: 1, failed: [] });
  });

  test("auto-download on a local podcast queues no download of its new files", async () => {
    expect((await post("/api/data/enable_auto_download", "alice", { user_id: u.alice.id, podcast_id: showId, auto_download: true })).status).toBe(200);
    fs.writeFileSync(path.join(media, "Show", "02.mp3"), mp3Bytes({ title: "Show two", track: 2 }, 1));
    const refreshed = await post("/api/data/refresh_local_podcast", "alice", { user_id: u.alice.id, podcast_id: showId });
    expect(refreshed.body).toMatchObject({ success: true, new_episodes: 1 });
    // The event that queues auto-downloads is handled after the refresh answers: give it a moment.
    await new Promise((r) => setTimeout(r, 300));
    const tasks = (await get(`/api/tasks/user/${u.alice.id}`, "alice")).body as any[];
    expect(tasks.filter((t) => t.task_type.startsWith("download"))).toEqual([]);
    const ids = (await episodes("alice", showId)).map((e) => e.episodeid);
    expect((await post("/api/data/bulk_download_episodes", "alice", { user_id: u.alice.id, episode_ids: ids })).body.message).toMatch(/^Queued 0 downloads/);
    expectErrorBody(await post("/api/data/download_podcast", "alice", { user_id: u.alice.id, episode_id: ids[0] }), 400);
  });

  test("a rejected upload is answered once, with no 'headers already sent' in the log", async () => {
    const png = pngBytes();
    const artwork = (who: string, fields: Record<string, unknown>, file: Buffer, type = "image/png") => {
      let req = api(server.url).post("/api/data/add_local_podcast_artwork").set("Api-Key", u[who].key);
      for (const [k, v] of Object.entries(fields)) req = req.field(k, String(v));
      return req.attach("file", file, { filename: "cover.png", contentType: type });
    };
    lines.length = 0;
    expectErrorBody(await artwork("bob", { user_id: u.alice.id, podcast_id: showId }, png), 403);
    expectErrorBody(await artwork("alice", { user_id: u.alice.id }, png), 400);
    expectErrorBody(await artwork("alice", { user_id: u.alice.id, podcast_id: showId }, Buffer.from("not an image"), "text/plain"), 400);
    expectErrorBody(await artwork("alice", { user_id: u.alice.id, podcast_id: showId }, Buffer.alloc(config.artworkMaxBytes + 1, 1)), 413);
    const restore = await api(server.url).post("/api/data/restore_server").set("Api-Key", u.admin.key).attach("not_the_field", Buffer.from("{}"), "b.jsonl");
    expectErrorBody(restore, 400);
    // A success still answers normally.
    expect((await artwork("alice", { user_id: u.alice.id, podcast_id: showId }, png)).status).toBe(200);
    // The second send would come once the form ends: let it happen if it is going to.
    await new Promise((r) => setTimeout(r, 200));
    expect(lines.filter((l) => /already sent|request failed/i.test(l))).toEqual([]);
  });

  test("a folder's subfolders are read (bounded depth, no hidden or linked folders), folder by folder in path order", async () => {
    const listed = await get("/api/data/list_local_directories", "admin");
    expect(listed.body.directories.find((d: any) => d.name === "Book").audio_files).toBe(6);
    const added = await addLocal("bob", "Book", "The book");
    expect(added.status).toBe(200);
    const list = await episodes("bob", added.body.podcast_id);
    // Newest first: the reading order reversed. CD2's older tag date does not move it before CD1.
    expect(list.map((e) => e.episodetitle).reverse()).toEqual(["Intro", "Chapter 1", "Chapter 2", "Chapter 3", "Deep", "Chapter 4"]);
    const deep = list.find((e) => e.episodetitle === "Deep");
    expect(deep.episodeurl).toBe("local:Book/CD2/a/b/deep.mp3");
    const stream = await api(server.url).head(`/api/data/stream/${deep.episodeid}`).query({ api_key: u.bob.key, user_id: u.bob.id });
    expect(stream.status).toBe(200);
    await expect(server.broker.call("local.media_info", { url: "local:Book/linked/secret.mp3" })).rejects.toMatchObject({ code: 400 });
  });
});
