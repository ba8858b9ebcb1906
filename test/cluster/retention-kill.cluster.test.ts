/**
 * A retention pass (services/downloads.parts/retention.ts) killed with SIGKILL mid-way and resumed, in separate
 * processes over NATS. The downloads node deletes the downloads beyond a podcast's keep_last slowly
 * (RETENTION_STEP_DELAY_MS, between a deletion's file and its record), is killed while a marked download's file
 * and its record for sync are written but the download's record is not yet gone, and is started again on its
 * data while an episode it had marked is saved through the gateway. The
 * resumed pass (once the dead holder's lease expired) completes the marked ones: every download beyond keep_last
 * goes, each recorded once for sync and counted once, and no saved episode's file or record ever goes.
 */
import fs from "fs";
import path from "path";
import Database from "better-sqlite3";
import { api } from "../helpers/client";
import { Loopback, startLoopback } from "../helpers/loopback";
import { audioBytes, mediaRoute, waitForTask } from "../helpers/media";
import { createUsers, rssFeed } from "../helpers/podcasts";
import { tempDir } from "../helpers/server";
import { until } from "../helpers/wait";
import { clusterPeers, ensureBuilt, findNatsServer, freePort, Proc, startNode, waitClusterHealthy } from "../helpers/processes";

const natsBin = findNatsServer();
const describeCluster = natsBin || process.env.NATS_URL ? describe : describe.skip;
const CORE = ["auth", "users", "podcasts", "episodes", "feeds", "notifications", "oidc", "tasks", "workers"];
const COUNT = 12;
const KEEP_LAST = 2;

