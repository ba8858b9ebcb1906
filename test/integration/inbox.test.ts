/**
 * The inbox over HTTP (docs/library.md "Inbox and episode filters"): the episodes of a user's podcasts
 * published after they subscribed, newest first and paged, with a count; taken out by dismissing (by ids
 * or a whole podcast) and by playing, queueing, saving or downloading; the podcast's episode filter
 * applied; a page costs a fixed number of service calls; dismissals kept in backups and removed with the
 * user; bad input 400 changing nothing, another user's inbox 403.
 */
import { config } from "../../shared/config";
import { api, expectErrorBody } from "../helpers/client";
import { startInboxLibrary, type FeedItem, type InboxLibrary } from "../helpers/inbox";
import { countCalls, eventually } from "../helpers/library";
import { audioBytes, mediaRoute, waitForTask } from "../helpers/media";
import { tempDir } from "../helpers/server";

const OLD: FeedItem[] = [1, 2, 3].map((n) => ({ title: `Old ${n}`, minutes: -60 * 24 * n, duration: 600 }));

describe("the inbox", () => {
  let lib: InboxLibrary;
  let alpha = 0;
  let beta = 0;
  let gamma = 0;
  let ids: Record<string, number> = {};
  const uid = (who: string) => lib.users[who].id;
  const inbox = async (who: string, query: Record<string, unknown> = {}, of = who) => {
    const res = await lib.get("/api/data/inbox", who, { user_id: uid(of), ...query });
    expect(res.status).toBe(200);
    return res.body as { episodes: any[]; total: number };
  };
  const titles = async (who: string, query: Record<string, unknown> = {}) => (await inbox(who, query)).episodes.map((e) => e.episodetitle);
  const count = async (who: string) => (await lib.get("/api/data/inbox/count", who, { user_id: uid(who) })).body.count as number;
  const dismiss = (who: string, body: object) => lib.post("/api/data/inbox/dismiss", who, { user_id: uid(who), ...body });

  beforeAll(async () => {
    Object.assign(config, { downloadDir: tempDir("podcast-inbox-dl-"), workerPollMs: 100 });
    lib = await startInboxLibrary(["alice", "bob"]);
    lib.serve("alpha", "Alpha Show", OLD, "https://img.test/alpha.jpg");
    lib.serve(
      "beta",
      "Beta Show",
      OLD.map((i) => ({ ...i, title: `Beta ${i.title}` })),
    );
    lib.serve("gamma", "Gamma Show", [{ title: "Gamma new", minutes: 30 }]);
    alpha = await lib.subscribe("alice", "alpha");
    beta = await lib.subscribe("alice", "beta");
    await lib.subscribe("bob", "alpha");
    gamma = await lib.subscribe("bob", "gamma");
  });
  afterAll(() => lib?.stop());

  test("a new subscription's inbox is empty: its episodes were published before", async () => {
    expect(await inbox("alice")).toEqual({ episodes: [], total: 0 });
    expect(await count("alice")).toBe(0);
  });

  test("episodes a refresh finds come in newest first, with the podcast's title and artwork, paged, counted; per user", async () => {
    lib.serve("alpha", "Alpha Show", [...OLD, ...[1, 3, 5].map((n) => ({ title: `A${n}`, minutes: n, duration: 1200 }))], "https://img.test/alpha.jpg");
    lib.serve("beta", "Beta Show", [...OLD.map((i) => ({ ...i, title: `Beta ${i.title}` })), ...[2, 4].map((n) => ({ title: `B${n}`, minutes: n }))]);
    await lib.refresh("alice");
    ids = { ...(await lib.episodeIds("alice", alpha)), ...(await lib.episodeIds("alice", beta)) };
    const all = await inbox("alice");
    expect(all.total).toBe(5);
    expect(all.episodes.map((e) => e.episodetitle)).toEqual(["A5", "B4", "A3", "B2", "A1"]);
    expect(all.episodes[0]).toMatchObject({
      episodeid: ids.A5,
      podcastid: alpha,
      podcastname: "Alpha Show",
      podcastartwork: "https://img.test/alpha.jpg",
      episodeduration: 1200,
      completed: false,
      saved: false,
      downloaded: false,
    });
    expect(all.episodes[1]).toMatchObject({ podcastname: "Beta Show", podcastartwork: "" });
    expect(await inbox("alice", { limit: 2 })).toMatchObject({ total: 5, episodes: [{ episodetitle: "A5" }, { episodetitle: "B4" }] });
    expect(await titles("alice", { limit: 2, offset: 2 })).toEqual(["A3", "B2"]);
    expect(await titles("alice", { limit: 2, offset: 4 })).toEqual(["A1"]);
    expect(await titles("alice", { offset: 9 })).toEqual([]);
    expect(await count("alice")).toBe(5);
    // Bob follows alpha (the same episode records) and gamma.
    expect(await titles("bob")).toEqual(["Gamma new", "A5", "A3", "A1"]);
  });

  test("a page costs the same few service calls whatever its size", async () => {
    const calls = (limit: number) => countCalls(lib as any, () => inbox("alice", { limit }));
    const one = await calls(1);
    expect(one).toBeLessThanOrEqual(5);
    expect(await calls(50)).toBe(one);
    expect(await countCalls(lib as any, () => count("alice"))).toBeLessThanOrEqual(one);
  });

  test("dismissing by ids takes them out (once), ids the user cannot see fail and change nothing", async () => {
    const first = await dismiss("alice", { episode_ids: [ids.B2, ids.B2, 999_999] });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ dismissed: 1, failed: 1 });
    expect(await titles("alice")).toEqual(["A5", "B4", "A3", "A1"]);
    expect((await dismiss("alice", { episode_ids: [ids.B2] })).body).toEqual({ dismissed: 1, failed: 0 }); // again: nothing new
    // Bob's gamma episode is not alice's to dismiss; bob's inbox keeps it.
    const gammaId = (await lib.episodeIds("bob", gamma))["Gamma new"];
    expect((await dismiss("alice", { episode_ids: [gammaId] })).body).toEqual({ dismissed: 0, failed: 1 });
    expect(await titles("bob")).toEqual(["Gamma new", "A5", "A3", "A1"]);
    expect(await count("alice")).toBe(4);
  });

  test("playing, queueing, saving and downloading take an episode out by themselves", async () => {
    const me = { user_id: uid("alice") };
    expect((await lib.post("/api/data/record_listen_duration", "alice", { ...me, episode_id: ids.A5, listen_duration: 12 })).status).toBe(200);
    expect((await lib.post("/api/data/queue_pod", "alice", { ...me, episode_id: ids.B4, is_vidsite: false })).status).toBe(200);
    expect(await titles("alice")).toEqual(["A3", "A1"]);
    expect((await lib.post("/api/data/save_episode", "alice", { ...me, episode_id: ids.A3, is_vidsite: false })).status).toBe(200);
    expect(await titles("alice")).toEqual(["A1"]);
    lib.feeds.route("/media/A1.mp3", mediaRoute(audioBytes(20_000)));
    const started = await lib.post("/api/data/download_podcast", "alice", { ...me, episode_id: ids.A1 });
    expect(started.status).toBe(200);
    expect(await waitForTask(lib.server.url, lib.users.alice.key, started.body.task_id)).toMatchObject({ status: "SUCCESS" });
    expect(await inbox("alice")).toEqual({ episodes: [], total: 0 });
    expect(await count("alice")).toBe(0);
    // Bob did none of it: his inbox is as it was.
    expect(await titles("bob")).toEqual(["Gamma new", "A5", "A3", "A1"]);
    // Un-queued, the episode is back (nothing else took it out).
    expect((await lib.post("/api/data/remove_queued_pod", "alice", { ...me, episode_id: ids.B4, is_vidsite: false })).status).toBe(200);
    expect(await titles("alice")).toEqual(["B4"]);
  });

  test("dismissing a podcast takes what its inbox holds now; its later episodes come in", async () => {
    lib.serve("alpha", "Alpha Show", [...OLD, ...[1, 3, 5, 6, 7].map((n) => ({ title: `A${n}`, minutes: n, duration: 1200 }))]);
    await lib.refresh("alice");
    ids = { ...ids, ...(await lib.episodeIds("alice", alpha)) };
    expect(await titles("alice")).toEqual(["A7", "A6", "B4"]);
    expect((await dismiss("alice", { podcast_id: alpha })).body).toEqual({ dismissed: 2, failed: 0 });
    expect(await titles("alice")).toEqual(["B4"]);
    expect(await titles("bob")).toEqual(["Gamma new", "A7", "A6", "A5", "A3", "A1"]);
    lib.serve("alpha", "Alpha Show", [...OLD, ...[1, 3, 5, 6, 7, 8].map((n) => ({ title: `A${n}`, minutes: n, duration: 1200 }))]);
    await lib.refresh("alice");
    expect(await titles("alice")).toEqual(["A8", "B4"]);
    expectErrorBody(await dismiss("alice", { podcast_id: gamma }), 404); // not subscribed
  });

  test("the podcast's episode filter applies: what it rejects is not in the inbox", async () => {
    const set = (body: object) => lib.post("/api/data/podcast_filters", "alice", { user_id: uid("alice"), podcast_id: alpha, ...body });
    expect((await set({ exclude: "a8" })).status).toBe(200);
    expect(await titles("alice")).toEqual(["B4"]);
    expect((await set({ min_duration: 1300 })).status).toBe(200);
    expect(await titles("alice")).toEqual(["B4"]);
    expect((await set({ max_duration: 1300 })).status).toBe(200);
    expect(await titles("alice")).toEqual(["A8", "B4"]);
    expect((await set({})).status).toBe(200);
  });

  test("bad input is a 400 that changes nothing; another user's inbox 403; no key 401", async () => {
    const before = await inbox("alice");
    const bad: object[] = [
      {},
      { episode_ids: [ids.A8], podcast_id: alpha },
      { episode_ids: [] },
      { episode_ids: ["x"] },
      { episode_ids: Array.from({ length: 1001 }, (_, i) => i + 1) },
      { podcast_id: -1 },
    ];
    for (const body of bad) expectErrorBody(await dismiss("alice", body), 400);
    expectErrorBody(await lib.get("/api/data/inbox", "alice", { user_id: uid("alice"), limit: 0 }), 400);
    expectErrorBody(await lib.get("/api/data/inbox", "alice", { user_id: uid("alice"), offset: -1 }), 400);
    expectErrorBody(await lib.get("/api/data/inbox", "alice", { user_id: "me" }), 400);
    expect(await inbox("alice")).toEqual(before);

    expectErrorBody(await lib.get("/api/data/inbox", "alice", { user_id: uid("bob") }), 403);
    expectErrorBody(await lib.get("/api/data/inbox/count", "alice", { user_id: uid("bob") }), 403);
    expectErrorBody(await lib.post("/api/data/inbox/dismiss", "alice", { user_id: uid("bob"), podcast_id: alpha }), 403);
    expectErrorBody(
      await api(lib.server.url)
        .get("/api/data/inbox")
        .query({ user_id: uid("alice") }),
      401,
    );
    expect(await titles("bob")).toEqual(["Gamma new", "A8", "A7", "A6", "A5", "A3", "A1"]);
    // An admin may read it (the ownership rule).
    expect((await inbox("admin", {}, "bob")).total).toBe(7);
  });

  test("dismissals are in the server's backup; leaving the podcast and removing the user remove them", async () => {
    const backup = await api(lib.server.url)
      .post("/api/data/backup_server")
      .set("Api-Key", lib.users.admin.key)
      .send({ database_pass: "a long password" })
      .buffer(true)
      .parse((res, done) => {
        let text = "";
        res.on("data", (c: Buffer) => (text += c.toString()));
        res.on("end", () => done(null, text));
      });
    expect(backup.status).toBe(200);
    const dismissals = (backup.body as string)
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .filter((l) => l.collection === "inbox_dismissals");
    expect(dismissals.map((l) => [l.service, l.doc.user_id, l.doc.episode_id]).sort()).toEqual(
      [ids.B2, ids.A6, ids.A7].map((e) => ["episodes", uid("alice"), e]).sort(),
    );
    const countOf = async (query: object) => (await (lib.server.broker.getLocalService("episodes") as any).stores.inbox_dismissals.count({ query })) as number;
    expect(await countOf({ user_id: uid("alice") })).toBe(3);
    // Leaving alpha takes its dismissals; coming back starts a new inbox (published after the new subscription).
    expect((await lib.post("/api/data/remove_podcast_id", "alice", { user_id: uid("alice"), podcast_id: alpha })).status).toBe(200);
    await eventually(async () => expect(await countOf({ user_id: uid("alice") })).toBe(1));
    expect(
      (
        await api(lib.server.url)
          .delete(`/api/data/user/delete/${uid("alice")}`)
          .set("Api-Key", lib.users.admin.key)
      ).status,
    ).toBe(200);
    await eventually(async () => expect(await countOf({ user_id: uid("alice") })).toBe(0));
  });
});
