/**
 * A new feed's older episodes are imported by a durable import_feed job, black-box over HTTP: the
 * answer carries the newest ADD_PODCAST_SYNC_EPISODES, the job shows in the user's tasks and on the
 * WebSocket, refetches the feed, stores the rest, and survives a restart of the server.
 */
import http from "http";
import WebSocket from "ws";
import type { ServiceSchema } from "moleculer";
import { config } from "../../shared/config";
import { api } from "../helpers/client";
import { Loopback, startLoopback } from "../helpers/loopback";
import { waitForTask } from "../helpers/media";
import { createUsers, fixture } from "../helpers/podcasts";
import { ALL_SERVICES, startServer, tempDir, TestServer } from "../helpers/server";

const NPR = fixture("npr_planet_money_355items_large.xml");
const created: any[] = [];
const Probe: ServiceSchema = {
  name: "probe",
  events: {
    "episodes.created"(ctx: any) {
      created.push(ctx.params);
    },
  },
};

/** Serves the feed to the request numbers in `serve` (1-based) at once; the others wait for `release`. */
function gatedFeed(serve: (n: number) => boolean) {
  let n = 0;
  let open: () => void;
  const gate = new Promise<void>((r) => (open = r));
  const route = async (_req: http.IncomingMessage, res: http.ServerResponse) => {
    if (!serve(++n)) await gate;
    res.writeHead(200, { "Content-Type": "application/rss+xml" });
    res.end(NPR);
  };
  return { route, release: () => open(), requests: () => n };
}

const userTasks = async (url: string, who: { id: number; key: string }) =>
  (await api(url).get(`/api/tasks/user/${who.id}`).set("Api-Key", who.key)).body as any[];
const episodeTotal = async (url: string, who: { id: number; key: string }, podcast_id: number) =>
  (await api(url).get("/api/data/podcast_episodes").set("Api-Key", who.key).query({ user_id: who.id, podcast_id, limit: 1 })).body.total as number;
const addNpr = (url: string, feeds: Loopback, who: { id: number; key: string }) =>
  api(url)
    .post("/api/data/add_podcast")
    .set("Api-Key", who.key)
    .send({ podcast_values: { pod_feed_url: `${feeds.url}/npr.xml`, user_id: who.id } });

beforeAll(() => {
  Object.assign(config, { refreshInterval: 0, addPodcastSyncEpisodes: 30, workerPollMs: 100, taskLeaseSeconds: 2 });
});

describe("import of a new feed's older episodes", () => {
  let server: TestServer;
  let feeds: Loopback;
  afterEach(async () => {
    await server?.stop();
    await feeds?.close();
  });

  test("add_podcast answers with the newest 30; an import_feed task of the user stores all 355, announcing none", async () => {
    const feed = gatedFeed((n) => n === 1);
    feeds = await startLoopback({ "/npr.xml": feed.route });
    server = await startServer({ services: [...ALL_SERVICES, Probe] });
    const { alice } = await createUsers(server.url, ["alice"]);
    const ws = new WebSocket(`${server.url.replace("http", "ws")}/ws/api/tasks/${alice.id}?api_key=${alice.key}`);
    const messages: any[] = [];
    ws.on("message", (m) => messages.push(JSON.parse((m as Buffer).toString())));
    await new Promise((r) => ws.once("open", r));

    const started = Date.now();
    const res = await addNpr(server.url, feeds, alice);
    expect(res.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(5000);
    const podcast_id = res.body.podcast_id;
    expect(await episodeTotal(server.url, alice, podcast_id)).toBe(30);
    const [task] = await userTasks(server.url, alice);
    expect(task).toMatchObject({
      task_type: "import_feed",
      user_id: alice.id,
      item_id: podcast_id,
      podcast_name: "Planet Money",
      status: expect.stringMatching(/^(PENDING|RUNNING)$/),
    });

    feed.release();
    const done = await waitForTask(server.url, alice.key, task.id);
    expect(done).toMatchObject({ status: "SUCCESS", progress: 100, result: { podcast_id, new_episodes: 325 } });
    expect(await episodeTotal(server.url, alice, podcast_id)).toBe(355);
    expect(feed.requests()).toBe(2); // the answer's fetch and the job's
    const pods = await api(server.url).get(`/api/data/return_pods/${alice.id}`).set("Api-Key", alice.key);
    expect(pods.body.pods[0]).toMatchObject({ podcast_id, episode_count: 355 });
    expect(created).toEqual([]); // an import is not "new episodes"
    const seen = messages.filter((m) => m.event === "update" && m.task.id === task.id).map((m) => m.task.status);
    expect(seen[0]).toBe("PENDING");
    expect(seen).toContain("RUNNING");
    expect(seen[seen.length - 1]).toBe("SUCCESS");
    ws.close();

    // Complete now: the next refresh sees the same content hash and writes nothing.
    const refreshed = await api(server.url).get("/api/data/refresh_pods").set("Api-Key", alice.key);
    expect(refreshed.body).toMatchObject({ updated: 0, unchanged: 1 });
  });

  test("an import whose server stopped mid-job is finished by the next start", async () => {
    // Request 2 is the first run's refetch: it hangs until the peer closes; the next run's is served.
    const feed = gatedFeed((n) => n !== 2);
    feeds = await startLoopback({ "/npr.xml": feed.route });
    const dataDir = tempDir();
    server = await startServer({ dataDir });
    const { alice } = await createUsers(server.url, ["alice"]);
    const res = await addNpr(server.url, feeds, alice);
    expect(res.status).toBe(200);
    const until = Date.now() + 10_000;
    while (feed.requests() < 2 && Date.now() < until) await new Promise((r) => setTimeout(r, 25));
    const [task] = await userTasks(server.url, alice);
    expect(task).toMatchObject({ task_type: "import_feed", status: "RUNNING" });
    await server.stop();

    server = await startServer({ dataDir });
    const done = await waitForTask(server.url, alice.key, task.id);
    expect(done).toMatchObject({ status: "SUCCESS", result: { new_episodes: 325 } });
    expect(await episodeTotal(server.url, alice, res.body.podcast_id)).toBe(355);
  });
});
