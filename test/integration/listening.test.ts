/**
 * Listening (issue 8, without the queue and playlists), black-box over HTTP: alice and bob on one
 * shared loopback feed, alice also on a feed of her own. Saves, history and progress, completion
 * (by hand, in bulk, automatically at the exact auto_complete_seconds boundary), per podcast playback
 * settings, library reads, what an unsubscribe removes, and the authorization matrix of these routes.
 */
import { api, expectErrorBody } from "../helpers/client";
import { countCalls, eventually, Library, startLibrary } from "../helpers/library";

describe("listening", () => {
  let lib: Library;
  const uid = (who: string) => lib.users[who].id;
  const put = (path: string, who: string, body: object = {}) => api(lib.server.url).put(path).set("Api-Key", lib.users[who].key).send(body);
  const history = (who: string, query: Record<string, unknown> = {}) => lib.get(`/api/data/user_history/${uid(who)}`, who, query);
  const saved = (who: string, query: Record<string, unknown> = {}) => lib.get(`/api/data/saved_episode_list/${uid(who)}`, who, query);
  const episodeOf = async (who: string, title: string) => {
    const res = await lib.get("/api/data/podcast_episodes", who, { user_id: uid(who), podcast_id: lib.shared, search: title });
    return res.body.episodes.find((e: any) => e.episodetitle === title);
  };

  beforeAll(async () => {
    lib = await startLibrary();
  });
  afterAll(() => lib?.stop());

  test("save and remove: saved -> not saved, per user, with the video wording", async () => {
    const ep = lib.ids["Quarter"];
    const res = await lib.post("/api/data/save_episode", "alice", { episode_id: ep, user_id: uid("alice"), is_vidsite: false });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ detail: "Episode saved!" });
    const again = await lib.post("/api/data/save_episode", "alice", { episode_id: ep, user_id: uid("alice"), is_vidsite: true });
    expect(again.body).toEqual({ detail: "Video saved!" });
    const list = await saved("alice");
    expect(list.status).toBe(200);
    expect(list.body.total).toBe(1);
    expect(list.body.saved_episodes[0]).toEqual({
      episodetitle: "Quarter",
      podcastname: "Shared Show",
      episodeartwork: "",
      episodeurl: "https://media.test/shared/1.mp3",
      episodepubdate: expect.any(String),
      episodeduration: 900,
      listenduration: 0,
      episodeid: ep,
      completed: false,
      saved: true,
      queued: false,
      downloaded: false,
      is_vidsite: false,
      is_youtube: false,
    });
    expect((await saved("bob")).body).toEqual({ saved_episodes: [], total: 0 });
    expect((await episodeOf("alice", "Quarter")).saved).toBe(true);
    expect((await episodeOf("bob", "Quarter")).saved).toBe(false);
    const removed = await lib.post("/api/data/remove_saved_episode", "alice", { episode_id: ep, user_id: uid("alice"), is_vidsite: false });
    expect(removed.body).toEqual({ detail: "Saved episode removed." });
    expect((await saved("alice")).body.total).toBe(0);
  });

  test("saved_episode_list: sort, filter, search and paging; total counts before paging", async () => {
    const titles = ["Tiny", "Twenty", "Half", "Long"];
    for (const t of titles) await lib.post("/api/data/save_episode", "bob", { episode_id: lib.ids[t], user_id: uid("bob"), is_vidsite: false });
    await lib.post("/api/data/mark_episode_completed", "bob", { episode_id: lib.ids["Half"], user_id: uid("bob") });
    const names = (res: any) => res.body.saved_episodes.map((e: any) => e.episodetitle);
    expect(names(await saved("bob"))).toEqual(["Long", "Half", "Twenty", "Tiny"]); // newest save first
    expect(names(await saved("bob", { sort_by: "duration", sort_order: "asc" }))).toEqual(["Tiny", "Twenty", "Half", "Long"]);
    expect(names(await saved("bob", { sort_by: "pub_date" }))).toEqual(["Tiny", "Twenty", "Half", "Long"]);
    expect(names(await saved("bob", { sort_by: "title", sort_order: "asc" }))).toEqual(["Half", "Long", "Tiny", "Twenty"]);
    expect(names(await saved("bob", { filter: "completed" }))).toEqual(["Half"]);
    expect(names(await saved("bob", { search: "twen" }))).toEqual(["Twenty"]);
    const page = await saved("bob", { sort_by: "duration", sort_order: "asc", limit: 2, offset: 1 });
    expect(page.body.total).toBe(4);
    expect(names(page)).toEqual(["Twenty", "Half"]);
    expectErrorBody(await saved("bob", { sort_by: "nonsense" }), 400);
    expectErrorBody(await saved("bob", { limit: 0 }), 400);
  });

  test("history and progress: newest first, paging, search; per user", async () => {
    const order = ["Hour", "Tiny", "Unknown"];
    for (const [n, t] of order.entries()) {
      const res = await lib.post("/api/data/record_podcast_history", "alice", {
        episode_id: lib.ids[t],
        user_id: uid("alice"),
        episode_pos: 10 + n,
        is_vidsite: false,
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ detail: "History recorded successfully." });
      await new Promise((r) => setTimeout(r, 5)); // distinct listen dates
    }
    const res = await history("alice");
    expect(res.status).toBe(200);
    expect(res.body.data.map((h: any) => h.episodename)).toEqual(["Unknown", "Tiny", "Hour"]);
    expect(res.body.total).toBe(3);
    expect(res.body.data[1]).toEqual({
      episodeid: lib.ids["Tiny"],
      podcastname: "Shared Show",
      episodename: "Tiny",
      episodeartwork: "",
      episodeurl: "https://media.test/shared/0.mp3",
      episodepubdate: expect.any(String),
      episodeduration: 300,
      listenduration: 11,
      completed: false,
      listendate: expect.any(String),
      downloaded: false,
      is_vidsite: false,
      is_youtube: false,
      episodetitle: "Tiny",
    });
    const page = await history("alice", { limit: 1, offset: 1 });
    expect(page.body.data.map((h: any) => h.episodename)).toEqual(["Tiny"]);
    expect(page.body.total).toBe(3);
    expect((await history("alice", { sort_order: "asc" })).body.data.map((h: any) => h.episodename)).toEqual(["Hour", "Tiny", "Unknown"]);
    const found = await history("alice", { search: "hou" });
    expect(found.body).toMatchObject({ total: 1, data: [{ episodename: "Hour" }] });
    expect((await history("alice", { search: "shared show" })).body.total).toBe(3); // the podcast's name matches too
    expect((await history("alice", { sort_by: "duration", sort_order: "asc" })).body.data.map((h: any) => h.episodename)).toEqual(["Unknown", "Tiny", "Hour"]);
    expect((await history("bob")).body).toEqual({ data: [], total: 0 });
    expect((await episodeOf("alice", "Hour")).listenduration).toBe(10);
    expect((await episodeOf("bob", "Hour")).listenduration).toBeNull();
  });

  test("record_listen_duration completes at exactly auto_complete_seconds left, not one second before; 0 disables; episode 0 is ignored", async () => {
    const ep = lib.ids["Half"]; // 1800 s, alice has not touched it
    const record = (listen_duration: number, episode_id = ep) =>
      lib.post("/api/data/record_listen_duration", "alice", { episode_id, user_id: uid("alice"), listen_duration });
    expect((await put("/api/data/update_auto_complete_seconds", "alice", { user_id: uid("alice"), seconds: 30 })).status).toBe(200);
    expect((await record(1769)).body).toEqual({ detail: "Listen duration recorded.", completed: false }); // 31 s left
    expect((await episodeOf("alice", "Half")).completed).toBe(false);
    expect((await record(1769.5)).body.completed).toBe(false); // 30.5 s left
    expect((await record(1770)).body.completed).toBe(true); // exactly 30 s left
    const state = await episodeOf("alice", "Half");
    expect(state).toMatchObject({ completed: true, listenduration: 1770 });
    // Going back does not undo the completion; only mark_episode_uncompleted does.
    await record(100);
    expect((await episodeOf("alice", "Half")).completed).toBe(true);
    // 0 disables auto-complete: one second left stays not completed.
    await put("/api/data/update_auto_complete_seconds", "alice", { user_id: uid("alice"), seconds: 0 });
    expect((await record(2699, lib.ids["Three quarters"])).body.completed).toBe(false);
    // An unknown duration never auto-completes.
    await put("/api/data/update_auto_complete_seconds", "alice", { user_id: uid("alice"), seconds: 300 });
    expect((await record(5, lib.ids["Unknown"])).body.completed).toBe(false);
    // Episode 0 (a stream without an episode record) is accepted and changes nothing.
    const before = (await history("alice")).body.total;
    expect((await record(50, 0)).status).toBe(200);
    expect((await history("alice")).body.total).toBe(before);
    expectErrorBody(await record(-1), 400);
    await put("/api/data/update_auto_complete_seconds", "alice", { user_id: uid("alice"), seconds: 0 });
  });

  test("mark completed / uncompleted: not completed -> completed -> not completed, other users untouched", async () => {
    const ep = lib.ids["Twenty"];
    const done = await lib.post("/api/data/mark_episode_completed", "alice", { episode_id: ep, user_id: uid("alice"), is_vidsite: false });
    expect(done.body).toEqual({ detail: "Episode marked as completed." });
    expect((await episodeOf("alice", "Twenty")).completed).toBe(true);
    expect((await episodeOf("bob", "Twenty")).completed).toBe(false);
    const undone = await lib.post("/api/data/mark_episode_uncompleted", "alice", { episode_id: ep, user_id: uid("alice") });
    expect(undone.body).toEqual({ detail: "Episode marked as not completed." });
    expect((await episodeOf("alice", "Twenty")).completed).toBe(false);
  });

  test("auto_complete_episodes completes the caller's episodes already within auto_complete_seconds of the end", async () => {
    await lib.post("/api/data/record_podcast_history", "bob", { episode_id: lib.ids["Hour"], user_id: uid("bob"), episode_pos: 3541, is_vidsite: false });
    await lib.post("/api/data/record_podcast_history", "bob", { episode_id: lib.ids["Long"], user_id: uid("bob"), episode_pos: 4000, is_vidsite: false });
    expect((await lib.get("/api/data/auto_complete_episodes", "bob")).body).toEqual({
      detail: "Auto-complete is disabled (auto_complete_seconds is 0).",
      completed_count: 0,
    });
    await put("/api/data/update_auto_complete_seconds", "bob", { user_id: uid("bob"), seconds: 60 });
    const res = await lib.get("/api/data/auto_complete_episodes", "bob");
    expect(res.body).toEqual({ detail: "1 episode auto-completed.", completed_count: 1 });
    expect((await episodeOf("bob", "Hour")).completed).toBe(true);
    expect((await episodeOf("bob", "Long")).completed).toBe(false);
    expect((await episodeOf("alice", "Hour")).completed).toBe(false);
  });

  test("bulk actions: processed and failed counts; ids the caller cannot see fail and reveal nothing", async () => {
    const own = lib.ids["Own 00"]; // alice's own feed: bob cannot see it
    const ids = [lib.ids["Tiny"], lib.ids["Quarter"], own, 999999, lib.ids["Tiny"]];
    const done = await lib.post("/api/data/bulk_mark_episodes_completed", "bob", { episode_ids: ids, user_id: uid("bob"), is_vidsite: false });
    expect(done.status).toBe(200);
    expect(done.body).toEqual({ message: "2 episodes marked as completed", processed_count: 2, failed_count: 2 });
    expect((await episodeOf("bob", "Tiny")).completed).toBe(true);
    expect((await episodeOf("alice", "Tiny")).completed).toBe(false);
    const aliceOwn = await lib.get("/api/data/podcast_episodes", "alice", { user_id: uid("alice"), podcast_id: lib.own, search: "Own 00" });
    expect(aliceOwn.body.episodes[0].completed).toBe(false);

    const save = await lib.post("/api/data/bulk_save_episodes", "bob", { episode_ids: [lib.ids["Past commute"], own], user_id: uid("bob") });
    expect(save.body).toEqual({ message: "1 episode saved", processed_count: 1, failed_count: 1 });
    expect((await saved("bob", { search: "commute" })).body.total).toBe(1);

    const queue = await lib.post("/api/data/bulk_queue_episodes", "bob", { episode_ids: [lib.ids["Past commute"], lib.ids["Tiny"], own], user_id: uid("bob") });
    expect(queue.body).toEqual({ message: "2 episodes queued", processed_count: 2, failed_count: 1 });
    const again = await lib.post("/api/data/bulk_queue_episodes", "bob", { episode_ids: [lib.ids["Tiny"]], user_id: uid("bob") });
    expect(again.body).toEqual({ message: "1 episode queued", processed_count: 1, failed_count: 0 });
    const item = (await saved("bob", { search: "commute" })).body.saved_episodes[0];
    expect(item.queued).toBe(true);

    expect((await lib.post("/api/data/bulk_save_episodes", "bob", { episode_ids: [], user_id: uid("bob") })).body).toEqual({
      message: "0 episodes saved",
      processed_count: 0,
      failed_count: 0,
    });
    expectErrorBody(await lib.post("/api/data/bulk_save_episodes", "bob", { episode_ids: "1,2", user_id: uid("bob") }), 400);
    expectErrorBody(
      await lib.post("/api/data/bulk_save_episodes", "bob", { episode_ids: Array.from({ length: 1001 }, (_, i) => i + 1), user_id: uid("bob") }),
      400,
    );
  });

  test("another feed's episode is a 404 indistinguishable from a missing one", async () => {
    const own = lib.ids["Own 00"];
    for (const path of ["save_episode", "mark_episode_completed", "record_podcast_history", "get_episode_metadata", "get_next_podcast_episode"]) {
      const body = { user_id: uid("bob"), is_vidsite: false, episode_pos: 1 };
      const hidden = await lib.post(`/api/data/${path}`, "bob", { ...body, episode_id: own });
      const missing = await lib.post(`/api/data/${path}`, "bob", { ...body, episode_id: 999999 });
      expectErrorBody(hidden, 404);
      expect(hidden.body).toEqual(missing.body);
    }
  });

  test("per podcast playback: speed override else the default, clear, skips, auto-play-next, favorite and notification flags", async () => {
    const a = { user_id: uid("alice"), podcast_id: lib.shared };
    const speed = async (body: object = a) => (await lib.post("/api/data/get_playback_speed", "alice", body)).body.playback_speed;
    await lib.post("/api/data/user/set_playback_speed", "alice", { user_id: uid("alice"), playback_speed: 1.2 });
    expect(await speed()).toBe(1.2);
    expect((await lib.post("/api/data/podcast/set_playback_speed", "alice", { ...a, playback_speed: 1.5 })).body).toEqual({
      detail: "Podcast playback speed updated",
      message: "Podcast playback speed updated",
    });
    expect(await speed()).toBe(1.5);
    expect(await speed({ user_id: uid("alice") })).toBe(1.2);
    expect((await lib.post("/api/data/get_playback_speed", "bob", { user_id: uid("bob"), podcast_id: lib.shared })).body.playback_speed).toBe(1);
    const details = await lib.post("/api/data/get_play_episode_details", "alice", a);
    expect(details.body).toEqual({ playback_speed: 1.5, start_skip: 0, end_skip: 0, playback_speed_customized: true });
    expect((await lib.get("/api/data/get_podcast_details", "alice", a)).body.podcast.custom_playback_speed).toBe(1.5);
    expect((await lib.post("/api/data/clear_podcast_playback_speed", "alice", a)).status).toBe(200);
    expect(await speed()).toBe(1.2);
    expect((await lib.post("/api/data/adjust_skip_times", "alice", { ...a, start_skip: 30 })).status).toBe(200);
    expect((await lib.post("/api/data/adjust_skip_times", "alice", { ...a, end_skip: 15 })).status).toBe(200);
    expect((await lib.post("/api/data/get_play_episode_details", "alice", a)).body).toEqual({
      playback_speed: 1.2,
      start_skip: 30,
      end_skip: 15,
      playback_speed_customized: false,
    });
    expect((await lib.post("/api/data/get_play_episode_details", "bob", { user_id: uid("bob"), podcast_id: lib.shared })).body).toEqual({
      playback_speed: 1,
      start_skip: 0,
      end_skip: 0,
      playback_speed_customized: false,
    });
    expect((await lib.post("/api/data/get_auto_play_next_status", "alice", a)).body).toEqual({ auto_play_next: false });
    expect((await lib.post("/api/data/enable_auto_play_next", "alice", { ...a, auto_play_next: true })).status).toBe(200);
    expect((await lib.post("/api/data/get_auto_play_next_status", "alice", a)).body).toEqual({ auto_play_next: true });
    expect((await lib.post("/api/data/get_auto_play_next_status", "bob", { user_id: uid("bob"), podcast_id: lib.shared })).body).toEqual({
      auto_play_next: false,
    });
    expect((await lib.post("/api/data/podcast/favorite_status", "alice", a)).body).toEqual({ is_favorite: false });
    expect((await lib.post("/api/data/podcast/notification_status", "alice", a)).body).toEqual({ enabled: false });
    // Bad values are 400s; a podcast the caller is not subscribed to is a 404.
    expectErrorBody(await lib.post("/api/data/podcast/set_playback_speed", "alice", { ...a, playback_speed: 5 }), 400);
    expectErrorBody(await lib.post("/api/data/adjust_skip_times", "alice", { ...a, start_skip: -3 }), 400);
    expectErrorBody(await lib.post("/api/data/podcast/set_playback_speed", "bob", { user_id: uid("bob"), podcast_id: lib.own, playback_speed: 2 }), 404);
    expectErrorBody(await lib.post("/api/data/get_play_episode_details", "bob", { user_id: uid("bob"), podcast_id: lib.own }), 404);
  });

  test("get_next_podcast_episode: the next one published, skipping completed ones; 404 at the end", async () => {
    const next = (title: string) => lib.post("/api/data/get_next_podcast_episode", "alice", { episode_id: lib.ids[title], user_id: uid("alice") });
    // Publication order (oldest first): Long, Three quarters, Half, Twenty, Just over, Past commute, Quarter, Unknown, Hour, Tiny.
    const res = await next("Long");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ episodetitle: "Three quarters", podcastname: "Shared Show", queueposition: null, queued: false, is_video: false });
    expect((await next("Three quarters")).body.episodetitle).toBe("Twenty"); // Half is completed for alice
    expectErrorBody(await next("Tiny"), 404);
  });

  test("get_episode_metadata: the episode with the caller's state", async () => {
    const res = await lib.post("/api/data/get_episode_metadata", "alice", { episode_id: lib.ids["Half"], user_id: uid("alice"), person_episode: false });
    expect(res.status).toBe(200);
    expect(res.body.episode).toMatchObject({
      episodeid: lib.ids["Half"],
      episodetitle: "Half",
      podcastname: "Shared Show",
      episodeduration: 1800,
      completed: true,
      is_saved: false,
      listenduration: 100,
    });
  });

  test("stats, extended stats and home overview count the caller's listening only", async () => {
    for (let i = 0; i < 3; i++)
      expect((await put(`/api/data/increment_listen_time/${uid("bob")}`, "bob")).body).toEqual({ detail: "Listen time incremented." });
    expect((await put(`/api/data/increment_played/${uid("bob")}`, "bob")).status).toBe(200);
    const stats = await lib.get("/api/data/get_stats", "bob", { user_id: uid("bob") });
    expect(stats.status).toBe(200);
    // bob's history: Hour at 3541 s and Long at 4000 s (more than the 180 s the counter saw).
    const documented = {
      total_listen_time: 7541,
      episodes_played: 2,
      episodes_completed: 4,
      podcasts_subscribed: 1,
      episodes_downloaded: 0,
      episodes_saved: 5,
      episodes_queued: 2,
      avg_listen_time_per_episode: 3771,
      most_listened_podcast: "Shared Show",
      listening_streak_days: 1,
      last_activity: expect.any(String),
    };
    // Then the same figures by PinePods' clients' names (TimeListened in minutes).
    expect(stats.body).toEqual({
      ...documented,
      UserCreated: expect.any(String),
      PodcastsPlayed: 2,
      TimeListened: 125,
      PodcastsAdded: 1,
      EpisodesSaved: 5,
      EpisodesDownloaded: 0,
      Pod_Sync_Type: "None",
      GpodderUrl: "",
    });
    const fresh = await lib.get("/api/data/get_stats", "admin", { user_id: uid("admin") });
    expect(fresh.body).toMatchObject({ total_listen_time: 0, episodes_played: 0, listening_streak_days: 0, last_activity: null, most_listened_podcast: null });
    const ext = await lib.get("/api/data/get_extended_stats", "bob", { user_id: uid("bob") });
    expect(ext.body).toMatchObject({ ...documented, timezone: "UTC", completion_rate: 80 });
    expect(ext.body.top_podcasts).toEqual([
      {
        podcast_id: lib.shared,
        podcast_name: "Shared Show",
        listen_time: 7541,
        episodes_listened: 2,
        podcastid: lib.shared,
        podcastname: "Shared Show",
        artworkurl: "",
        total_seconds: 7541,
      },
    ]);
    // The web client's figures (ExtendedUserStats): the longest episode heard, the badge by hours, downloads, the streak, listens per weekday.
    expect(ext.body).toMatchObject({ listening_badge: "Casual Listener", total_downloaded_bytes: 0, total_downloaded_formatted: "0 B", current_streak: 1 });
    expect(ext.body.longest_episode).toMatchObject({ episodetitle: "Long", podcastname: "Shared Show" });
    expect(ext.body.listening_by_dow.reduce((a: number, b: number) => a + b, 0)).toBe(2);
    expect(ext.body.favorite_categories).toEqual(expect.any(Array));
    expect(ext.body.episodes_listened_by_hour.reduce((a: number, b: number) => a + b, 0)).toBe(2);
    const home = await lib.get("/api/data/home_overview", "bob", { user_id: uid("bob") });
    expect(home.status).toBe(200);
    expect(home.body.recent_episodes.map((e: any) => e.episode_title)).toEqual(["Long", "Hour"]);
    expect(home.body.recent_episodes[1]).toMatchObject({ podcast_name: "Shared Show", listen_progress: 100 });
    expect(home.body.recent_episodes[0].listen_progress).toBe(80);
    expect(home.body.quick_stats).toEqual({ total_listen_time: 7541, episodes_this_week: 2, completion_rate: 80 }); // 4 of the 5 episodes started or completed
    const recommended = home.body.recommended_episodes.map((e: any) => e.episode_title);
    expect(recommended).not.toContain("Hour");
    expect(recommended).not.toContain("Tiny"); // completed by bob
    expect(home.body.recommended_episodes[0]).toEqual({
      episode_id: expect.any(Number),
      episode_title: expect.any(String),
      podcast_name: "Shared Show",
      reason: "New from one of your most listened podcasts",
    });
  });

  test("search_data: podcasts then episodes of the caller's subscriptions, filter, categories, paging", async () => {
    const search = (who: string, body: object, query: object = {}) =>
      api(lib.server.url)
        .post("/api/data/search_data")
        .query(query)
        .set("Api-Key", lib.users[who].key)
        .send({ user_id: uid(who), ...body });
    const alpha = await search("alice", { search_term: "alpha" });
    expect(alpha.status).toBe(200);
    expect(alpha.body).toEqual({
      total: 1,
      data: [
        {
          type: "podcast",
          podcast_id: lib.own,
          podcast_name: "Alpha Own Show",
          author: "",
          description: "test feed",
          artwork_url: null,
          categories: {},
          podcastid: lib.own,
          podcastname: "Alpha Own Show",
          artworkurl: "",
          feedurl: lib.feeds.url + "/own.xml",
          websiteurl: expect.any(String),
          explicit: 0,
          episodecount: 30,
        },
      ],
    });
    // "own": the podcast "Alpha Own Show", its 30 episodes and the shared "Unknown"; episodes newest first.
    const own = await search("alice", { search_term: "own" });
    expect(own.body.total).toBe(32);
    expect(own.body.data.slice(0, 3).map((d: any) => [d.type, d.podcast_name, d.episode_title])).toEqual([
      ["podcast", "Alpha Own Show", undefined],
      ["episode", "Shared Show", "Unknown"],
      ["episode", "Alpha Own Show", "Own 00"],
    ]);
    expect(own.body.data[1]).toMatchObject({
      episode_id: lib.ids["Unknown"],
      podcast_id: lib.shared,
      episodeid: lib.ids["Unknown"],
      episodeduration: 0,
      completed: false,
      saved: false,
      queued: false,
    });
    expect((await search("bob", { search_term: "own" })).body.data.map((d: any) => d.episode_title)).toEqual(["Unknown"]); // not alice's own feed
    const page = await search("alice", { search_term: "own" }, { offset: 1, limit: 2 });
    expect(page.body.data.map((d: any) => d.episode_title)).toEqual(["Unknown", "Own 00"]);
    expect(page.body.total).toBe(32);
    expect((await search("alice", { search_term: "own" }, { offset: 2, limit: 1 })).body.data.map((d: any) => d.episode_title)).toEqual(["Own 00"]);
    expect((await search("alice", { search_term: "own" }, { filter: "podcasts" })).body.total).toBe(1);
    expect((await search("alice", { search_term: "own" }, { filter: "episodes" })).body.total).toBe(31);
    expect((await search("alice", { search_term: "hour" })).body.data.map((d: any) => d.episode_title)).toEqual(["Hour"]);
    await lib.post("/api/data/add_category", "alice", { user_id: uid("alice"), podcast_id: lib.shared, category: "Science" });
    const cat = await search("alice", { search_term: "", categories: ["science"] }, { filter: "podcasts" });
    expect(cat.body.data.map((d: any) => d.podcast_id)).toEqual([lib.shared]);
    expect((await search("alice", { search_term: "own", categories: ["science"] })).body.data.map((d: any) => d.episode_title)).toEqual(["Unknown"]);
    expectErrorBody(await search("alice", { search_term: "x", categories: "science" }), 400);
  });

  test("lists and library reads make the same number of service calls whatever their length", async () => {
    const reads: [string, () => Promise<unknown>][] = [
      ["saved_episode_list", () => saved("alice")],
      ["user_history", () => history("alice")],
      ["user_history search", () => history("alice", { search: "o" })],
      ["get_stats", () => lib.get("/api/data/get_stats", "alice", { user_id: uid("alice") })],
      ["home_overview", () => lib.get("/api/data/home_overview", "alice", { user_id: uid("alice") })],
      ["search_data", () => lib.post("/api/data/search_data", "alice", { user_id: uid("alice"), search_term: "o" })],
    ];
    const count = async () => {
      const calls: Record<string, number> = {};
      for (const [name, read] of reads) calls[name] = await countCalls(lib, read); // one at a time: the counter is broker-wide
      return calls;
    };
    // One item first: an empty list skips the queue and downloads calls.
    await lib.post("/api/data/save_episode", "alice", { episode_id: lib.ids["Own 29"], user_id: uid("alice"), is_vidsite: false });
    await lib.post("/api/data/record_podcast_history", "alice", { episode_id: lib.ids["Own 29"], user_id: uid("alice"), episode_pos: 60, is_vidsite: false });
    const before = await count();
    const own = Array.from({ length: 20 }, (_, n) => lib.ids[`Own ${String(n).padStart(2, "0")}`]);
    await lib.post("/api/data/bulk_save_episodes", "alice", { episode_ids: own, user_id: uid("alice") });
    for (const episode_id of own)
      await lib.post("/api/data/record_podcast_history", "alice", { episode_id, user_id: uid("alice"), episode_pos: 60, is_vidsite: false });
    expect((await saved("alice")).body.total).toBeGreaterThanOrEqual(20);
    expect(await count()).toEqual(before);
  });

  test("get_service_version", async () => {
    const res = await lib.get("/api/data/get_service_version", "bob");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: expect.stringMatching(/^\d+\.\d+\.\d+/) });
  });

  test("authorization matrix: no key 401, bad key 401, another user's id 403 without data, owner 200", async () => {
    const me = uid("alice");
    const other = uid("bob");
    const ep = lib.ids["Quarter"];
    const pod = lib.shared;
    type Req = { method: "get" | "post" | "put"; path: string; query?: object; body?: object };
    // Each route with the owner's request; `who` is the user_id it names.
    const matrix: ((who: number) => Req)[] = [
      (who) => ({ method: "post", path: "/api/data/save_episode", body: { episode_id: ep, user_id: who, is_vidsite: false } }),
      (who) => ({ method: "post", path: "/api/data/remove_saved_episode", body: { episode_id: ep, user_id: who, is_vidsite: false } }),
      (who) => ({ method: "get", path: `/api/data/saved_episode_list/${who}` }),
      (who) => ({ method: "post", path: "/api/data/record_podcast_history", body: { episode_id: ep, user_id: who, episode_pos: 5, is_vidsite: false } }),
      (who) => ({ method: "post", path: "/api/data/record_listen_duration", body: { episode_id: ep, user_id: who, listen_duration: 5 } }),
      (who) => ({ method: "get", path: `/api/data/user_history/${who}` }),
      (who) => ({ method: "put", path: `/api/data/increment_listen_time/${who}` }),
      (who) => ({ method: "put", path: `/api/data/increment_played/${who}` }),
      (who) => ({ method: "post", path: "/api/data/mark_episode_completed", body: { episode_id: ep, user_id: who } }),
      (who) => ({ method: "post", path: "/api/data/mark_episode_uncompleted", body: { episode_id: ep, user_id: who } }),
      (who) => ({ method: "post", path: "/api/data/bulk_mark_episodes_completed", body: { episode_ids: [ep], user_id: who } }),
      (who) => ({ method: "post", path: "/api/data/bulk_save_episodes", body: { episode_ids: [ep], user_id: who } }),
      (who) => ({ method: "post", path: "/api/data/bulk_queue_episodes", body: { episode_ids: [ep], user_id: who } }),
      (who) => ({ method: "post", path: "/api/data/podcast/set_playback_speed", body: { user_id: who, podcast_id: pod, playback_speed: 1.1 } }),
      (who) => ({ method: "post", path: "/api/data/get_playback_speed", body: { user_id: who, podcast_id: pod } }),
      (who) => ({ method: "post", path: "/api/data/clear_podcast_playback_speed", body: { user_id: who, podcast_id: pod } }),
      (who) => ({ method: "post", path: "/api/data/adjust_skip_times", body: { user_id: who, podcast_id: pod, start_skip: 1 } }),
      (who) => ({ method: "post", path: "/api/data/get_play_episode_details", body: { user_id: who, podcast_id: pod } }),
      (who) => ({ method: "post", path: "/api/data/enable_auto_play_next", body: { user_id: who, podcast_id: pod, auto_play_next: false } }),
      (who) => ({ method: "post", path: "/api/data/get_auto_play_next_status", body: { user_id: who, podcast_id: pod } }),
      (who) => ({ method: "post", path: "/api/data/podcast/favorite_status", body: { user_id: who, podcast_id: pod } }),
      (who) => ({ method: "post", path: "/api/data/podcast/notification_status", body: { user_id: who, podcast_id: pod } }),
      (who) => ({ method: "post", path: "/api/data/get_next_podcast_episode", body: { user_id: who, episode_id: lib.ids["Long"] } }),
      (who) => ({ method: "post", path: "/api/data/get_episode_metadata", body: { user_id: who, episode_id: ep } }),
      (who) => ({ method: "get", path: "/api/data/get_stats", query: { user_id: who } }),
      (who) => ({ method: "get", path: "/api/data/get_extended_stats", query: { user_id: who } }),
      (who) => ({ method: "get", path: "/api/data/home_overview", query: { user_id: who } }),
      (who) => ({ method: "post", path: "/api/data/search_data", body: { user_id: who, search_term: "shared" } }),
    ];
    const send = (r: Req, key: string | null) => {
      const agent = api(lib.server.url);
      let req = agent[r.method](r.path).query(r.query ?? {});
      if (key !== null) req = req.set("Api-Key", key);
      return r.body ? req.send(r.body) : req;
    };
    const problems: string[] = [];
    const check = (what: string, res: any, status: number) => {
      const errorOnly = status === 200 || (res.body && Object.keys(res.body).sort().join() === "detail,error,message,status_code");
      if (res.status !== status || !errorOnly) problems.push(`${what}: ${res.status} ${JSON.stringify(res.body).slice(0, 120)}`);
    };
    for (const build of matrix) {
      const mine = build(me);
      const label = `${mine.method.toUpperCase()} ${mine.path}`;
      check(`${label} without key`, await send(mine, null), 401);
      check(`${label} bad key`, await send(mine, "not-a-key"), 401);
      check(`${label} bob's user_id`, await send(build(other), lib.users.alice.key), 403);
      check(`${label} owner`, await send(mine, lib.users.alice.key), 200);
    }
    for (const r of [
      { method: "get", path: "/api/data/auto_complete_episodes" },
      { method: "get", path: "/api/data/get_service_version" },
    ] as Req[]) {
      check(`${r.path} without key`, await send(r, null), 401);
      check(`${r.path} bad key`, await send(r, "not-a-key"), 401);
      check(`${r.path} key`, await send(r, lib.users.alice.key), 200);
    }
    expect(problems).toEqual([]);
  });

  test("leaving a podcast removes that user's saves, history and states of it; others keep theirs", async () => {
    // bob saves and listens to the shared feed; alice has history there too.
    expect((await saved("bob")).body.total).toBeGreaterThan(0);
    const aliceHistory = (await history("alice")).body.total;
    const res = await lib.post("/api/data/remove_podcast_id", "bob", { user_id: uid("bob"), podcast_id: lib.shared });
    expect(res.status).toBe(200);
    await eventually(async () => {
      expect((await saved("bob")).body).toEqual({ saved_episodes: [], total: 0 });
      expect((await history("bob")).body).toEqual({ data: [], total: 0 });
    });
    expect((await history("alice")).body.total).toBe(aliceHistory);
    // Subscribing again starts from a clean state.
    await lib.post("/api/data/add_podcast", "bob", { podcast_values: { pod_feed_url: lib.feeds.url + "/shared.xml", user_id: uid("bob") } });
    expect((await episodeOf("bob", "Tiny")).completed).toBe(false);
  });
});
