/**
 * The auto-delete job (services/downloads.parts/auto-delete.ts) killed and taken over, in separate
 * processes over NATS: the downloads node holding the lease and running passes is killed with SIGKILL
 * (it never releases the lease). A second instance on the same embedded data refuses to start, so the
 * replacement is the node restarted: it takes the lease over only once the dead holder's has expired
 * (AUTO_DELETE_LEASE_SECONDS) and runs the next pass, which deletes a completed episode's old download.
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
const LEASE_SECONDS = 8;
const DAY_MS = 86_400_000;

describeCluster("the auto-delete job of a killed downloads node", () => {
  const procs: Record<string, Proc> = {};
  let peers: Awaited<ReturnType<typeof clusterPeers>> | null = null;
  let media: Loopback;
  let url = "";
  let env: Record<string, string>;
  const dataDir = tempDir("podcast-autodel-");
  const downloadDir = tempDir("podcast-autodel-files-");

  /** The lease as stored (read beside the running node: WAL readers do not block it). */
  const lease = (): { holder: string | null; expires_at: number; last_run_at: number | null } => {
    const db = new Database(path.join(dataDir, "download_leases.sqlite"), { readonly: true });
    try {
      const doc = JSON.parse((db.prepare("SELECT doc FROM docs WHERE _id = ?").get("auto-delete-scheduler") as { doc: string }).doc);
      return { holder: doc.holder, expires_at: doc.expires_at.$$date, last_run_at: doc.last_run_at?.$$date ?? null };
    } finally {
      db.close();
    }
  };

  beforeAll(async () => {
    ensureBuilt();
    media = await startLoopback({ "/one.mp3": mediaRoute(audioBytes(10_000)) });
    media.route("/feed.xml", { body: rssFeed("Old Show", [{ title: "one", guid: "one", url: `${media.url}/one.mp3`, date: "2024-01-01T00:00:00Z" }]) });
    peers = await clusterPeers(natsBin);
    const port = await freePort();
    env = {
      ...peers.env,
      NAMESPACE: `autodel-${process.pid}-${Date.now()}`,
      DATA_DIR: dataDir,
      DOWNLOAD_DIR: downloadDir,
      REQUEST_TIMEOUT: "5000",
      HEARTBEAT_INTERVAL: "1",
      HEARTBEAT_TIMEOUT: "3",
      WORKER_POLL_MS: "200",
      REFRESH_INTERVAL: "0",
      // A pass every 3 s (fractional minutes); a lease long enough that the restarted node is up before it expires.
      AUTO_DELETE_INTERVAL: "0.05",
      AUTO_DELETE_LEASE_SECONDS: String(LEASE_SECONDS),
    };
    procs.api = startNode({ ...env, PORT: String(port), NODE_ID: "gateway" }, ["api"]);
    procs.core = startNode({ ...env, NODE_ID: "core" }, CORE);
    procs.downloads = startNode({ ...env, NODE_ID: "downloads" }, ["downloads"]);
    url = `http://127.0.0.1:${port}`;
    await waitClusterHealthy([url], procs, ["auth", "users", "podcasts", "episodes", "tasks", "downloads"]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all(Object.values(procs).map((p) => p.stop("SIGKILL")));
    await peers?.stop();
    await media?.close();
  });

  test("the restarted node takes the lease over after it expires and its pass deletes the old download", async () => {
    const { id, key } = (await createUsers(url, [])).admin;
    const call = (p: string, body: object) => api(url).post(p).set("Api-Key", key).send(body);
    const added = await call("/api/data/add_podcast", { podcast_values: { pod_feed_url: `${media.url}/feed.xml`, user_id: id } });
    expect(added.status).toBe(200);
    const eps = await api(url).get("/api/data/podcast_episodes").set("Api-Key", key).query({ user_id: id, podcast_id: added.body.podcast_id });
    const episode_id = eps.body.episodes[0].episodeid;
    const res = await call("/api/data/download_podcast", { episode_id, user_id: id });
    expect((await waitForTask(url, key, res.body.task_id)).status).toBe("SUCCESS");
    expect((await call("/api/data/mark_episode_completed", { episode_id, user_id: id })).status).toBe(200);
    expect((await call("/api/data/user/set_auto_download_delete_days", { user_id: id, days: 1 })).status).toBe(200);
    const list = () => api(url).get("/api/data/download_episode_list").set("Api-Key", key).query({ user_id: id });
    const [download] = (await list()).body.downloaded_episodes;
    expect(fs.existsSync(download.downloadedlocation)).toBe(true);

    // Mid-schedule: the node holds the lease and has run passes (the download is a day too young to go).
    const before = lease();
    expect(before.holder).toMatch(/^downloads:/);
    await until(() => (lease().last_run_at ?? 0) > (before.last_run_at ?? 0), 10_000);
    await procs.downloads.stop("SIGKILL");
    const dead = lease();
    expect(dead.holder).toBe(before.holder);

    // While it is down, the download becomes ten days old (its record as the node wrote it).
    const db = new Database(path.join(dataDir, "downloads.sqlite"));
    const changed = db
      .prepare("UPDATE docs SET doc = json_set(doc, '$.downloaded_at', json(?)) WHERE _id = ?")
      .run(JSON.stringify({ $$date: Date.now() - 10 * DAY_MS }), `${id}:${episode_id}`);
    db.close();
    expect(changed.changes).toBe(1);

    procs.downloads = startNode({ ...env, NODE_ID: "downloads" }, ["downloads"]);
    // Until the download is gone: who holds the lease, and whether a downloads node answered (only the restarted one can).
    const samples: { at: number; holder: string | null; served: boolean }[] = [];
    await until(
      async () => {
        const res = await list();
        samples.push({ at: Date.now(), holder: lease().holder, served: res.status === 200 });
        return res.status === 200 && res.body.downloaded_episodes.length === 0;
      },
      25_000,
      200,
    );
    const early = samples.filter((x) => x.at < dead.expires_at);
    expect(early.some((x) => x.served)).toBe(true);
    expect(early.every((x) => x.holder === dead.holder)).toBe(true);
    const after = lease();
    expect(after.holder).toMatch(/^downloads:/);
    expect(after.holder).not.toBe(dead.holder);
    // Taken over only once the dead holder's lease had run out.
    expect(after.last_run_at!).toBeGreaterThanOrEqual(dead.expires_at);
    // The file goes with its record (marked first: a pass cut short is completed by the next, test/cluster/retention-kill.cluster.test.ts).
    await until(() => !fs.existsSync(download.downloadedlocation), 5_000);
    expect(fs.existsSync(download.downloadedlocation)).toBe(false);
  }, 60_000);
});
