/**
 * Local media folders over HTTP: admins browse LOCAL_MEDIA_DIR, users add folders of tagged audio files
 * (read by music-metadata) as podcasts, refresh them, upload and fetch covers, and stream the files;
 * nothing outside the folder is reachable on any of these routes.
 */
import fs from "fs";
import path from "path";
import { config } from "../../shared/config";
import { api, asUsers, expectErrorBody } from "../helpers/client";
import { mp3Bytes, pngBytes, wavBytes } from "../helpers/audio";
import { startLoopback } from "../helpers/loopback";
import { createUsers, rssFeed } from "../helpers/podcasts";
import { startServer, tempDir, TestServer } from "../helpers/server";

const ARTWORK_MAX = 4096;
/** Paths that try to leave the media folder (`escape` and `Show B/inner` are links to a folder outside it). */
const TRAVERSALS = ["..", "../..", "Show A/../..", "/etc", "/", "escape", "Show B/inner", "Show B/inner/..", "C:\\\\Windows", "a\u0000b"];

describe("local media folders", () => {
  let server: TestServer;
  let media: string;
  let outside: string;
  let u: Record<string, { id: number; key: string }>;
  const { get, post } = asUsers(() => ({ url: server.url, users: u }));
  const list = (p?: string, who = "admin") => get("/api/data/list_local_directories", who, p === undefined ? {} : { path: p });
  const addLocal = (who: string, directory_path: string, podcast_name = "Local show", extra: Record<string, unknown> = {}) =>
    post("/api/data/add_local_podcast", who, { user_id: u[who].id, directory_path, podcast_name, ...extra });
  const episodes = async (who: string, podcast_id: number) =>
    (await get("/api/data/podcast_episodes", who, { user_id: u[who].id, podcast_id })).body.episodes as any[];
  const pods = async (who: string) => (await get(`/api/data/return_pods/${u[who].id}`, who)).body.pods as any[];
  const refresh = (who: string, podcast_id: number) => post("/api/data/refresh_local_podcast", who, { user_id: u[who].id, podcast_id });
  const upload = (who: string, fields: Record<string, unknown>, file: Buffer, contentType = "image/png") => {
    let req = api(server.url).post("/api/data/add_local_podcast_artwork").set("Api-Key", u[who].key);
    for (const [k, v] of Object.entries(fields)) req = req.field(k, String(v));
    return req.attach("file", file, { filename: "cover.png", contentType });
  };
  /** The path part of a local artwork URL (artwork_url is relative without API_URL). */
  const fetchImage = (url: string) =>
    api(server.url)
      .get(url)
      .buffer(true)
      .parse((res, cb) => {
        const parts: Buffer[] = [];
        res.on("data", (c: Buffer) => parts.push(c));
        res.on("end", () => cb(null, Buffer.concat(parts)));
      });
  const showA = { second: mp3Bytes({ title: "Second part", artist: "Host A", track: 2, year: "2021", comment: "The second one" }, 3) };
  const red = pngBytes([200, 30, 30]);
  const blue = pngBytes([30, 30, 200]);

  beforeAll(async () => {
    media = tempDir("podcast-media-");
    outside = tempDir("podcast-outside-");
    fs.mkdirSync(path.join(media, "Show A", "Season 1"), { recursive: true });
    fs.mkdirSync(path.join(media, "Show B"));
    fs.mkdirSync(path.join(media, "Show C"));
    fs.mkdirSync(path.join(media, "Waves"));
    fs.mkdirSync(path.join(media, "Links"));
    // Listed by name, ordered by track: 02.mp3 is track 1.
    fs.writeFileSync(path.join(media, "Show A", "01.mp3"), showA.second);
    fs.writeFileSync(path.join(media, "Show A", "02.mp3"), mp3Bytes({ title: "First part", track: 1, picture: { mime: "image/png", data: red } }, 2));
    fs.writeFileSync(path.join(media, "Show A", "folder.png"), blue);
    fs.writeFileSync(path.join(media, "Show A", "notes.txt"), "not audio");
    fs.writeFileSync(path.join(media, "Show C", "only.mp3"), mp3Bytes({ title: "Only", picture: { mime: "image/png", data: red } }, 1));
    // No track numbers: ordered by date (tag, else the file's time).
    fs.writeFileSync(path.join(media, "Waves", "b.wav"), wavBytes({}, 1));
    fs.writeFileSync(path.join(media, "Waves", "a.wav"), wavBytes({ title: "Wave one", year: "2020" }, 2));
    fs.writeFileSync(path.join(outside, "secret.mp3"), mp3Bytes({ title: "secret" }, 1));
    fs.writeFileSync(path.join(media, "Links", "real.mp3"), mp3Bytes({ title: "Real" }, 1));
    fs.symlinkSync(path.join(outside, "secret.mp3"), path.join(media, "Links", "linked.mp3"));
    fs.symlinkSync(path.join(outside, "secret.mp3"), path.join(media, "Links", "cover.png"));
    fs.symlinkSync(outside, path.join(media, "escape"));
    fs.symlinkSync(outside, path.join(media, "Show B", "inner"));
    config.localMediaDir = media;
    config.artworkMaxBytes = ARTWORK_MAX;
    server = await startServer();
    u = await createUsers(server.url, ["alice", "bob"]);
  });
  afterAll(() => server?.stop());

  test("admins list the folders with their audio file counts; links are not listed", async () => {
    const top = await list();
    expect(top.status).toBe(200);
    expect(top.body.directories.map((d: any) => [d.name, d.audio_files])).toEqual([
      ["Links", 1],
      ["Show A", 2],
      ["Show B", 0],
      ["Show C", 1],
      ["Waves", 2],
    ]);
    expect((await list("Show A")).body.directories).toEqual([{ name: "Season 1", path: path.join("Show A", "Season 1"), audio_files: 0, audio_count: 0 }]);
  });

  test.each(TRAVERSALS)("%j is refused by list_local_directories, detect_local_cover and add_local_podcast", async (p) => {
    for (const res of [await list(p), await get("/api/data/detect_local_cover", "alice", { path: p }), await addLocal("alice", p)]) {
      expect([400, 404]).toContain(res.status);
      expectErrorBody(res, res.status);
      expect(JSON.stringify(res.body)).not.toMatch(/secret/);
    }
  });

  test("percent-encoded traversals are refused too, and none of the attempts added a podcast", async () => {
    for (const raw of ["%2e%2e", "%2E%2E%2F%2E%2E", "..%2f..", "%2fetc", "%252e%252e"]) {
      const res = await api(server.url).get(`/api/data/detect_local_cover?path=${raw}`).set("Api-Key", u.alice.key);
      expect([400, 404]).toContain(res.status);
    }
    expect(await pods("alice")).toEqual([]);
  });

  test("a missing folder is a 404, a file a 400, a folder without audio a 400, and only admins may list (403)", async () => {
    expectErrorBody(await list("Nope"), 404);
    expectErrorBody(await list("Show A/01.mp3"), 400);
    expectErrorBody(await list(undefined, "alice"), 403);
    expectErrorBody(await addLocal("alice", "Show B"), 400);
    expectErrorBody(await addLocal("alice", "Show A/01.mp3"), 400);
    expectErrorBody(await addLocal("alice", "Nope"), 404);
    expectErrorBody(await post("/api/data/add_local_podcast", "bob", { user_id: u.alice.id, directory_path: "Show A", podcast_name: "x" }), 403);
  });

  test("detect_local_cover finds a cover file, else an embedded picture; links to files outside are not covers", async () => {
    expect((await get("/api/data/detect_local_cover", "alice", { path: "Show A" })).body).toEqual({
      path: "Show A",
      cover_found: true,
      source: "file",
      file: "folder.png",
      content_type: "image/png",
    });
    expect((await get("/api/data/detect_local_cover", "alice", { path: "Show C" })).body).toEqual({
      path: "Show C",
      cover_found: true,
      source: "embedded",
      file: "only.mp3",
      content_type: "image/png",
    });
    expect((await get("/api/data/detect_local_cover", "alice", { path: "Waves" })).body).toEqual({
      path: "Waves",
      cover_found: false,
      source: null,
      file: null,
      content_type: null,
    });
    expect((await get("/api/data/detect_local_cover", "alice", { path: "Links" })).body.cover_found).toBe(false);
  });

  describe("a local podcast", () => {
    let podcastId: number;
    let byTitle: Record<string, any>;

    beforeAll(async () => {
      const res = await addLocal("alice", "Show A", "My folder show", { description: "From my disk", author: "Alice", explicit: true });
      expect(res.status).toBe(200);
      podcastId = res.body.podcast_id;
      byTitle = Object.fromEntries((await episodes("alice", podcastId)).map((e) => [e.episodetitle, e]));
    });

    test("shows in the user's podcasts with the given name and the folder's cover, episodes from the tags in track order", async () => {
      const [pod] = await pods("alice");
      expect(pod).toMatchObject({ podcast_id: podcastId, title: "My folder show", description: "From my disk", author: "Alice", feed_url: "local:Show%20A" });
      expect(pod.artwork_url).toMatch(/\/api\/data\/local_artwork\/\d+$/);
      const cover = await fetchImage(pod.artwork_url);
      expect(cover.status).toBe(200);
      expect(cover.headers["content-type"]).toBe("image/png");
      expect(Buffer.compare(cover.body, blue)).toBe(0);
      // Newest first: track 2 after track 1.
      expect((await episodes("alice", podcastId)).map((e) => e.episodetitle)).toEqual(["Second part", "First part"]);
      expect(byTitle["Second part"]).toMatchObject({ episodeduration: 3, episodedescription: "The second one" });
      expect(byTitle["First part"].episodeduration).toBe(2);
      // The episode's own embedded picture, served by file name.
      expect(byTitle["First part"].episodeartwork).toMatch(/local_artwork\/\d+\?file=02\.mp3$/);
      expect(Buffer.compare((await fetchImage(byTitle["First part"].episodeartwork)).body, red)).toBe(0);
      expect(byTitle["Second part"].episodeartwork).toBe(pod.artwork_url);
    });

    test("a sync server is never told of local folders, nor can it subscribe a user to one", async () => {
      expect(await server.broker.call("podcasts.sync_feeds", { user_id: u.alice.id })).toEqual([]);
      const res: any = await server.broker.call("podcasts.sync_subscriptions", { user_id: u.bob.id, add: ["local:Show%20A"], remove: [] });
      expect(res.failed).toEqual([{ url: "local:Show%20A", reason: "Not a feed URL" }]);
      expect(await pods("bob")).toEqual([]);
    });

    test("a second add is a 409; another user adding the folder shares it under their own name", async () => {
      expectErrorBody(await addLocal("alice", "Show A"), 409);
      const res = await addLocal("bob", "Show A/", "Bob's copy");
      expect(res.body.podcast_id).toBe(podcastId);
      expect((await pods("bob")).map((p) => p.title)).toEqual(["Bob's copy"]);
      expect((await pods("alice")).map((p) => p.title)).toEqual(["My folder show"]);
    });

    test("episodes stream through the stream route with Range and HEAD; the queue lists them", async () => {
      const id = byTitle["Second part"].episodeid;
      const stream = (range?: string) => {
        const req = api(server.url)
          .get(`/api/data/stream/${id}`)
          .query({ api_key: u.alice.key, user_id: u.alice.id })
          .buffer(true)
          .parse((res, cb) => {
            const parts: Buffer[] = [];
            res.on("data", (c: Buffer) => parts.push(c));
            res.on("end", () => cb(null, Buffer.concat(parts)));
          });
        return range ? req.set("Range", range) : req;
      };
      const whole = await stream();
      expect(whole.status).toBe(200);
      expect(whole.headers["content-type"]).toBe("audio/mpeg");
      expect(Buffer.compare(whole.body, showA.second)).toBe(0);
      const part = await stream("bytes=10-109");
      expect(part.status).toBe(206);
      expect(part.headers["content-range"]).toBe(`bytes 10-109/${showA.second.length}`);
      expect(Buffer.compare(part.body, showA.second.subarray(10, 110))).toBe(0);
      expect((await stream(`bytes=${showA.second.length}-`)).status).toBe(416);
      const head = await api(server.url).head(`/api/data/stream/${id}`).query({ api_key: u.alice.key, user_id: u.alice.id });
      expect(head.headers["content-length"]).toBe(String(showA.second.length));
      // The media download route serves the file too; a server-side download of it is pointless and refused.
      const attachment = await api(server.url).get(`/api/episodes/${id}/download`).set("Api-Key", u.alice.key);
      expect([attachment.status, attachment.headers["content-disposition"]]).toEqual([200, expect.stringContaining("Second part.mp3")]);
      expectErrorBody(await post("/api/data/download_podcast", "alice", { user_id: u.alice.id, episode_id: id }), 400);
      expect((await post("/api/data/download_all_podcast", "alice", { user_id: u.alice.id, podcast_id: podcastId })).body.task_id).toBeNull();
      // The user's RSS feed: the enclosure is the stream route, the cover a whole address.
      const rssKey = (await get("/api/data/get_rss_key", "alice", { user_id: u.alice.id })).body.rss_key;
      const rss = await api(server.url).get(`/api/feed/${u.alice.id}`).query({ api_key: rssKey, podcast_id: podcastId });
      expect(rss.status).toBe(200);
      expect(rss.text).toContain(`${server.url}/api/data/stream/${id}?api_key=`);
      expect(rss.text).toMatch(new RegExp(`<itunes:image href="${server.url}/api/data/local_artwork/\\d+\\?file=02\\.mp3"`));
      expect((await post("/api/data/queue_pod", "alice", { user_id: u.alice.id, episode_id: id })).status).toBe(200);
      expect((await get("/api/data/get_queued_episodes", "alice", { user_id: u.alice.id })).body.data.map((e: any) => e.episodetitle)).toEqual(["Second part"]);
    });

    test("artwork uploads: images only (by their bytes), size cap, the owner's podcasts only; served back as the podcast's cover", async () => {
      const fields = { user_id: u.alice.id, podcast_id: podcastId };
      expectErrorBody(await upload("alice", fields, Buffer.from("<svg onload=alert(1)></svg>")), 400);
      expectErrorBody(await upload("alice", fields, red, "text/plain"), 400);
      expectErrorBody(await upload("alice", fields, Buffer.concat([red, Buffer.alloc(ARTWORK_MAX)])), 413);
      expectErrorBody(await upload("alice", { user_id: u.alice.id }, red), 400);
      expectErrorBody(await post("/api/data/add_local_podcast_artwork", "alice", fields), 400); // JSON, not multipart
      expectErrorBody(await upload("bob", fields, red), 403);
      const ok = await upload("alice", fields, red);
      expect(ok.status).toBe(200);
      expect(ok.body).toMatchObject({ success: true, artwork_url: expect.stringMatching(/local_artwork\/\d+$/) });
      const [pod] = await pods("alice");
      expect(pod.artwork_url).toBe(ok.body.artwork_url);
      expect(Buffer.compare((await fetchImage(pod.artwork_url)).body, red)).toBe(0);
      expect((await get("/api/data/detect_local_cover", "alice", { path: "Show A" })).body.source).toBe("upload");
    });

    test("local_artwork serves only files of the folder", async () => {
      const base = (await pods("alice"))[0].artwork_url;
      for (const file of ["../../" + path.basename(outside) + "/secret.mp3", "..", "/etc/passwd", "notes.txt", "Season 1"]) {
        const res = await api(server.url).get(base).query({ file });
        expect([400, 404]).toContain(res.status);
      }
      expect((await api(server.url).get(base.replace(/\d+$/, "999"))).status).toBe(404);
    });

    test("refresh picks up added, removed and changed files, without duplicates", async () => {
      const id = (await episodes("alice", podcastId)).find((e) => e.episodetitle === "First part").episodeid;
      fs.writeFileSync(path.join(media, "Show A", "03.mp3"), mp3Bytes({ title: "Third part", track: 3 }, 1));
      fs.rmSync(path.join(media, "Show A", "01.mp3"));
      fs.writeFileSync(path.join(media, "Show A", "02.mp3"), mp3Bytes({ title: "First part, fixed", track: 1 }, 4));
      const res = await refresh("alice", podcastId);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ success: true, new_episodes: 1 });
      const after = await episodes("alice", podcastId);
      expect(after.map((e) => [e.episodetitle, e.episodeduration])).toEqual([
        ["Third part", 1],
        ["First part, fixed", 4],
      ]);
      expect(after[1].episodeid).toBe(id); // the same episode, changed
      // The removed file's episode left the queue with it.
      expect((await get("/api/data/get_queued_episodes", "alice", { user_id: u.alice.id })).body.data).toEqual([]);
      expect((await refresh("alice", podcastId)).body).toMatchObject({ success: true, new_episodes: 0, updated: false });
      expect((await episodes("alice", podcastId)).length).toBe(2);
    });

    test("refresh and upload: another user's podcast 403, someone else's user_id 403, unknown 404, a feed podcast 400", async () => {
      const other = await addLocal("admin", "Waves", "Admin waves");
      expectErrorBody(await refresh("alice", other.body.podcast_id), 403);
      expectErrorBody(await upload("alice", { user_id: u.alice.id, podcast_id: other.body.podcast_id }, red), 403);
      expectErrorBody(await post("/api/data/refresh_local_podcast", "alice", { user_id: u.bob.id, podcast_id: podcastId }), 403);
      expectErrorBody(await refresh("alice", 99999), 404);
      expect((await refresh("admin", other.body.podcast_id)).status).toBe(200);
      const peer = await startLoopback({
        "/feed.xml": { body: rssFeed("A feed", [{ title: "One", url: "https://media.example/one.mp3", date: "2024-03-01T00:00:00Z" }]) },
      });
      try {
        const feed = await post("/api/data/add_custom_podcast", "alice", { feed_url: `${peer.url}/feed.xml`, user_id: u.alice.id });
        expectErrorBody(await refresh("alice", feed.body.podcast_id), 400);
        expectErrorBody(await upload("alice", { user_id: u.alice.id, podcast_id: feed.body.podcast_id }, red), 400);
      } finally {
        await peer.close();
      }
    });
  });

  test("files are sorted by date without track numbers; links inside a folder are neither episodes nor streamed", async () => {
    const waves = (await pods("admin")).find((p) => p.title === "Admin waves");
    const waveList = await episodes("admin", waves.podcast_id);
    expect(waveList.map((e) => [e.episodetitle, e.episodeduration])).toEqual([
      ["b", 1],
      ["Wave one", 2],
    ]);
    expect(waveList[1].episodepubdate).toMatch(/^2020-01-01/);
    const links = await addLocal("alice", "Links", "Links");
    const eps = await episodes("alice", links.body.podcast_id);
    expect(eps.map((e) => e.episodetitle)).toEqual(["Real"]);
    await expect(server.broker.call("local.media_info", { url: "local:Links/linked.mp3" })).rejects.toMatchObject({ code: 400 });
    await expect(server.broker.call("local.media_info", { url: "local:escape/secret.mp3" })).rejects.toMatchObject({ code: 400 });
    await expect(server.broker.call("local.media_info", { url: "local:..%2F" + path.basename(outside) + "/secret.mp3" })).rejects.toMatchObject({ code: 400 });
  });
});
