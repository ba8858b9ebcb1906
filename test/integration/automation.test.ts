/**
 * Per podcast automation and the user's preferences over HTTP, called as PinePods' web client calls
 * them (web/src/requests/pod_req.rs, setting_reqs.rs, start_page_options.rs, auto_delete_settings.rs):
 * favourite, auto-queue of episodes a refresh finds, auto-delete days, skip times, the podcast index
 * id, start page, volume, language; and the authorization matrix over these routes.
 */
import { expectErrorBody } from "../helpers/client";
import { eventually, feedOf, Library, raw, SHARED_EPISODES, startLibrary } from "../helpers/library";

describe("per podcast automation and preferences", () => {
  let lib: Library;
  const uid = (who: string) => lib.users[who].id;
  const key = (who: string) => lib.users[who].key;
  const pod = (who: string, podcast_id = lib.shared) => ({ user_id: uid(who), podcast_id });
  const put = (who: string, path: string, body: object) => raw(lib, "put", path, key(who)).send(body);

  beforeAll(async () => {
    lib = await startLibrary();
  });
  afterAll(() => lib?.stop());

  test("favourite: toggle_favorite sets what favorite_status and return_pods_extra answer", async () => {
    expect((await lib.post("/api/data/podcast/favorite_status", "alice", pod("alice"))).body).toEqual({ is_favorite: false });
    expect((await put("alice", "/api/data/podcast/toggle_favorite", { ...pod("alice"), is_favorite: true })).status).toBe(200);
    expect((await lib.post("/api/data/podcast/favorite_status", "alice", pod("alice"))).body).toEqual({ is_favorite: true });
    expect((await lib.post("/api/data/podcast/favorite_status", "bob", pod("bob"))).body).toEqual({ is_favorite: false }); // per user
    const extra = await lib.get(`/api/data/return_pods_extra/${uid("alice")}`, "alice");
    expect(extra.body.pods.find((p: any) => p.podcast_id === lib.shared).is_favorite).toBe(true);
    expectErrorBody(await put("alice", "/api/data/podcast/toggle_favorite", { ...pod("alice"), is_favorite: "perhaps" }), 400);
    expectErrorBody(await put("bob", "/api/data/podcast/toggle_favorite", { ...pod("bob", lib.own), is_favorite: true }), 404); // not subscribed
  });

  test("auto-queue: episodes a refresh finds go to the end of the queue of subscribers who turned it on", async () => {
    expect((await lib.post("/api/data/get_auto_queue_status", "alice", pod("alice"))).body).toEqual({ auto_queue: false });
    expect((await lib.post("/api/data/enable_auto_queue", "alice", { ...pod("alice"), auto_queue: true })).body).toMatchObject({ detail: expect.any(String) });
    expect((await lib.post("/api/data/get_auto_queue_status", "alice", pod("alice"))).body).toEqual({ auto_queue: true });
    await lib.post("/api/data/queue_pod", "alice", { user_id: uid("alice"), episode_id: lib.ids.Long });

    lib.feeds.route("/shared.xml", { body: feedOf("Shared Show", [...SHARED_EPISODES, ["Brand new", 600, 0.1]], "shared") });
    const refreshed = await lib.get("/api/data/refresh_pods", "admin");
    expect(refreshed.status).toBe(200);
    const queue = (who: string) => lib.get("/api/data/get_queued_episodes", who, { user_id: uid(who) });
    await eventually(async () => {
      expect((await queue("alice")).body.data.map((e: any) => e.episodetitle)).toEqual(["Long", "Brand new"]);
    }, 5000);
    expect((await queue("bob")).body.data).toEqual([]); // bob did not turn it on
  });

  test("auto-delete days: the user's default, a podcast's own days (customized), cleared back to the default", async () => {
    const days = (who: string, body: object) => lib.post("/api/data/get_auto_download_delete_days", who, body);
    expect((await days("alice", pod("alice"))).body).toEqual({ days: 0, customized: false });
    expect((await lib.post("/api/data/user/set_auto_download_delete_days", "alice", { user_id: uid("alice"), days: 14 })).status).toBe(200);
    expect((await days("alice", { user_id: uid("alice") })).body).toEqual({ days: 14, customized: false });
    expect((await days("alice", pod("alice"))).body).toEqual({ days: 14, customized: false });
    expect((await lib.post("/api/data/podcast/set_auto_download_delete_days", "alice", { ...pod("alice"), days: 3 })).body).toMatchObject({
      detail: expect.any(String),
    });
    expect((await days("alice", pod("alice"))).body).toEqual({ days: 3, customized: true });
    expect((await days("alice", pod("alice", lib.own))).body).toEqual({ days: 14, customized: false });
    expect((await lib.post("/api/data/clear_podcast_auto_download_delete_days", "alice", pod("alice"))).body).toEqual({ message: expect.any(String) });
    expect((await days("alice", pod("alice"))).body).toEqual({ days: 14, customized: false });
    expectErrorBody(await lib.post("/api/data/podcast/set_auto_download_delete_days", "alice", { ...pod("alice"), days: -1 }), 400);
  });

  test("skip times read back; the podcast index id set by hand is the user's", async () => {
    const unmatched = async (who: string) =>
      (await lib.post("/api/data/get_unmatched_podcasts", who, { user_id: uid(who) })).body.podcasts.map((p: any) => p.podcast_id);
    expect((await lib.post("/api/data/get_auto_skip_times", "alice", pod("alice"))).body).toEqual({ start_skip: 0, end_skip: 0 });
    await lib.post("/api/data/adjust_skip_times", "alice", { ...pod("alice"), start_skip: 30, end_skip: 45 });
    expect((await lib.post("/api/data/get_auto_skip_times", "alice", pod("alice"))).body).toEqual({ start_skip: 30, end_skip: 45 });

    expect(await unmatched("alice")).toEqual([lib.shared, lib.own]);
    expect((await lib.post("/api/data/update_podcast_index_id", "alice", { ...pod("alice"), podcast_index_id: 920666 })).body).toMatchObject({
      detail: expect.any(String),
    });
    expect(await unmatched("alice")).toEqual([lib.own]);
    expect(await unmatched("bob")).toEqual([lib.shared]);
    expectErrorBody(await lib.post("/api/data/update_podcast_index_id", "alice", { ...pod("alice"), podcast_index_id: "x" }), 400);
  });

  test("preferences: start page, default volume, language, collection add mode; my_user_info shows them", async () => {
    const u = uid("bob");
    expect((await lib.get("/api/data/startpage", "bob", { user_id: u })).body).toEqual({ StartPage: "home" });
    const setStart = await raw(lib, "post", `/api/data/startpage?user_id=${u}&startpage=queue`, key("bob"));
    expect(setStart.body).toEqual({ success: true, message: expect.any(String) });
    expect((await lib.get("/api/data/startpage", "bob", { user_id: u })).body).toEqual({ StartPage: "queue" });
    expectErrorBody(await raw(lib, "post", `/api/data/startpage?user_id=${u}&startpage=nowhere`, key("bob")), 400);

    expect((await lib.post("/api/data/get_default_volume", "bob", { user_id: u })).body).toEqual({ default_volume: 100 });
    expect((await lib.post("/api/data/user/set_default_volume", "bob", { user_id: u, volume: 35 })).status).toBe(200);
    expect((await lib.post("/api/data/get_default_volume", "bob", { user_id: u })).body).toEqual({ default_volume: 35 });
    expectErrorBody(await lib.post("/api/data/user/set_default_volume", "bob", { user_id: u, volume: 101 }), 400);

    expect((await lib.get("/api/data/get_user_language", "bob", { user_id: u })).body).toEqual({ language: "en" });
    const languages = (await lib.get("/api/data/get_available_languages", "bob")).body.languages.map((l: any) => l.code);
    expect(languages).toContain("de");
    expect((await put("bob", "/api/data/update_user_language", { user_id: u, language: "de" })).body).toEqual({ success: true, language: "de" });
    expect((await lib.get("/api/data/get_user_language", "bob", { user_id: u })).body).toEqual({ language: "de" });
    expectErrorBody(await put("bob", "/api/data/update_user_language", { user_id: u, language: "xx" }), 400);

    expect((await lib.get("/api/data/collection_add_ui", "bob", { user_id: u })).body).toEqual({ collection_add_ui: "modal" });
    expect((await lib.post("/api/data/collection_add_ui", "bob", { user_id: u, mode: "submenu" })).status).toBe(200);
    expect((await lib.get("/api/data/collection_add_ui", "bob", { user_id: u })).body).toEqual({ collection_add_ui: "submenu" });

    expect((await lib.get(`/api/data/my_user_info/${u}`, "bob")).body).toMatchObject({
      userid: u,
      language: "de",
      startpage: "queue",
      default_volume: 35,
      timezone: "UTC",
    });
  });

  test("authorization: no key 401, another user's ids 403, the owner 200", async () => {
    const a = uid("alice");
    const calls: [method: "get" | "post" | "put", path: string, body: object][] = [
      ["put", "/api/data/podcast/toggle_favorite", { ...pod("alice"), is_favorite: false }],
      ["post", "/api/data/enable_auto_queue", { ...pod("alice"), auto_queue: false }],
      ["post", "/api/data/get_auto_queue_status", pod("alice")],
      ["post", "/api/data/podcast/set_auto_download_delete_days", { ...pod("alice"), days: 5 }],
      ["post", "/api/data/clear_podcast_auto_download_delete_days", pod("alice")],
      ["post", "/api/data/get_auto_download_delete_days", pod("alice")],
      ["post", "/api/data/get_auto_skip_times", pod("alice")],
      ["post", "/api/data/update_podcast_index_id", { ...pod("alice"), podcast_index_id: 5 }],
      ["get", `/api/data/startpage?user_id=${a}`, {}],
      ["post", `/api/data/startpage?user_id=${a}&startpage=home`, {}],
      ["post", "/api/data/get_default_volume", { user_id: a }],
      ["post", "/api/data/user/set_default_volume", { user_id: a, volume: 80 }],
      ["get", `/api/data/get_user_language?user_id=${a}`, {}],
      ["put", "/api/data/update_user_language", { user_id: a, language: "en" }],
      ["get", `/api/data/collection_add_ui?user_id=${a}`, {}],
      ["post", "/api/data/collection_add_ui", { user_id: a, mode: "modal" }],
      ["post", "/api/data/user/set_auto_download_delete_days", { user_id: a, days: 0 }],
    ];
    for (const [method, path, body] of calls) {
      const send = (who: string | null) => (method === "get" ? raw(lib, method, path, who && key(who)) : raw(lib, method, path, who && key(who)).send(body));
      expectErrorBody(await send(null), 401);
      expectErrorBody(await send("bob"), 403);
      expect([path, (await send("alice")).status]).toEqual([path, 200]);
    }
  });
});
