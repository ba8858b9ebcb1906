/**
 * The queue, black-box over HTTP: positions after mixed add / remove / reorder, one user's concurrent
 * requests, another user's ids, unsubscribe and account removal.
 */
import { expectErrorBody } from "../helpers/client";
import { countCalls, eventually, Library, raw, startLibrary } from "../helpers/library";

describe("queue", () => {
  let lib: Library;
  const queueOf = async (who: string) => {
    const res = await lib.get("/api/data/get_queued_episodes", who, { user_id: lib.users[who].id });
    expect(res.status).toBe(200);
    return res.body.data as any[];
  };
  const ids = async (who: string) => (await queueOf(who)).map((e) => e.episodeid);
  const queue = (who: string, episode_id: number) => lib.post("/api/data/queue_pod", who, { user_id: lib.users[who].id, episode_id, is_vidsite: false });
  const unqueue = (who: string, episode_id: number) =>
    lib.post("/api/data/remove_queued_pod", who, { user_id: lib.users[who].id, episode_id, is_vidsite: false });
  const reorder = (who: string, episode_ids: unknown) => lib.post(`/api/data/reorder_queue?user_id=${lib.users[who].id}`, who, { episode_ids });
  const clear = (who: string) => lib.post("/api/data/clear_queue", who, { user_id: lib.users[who].id });
  const own = (n: number) => lib.ids[`Own ${String(n).padStart(2, "0")}`];

  beforeAll(async () => {
    lib = await startLibrary();
  });
  afterAll(() => lib?.stop());
  afterEach(async () => {
    await clear("alice");
    await clear("bob");
  });

  test("queue_pod appends, never twice; positions stay 1..n through remove and reorder", async () => {
    const [a, b, c, d] = [lib.ids.Tiny, lib.ids.Quarter, lib.ids.Hour, own(0)];
    for (const e of [a, b, c, d]) expect((await queue("alice", e)).body).toEqual({ data: "Episode added to queue" });
    expect((await queue("alice", b)).body).toEqual({ data: "Episode already in queue" });
    let q = await queueOf("alice");
    expect(q.map((e) => [e.episodeid, e.queueposition])).toEqual([
      [a, 1],
      [b, 2],
      [c, 3],
      [d, 4],
    ]);
    expect(q[0]).toMatchObject({
      episodetitle: "Tiny",
      podcastname: "Shared Show",
      episodeduration: 300,
      queued: true,
      saved: false,
      completed: false,
      downloaded: false,
      is_vidsite: false,
      listenduration: null,
    });
    expect(Object.keys(q[0]).sort()).toEqual([
      "completed",
      "downloaded",
      "episodeartwork",
      "episodedescription",
      "episodeduration",
      "episodeid",
      "episodepubdate",
      "episodetitle",
      "episodeurl",
      "is_vidsite",
      "is_youtube",
      "listenduration",
      "podcastid",
      "podcastname",
      "queued",
      "queuedate",
      "queueposition",
      "saved",
    ]);
    expect(new Date(q[0].queuedate).getTime()).toBeGreaterThan(Date.now() - 60_000);

    expect((await unqueue("alice", b)).body).toEqual({ data: "Episode removed from queue" });
    expect((await queueOf("alice")).map((e) => [e.episodeid, e.queueposition])).toEqual([
      [a, 1],
      [c, 2],
      [d, 3],
    ]);
    expect((await reorder("alice", [d, a, c])).body).toEqual({ message: "Queue reordered" });
    await queue("alice", b);
    await unqueue("alice", a);
    q = await queueOf("alice");
    expect(q.map((e) => [e.episodeid, e.queueposition])).toEqual([
      [d, 1],
      [c, 2],
      [b, 3],
    ]);
    expect(await ids("bob")).toEqual([]); // alice's queue is hers
  });

  test("get_queued_episodes makes as many service calls for 25 items as for 2", async () => {
    await queue("alice", own(0));
    await queue("alice", lib.ids.Tiny);
    const few = await countCalls(lib, () => queueOf("alice"));
    await lib.server.broker.call("queue.bulk_add", { user_id: lib.users.alice.id, episode_ids: Array.from({ length: 23 }, (_, n) => own(n + 1)) });
    let items: any[] = [];
    const many = await countCalls(lib, async () => (items = await queueOf("alice")));
    expect(items).toHaveLength(25);
    expect(many).toBe(few);
    expect(many).toBeLessThanOrEqual(5); // the gateway's action call, episodes, podcasts, downloads (and the key lookup)
  });

  test("home_overview's queue section: the queue's first five in its own order, its length, and the queued flags", async () => {
    // Nine queued, then the order turned around: the preview follows the queue's order, not the episodes' dates.
    const nine = Array.from({ length: 9 }, (_, n) => own(n));
    await lib.server.broker.call("queue.bulk_add", { user_id: lib.users.alice.id, episode_ids: nine });
    expect((await reorder("alice", [...nine].reverse())).status).toBe(200);
    const home = await lib.get("/api/data/home_overview", "alice", { user_id: lib.users.alice.id });
    expect(home.status).toBe(200);
    const queued = await queueOf("alice");
    expect(home.body.queue_preview).toEqual(queued.slice(0, 5));
    expect(home.body.queue_count).toBe(9);
    const preview: { user_id: number; limit: number; episode_ids: number[] } = { user_id: lib.users.alice.id, limit: 5, episode_ids: [own(2), lib.ids.Tiny] };
    expect(await lib.server.broker.call("queue.preview", preview)).toMatchObject({ count: 9, queued: [own(2)] });
    expect(await lib.server.broker.call("queue.preview", { ...preview, user_id: lib.users.bob.id })).toEqual({ entries: [], count: 0, queued: [] });
  });

  test("reorder_queue answers 400 unless the ids are exactly the queued ones", async () => {
    const [a, b, c] = [lib.ids.Tiny, lib.ids.Quarter, lib.ids.Hour];
    for (const e of [a, b, c]) await queue("alice", e);
    for (const bad of [[a, b], [a, b, c, lib.ids.Long], [a, b, b], [a, a, b, c], "x", [a, "b", c], null]) {
      expectErrorBody(await reorder("alice", bad), 400);
    }
    expect(await ids("alice")).toEqual([a, b, c]);
    expect((await reorder("alice", [c, b, a])).status).toBe(200);
    expect(await ids("alice")).toEqual([c, b, a]);
  });

  test("bad and unknown episodes: 400 and 404, nothing queued", async () => {
    expectErrorBody(await queue("alice", 999999), 404);
    expectErrorBody(await lib.post("/api/data/queue_pod", "alice", { user_id: lib.users.alice.id, episode_id: "abc" }), 400);
    expectErrorBody(await lib.post("/api/data/queue_pod", "alice", { user_id: lib.users.alice.id }), 400);
    expectErrorBody(await unqueue("alice", lib.ids.Tiny), 404);
    // bob is not subscribed to alice's own podcast: its episodes are not found for him, and reveal nothing.
    const res = await queue("bob", own(1));
    expectErrorBody(res, 404);
    expect(res.body.message).toBe("Episode not found in your podcasts");
    expect(await ids("alice")).toEqual([]);
    expect(await ids("bob")).toEqual([]);
  });

  test("20 concurrent queue_pod / remove_queued_pod of one user: no duplicate, no gap, no lost item", async () => {
    const keep = [own(0), own(1), own(2), own(3), own(4)];
    const drop = [own(5), own(6), own(7), own(8), own(9)];
    for (const e of [...keep, ...drop]) await queue("alice", e);
    const adds = Array.from({ length: 15 }, (_, n) => own(10 + n));
    const results = await Promise.all([...adds.map((e) => queue("alice", e)), ...drop.map((e) => unqueue("alice", e))]);
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
    const q = await queueOf("alice");
    expect(q.map((e) => e.queueposition)).toEqual(Array.from({ length: 20 }, (_, n) => n + 1));
    expect(q.slice(0, 5).map((e) => e.episodeid)).toEqual(keep);
    expect(
      q
        .slice(5)
        .map((e) => e.episodeid)
        .sort((x, y) => x - y),
    ).toEqual([...adds].sort((x, y) => x - y));

    // The same episode 20 times at once is queued once.
    await clear("alice");
    const same = await Promise.all(Array.from({ length: 20 }, () => queue("alice", own(29))));
    expect(same.filter((r) => r.body.data === "Episode added to queue")).toHaveLength(1);
    expect(await ids("alice")).toEqual([own(29)]);
  });

  test("queue.bulk_add appends the visible episodes in order and names the rest", async () => {
    await queue("alice", lib.ids.Tiny);
    const res = await lib.server.broker.call("queue.bulk_add", {
      user_id: lib.users.bob.id,
      episode_ids: [lib.ids.Hour, lib.ids.Tiny, own(3), 999999, lib.ids.Hour],
    });
    expect(res).toEqual({ added: [lib.ids.Hour, lib.ids.Tiny], already_queued: [], failed: [own(3), 999999] });
    const again = await lib.server.broker.call("queue.bulk_add", { user_id: lib.users.bob.id, episode_ids: [lib.ids.Long, lib.ids.Tiny] });
    expect(again).toEqual({ added: [lib.ids.Long], already_queued: [lib.ids.Tiny], failed: [] });
    expect(await ids("bob")).toEqual([lib.ids.Hour, lib.ids.Tiny, lib.ids.Long]);
    expect(await ids("alice")).toEqual([lib.ids.Tiny]);
  });

  test("authorization: no key 401, bad key 401, another user's id 403, owner 200", async () => {
    await queue("alice", lib.ids.Tiny);
    const a = lib.users.alice.id;
    const calls: ["get" | "post", string, object][] = [
      ["post", "/api/data/queue_pod", { user_id: a, episode_id: lib.ids.Quarter, is_vidsite: false }],
      ["post", "/api/data/remove_queued_pod", { user_id: a, episode_id: lib.ids.Quarter, is_vidsite: false }],
      ["post", `/api/data/reorder_queue?user_id=${a}`, { episode_ids: [lib.ids.Tiny] }],
      ["get", `/api/data/get_queued_episodes?user_id=${a}`, {}],
      ["post", "/api/data/clear_queue", { user_id: a }],
    ];
    for (const [method, path, body] of calls) {
      const send = (key: string | null) => raw(lib, method, path, key).send(body);
      expectErrorBody(await send(null), 401);
      expectErrorBody(await send("not-a-key"), 401);
      const other = await send(lib.users.bob.key);
      expectErrorBody(other, 403);
      expect(JSON.stringify(other.body)).not.toContain("Tiny");
      expect((await send(lib.users.alice.key)).status).toBe(200);
    }
  });

  test("leaving a podcast removes its queue items and closes the gaps; user.removed removes the queue", async () => {
    for (const e of [own(0), lib.ids.Tiny, own(1), lib.ids.Hour]) await queue("alice", e);
    expect((await lib.post("/api/data/remove_podcast_id", "alice", { user_id: lib.users.alice.id, podcast_id: lib.own })).status).toBe(200);
    await eventually(async () =>
      expect((await queueOf("alice")).map((e) => [e.episodeid, e.queueposition])).toEqual([
        [lib.ids.Tiny, 1],
        [lib.ids.Hour, 2],
      ]),
    );

    await queue("bob", lib.ids.Long);
    const queues: any = lib.server.broker.getLocalService("queue");
    expect(await queues.adapter.count({ query: { _id: lib.users.bob.id } })).toBe(1);
    expect((await raw(lib, "delete", `/api/data/user/delete/${lib.users.bob.id}`, lib.users.admin.key)).status).toBe(200);
    await eventually(async () => expect(await queues.adapter.count({ query: { _id: lib.users.bob.id } })).toBe(0));
  });
});
