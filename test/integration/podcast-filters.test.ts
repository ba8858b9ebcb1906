/**
 * Episode filters over HTTP (docs/library.md "Inbox and episode filters"): per user and podcast, words or a
 * regular expression matched case-insensitively against title and description, duration bounds; the
 * podcast's episode list filtered on request; auto-download, auto-queue and the inbox apply them. A hostile
 * expression runs in bounded time; malformed, unsupported or too long input is a 400 that changes nothing;
 * another user's filters 403.
 */
import { config } from "../../shared/config";
import { api, expectErrorBody } from "../helpers/client";
import { startInboxLibrary, type FeedItem, type InboxLibrary } from "../helpers/inbox";
import { eventually } from "../helpers/library";
import { audioBytes, mediaRoute } from "../helpers/media";
import { tempDir } from "../helpers/server";
import { until } from "../helpers/wait";

const LONG_A = "a".repeat(900) + "!";
const SHORT_A = "a".repeat(50);
const TALK: FeedItem[] = [
  { title: "Interview with Ada", minutes: -60, duration: 3000, description: "<p>We talk about <b>engines</b></p>" },
  { title: "Trailer", minutes: -120, duration: 60, description: "Coming soon" },
  { title: "Part 1: Origins", minutes: -180, duration: 1800, description: "history" },
  { title: "Part 2: Q&A", minutes: -240, duration: 1500, description: "Listener questions" },
  { title: "Bonus: Outtakes", minutes: -300, description: "Fun &amp; games" },
  { title: LONG_A, minutes: -360, duration: 100 },
  { title: SHORT_A, minutes: -420, duration: 100 },
];
const NEW: FeedItem[] = [
  { title: "New interview", minutes: 2, duration: 2000, description: "a long talk" },
  { title: "New trailer", minutes: 1, duration: 30, description: "soon" },
];

