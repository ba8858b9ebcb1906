/**
 * The admin's download metadata settings at work: a download gets the podcast's cover as folder.<ext>,
 * the episode's cover and its metadata (json, xml, ffmetadata) beside it or in metadata/, and they go
 * with the file when the download is deleted; a real MP3 gets an ID3 tag (read back with music-metadata)
 * only when the settings ask for it. Over HTTP, with a loopback media server.
 */
import fs from "fs";
import path from "path";
import { config } from "../../shared/config";
import { asUsers } from "../helpers/client";
import { parseFile } from "music-metadata";
import NodeID3 from "node-id3";
import { mp3Bytes, pngBytes } from "../helpers/audio";
import { Loopback, startLoopback } from "../helpers/loopback";
import { audioBytes, mediaRoute, waitForTask } from "../helpers/media";
import { createUsers } from "../helpers/podcasts";
import { startServer, tempDir, TestServer } from "../helpers/server";

describe("download metadata files", () => {
  let server: TestServer;
  let media: Loopback;
  let u: Record<string, { id: number; key: string }>;
  const ep: Record<string, number> = {};
  const source = mp3Bytes({ title: "As Published", artist: "Someone Else", comment: "old" }, 2);
  const { get, post } = asUsers(() => ({ url: server.url, users: u }));
  const folder = () => path.join(config.downloadDir, "Sidecar Show");
  const files = (dir: string) =>
    fs.existsSync(dir)
      ? fs
          .readdirSync(dir)
          .filter((f) => !f.startsWith("."))
          .sort()
      : [];
  const settings = (s: object) => post("/api/data/download_metadata_settings", "admin", s);
  const download = async (title: string) => {
    const res = await post("/api/data/download_podcast", "alice", { episode_id: ep[title], user_id: u.alice.id });
    expect(res.status).toBe(200);
    const task = await waitForTask(server.url, u.alice.key, res.body.task_id);
    expect(task.status).toBe("SUCCESS");
  };

  beforeAll(async () => {
    Object.assign(config, { refreshInterval: 0, downloadDir: tempDir("podcast-sidecars-"), workerPollMs: 100 });
    media = await startLoopback({
      "/one.mp3": mediaRoute(audioBytes(20_000)),
      "/two.mp3": mediaRoute(audioBytes(30_000)),
      "/three.mp3": mediaRoute(source),
      "/show.png": { headers: { "Content-Type": "image/png" }, body: pngBytes([10, 20, 30]) },
      "/one.png": { headers: { "Content-Type": "image/png" }, body: pngBytes([200, 30, 30]) },
    });
    const item = (t: string, img: string) =>
      `<item><title>${t} = "quoted" &amp; more</title><guid>${t}</guid><pubDate>Mon, 01 Jan 2024 00:00:00 GMT</pubDate>${img}` +
      `<enclosure url="${media.url}/${t}.mp3" length="1" type="audio/mpeg"/></item>`;
    media.route("/feed.xml", {
      body:
        `<?xml version="1.0"?><rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel><title>Sidecar Show</title>` +
        `<itunes:image href="${media.url}/show.png"/>${item("one", `<itunes:image href="${media.url}/one.png"/>`)}${item("two", "")}` +
        `${item("three", `<itunes:image href="${media.url}/one.png"/><description>About three</description>`)}</channel></rss>`,
    });
    server = await startServer();
    u = await createUsers(server.url, ["alice"]);
    const added = await post("/api/data/add_podcast", "alice", { podcast_values: { pod_feed_url: `${media.url}/feed.xml`, user_id: u.alice.id } });
    const eps = await get("/api/data/podcast_episodes", "alice", { user_id: u.alice.id, podcast_id: added.body.podcast_id });
    for (const e of eps.body.episodes) ep[e.episodetitle.split(" ")[0]] = e.episodeid;
  });
  afterAll(async () => {
    await server?.stop();
    await media?.close();
  });

  test("by default nothing but the file", async () => {
    await download("two");
    expect(files(folder())).toEqual([expect.stringMatching(/^two .*\.mp3$/)]);
    await post("/api/data/delete_episode", "alice", { episode_id: ep.two, user_id: u.alice.id });
  });

  test("covers and json + xml metadata in metadata/; deleting the download removes its files", async () => {
    expect(
      (await settings({ folder_cover: true, episode_cover: true, metadata_sidecar: true, metadata_format: "both", metadata_subfolder: true })).status,
    ).toBe(200);
    await download("one");
    const [mp3] = files(folder()).filter((f) => f.endsWith(".mp3"));
    const base = mp3.replace(/\.mp3$/, "");
    expect(files(folder())).toEqual(["folder.png", "metadata", mp3]);
    expect(files(path.join(folder(), "metadata"))).toEqual([`${base}.cover.png`, `${base}.json`, `${base}.xml`]);
    expect(fs.readFileSync(path.join(folder(), "folder.png"))).toEqual(pngBytes([10, 20, 30]));
    expect(fs.readFileSync(path.join(folder(), "metadata", `${base}.cover.png`))).toEqual(pngBytes([200, 30, 30]));
    const json = JSON.parse(fs.readFileSync(path.join(folder(), "metadata", `${base}.json`), "utf8"));
    expect(json).toMatchObject({ title: 'one = "quoted" & more', podcast: "Sidecar Show", pub_date: "2024-01-01T00:00:00.000Z", episode_id: ep.one });
    expect(fs.readFileSync(path.join(folder(), "metadata", `${base}.xml`), "utf8")).toContain("<title>one = &quot;quoted&quot; &amp; more</title>");

    expect((await post("/api/data/delete_episode", "alice", { episode_id: ep.one, user_id: u.alice.id })).status).toBe(200);
    expect(files(path.join(folder(), "metadata"))).toEqual([]);
    expect(files(folder())).toEqual(["folder.png", "metadata"]);
  });

  test("ffmetadata beside the file; an episode without its own cover gets the podcast's", async () => {
    await settings({ folder_cover: false, episode_cover: true, metadata_sidecar: true, metadata_format: "ffmetadata", metadata_subfolder: false });
    await download("two");
    const [mp3] = files(folder()).filter((f) => f.endsWith(".mp3"));
    const base = mp3.replace(/\.mp3$/, "");
    expect(files(folder())).toEqual(expect.arrayContaining([`${base}.cover.png`, `${base}.ffmetadata`]));
    expect(fs.readFileSync(path.join(folder(), `${base}.cover.png`))).toEqual(pngBytes([10, 20, 30]));
    expect(fs.readFileSync(path.join(folder(), `${base}.ffmetadata`), "utf8")).toBe(
      ';FFMETADATA1\ntitle=two \\= "quoted" & more\nalbum=Sidecar Show\nartist=Sidecar Show\ndate=2024-01-01\ngenre=Podcast\n',
    );
  });

  describe("the ID3 tag of a downloaded MP3", () => {
    const mp3 = () =>
      path.join(
        folder(),
        files(folder()).find((f) => f.startsWith("three ") && f.endsWith(".mp3"))!,
      );
    const off = { folder_cover: false, episode_cover: false, metadata_sidecar: false, metadata_format: "json", metadata_subfolder: false };
    afterEach(async () => {
      expect((await post("/api/data/delete_episode", "alice", { episode_id: ep.three, user_id: u.alice.id })).status).toBe(200);
    });

    test("with the settings off the file is byte for byte what the feed serves", async () => {
      await settings(off);
      await download("three");
      expect(fs.readFileSync(mp3()).equals(source)).toBe(true);
    });

    test("metadata and cover on: title, podcast, date, description, episode URL and cover replace the old tag", async () => {
      await settings({ ...off, metadata_sidecar: true, episode_cover: true });
      await download("three");
      const { common, format, native } = await parseFile(mp3());
      expect(common).toMatchObject({ title: 'three = "quoted" & more', artist: "Sidecar Show", album: "Sidecar Show", year: 2024, genre: ["Podcast"] });
      expect(common.comment?.map((c) => c.text)).toEqual(["About three"]);
      expect(common.picture).toHaveLength(1);
      expect(Buffer.from(common.picture![0].data).equals(pngBytes([200, 30, 30]))).toBe(true);
      expect(common.picture![0].format).toBe("image/png");
      // music-metadata splits ID3v2.3 TXXX values at "/", so the URL is read back with node-id3.
      expect(
        Object.values(native)
          .flat()
          .some((t) => t.id === "TXXX:EPISODE_URL"),
      ).toBe(true);
      expect(NodeID3.read(mp3()).userDefinedText).toEqual([{ description: "EPISODE_URL", value: `${media.url}/three.mp3` }]);
      expect(format.duration).toBeCloseTo(2, 0);
      // The audio after the old tag is kept as it was.
      const audio = source.subarray(source.length - 417 * 10);
      expect(fs.readFileSync(mp3()).subarray(-audio.length).equals(audio)).toBe(true);
    });

    test("only the cover on: a tag with the cover and no text", async () => {
      await settings({ ...off, episode_cover: true });
      await download("three");
      const { common } = await parseFile(mp3());
      expect(common.title).toBeUndefined();
      expect(common.picture).toHaveLength(1);
    });
  });
});
