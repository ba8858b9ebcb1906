/**
 * Durable download jobs over NATS: the gateway, the stateful services and two workers in separate
 * processes. The worker holding a download is killed (SIGKILL) mid-body; after its lease the other
 * worker takes the job over and finishes it once, with the complete file, while the gateway's
 * WebSocket reports every change broadcast from the other processes.
 */
import fs from "fs";
import WebSocket from "ws";
import { api } from "../helpers/client";
import { Loopback, startLoopback } from "../helpers/loopback";
import { audioBytes, mediaRoute, waitForTask } from "../helpers/media";
import { createUsers, rssFeed } from "../helpers/podcasts";
import { tempDir } from "../helpers/server";
import { until } from "../helpers/wait";
import { clusterPeers, ensureBuilt, findNatsServer, freePort, Proc, startNode, waitClusterHealthy } from "../helpers/processes";

const natsBin = findNatsServer();
const describeCluster = natsBin || process.env.NATS_URL ? describe : describe.skip;
const STATEFUL = ["auth", "users", "podcasts", "episodes", "feeds", "notifications", "oidc", "tasks", "downloads"];

describeCluster("a download whose worker process is killed", () => {
  const procs: Record<string, Proc> = {};
  let peers: Awaited<ReturnType<typeof clusterPeers>> | null = null;
  let media: Loopback;
  let url = "";
  let common: Record<string, string>;
  const audio = audioBytes(400_000);
  let stalled = false;

  beforeAll(async () => {
    ensureBuilt();
    // The first request sends half the file and then nothing (its worker is killed meanwhile); later ones are served whole.
    media = await startLoopback({
      "/long.mp3": (req, res) => {
        if (stalled) return mediaRoute(audio)(req, res);
        stalled = true;
        res.writeHead(200, { "Content-Type": "audio/mpeg", "Content-Length": String(audio.length) });
        res.write(audio.subarray(0, audio.length / 2));
      },
    });
    media.route("/feed.xml", { body: rssFeed("Cluster Show", [{ title: "long", guid: "long", url: `${media.url}/long.mp3`, date: "2024-01-01T00:00:00Z" }]) });
    peers = await clusterPeers(natsBin);
    const port = await freePort();
    common = {
      ...peers.env,
      NAMESPACE: `dl-${process.pid}-${Date.now()}`,
      DATA_DIR: tempDir("podcast-dlc-"),
      DOWNLOAD_DIR: tempDir("podcast-dlc-files-"),
      REQUEST_TIMEOUT: "5000",
      HEARTBEAT_INTERVAL: "1",
      HEARTBEAT_TIMEOUT: "3",
      TASK_LEASE_SECONDS: "2",
      WORKER_POLL_MS: "200",
      REFRESH_INTERVAL: "0",
    };
    procs.api = startNode({ ...common, PORT: String(port), NODE_ID: "gateway" }, ["api"]);
    procs.core = startNode({ ...common, NODE_ID: "core" }, STATEFUL);
    procs.w1 = startNode({ ...common, NODE_ID: "worker-1" }, ["workers"]);
    url = `http://127.0.0.1:${port}`;
    await waitClusterHealthy([url], procs, ["auth", "users", "podcasts", "episodes", "tasks", "downloads"]);
  }, 90_000);

  afterAll(async () => {
    await Promise.all(Object.values(procs).map((p) => p.stop("SIGKILL")));
    await peers?.stop();
    await media?.close();
  });

  test("the other worker takes the job over after the lease and finishes it once with the whole file", async () => {
    const users = await createUsers(url, []);
    const { id, key } = users.admin;
    const added = await api(url)
      .post("/api/data/add_podcast")
      .set("Api-Key", key)
      .send({ podcast_values: { pod_feed_url: `${media.url}/feed.xml`, user_id: id } });
    expect(added.status).toBe(200);
    const eps = await api(url).get("/api/data/podcast_episodes").set("Api-Key", key).query({ user_id: id, podcast_id: added.body.podcast_id });

    const ws = new WebSocket(`${url.replace("http", "ws")}/ws/api/tasks/${id}?api_key=${key}`);
    const messages: any[] = [];
    ws.on("message", (m) => messages.push(JSON.parse((m as Buffer).toString())));
    await new Promise((r) => ws.once("open", r));

    const res = await api(url).post("/api/data/download_podcast").set("Api-Key", key).send({ episode_id: eps.body.episodes[0].episodeid, user_id: id });
    expect(res.status).toBe(200);
    const taskId = res.body.task_id;
    await until(() => stalled && messages.some((m) => m.task?.id === taskId && m.task.status === "DOWNLOADING"));

    procs.w2 = startNode({ ...common, NODE_ID: "worker-2" }, ["workers"]);
    await procs.w1.stop("SIGKILL");

    const task = await waitForTask(url, key, taskId, 45_000);
    expect(task).toMatchObject({ status: "SUCCESS", progress: 100 });
    await until(() => messages.some((m) => m.task?.id === taskId && m.task.status === "SUCCESS"));
    ws.close();
    expect(messages[0].event).toBe("initial");
    expect(messages.filter((m) => m.task?.id === taskId && m.task.status === "SUCCESS")).toHaveLength(1);
    expect(media.requests.filter((r) => r.url === "/long.mp3")).toHaveLength(2);

    const list = await api(url).get("/api/data/download_episode_list").set("Api-Key", key).query({ user_id: id });
    expect(list.body.downloaded_episodes).toHaveLength(1);
    expect(fs.readFileSync(list.body.downloaded_episodes[0].downloadedlocation).equals(audio)).toBe(true);
    const streamed = await fetch(`${url}/api/data/stream/${eps.body.episodes[0].episodeid}?api_key=${key}&user_id=${id}`, { headers: { Range: "bytes=0-99" } });
    expect(streamed.status).toBe(206);
    expect(Buffer.from(await streamed.arrayBuffer()).equals(audio.subarray(0, 100))).toBe(true);
  }, 90_000);
});
