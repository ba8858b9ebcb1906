/**
 * Bookmarks over HTTP through the gateway (services/bookmarks.service.ts): create, list (per episode by
 * position, per user newest first, paged), update, delete; 403 for another user's, 404s, 400s that change
 * nothing; notes found by the library search (search_data) of their owner only; kept by a server backup and
 * its restore; kept when the user unsubscribes, and removed with the user.
 */
import { api, expectErrorBody } from "../helpers/client";
import { eventually, Library, raw, startLibrary } from "../helpers/library";
import { tempDir } from "../helpers/server";
import { config } from "../../shared/config";

describe("bookmarks", () => {
  let lib: Library;
  const uid = (who: string) => lib.users[who].id;
  const key = (who: string) => lib.users[who].key;
  const create = (who: string, body: object) => lib.post("/api/data/bookmarks", who, { user_id: uid(who), ...body });
  const list = (who: string, query: object = {}, as = who) => lib.get("/api/data/bookmarks", as, { user_id: uid(who), ...query });
  const put = (who: string, bookmark_id: number, body: object) => raw(lib, "put", `/api/data/bookmarks/${bookmark_id}`, key(who)).send(body);
  const del = (who: string, bookmark_id: number, query: object = {}) => raw(lib, "delete", `/api/data/bookmarks/${bookmark_id}`, key(who)).query(query);
  const all = async (who: string, as = who) => {
    const res = await list(who, { limit: 500 }, as);
    expect(res.status).toBe(200);
    return res.body as { bookmarks: any[]; total: number };
  };
  const search = async (who: string, search_term: string) => {
    const res = await lib.post("/api/data/search_data", who, { user_id: uid(who), search_term });
    expect(res.status).toBe(200);
    return (res.body.data as any[]).filter((e) => e.type === "episode").map((e) => e.episode_id as number);
  };

  beforeAll(async () => {
    config.backupDir = tempDir("bookmarks-backups-");
    lib = await startLibrary();
  });
  afterAll(() => lib?.stop());

  test("create answers the bookmark with its id and the episode's names; list by episode is by position, by user newest first, paged", async () => {
    const made = await create("alice", { episode_id: lib.ids.Hour, position: 754.5, note: "The part about tides" });
    expect(made.status).toBe(200);
    expect(made.body).toEqual({
      bookmark_id: expect.any(Number),
      user_id: uid("alice"),
      episode_id: lib.ids.Hour,
      position: 754.5,
      note: "The part about tides",
      created_at: expect.any(String),
      updated_at: made.body.created_at,
      podcast_id: lib.shared,
      episode_title: "Hour",
      podcast_name: "Shared Show",
    });
    const early = (await create("alice", { episode_id: lib.ids.Hour, position: 12 })).body;
    expect(early.note).toBe(""); // a note is optional
    const other = (await create("alice", { episode_id: lib.ids["Own 03"], position: 0, note: "  trimmed  " })).body;
    expect(other).toMatchObject({ note: "trimmed", position: 0, podcast_name: "Alpha Own Show", episode_title: "Own 03" });

    const hour = await list("alice", { episode_id: lib.ids.Hour });
    expect(hour.status).toBe(200);
    expect(hour.body.total).toBe(2);
    expect(hour.body.bookmarks.map((b: any) => b.position)).toEqual([12, 754.5]);
    const mine = await all("alice");
    expect(mine.bookmarks.map((b) => b.bookmark_id)).toEqual([other.bookmark_id, early.bookmark_id, made.body.bookmark_id]);
    const page = await list("alice", { limit: 1, offset: 1 });
    expect(page.body).toEqual({ bookmarks: [mine.bookmarks[1]], total: 3 });
    expect((await all("bob")).total).toBe(0); // per user
    // Ids come as strings in the query and path, like every id of the API.
    expect((await list("alice", { episode_id: String(lib.ids["Own 03"]) })).body.bookmarks.map((b: any) => b.bookmark_id)).toEqual([other.bookmark_id]);
  });

  test("update changes the position and/or the note; delete removes it", async () => {
    const b = (await create("alice", { episode_id: lib.ids.Tiny, position: 30, note: "first" })).body;
    const moved = await put("alice", b.bookmark_id, { position: "45" });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ bookmark_id: b.bookmark_id, position: 45, note: "first", episode_title: "Tiny" });
    expect(Date.parse(moved.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(b.created_at));
    const noted = await put("alice", b.bookmark_id, { note: "second", user_id: uid("alice") });
    expect(noted.body).toMatchObject({ position: 45, note: "second" });
    expect((await put("alice", b.bookmark_id, { position: 50, note: "" })).body).toMatchObject({ position: 50, note: "" });
    expect((await list("alice", { episode_id: lib.ids.Tiny })).body.bookmarks).toEqual([expect.objectContaining({ position: 50, note: "" })]);
    const gone = await del("alice", b.bookmark_id);
    expect(gone.status).toBe(200);
    expect(gone.body).toEqual({ detail: "Bookmark deleted" });
    expect((await list("alice", { episode_id: lib.ids.Tiny })).body).toEqual({ bookmarks: [], total: 0 });
    expectErrorBody(await del("alice", b.bookmark_id), 404);
  });

  test("another user's bookmark is 403 to read, change or delete; unknown ones and episodes are 404; nothing changes", async () => {
    const b = (await create("alice", { episode_id: lib.ids.Quarter, position: 100, note: "mine" })).body;
    const before = await all("alice");
    expectErrorBody(await put("bob", b.bookmark_id, { note: "bob's now" }), 403);
    expectErrorBody(await put("bob", b.bookmark_id, { note: "bob's now", user_id: uid("bob") }), 403);
    expectErrorBody(await put("bob", b.bookmark_id, { note: "bob's now", user_id: uid("alice") }), 403);
    expectErrorBody(await del("bob", b.bookmark_id), 403);
    expectErrorBody(await del("bob", b.bookmark_id, { user_id: uid("alice") }), 403);
    expectErrorBody(await list("alice", {}, "bob"), 403);
    expectErrorBody(await lib.post("/api/data/bookmarks", "bob", { user_id: uid("alice"), episode_id: lib.ids.Quarter, position: 1 }), 403);
    // An admin reads another user's bookmarks by naming them.
    expect((await all("alice", "admin")).total).toBe(before.total);

    expectErrorBody(await put("alice", 999_999, { note: "x" }), 404);
    expectErrorBody(await del("alice", 999_999), 404);
    expectErrorBody(await create("alice", { episode_id: 999_999, position: 1 }), 404);
    // An episode of a podcast bob is not subscribed to.
    expectErrorBody(await create("bob", { episode_id: lib.ids["Own 00"], position: 1 }), 404);
    expectErrorBody(await raw(lib, "post", "/api/data/bookmarks", null).send({ user_id: uid("alice"), episode_id: lib.ids.Tiny, position: 1 }), 401);
    expect(await all("alice")).toEqual(before);
    expect((await all("bob")).total).toBe(0);
  });

  test("bad input is a 400 that changes nothing", async () => {
    const b = (await create("alice", { episode_id: lib.ids.Half, position: 60, note: "keep me" })).body;
    const before = await all("alice");
    const bad: object[] = [
      { episode_id: lib.ids.Half, position: -1 },
      { episode_id: lib.ids.Half, position: 8 * 24 * 3600 },
      { episode_id: lib.ids.Half, position: "soon" },
      { episode_id: lib.ids.Half, position: 1, note: "x".repeat(2001) },
      { episode_id: lib.ids.Half, position: 1, note: 42 },
      { episode_id: lib.ids.Half },
      { position: 1 },
      { episode_id: "abc", position: 1 },
      { episode_id: -3, position: 1 },
    ];
    for (const body of bad) expectErrorBody(await create("alice", body), 400);
    expectErrorBody(await lib.post("/api/data/bookmarks", "alice", { episode_id: lib.ids.Half, position: 1 }), 400); // no user_id
    expect((await create("alice", { episode_id: lib.ids.Half, position: 1, note: "y".repeat(2000) })).status).toBe(200); // the bound itself
    await del("alice", (await all("alice")).bookmarks[0].bookmark_id);

    expectErrorBody(await put("alice", b.bookmark_id, {}), 400);
    expectErrorBody(await put("alice", b.bookmark_id, { position: -0.5 }), 400);
    expectErrorBody(await put("alice", b.bookmark_id, { note: "z".repeat(2001) }), 400);
    expectErrorBody(await put("alice", b.bookmark_id, { position: 5, note: "z".repeat(2001) }), 400); // nothing of it applied
    expectErrorBody(await raw(lib, "put", "/api/data/bookmarks/abc", key("alice")).send({ note: "x" }), 400);
    expectErrorBody(await list("alice", { limit: 0 }), 400);
    expectErrorBody(await list("alice", { episode_id: "x" }), 400);
    expectErrorBody(await lib.get("/api/data/bookmarks", "alice"), 400); // no user_id
    const after = await all("alice");
    expect(after).toEqual(before);
    expect(after.bookmarks.find((x) => x.bookmark_id === b.bookmark_id)).toMatchObject({ position: 60, note: "keep me" });
  });

  test("the library search finds an episode by its owner's bookmark note, not by another user's", async () => {
    // "Twenty"'s title and description do not hold the phrase: only the note does.
    expect(await search("alice", "albatross migration")).toEqual([]);
    const b = (await create("alice", { episode_id: lib.ids.Twenty, position: 300, note: "Albatross Migration starts here" })).body;
    expect(await search("alice", "albatross migration")).toEqual([lib.ids.Twenty]);
    expect(await search("alice", "ALBATROSS")).toEqual([lib.ids.Twenty]);
    expect(await search("bob", "albatross")).toEqual([]); // bob sees the episode, not alice's note
    // A note hit joins the title hits, newest first, once however many bookmarks match.
    await create("alice", { episode_id: lib.ids.Tiny, position: 5, note: "hour of albatross" });
    await create("alice", { episode_id: lib.ids.Tiny, position: 9, note: "more albatross" });
    expect(await search("alice", "hour")).toEqual([lib.ids.Tiny, lib.ids.Hour]);
    expect(await search("alice", "albatross")).toEqual([lib.ids.Tiny, lib.ids.Twenty]);
    const paged = await lib.post("/api/data/search_data", "alice", {
      user_id: uid("alice"),
      search_term: "albatross",
      filter: "episodes",
      limit: 1,
      offset: 1,
    });
    expect(paged.body.total).toBe(2);
    expect(paged.body.data.map((e: any) => e.episode_id)).toEqual([lib.ids.Twenty]);
    // A deleted bookmark is no longer found.
    await del("alice", b.bookmark_id);
    expect(await search("alice", "albatross migration")).toEqual([]);
  });

  test("a server backup keeps the bookmarks and its restore brings them back with their ids", async () => {
    const admin = (p: string) => api(lib.server.url).post(p).set("Api-Key", key("admin"));
    const kept = (await create("alice", { episode_id: lib.ids.Long, position: 4000, note: "backed up" })).body;
    const before = await all("alice");
    const file: Buffer = (
      await admin("/api/data/backup_server")
        .send({ database_pass: "a long password" })
        .buffer(true)
        .parse((res, cb) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => cb(null, Buffer.concat(chunks)));
        })
    ).body;
    const records = file
      .toString("utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(records.filter((r) => r.service === "bookmarks" && r.collection === "bookmarks")).toHaveLength(before.total);

    await put("alice", kept.bookmark_id, { note: "changed after the backup" });
    await del("alice", before.bookmarks[before.bookmarks.length - 1].bookmark_id);
    const restored = await admin("/api/data/restore_server").attach("backup_file", file, "server.jsonl");
    expect(restored.status).toBe(200);
    expect(restored.body.services.bookmarks).toBeGreaterThanOrEqual(before.total);
    expect(await all("alice")).toEqual(before);
    // The id counter came back too: a new bookmark takes a fresh id.
    const next = (await create("alice", { episode_id: lib.ids.Long, position: 1 })).body;
    expect(before.bookmarks.map((b) => b.bookmark_id)).not.toContain(next.bookmark_id);
    expect(next.bookmark_id).toBeGreaterThan(Math.max(...before.bookmarks.map((b) => b.bookmark_id)));
    expect(await search("alice", "backed up")).toEqual([lib.ids.Long]);
  });

  test("bookmarks stay when the user unsubscribes, and go with the user", async () => {
    const b = (await create("bob", { episode_id: lib.ids.Hour, position: 42, note: "bob's" })).body;
    expect((await lib.post("/api/data/remove_podcast_id", "bob", { user_id: uid("bob"), podcast_id: lib.shared })).status).toBe(200);
    expect((await all("bob")).bookmarks).toEqual([{ ...b, episode_title: "Hour", podcast_name: "Shared Show" }]);
    const aliceHas = (await all("alice")).total;
    expect((await raw(lib, "delete", `/api/data/user/delete/${uid("bob")}`, key("admin"))).status).toBe(200);
    await eventually(async () => expect((await all("bob", "admin")).total).toBe(0));
    expectErrorBody(await put("alice", b.bookmark_id, { note: "x" }), 404);
    expect((await all("alice")).total).toBe(aliceHas);
  });
});