describeCluster("a retention pass killed mid-way and resumed", () => {
  const procs: Record<string, Proc> = {};
  let peers: Awaited<ReturnType<typeof clusterPeers>> | null = null;
  let media: Loopback;
  let url = "";
  let env: Record<string, string>;
  const dataDir = tempDir("retention-kill-");
  const downloadDir = tempDir("retention-kill-files-");

  /** The documents of a collection as stored (read beside the running node: WAL readers do not block it). */
  const stored = (collection: string): any[] => {
    const db = new Database(path.join(dataDir, `${collection}.sqlite`), { readonly: true });
    try {
      return (db.prepare("SELECT doc FROM docs").all() as { doc: string }[]).map((r) => JSON.parse(r.doc));
    } finally {
      db.close();
    }
  };
  const fileOf = (d: any) => path.join(downloadDir, d.file);
  const downloadsNode = () => startNode({ ...env, NODE_ID: "downloads", LOG_LEVEL: "info", LOG_FORMAT: "json" }, ["downloads"]);

  beforeAll(async () => {
    ensureBuilt();
    media = await startLoopback({});
    const items = Array.from({ length: COUNT }, (_, i) => ({
      title: `e${i + 1}`,
      guid: `e${i + 1}`,
      url: `${media.url}/e${i + 1}.mp3`,
      date: new Date(Date.UTC(2024, 0, i + 1)).toISOString(),
    }));
    for (const i of items) media.route(`/${i.title}.mp3`, mediaRoute(audioBytes(10_000)));
    media.route("/feed.xml", { body: rssFeed("Kept Show", items) });
    peers = await clusterPeers(natsBin);
    const port = await freePort();
    env = {
      ...peers.env,
      NAMESPACE: `retention-kill-${process.pid}-${Date.now()}`,
      DATA_DIR: dataDir,
      DOWNLOAD_DIR: downloadDir,
      REQUEST_TIMEOUT: "5000",
      HEARTBEAT_INTERVAL: "1",
      HEARTBEAT_TIMEOUT: "3",
      WORKER_POLL_MS: "200",
      REFRESH_INTERVAL: "0",
      // A pass every 3 s, each deletion 400 ms long: time to kill one mid-way.
      AUTO_DELETE_INTERVAL: "0.05",
      AUTO_DELETE_LEASE_SECONDS: "8",
      RETENTION_STEP_DELAY_MS: "400",
    };
    procs.api = startNode({ ...env, PORT: String(port), NODE_ID: "gateway" }, ["api"]);
    procs.core = startNode({ ...env, NODE_ID: "core" }, CORE);
    procs.downloads = downloadsNode();
    url = `http://127.0.0.1:${port}`;
    await waitClusterHealthy([url], procs, ["auth", "users", "podcasts", "episodes", "tasks", "downloads"]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all(Object.values(procs).map((p) => p.stop("SIGKILL")));
    await peers?.stop();
    await media?.close();
  });

  test("the resumed pass completes the marked deletions once each, and never deletes a saved episode", async () => {
    const { id: user_id, key } = (await createUsers(url, [])).admin;
    const call = (p: string, body: object) => api(url).post(p).set("Api-Key", key).send(body);
    const added = await call("/api/data/add_podcast", { podcast_values: { pod_feed_url: `${media.url}/feed.xml`, user_id } });
    expect(added.status).toBe(200);
    const podcast_id = added.body.podcast_id;
    const eps = await api(url).get("/api/data/podcast_episodes").set("Api-Key", key).query({ user_id, podcast_id });
    const ep: Record<string, number> = Object.fromEntries(eps.body.episodes.map((e: any) => [e.episodetitle, e.episodeid]));
    const title = Object.fromEntries(Object.entries(ep).map(([t, id]) => [id, t]));
    const job = await call("/api/data/download_all_podcast", { podcast_id, user_id });
    expect((await waitForTask(url, key, job.body.task_id, 30_000)).status).toBe("SUCCESS");
    expect(stored("downloads")).toHaveLength(COUNT);
    const files = Object.fromEntries(stored("downloads").map((d) => [title[d.episode_id], fileOf(d)]));
    for (const t of ["e1", "e3"]) expect((await call("/api/data/save_episode", { episode_id: ep[t], user_id })).status).toBe(200);

    // e11 and e12 are the newest; e1 and e3 are saved: the other eight are due.
    expect((await call("/api/data/retention", { user_id, podcast_id, keep_last: KEEP_LAST })).status).toBe(200);
    // Killed once two went, while a marked download's file is gone and its deletion recorded but its record is still
    // there: a resumed pass that recorded or counted it again would show below.
    const halfDone = (docs: any[]) => {
      const recorded = new Set(stored("download_deletions").map((d) => d.episode_id));
      return docs.filter((d) => d.deleting && !fs.existsSync(fileOf(d)) && recorded.has(d.episode_id));
    };
    await until(
      () => {
        const docs = stored("downloads");
        return COUNT - docs.length >= 2 && halfDone(docs).length > 0 && docs.filter((d) => d.deleting && fs.existsSync(fileOf(d))).length >= 2;
      },
      30_000,
      20,
    );
    await procs.downloads.stop("SIGKILL");
    const atKill = stored("downloads");
    const markedAtKill = atKill.filter((d) => d.deleting);
    const goneBeforeKill = COUNT - atKill.length;
    expect(halfDone(atKill)).toHaveLength(1);
    expect(stored("download_deletions")).toHaveLength(goneBeforeKill + 1);

    // While the node is down, one of the marked episodes whose file is still there is saved.
    const rescued = markedAtKill.find((d) => fs.existsSync(fileOf(d)))!;
    expect((await call("/api/data/save_episode", { episode_id: rescued.episode_id, user_id })).status).toBe(200);

    procs.downloads = downloadsNode();
    const keep = ["e1", "e3", "e11", "e12", title[rescued.episode_id]].sort();
    await until(() => {
      const docs = stored("downloads");
      return (
        docs.every((d) => !d.deleting) &&
        docs
          .map((d) => title[d.episode_id])
          .sort()
          .join() === keep.join()
      );
    }, 40_000);

    for (const [t, file] of Object.entries(files)) expect([t, fs.existsSync(file)]).toEqual([t, keep.includes(t)]);
    // Each deleted download is recorded once for sync (the same record whichever pass wrote it)...
    const deletions = stored("download_deletions")
      .map((d) => title[d.episode_id])
      .sort();
    expect(deletions).toEqual(
      Object.keys(files)
        .filter((t) => !keep.includes(t))
        .sort(),
    );
    // ...and counted once: the restarted node's passes count exactly the records that were left to remove.
    const counted = procs.downloads
      .output()
      .split("\n")
      .map((line) => /retention pass done.*removed: (\d+)/.exec(line))
      .filter((m) => m !== null)
      .reduce((sum, m) => sum + Number(m[1]), 0);
    expect(counted).toBe(atKill.length - keep.length);
    expect(goneBeforeKill + counted).toBe(COUNT - keep.length);
  }, 120_000);
});
