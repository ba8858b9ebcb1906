/**
 * Smart playlists, black-box over HTTP: every playlist's content is checked episode by episode against
 * its filters, computed here from the user's episodes and states as return_episodes shows them.
 */
import { expectErrorBody } from "../helpers/client";
import { countCalls, eventually, Library, raw, setState, startLibrary } from "../helpers/library";

const SORT_ORDERS = [
  "date_asc",
  "date_desc",
  "duration_asc",
  "duration_desc",
  "listen_progress",
  "completion",
  "title_asc",
  "title_desc",
  "podcast_asc",
  "podcast_desc",
  "random",
];
const SYSTEM = ["Quick Listens", "Longform", "Currently Listening", "Fresh Releases", "Weekend Marathon", "Commuter Mix"];

interface Ep {
  episodeid: number;
  podcastid: number;
  podcastname: string;
  episodetitle: string;
  episodepubdate: string;
  episodeduration: number;
  listenduration: number | null;
  completed: boolean;
}

/** The playlist rules of the spec, written out plainly: what each filter field keeps and how each order sorts. */
function expected(eps: Ep[], pl: any): number[] {
  const now = Date.now();
  const played = (e: Ep) =>
    e.completed || (e.episodeduration > 0 && !!e.listenduration && (e.listenduration >= 0.9 * e.episodeduration || e.episodeduration - e.listenduration <= 30));
  const progress = (e: Ep) => (e.completed ? 100 : e.episodeduration > 0 ? Math.min(100, ((e.listenduration ?? 0) / e.episodeduration) * 100) : 0);
  const kept = eps.filter((e) => {
    const partial = !played(e) && (e.listenduration ?? 0) > 0;
    if (played(e) ? !pl.include_played : partial ? !pl.include_partially_played : !pl.include_unplayed) return false;
    if (pl.podcast_ids && !pl.podcast_ids.includes(e.podcastid)) return false;
    if ((pl.min_duration != null || pl.max_duration != null) && e.episodeduration <= 0) return false;
    if (pl.min_duration != null && e.episodeduration < pl.min_duration) return false;
    if (pl.max_duration != null && e.episodeduration > pl.max_duration) return false;
    if (pl.time_filter_hours != null && new Date(e.episodepubdate).getTime() <= now - pl.time_filter_hours * 3_600_000) return false;
    if (pl.play_progress_min != null && progress(e) < pl.play_progress_min) return false;
    if (pl.play_progress_max != null && progress(e) > pl.play_progress_max) return false;
    return true;
  });
  const date = (e: Ep) => new Date(e.episodepubdate).getTime();
  const by: Record<string, (a: Ep, b: Ep) => number> = {
    date_asc: (a, b) => date(a) - date(b),
    date_desc: (a, b) => date(b) - date(a),
    duration_asc: (a, b) => a.episodeduration - b.episodeduration,
    duration_desc: (a, b) => b.episodeduration - a.episodeduration,
    listen_progress: (a, b) => (b.listenduration ?? 0) - (a.listenduration ?? 0),
    completion: (a, b) => progress(b) - progress(a),
    title_asc: (a, b) => a.episodetitle.toLowerCase().localeCompare(b.episodetitle.toLowerCase()),
    title_desc: (a, b) => b.episodetitle.toLowerCase().localeCompare(a.episodetitle.toLowerCase()),
    podcast_asc: (a, b) => a.podcastname.localeCompare(b.podcastname),
    podcast_desc: (a, b) => b.podcastname.localeCompare(a.podcastname),
  };
  const group = (a: Ep, b: Ep) => (pl.group_by_podcast ? a.podcastname.localeCompare(b.podcastname) : 0);
  kept.sort((a, b) => group(a, b) || by[pl.sort_order](a, b) || a.episodeid - b.episodeid);
  return kept.slice(0, pl.max_episodes ?? undefined).map((e) => e.episodeid);
}

