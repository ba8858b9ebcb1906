/**
 * Collections over HTTP, called as PinePods' web client calls them (web/src/requests/pod_req.rs:
 * paths, bodies, PATCH and DELETE without user_id): content, the default "Saved" collection, categories,
 * the authorization matrix and the cascades of a removed subscription and a deleted user.
 */
import { expectErrorBody } from "../helpers/client";
import { eventually, Library, raw, startLibrary } from "../helpers/library";

describe("collections", () => {
  let lib: Library;
  const uid = (who: string) => lib.users[who].id;
  const key = (who: string) => lib.users[who].key;
  const list = async (who: string) => {
    const res = await lib.get(`/api/data/collections/user/${uid(who)}`, who);
    expect(res.status).toBe(200);
    return res.body.collections as any[];
  };
  const create = (who: string, body: object) =>
    lib.post("/api/data/collections/create", who, { user_id: uid(who), description: null, icon: null, auto_add_categories: null, backfill: null, ...body });
  const change = (who: string, collection_id: number, what: "add_episode" | "remove_episode", episode_id: number) =>
    lib.post(`/api/data/collections/${collection_id}/${what}`, who, { user_id: uid(who), episode_id, is_youtube: false });
  const page = async (who: string, collection_id: number, query: Record<string, unknown> = {}) => {
    const res = await lib.get(`/api/data/collections/${collection_id}/episodes`, who, {
      limit: 50,
      offset: 0,
      sort_by: "date",
      sort_order: "desc",
      filter: "all",
      ...query,
    });
    expect(res.status).toBe(200);
    return res.body as { saved_episodes: any[]; total: number };
  };
  const titles = async (who: string, collection_id: number, query: Record<string, unknown> = {}) =>
    (await page(who, collection_id, query)).saved_episodes.map((e) => e.episodetitle);
  const patch = (who: string, collection_id: number, body: object) => raw(lib, "patch", `/api/data/collections/${collection_id}`, key(who)).send(body);

  beforeAll(async () => {
    lib = await startLibrary();
  });
  afterAll(() => lib?.stop());

  test("every user has the default Saved collection: its episodes are the saved ones, adding to it saves", async () => {
    const [saved] = await list("alice");
    expect(saved).toMatchObject({ name: "Saved", is_default: true, user_id: uid("alice"), episode_count: 0, auto_add_categories: null });
    expect(await change("alice", saved.collection_id, "add_episode", lib.ids.Tiny)).toMatchObject({ status: 200 });
    expect((await page("alice", saved.collection_id)).saved_episodes.map((e) => e.episodeid)).toEqual([lib.ids.Tiny]);
    const check = await lib.post("/api/data/get_episode_metadata", "alice", { user_id: uid("alice"), episode_id: lib.ids.Tiny });
    expect(check.body.episode.is_saved).toBe(true);
    expect((await list("alice"))[0].episode_count).toBe(1);
    expect((await patch("alice", saved.collection_id, { name: "Other" })).status).toBe(400);
    expect((await raw(lib, "delete", `/api/data/collections/${saved.collection_id}`, key("alice"))).status).toBe(400);
    expect((await change("alice", saved.collection_id, "remove_episode", lib.ids.Tiny)).status).toBe(200);
    expect((await page("alice", saved.collection_id)).total).toBe(0);
  });

  test("create, add and remove episodes, page them sorted and filtered, rename, delete", async () => {
    const made = await create("alice", { name: "Road trip", icon: "ph-car" });
    expect(made.status).toBe(200);
    expect(made.body).toEqual({ detail: expect.any(String), collection_id: expect.any(Number) });
    const cid = made.body.collection_id;
    expectErrorBody(await create("alice", { name: "road TRIP" }), 409);
    expectErrorBody(await create("alice", { name: "saved" }), 409);
    expect((await create("bob", { name: "Road trip" })).status).toBe(200); // names are per user

    for (const t of ["Tiny", "Hour", "Long", "Own 03"]) expect((await change("alice", cid, "add_episode", lib.ids[t])).status).toBe(200);
    expect((await change("alice", cid, "add_episode", lib.ids.Hour)).status).toBe(200); // twice is once
    expect(await titles("alice", cid)).toEqual(["Tiny", "Hour", "Own 03", "Long"]); // newest first
    expect(await titles("alice", cid, { sort_by: "duration", sort_order: "asc" })).toEqual(["Tiny", "Own 03", "Hour", "Long"]);
    expect(await titles("alice", cid, { sort_by: "title", sort_order: "asc" })).toEqual(["Hour", "Long", "Own 03", "Tiny"]);
    const second = await page("alice", cid, { limit: 2, offset: 2 });
    expect(second).toMatchObject({ total: 4 });
    expect(second.saved_episodes.map((e) => e.episodetitle)).toEqual(["Own 03", "Long"]);
    expect(second.saved_episodes[0]).toMatchObject({
      episodeid: lib.ids["Own 03"],
      podcastname: "Alpha Own Show",
      completed: false,
      saved: false,
      queued: false,
      downloaded: false,
    });

    await lib.post("/api/data/mark_episode_completed", "alice", { user_id: uid("alice"), episode_id: lib.ids.Long });
    expect(await titles("alice", cid, { filter: "completed" })).toEqual(["Long"]);
    expect((await lib.get(`/api/data/episode_collections/${uid("alice")}/${lib.ids.Long}`, "alice", { is_youtube: false })).body).toEqual({
      collection_ids: [cid],
    });

    expect((await change("alice", cid, "remove_episode", lib.ids.Long)).status).toBe(200);
    expect(await titles("alice", cid)).toEqual(["Tiny", "Hour", "Own 03"]);
    expectErrorBody(await change("alice", cid, "add_episode", 999_999), 404);

    expect((await patch("alice", cid, { name: "Commute", description: "for the train" })).status).toBe(200);
    // As the web client sends an edit: every field, null for those it keeps
    expect((await patch("alice", cid, { name: null, description: null, icon: null, auto_add_categories: null, backfill: null })).status).toBe(200);
    const made2 = await create("alice", { name: "Other" });
    expectErrorBody(await patch("alice", made2.body.collection_id, { name: "commute" }), 409);
    const listed = await list("alice");
    expect(listed.map((c) => c.name)).toEqual(["Saved", "Commute", "Other"]);
    expect(listed[1]).toMatchObject({ description: "for the train", icon: "ph-car", episode_count: 3, is_default: false });
    expect((await raw(lib, "delete", `/api/data/collections/${made2.body.collection_id}`, key("alice"))).status).toBe(200);
    expect((await list("alice")).map((c) => c.name)).toEqual(["Saved", "Commute"]);
  });

  test("podcasts belong by hand or by category; backfill decides whether their older episodes count", async () => {
    await lib.post("/api/data/add_category", "alice", { user_id: uid("alice"), podcast_id: lib.own, category: "Travel" });
    expect((await lib.get(`/api/data/collections/categories/${uid("alice")}`, "alice")).body).toEqual({ categories: ["Travel"] });
    const all = (await create("alice", { name: "Travel all", auto_add_categories: ["travel"], backfill: true })).body.collection_id;
    const fresh = (await create("alice", { name: "Travel new", auto_add_categories: ["Travel"], backfill: false })).body.collection_id;
    expect((await page("alice", all)).total).toBe(30);
    expect((await page("alice", fresh)).total).toBe(0); // only episodes published from now on
    expect((await patch("alice", fresh, { backfill: true })).status).toBe(200);
    expect((await page("alice", fresh)).total).toBe(30);
    expect((await change("alice", all, "remove_episode", lib.ids["Own 00"])).status).toBe(200);
    expect((await page("alice", all)).total).toBe(29);

    const byHand = (await create("alice", { name: "Shared only" })).body.collection_id;
    expect((await lib.post(`/api/data/collections/${byHand}/add_podcast`, "alice", { user_id: uid("alice"), podcast_id: lib.shared })).status).toBe(200);
    expect((await page("alice", byHand)).total).toBe(10);
    const shown = (await list("alice")).find((c) => c.collection_id === byHand);
    expect(shown).toMatchObject({ podcast_ids: [lib.shared], episode_count: 10 });
    expect((await lib.post(`/api/data/collections/${byHand}/remove_podcast`, "alice", { user_id: uid("alice"), podcast_id: lib.shared })).status).toBe(200);
    expect((await page("alice", byHand)).total).toBe(0);
  });

  test("authorization: no key 401, another user's collection 403, the owner 200", async () => {
    const cid = (await create("alice", { name: "Private" })).body.collection_id;
    const calls: [method: "get" | "post" | "patch" | "delete", path: string, body: object][] = [
      ["post", "/api/data/collections/create", { user_id: uid("alice"), name: "New one" }],
      ["get", `/api/data/collections/user/${uid("alice")}`, {}],
      ["get", `/api/data/collections/categories/${uid("alice")}`, {}],
      ["patch", `/api/data/collections/${cid}`, { name: "Renamed" }],
      ["post", `/api/data/collections/${cid}/add_episode`, { user_id: uid("alice"), episode_id: lib.ids.Tiny, is_youtube: false }],
      ["post", `/api/data/collections/${cid}/remove_episode`, { user_id: uid("alice"), episode_id: lib.ids.Tiny, is_youtube: false }],
      ["post", `/api/data/collections/${cid}/add_podcast`, { user_id: uid("alice"), podcast_id: lib.shared }],
      ["post", `/api/data/collections/${cid}/remove_podcast`, { user_id: uid("alice"), podcast_id: lib.shared }],
      ["get", `/api/data/collections/${cid}/episodes`, {}],
      ["get", `/api/data/episode_collections/${uid("alice")}/${lib.ids.Tiny}`, {}],
      ["delete", `/api/data/collections/${cid}`, {}],
    ];
    for (const [method, path, body] of calls) {
      const send = (who: string | null) => (method === "get" ? raw(lib, method, path, who && key(who)) : raw(lib, method, path, who && key(who)).send(body));
      expectErrorBody(await send(null), 401);
      expectErrorBody(await send("bob"), 403);
      expect([path, (await send("alice")).status]).toEqual([path, 200]);
    }
    expectErrorBody(
      await lib.post(`/api/data/collections/${cid}/add_episode`, "alice", { user_id: uid("alice"), episode_id: lib.ids.Tiny, is_youtube: false }),
      404,
    ); // deleted
    // bob naming himself is still refused another user's collection
    const kept = (await create("alice", { name: "Private" })).body.collection_id;
    expectErrorBody(
      await lib.post(`/api/data/collections/${kept}/add_episode`, "bob", { user_id: uid("bob"), episode_id: lib.ids.Tiny, is_youtube: false }),
      403,
    );
    const bobs = (await create("bob", { name: "Bob's" })).body.collection_id;
    expectErrorBody(
      await lib.post(`/api/data/collections/${bobs}/add_episode`, "alice", { user_id: uid("alice"), episode_id: lib.ids.Tiny, is_youtube: false }),
      403,
    );
  });

  test("a removed subscription leaves every collection; a deleted user's collections go", async () => {
    const a = (await create("bob", { name: "A" })).body.collection_id;
    const b = (await create("bob", { name: "B" })).body.collection_id;
    await change("bob", a, "add_episode", lib.ids.Half);
    await lib.post(`/api/data/collections/${b}/add_podcast`, "bob", { user_id: uid("bob"), podcast_id: lib.shared });
    expect((await page("bob", b)).total).toBe(10);
    expect((await lib.post("/api/data/remove_podcast_id", "bob", { user_id: uid("bob"), podcast_id: lib.shared })).status).toBe(200);
    const store: any = lib.server.broker.getLocalService("collections");
    await eventually(async () => {
      const docs = await store.adapter.find({ query: { user_id: uid("bob") } });
      expect(docs.flatMap((d: any) => [...d.podcast_ids, ...d.episode_ids])).toEqual([]);
    });
    // subscribed again: the collections do not bring the podcast back
    await lib.post("/api/data/add_podcast", "bob", { podcast_values: { pod_feed_url: `${lib.feeds.url}/shared.xml`, user_id: uid("bob") } });
    expect((await page("bob", a)).total).toBe(0);
    expect((await page("bob", b)).total).toBe(0);

    expect((await raw(lib, "delete", `/api/data/user/delete/${uid("bob")}`, key("admin"))).status).toBe(200);
    await eventually(async () => expect(await store.adapter.count({ query: { user_id: uid("bob") } })).toBe(0));
  });
});