describe("episode filters", () => {
  let lib: InboxLibrary;
  let talk = 0;
  let other = 0;
  const uid = (who: string) => lib.users[who].id;
  const of = (who: string, podcast_id = talk) => ({ user_id: uid(who), podcast_id });
  const read = async (who: string) => {
    const res = await lib.get("/api/data/podcast_filters", who, of(who));
    expect(res.status).toBe(200);
    return res.body;
  };
  const set = (who: string, body: object) => lib.post("/api/data/podcast_filters", who, { ...of(who), ...body });
  const listed = async (who: string, filtered?: boolean) => {
    const res = await lib.get("/api/data/podcast_episodes", who, { ...of(who), limit: 100, ...(filtered === undefined ? {} : { filtered }) });
    expect(res.status).toBe(200);
    return res.body.episodes.map((e: any) => e.episodetitle) as string[];
  };
  const none = { podcast_id: 0, include: "", exclude: "", min_duration: null, max_duration: null };

  beforeAll(async () => {
    Object.assign(config, { downloadDir: tempDir("podcast-filters-dl-"), workerPollMs: 100 });
    lib = await startInboxLibrary(["alice", "bob", "carol"]);
    lib.serve("talk", "Talk Show", TALK);
    lib.serve("other", "Other Show", [{ title: "Elsewhere", minutes: -60 }]);
    talk = await lib.subscribe("alice", "talk");
    other = await lib.subscribe("alice", "other");
    await lib.subscribe("bob", "talk");
    await lib.subscribe("carol", "talk");
  });
  afterAll(() => lib?.stop());

  test("none at first: the episode list is whole, filtered or not", async () => {
    expect(await read("alice")).toEqual({ ...none, podcast_id: talk });
    expect(await listed("alice")).toHaveLength(TALK.length);
    expect(await listed("alice", true)).toHaveLength(TALK.length);
  });

  test("words: any of them, in the title or the description's text, case-insensitively", async () => {
    const saved = await set("alice", { include: " INTERVIEW, q&a " });
    expect(saved.status).toBe(200);
    expect(saved.body).toEqual({ ...none, podcast_id: talk, include: "INTERVIEW, q&a" });
    expect(await read("alice")).toEqual(saved.body);
    expect(await listed("alice", true)).toEqual(["Interview with Ada", "Part 2: Q&A"]);
    expect(await listed("alice")).toHaveLength(TALK.length); // filtered only when asked
    expect(await listed("alice", false)).toHaveLength(TALK.length);
    // Markup is not text; entities are.
    await set("alice", { include: "engines, fun & games" });
    expect(await listed("alice", true)).toEqual(["Interview with Ada", "Bonus: Outtakes"]);
    await set("alice", { include: "<b>" });
    expect(await listed("alice", true)).toEqual([]);
    // Per user: bob has none.
    expect(await read("bob")).toEqual({ ...none, podcast_id: talk });
    expect(await listed("bob", true)).toHaveLength(TALK.length);
  });

  test("a regular expression between slashes; exclude; both", async () => {
    await set("alice", { include: "/^part \\d+:/" });
    expect(await listed("alice", true)).toEqual(["Part 1: Origins", "Part 2: Q&A"]);
    await set("alice", { exclude: "/trailer|bonus/" });
    expect(await listed("alice", true)).toEqual(["Interview with Ada", "Part 1: Origins", "Part 2: Q&A", LONG_A, SHORT_A]);
    await set("alice", { include: "/^part/", exclude: "origins" });
    expect(await listed("alice", true)).toEqual(["Part 2: Q&A"]);
  });

  test("durations: bounds in seconds; an episode of unknown duration passes them", async () => {
    await set("alice", { min_duration: 1000 });
    expect(await listed("alice", true)).toEqual(["Interview with Ada", "Part 1: Origins", "Part 2: Q&A", "Bonus: Outtakes"]);
    await set("alice", { max_duration: 100 });
    expect(await listed("alice", true)).toEqual(["Trailer", "Bonus: Outtakes", LONG_A, SHORT_A]);
    await set("alice", { min_duration: 1500, max_duration: 1800, exclude: "bonus" });
    expect(await listed("alice", true)).toEqual(["Part 1: Origins", "Part 2: Q&A"]);
  });

  test("a catastrophic expression runs in bounded time (no backtracking)", async () => {
    const cases: [string, string[]][] = [
      ["/(a+)+$/", ["Interview with Ada", "Part 2: Q&A", SHORT_A]],
      ["/^(a|aa)*$/", [SHORT_A]],
      ["/(.*a){20}$/", [SHORT_A]],
    ];
    for (const [pattern, titles] of cases) {
      expect((await set("alice", { include: pattern })).status).toBe(200);
      const started = Date.now();
      // In a backtracking engine each of these takes exponential time on the 900 "a" then "!" of LONG_A.
      expect(await listed("alice", true)).toEqual(titles);
      expect(Date.now() - started).toBeLessThan(2000);
    }
    expect((await set("alice", { exclude: "/(a+)+$/" })).status).toBe(200);
    expect(await listed("alice", true)).toEqual(["Trailer", "Part 1: Origins", "Bonus: Outtakes", LONG_A]);
  });

  test("bad input is a 400 that changes nothing", async () => {
    await set("alice", { include: "interview" });
    const before = await read("alice");
    const bad: [object, RegExp][] = [
      [{ include: "x".repeat(201) }, /include/],
      [{ exclude: "x, ".repeat(67) + "yy" }, /exclude/],
      [{ include: "/(a/" }, /missing closing \)/],
      [{ include: "/[a/" }, /missing closing \]/],
      [{ include: "/*a/" }, /missing argument to repetition/],
      [{ include: "/(a)\\1/" }, /invalid escape sequence/],
      [{ exclude: "/(?=a)b/" }, /unsupported Perl syntax/],
      [{ exclude: "/(?<!a)b/" }, /invalid named capture/],
      [{ include: "/a{1001}/" }, /invalid repeat count/],
      [{ include: "/((a{10}){10}){10}/" }, /too large/],
      [{ include: "//" }, /empty/],
      [{ min_duration: 100, max_duration: 50 }, /min_duration/],
      [{ min_duration: -1 }, /min_duration/],
      [{ max_duration: "long" }, /max_duration/],
      [{ include: 5 }, /include/],
    ];
    for (const [body, why] of bad) {
      const res = await set("alice", body);
      expectErrorBody(res, 400);
      expect([body, res.body.message + " " + res.body.detail]).toEqual([body, expect.stringMatching(why)]);
    }
    expect(await read("alice")).toEqual(before);
    expect(await listed("alice", true)).toEqual(["Interview with Ada"]);
    expectErrorBody(await lib.get("/api/data/podcast_episodes", "alice", { ...of("alice"), filtered: "maybe" }), 400);
  });

  test("another user's filters 403, a podcast not subscribed 404, no key 401", async () => {
    expectErrorBody(await lib.get("/api/data/podcast_filters", "alice", of("bob")), 403);
    expectErrorBody(await lib.post("/api/data/podcast_filters", "alice", { ...of("bob"), include: "x" }), 403);
    expectErrorBody(await lib.get("/api/data/podcast_filters", "bob", of("bob", other)), 404);
    expectErrorBody(await lib.post("/api/data/podcast_filters", "bob", { ...of("bob", other), include: "x" }), 404);
    expectErrorBody(await api(lib.server.url).get("/api/data/podcast_filters").query(of("alice")), 401);
    expect(await read("bob")).toEqual({ ...none, podcast_id: talk });
    // An admin may read them (the ownership rule).
    expect((await lib.get("/api/data/podcast_filters", "admin", of("alice"))).body).toMatchObject({ include: "interview" });
  });

  test("auto-queue, auto-download and the inbox apply each subscriber's filter to the episodes a refresh finds", async () => {
    // alice: auto-queue, only interviews. bob: auto-download, nothing under 1000 s. carol: her inbox, no trailers.
    await set("alice", { include: "interview" });
    expect((await lib.post("/api/data/enable_auto_queue", "alice", { ...of("alice"), auto_queue: true })).status).toBe(200);
    await set("bob", { min_duration: 1000 });
    expect((await lib.post("/api/data/enable_auto_download", "bob", { ...of("bob"), auto_download: true })).status).toBe(200);
    await set("carol", { exclude: "/\\btrailer\\b/" });
    for (const i of NEW) lib.feeds.route(`/media/${encodeURIComponent(i.title)}.mp3`, mediaRoute(audioBytes(10_000)));
    lib.serve("talk", "Talk Show", [...TALK, ...NEW]);
    await lib.refresh("alice");

    const queue = async () => (await lib.get("/api/data/get_queued_episodes", "alice", { user_id: uid("alice") })).body.data.map((e: any) => e.episodetitle);
    await eventually(async () => expect(await queue()).toEqual(["New interview"]), 5000);
    const downloads = async () =>
      (await lib.get("/api/data/download_episode_list", "bob", { user_id: uid("bob") })).body.downloaded_episodes.map((e: any) => e.episodetitle);
    await until(async () => (await downloads()).includes("New interview"), 15_000);
    const tasks = (await lib.get(`/api/tasks/user/${uid("bob")}`, "bob")).body.map((t: any) => t.episode_title);
    expect(tasks).toContain("New interview");
    expect(tasks).not.toContain("New trailer");
    expect(await downloads()).toEqual(["New interview"]);
    const inbox = (await lib.get("/api/data/inbox", "carol", { user_id: uid("carol") })).body;
    expect(inbox).toMatchObject({ total: 1, episodes: [{ episodetitle: "New interview" }] });
    // Without her filter the trailer is in her inbox too.
    await set("carol", {});
    expect((await lib.get("/api/data/inbox/count", "carol", { user_id: uid("carol") })).body).toEqual({ count: 2 });
  });
});