describe("smart playlists", () => {
  let lib: Library;
  let eps: Ep[];
  const uid = (who: string) => lib.users[who].id;
  const base = {
    include_unplayed: true,
    include_partially_played: true,
    include_played: true,
    sort_order: "date_desc",
    group_by_podcast: false,
    icon_name: "ph-list",
  };
  const create = (who: string, fields: object) => lib.post("/api/data/create_playlist", who, { user_id: uid(who), name: "Mine", ...base, ...fields });
  const playlists = async (who: string) => {
    const res = await lib.get("/api/data/get_playlists", who, { user_id: uid(who) });
    expect(res.status).toBe(200);
    return res.body.playlists as any[];
  };
  const content = async (who: string, playlist_id: number, page: object = { limit: 1000 }) => {
    const res = await lib.get("/api/data/get_playlist_episodes", who, { user_id: uid(who), playlist_id, ...page });
    expect(res.status).toBe(200);
    return res.body;
  };
  const ids = async (who: string, playlist_id: number) => (await content(who, playlist_id)).episodes.map((e: any) => e.episodeid);
  const episodesOf = async (who: string): Promise<Ep[]> => (await lib.get(`/api/data/return_episodes/${uid(who)}`, who, { limit: 1000 })).body.episodes;

  beforeAll(async () => {
    lib = await startLibrary();
    const states: [string, { listen_duration?: number; completed?: boolean }][] = [
      ["Twenty", { listen_duration: 100 }],
      ["Half", { listen_duration: 1780 }],
      ["Long", { listen_duration: 4600 }],
      ["Tiny", { listen_duration: 10 }],
      ["Three quarters", { completed: true }],
      ["Hour", { listen_duration: 1800 }],
      ["Own 00", { listen_duration: 300 }],
      ["Own 05", { completed: true }],
      ["Own 07", { listen_duration: 700 }],
    ];
    for (const [title, st] of states) await setState(lib, "alice", lib.ids[title], st);
    eps = await episodesOf("alice");
  });
  afterAll(() => lib?.stop());

  test("every user has the six system playlists from creation; their content follows their filters", async () => {
    const store: any = lib.server.broker.getLocalService("playlists");
    // Made by user.created, before any read of them.
    expect(await store.adapter.count({ query: { user_id: uid("bob"), is_system: true } })).toBe(6);
    const lists = await playlists("alice");
    expect(lists.map((p) => p.name)).toEqual(SYSTEM);
    expect(lists.every((p) => p.is_system_playlist)).toBe(true);
    const byName = Object.fromEntries(lists.map((p) => [p.name, p]));
    expect(byName["Quick Listens"]).toMatchObject({ max_duration: 900, min_duration: null, sort_order: "duration_asc", include_played: false });
    expect(byName["Longform"]).toMatchObject({ min_duration: 3600, max_duration: null });
    expect(byName["Currently Listening"]).toMatchObject({ include_unplayed: false, include_partially_played: true, include_played: false });
    expect(byName["Fresh Releases"]).toMatchObject({ time_filter_hours: 24 });
    expect(byName["Commuter Mix"]).toMatchObject({ min_duration: 900, max_duration: 2700 });
    for (const p of lists) {
      const want = expected(eps, p);
      expect({ name: p.name, ids: await ids("alice", p.playlist_id) }).toEqual({ name: p.name, ids: want });
      expect(p.episode_count).toBe(want.length);
    }
    // The edges: 900 s is quick, 901 s is not; the commute ends at 2700 s; an unknown duration is neither.
    const quick = await ids("alice", byName["Quick Listens"].playlist_id);
    expect(quick).toContain(lib.ids.Quarter);
    expect(quick).not.toContain(lib.ids["Just over"]);
    expect(quick).not.toContain(lib.ids.Unknown);
    const commute = await ids("alice", byName["Commuter Mix"].playlist_id);
    expect(commute).toContain(lib.ids["Just over"]);
    expect(commute).not.toContain(lib.ids["Past commute"]);
    expect(await ids("alice", byName["Currently Listening"].playlist_id)).toEqual(
      expect.arrayContaining([lib.ids.Twenty, lib.ids.Tiny, lib.ids.Hour, lib.ids["Own 00"], lib.ids["Own 07"]]),
    );
  });

  test("accounts older than the playlists get them on first listing, or all at once by update_playlists", async () => {
    const store: any = lib.server.broker.getLocalService("playlists");
    await store.adapter.removeMany({ user_id: uid("bob") });
    expect((await playlists("bob")).map((p) => p.name)).toEqual(SYSTEM);
    await store.adapter.removeMany({ user_id: uid("bob") });
    expectErrorBody(await lib.get("/api/data/update_playlists", "alice"), 403);
    const res = await lib.get("/api/data/update_playlists", "admin");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ system_playlists_created: 6 });
    expect(await store.adapter.count({ query: { user_id: uid("bob"), is_system: true } })).toBe(6);
    expect((await playlists("bob")).map((p) => p.name)).toEqual(SYSTEM); // still six, not twelve
  });

  test("each filter field and each sort_order, checked episode by episode", async () => {
    const cases: object[] = [
      { podcast_ids: [lib.shared], include_unplayed: false, include_partially_played: false, sort_order: "title_asc" },
      { include_unplayed: false, include_played: false, play_progress_min: 5, play_progress_max: 60, sort_order: "completion" },
      { time_filter_hours: 24, sort_order: "date_asc", max_episodes: 3 },
      { include_partially_played: false, include_played: false, min_duration: 900, max_duration: 1800, sort_order: "duration_desc", group_by_podcast: true },
      { include_unplayed: false, include_partially_played: false, sort_order: "listen_progress" },
      { play_progress_min: 100, sort_order: "podcast_desc" },
      ...SORT_ORDERS.filter((s) => s !== "random").flatMap((sort_order) => [{ sort_order }, { sort_order, group_by_podcast: true, max_episodes: 12 }]),
    ];
    for (const fields of cases) {
      const made = await create("alice", fields);
      expect(made.status).toBe(200);
      expect(made.body).toEqual({ detail: "Playlist created", playlist_id: expect.any(Number) });
      const got = await content("alice", made.body.playlist_id);
      const want = expected(eps, { ...base, ...fields });
      expect({ fields, ids: got.episodes.map((e: any) => e.episodeid) }).toEqual({ fields, ids: want });
      expect(got.total).toBe(want.length);
      expect(want.length).toBeGreaterThan(0); // every case selects something, so it tests something
    }
  });

  test("reads cost a constant number of service calls, whatever the page or the number of playlists", async () => {
    const { body } = await create("alice", { name: "Counted" });
    const small = await countCalls(lib, () => content("alice", body.playlist_id, { limit: 1 }));
    const large = await countCalls(lib, () => content("alice", body.playlist_id, { limit: 40 }));
    expect(large).toBe(small);
    const before = await countCalls(lib, () => playlists("alice"));
    await create("alice", { name: "Counted too" });
    expect(await countCalls(lib, () => playlists("alice"))).toBe(before);
  });

  test("random order: every matching episode once, the same order on every read, pages that fit together", async () => {
    const { body } = await create("alice", { sort_order: "random" });
    const all = await ids("alice", body.playlist_id);
    expect([...all].sort((a, b) => a - b)).toEqual([...expected(eps, { ...base, sort_order: "date_asc" })].sort((a, b) => a - b));
    expect(await ids("alice", body.playlist_id)).toEqual(all);
    expect(all).not.toEqual([...all].sort((a, b) => a - b));
    const pages: number[] = [];
    for (let offset = 0; offset < all.length; offset += 7)
      pages.push(...(await content("alice", body.playlist_id, { limit: 7, offset })).episodes.map((e: any) => e.episodeid));
    expect(pages).toEqual(all);
  });

  test("paging, queue fields of the items, and get_next_playlist_episode", async () => {
    const { body } = await create("alice", { sort_order: "duration_asc", podcast_ids: [lib.shared] });
    const all = await ids("alice", body.playlist_id);
    const page = await content("alice", body.playlist_id, { limit: 3, offset: 2 });
    expect(page.episodes.map((e: any) => e.episodeid)).toEqual(all.slice(2, 5));
    expect(page.total).toBe(all.length);
    expect(page.playlist_info).toMatchObject({ playlist_id: body.playlist_id, name: "Mine", episode_count: all.length, is_system_playlist: false });

    await lib.post("/api/data/queue_pod", "alice", { user_id: uid("alice"), episode_id: all[3], is_vidsite: false });
    const items = (await content("alice", body.playlist_id)).episodes;
    expect(items[3]).toMatchObject({ queued: true, queueposition: 1 });
    expect(items[0]).toMatchObject({ queued: false, queueposition: null, downloaded: false });

    const next = (episode_id: number) =>
      lib.post("/api/data/get_next_playlist_episode", "alice", { user_id: uid("alice"), playlist_id: body.playlist_id, episode_id });
    const second = await next(all[0]);
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ episodeid: all[1], is_video: false, queued: false, episodetitle: expect.any(String), podcastname: "Shared Show" });
    expect((await next(all[2])).body).toMatchObject({ episodeid: all[3], queued: true, queueposition: 1 });
    expectErrorBody(await next(all[all.length - 1]), 404);
    // An episode no longer in the playlist (just finished, say): the playlist starts again from its first.
    expect((await next(lib.ids["Own 01"])).body.episodeid).toBe(all[0]);
  });

  test("update_playlist (PATCH) changes what it is sent; bad values are 400", async () => {
    const { body } = await create("alice", { name: "Short", max_duration: 1200 });
    const patch = (fields: object) =>
      raw(lib, "patch", "/api/data/update_playlist", lib.users.alice.key).send({ user_id: uid("alice"), playlist_id: body.playlist_id, ...fields });
    expect((await patch({ max_duration: 600, sort_order: "duration_asc" })).body).toEqual({ detail: "Playlist updated" });
    const info = (await content("alice", body.playlist_id)).playlist_info;
    expect(info).toMatchObject({ name: "Short", max_duration: 600, sort_order: "duration_asc", include_played: true });
    expect(await ids("alice", body.playlist_id)).toEqual(expected(eps, { ...base, max_duration: 600, sort_order: "duration_asc" }));
    for (const bad of [
      { sort_order: "newest" },
      { min_duration: 700 },
      { play_progress_min: 101 },
      { max_episodes: 0 },
      { name: "" },
      { podcast_ids: ["x"] },
    ]) {
      expectErrorBody(await patch(bad), 400);
    }
    expect((await patch({ max_duration: null })).status).toBe(200);
    expect((await content("alice", body.playlist_id)).playlist_info.max_duration).toBeNull();
    for (const query of [{ playlist_id: "abc" }, { playlist_id: body.playlist_id, limit: 0 }, { playlist_id: body.playlist_id, offset: -1 }, {}]) {
      expectErrorBody(await lib.get("/api/data/get_playlist_episodes", "alice", { user_id: uid("alice"), ...query }), 400);
    }
    expectErrorBody(await raw(lib, "delete", "/api/data/delete_playlist", lib.users.alice.key).send({ user_id: uid("alice") }), 400);
    expectErrorBody(await lib.post("/api/data/get_next_playlist_episode", "alice", { user_id: uid("alice"), playlist_id: body.playlist_id }), 400);
    expectErrorBody(await lib.get("/api/data/get_playlist_episodes", "alice", { user_id: uid("alice"), playlist_id: 999999 }), 404);
    for (const bad of [
      { sort_order: "newest" },
      { name: undefined },
      { include_played: undefined },
      { play_progress_min: 50, play_progress_max: 10 },
      { time_filter_hours: -1 },
    ]) {
      expectErrorBody(await create("alice", bad), 400);
    }
  });

  test("delete_playlist: own 200 then 404, system 403, another user's 403", async () => {
    const del = (who: string, user_id: number, playlist_id: number) =>
      raw(lib, "delete", "/api/data/delete_playlist", lib.users[who].key).send({ user_id, playlist_id });
    const { body } = await create("alice", { name: "Gone soon" });
    expectErrorBody(await del("bob", uid("bob"), body.playlist_id), 403);
    expectErrorBody(await del("bob", uid("alice"), body.playlist_id), 403);
    const system = (await playlists("alice")).find((p) => p.name === "Longform");
    expectErrorBody(await del("alice", uid("alice"), system.playlist_id), 403);
    // Fields outside the record are not written: a system playlist cannot be made deletable.
    const sneaky = { user_id: uid("alice"), playlist_id: system.playlist_id, is_system: false, system_key: null, _id: 1, created_at: "x", icon_name: "ph-x" };
    expect((await raw(lib, "patch", "/api/data/update_playlist", lib.users.alice.key).send(sneaky)).status).toBe(200);
    expect((await create("alice", { is_system: true, created_at: "x", name: "Plain" })).status).toBe(200);
    expectErrorBody(await del("alice", uid("alice"), system.playlist_id), 403);
    expect((await playlists("alice")).find((p) => p.name === "Plain")).toMatchObject({ is_system_playlist: false });
    expect((await del("alice", uid("alice"), body.playlist_id)).body).toEqual({ detail: "Playlist deleted" });
    expectErrorBody(await del("alice", uid("alice"), body.playlist_id), 404);
    expect((await playlists("alice")).map((p) => p.name)).toContain("Longform");
  });

  test("authorization: no key 401, bad key 401, another user's id or playlist 403, owner 200", async () => {
    const { body } = await create("alice", { name: "Private" });
    const p = body.playlist_id;
    const a = uid("alice");
    const calls: ["get" | "post" | "patch" | "delete", string, object, object][] = [
      ["post", "/api/data/create_playlist", { ...base, name: "x", user_id: a }, { ...base, name: "x", user_id: uid("bob") }],
      ["patch", "/api/data/update_playlist", { user_id: a, playlist_id: p, name: "Private" }, { user_id: uid("bob"), playlist_id: p, name: "Taken" }],
      ["get", `/api/data/get_playlists?user_id=${a}`, {}, {}],
      ["get", `/api/data/get_playlist_episodes?user_id=${a}&playlist_id=${p}`, {}, {}],
      [
        "post",
        "/api/data/get_next_playlist_episode",
        { user_id: a, playlist_id: p, episode_id: lib.ids.Hour },
        { user_id: uid("bob"), playlist_id: p, episode_id: lib.ids.Hour },
      ],
      ["delete", "/api/data/delete_playlist", { user_id: a, playlist_id: 999999 }, { user_id: uid("bob"), playlist_id: p }],
    ];
    for (const [method, path, body, bobsOwnId] of calls) {
      const send = (key: string | null, b = body) => raw(lib, method, path, key).send(b);
      expectErrorBody(await send(null), 401);
      expectErrorBody(await send("not-a-key"), 401);
      const other = await send(lib.users.bob.key);
      expectErrorBody(other, 403);
      expect(JSON.stringify(other.body)).not.toContain("Private");
      // bob under his own id, on alice's playlist: 403 too (create for himself is simply allowed).
      if (path !== "/api/data/create_playlist" && Object.keys(bobsOwnId).length) expectErrorBody(await send(lib.users.bob.key, bobsOwnId), 403);
      const owner = await send(lib.users.alice.key);
      expect([path, owner.status]).toEqual([path, path === "/api/data/delete_playlist" ? 404 : 200]);
    }
    expectErrorBody(await lib.get("/api/data/get_playlist_episodes", "bob", { user_id: uid("bob"), playlist_id: p }), 403);
    expectErrorBody(await raw(lib, "get", "/api/data/update_playlists", null), 401);
    expect((await lib.get("/api/data/get_playlist_episodes", "admin", { user_id: a, playlist_id: p })).status).toBe(200);
  });

  test("leaving a podcast takes it out of playlists' podcast_ids; user.removed removes the playlists", async () => {
    const { body } = await create("alice", { name: "Own only", podcast_ids: [lib.own, lib.shared] });
    expect((await lib.post("/api/data/remove_podcast_id", "alice", { user_id: uid("alice"), podcast_id: lib.own })).status).toBe(200);
    await eventually(async () => expect((await content("alice", body.playlist_id)).playlist_info.podcast_ids).toEqual([lib.shared]));
    expect((await ids("alice", body.playlist_id)).length).toBe(expected(await episodesOf("alice"), { ...base, podcast_ids: [lib.shared] }).length);

    const store: any = lib.server.broker.getLocalService("playlists");
    expect((await raw(lib, "delete", `/api/data/user/delete/${uid("bob")}`, lib.users.admin.key)).status).toBe(200);
    await eventually(async () => expect(await store.adapter.count({ query: { user_id: uid("bob") } })).toBe(0));
  });
});
