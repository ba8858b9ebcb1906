/**
 * The admin's switches PinePods' web client sets (setting_reqs.rs): the user RSS feeds on or off for the
 * whole server (rss_feed_status, toggle_rss_feeds; a feed answers 403 while off) and the download
 * metadata settings (download_metadata_settings, read and written), over HTTP.
 */
import { expectErrorBody } from "../helpers/client";
import { Library, raw, startLibrary } from "../helpers/library";

describe("admin: RSS feeds switch and download metadata settings", () => {
  let lib: Library;
  const uid = (who: string) => lib.users[who].id;

  beforeAll(async () => {
    lib = await startLibrary();
  });
  afterAll(() => lib?.stop());

  test("RSS feeds: on by default; while an admin has them off every user feed answers 403", async () => {
    const rssKey = (await lib.get("/api/data/get_rss_key", "alice", { user_id: uid("alice") })).body.rss_key;
    const feed = () => raw(lib, "get", `/api/feed/${uid("alice")}?api_key=${rssKey}`, null);
    expect((await feed()).status).toBe(200);
    expect((await lib.get("/api/data/rss_feed_status", "alice")).body).toBe(true);

    expectErrorBody(await lib.post("/api/data/toggle_rss_feeds", "alice", {}), 403);
    expectErrorBody(await raw(lib, "post", "/api/data/toggle_rss_feeds", null), 401);
    expect((await lib.post("/api/data/toggle_rss_feeds", "admin", {})).body).toEqual({ success: true, enabled: false });
    expect((await lib.get("/api/data/rss_feed_status", "bob")).body).toBe(false);
    expectErrorBody(await feed(), 403);

    expect((await lib.post("/api/data/toggle_rss_feeds", "admin", {})).body).toEqual({ success: true, enabled: true });
    expect((await feed()).status).toBe(200);
    expectErrorBody(await raw(lib, "get", "/api/data/rss_feed_status", null), 401);
  });

  test("download metadata settings: defaults, written whole by an admin, read back; others 403, no key 401, bad values 400", async () => {
    const path = "/api/data/download_metadata_settings";
    expect((await lib.get(path, "admin")).body).toEqual({
      folder_cover: false,
      episode_cover: false,
      metadata_sidecar: false,
      metadata_format: "both",
      metadata_subfolder: true,
    });
    const next = { folder_cover: true, episode_cover: false, metadata_sidecar: true, metadata_format: "json", metadata_subfolder: false };
    expect((await lib.post(path, "admin", next)).body).toEqual({ success: true });
    expect((await lib.get(path, "admin")).body).toEqual(next);
    expect((await lib.get("/api/data/download_status", "admin")).text).toBe("true"); // the downloads toggle is another setting
    expectErrorBody(await lib.post(path, "admin", { ...next, metadata_format: "yaml" }), 400);
    expectErrorBody(await lib.post(path, "admin", { folder_cover: true }), 400);
    expect((await lib.get(path, "admin")).body).toEqual(next);
    expectErrorBody(await lib.get(path, "alice"), 403);
    expectErrorBody(await lib.post(path, "alice", next), 403);
    expectErrorBody(await raw(lib, "get", path, null), 401);
  });
});
