/**
 * Two replicas of every stateful group on one MongoDB, as Kubernetes runs them: the library, feeds,
 * downloads and sync groups twice each over NATS (the gateway and the accounts group share a process: the
 * suite runs beside others on two cores), every process on the official driver
 * against the MongoDB wire double (test/helpers/mongo-wire.ts) in a process of its own, so that every store
 * call is a real network round trip and the interleavings MongoDB allows happen here too. Under the mixed
 * player load and overlapping feed refreshes of one podcast by every user at once:
 * - no episode stored twice, no duplicate refresh or download job (the store's unique indexes are the guard);
 * - no replica's catalogue stale after a write (each library node, asked directly, agrees with the store);
 * - no gPodder episode action skipped or repeated for a device reading `since` while others upload;
 * - every acknowledged player write is there afterwards.
 */
import { spawn } from "child_process";
import fs from "fs";
import os from "os";
import path from "path";
import { MongoClient } from "mongodb";
import { ServiceBroker } from "moleculer";
import { startPlayerLoad } from "../../bench/player-load";
import { serviceGroups } from "../../shared/service-groups";
import { basic } from "../helpers/client";
import { startLoopback, type Loopback } from "../helpers/loopback";
import { createUsers, rssFeed } from "../helpers/podcasts";
import { clusterPeers, ensureBuilt, findNatsServer, freePort, type Proc, startNode, waitClusterHealthy } from "../helpers/processes";

const natsBin = findNatsServer();
const describeCluster = natsBin || process.env.NATS_URL ? describe : describe.skip;
const ROOT = path.join(__dirname, "..", "..");
const USERS = ["alice", "bob", "carol", "dave"];
const PASSWORD = "a long password";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The wire double in a process of its own: its answers never wait for this test's own work. */
async function startWireProcess(): Promise<{ uri: string; stop(): void }> {
  const child = spawn(process.execPath, [path.join(ROOT, "dist", "test", "helpers", "mongo-wire.js")], { stdio: ["ignore", "pipe", "inherit"] });
  const port = await new Promise<number>((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
      const line = out.split("\n").find((l) => l.startsWith("{"));
      if (line) resolve(JSON.parse(line).port);
    });
    child.once("exit", (code) => reject(new Error(`mongo-wire exited with ${code}`)));
  });
  return { uri: `mongodb://127.0.0.1:${port}/podcasts`, stop: () => child.kill("SIGTERM") };
}

describeCluster("two replicas of each stateful group on one MongoDB", () => {
  const procs: Record<string, Proc> = {};
  let peers: Awaited<ReturnType<typeof clusterPeers>> | null = null;
  let wire: Awaited<ReturnType<typeof startWireProcess>> | null = null;
  let mongo: MongoClient;
  let probe: ServiceBroker;
  let feeds: Loopback;
  let urls: string[] = [];
  let users: Record<string, { id: number; key: string }> = {};
  // The shared feed: items can be added between refreshes.
  const items: { title: string; guid: string; url: string; date: string; duration: number }[] = [];
  const addItems = (n: number) => {
    for (let i = 0; i < n; i++) {
      const k = items.length;
      items.push({
        title: `Episode ${k}`,
        guid: `ep-${k}`,
        url: `${feeds.url}/media/${k}.mp3`,
        date: new Date(Date.UTC(2026, 0, 1) + k * 3_600_000).toISOString(),
        duration: 600 + k,
      });
    }
  };
  const feedUrl = () => `${feeds.url}/shared.xml`;
  /** Pause of the feed and media answers: a job must still run while a burst of requests for it arrives. */
  let slowMs = 0;

  beforeAll(async () => {
    ensureBuilt();
    peers = await clusterPeers(natsBin);
    wire = await startWireProcess();
    mongo = await new MongoClient(wire.uri).connect();
    feeds = await startLoopback({
      "/shared.xml": async (_req, res) => {
        await sleep(slowMs);
        const body = rssFeed("Shared", items);
        res.writeHead(200, { "Content-Type": "application/rss+xml" });
        res.end(body);
      },
    });
    feeds.route("/media", async (_req, res) => {
      await sleep(slowMs);
      res.writeHead(200, { "Content-Type": "audio/mpeg", "Content-Length": "1000" });
      res.end(Buffer.alloc(1000));
    });
    addItems(20);
    const namespace = `replicas-${process.pid}-${Date.now()}`;
    const common = {
      ...peers.env,
      NAMESPACE: namespace,
      MONGO_URI: wire.uri,
      SECRET_KEY: "replicas-test-secret-key-0123456789abcdef",
      DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), "podcast-replicas-")),
      DOWNLOAD_DIR: fs.mkdtempSync(path.join(os.tmpdir(), "podcast-replicas-files-")),
      REFRESH_INTERVAL: "0",
      CATALOG_RECONCILE_SECONDS: "2",
    };
    const port = await freePort();
    urls = [`http://127.0.0.1:${port}`];
    const group = (name: string) => serviceGroups.find((g) => g.name === name)!.services;
    procs.gateway = startNode({ ...common, PORT: String(port), NODE_ID: "gateway" }, ["api", ...group("accounts")]);
    for (const name of ["library", "feeds", "downloads", "sync"]) {
      for (const n of [1, 2]) procs[`${name}-${n}`] = startNode({ ...common, NODE_ID: `${name}-${n}` }, group(name));
    }
    await waitClusterHealthy(urls, procs, ["auth", "users", "podcasts", "episodes", "queue", "feeds", "tasks", "downloads", "sync", "gpodder"], 120_000);
    probe = new ServiceBroker({ transporter: peers.env.TRANSPORTER, namespace, nodeID: `probe-${process.pid}`, logger: false });
    await probe.start();
    await probe.waitForServices(["episodes"]);
    users = await createUsers(urls[0], USERS);
  }, 180_000);

  afterAll(async () => {
    await probe?.stop();
    await Promise.all(Object.values(procs).map((p) => p.stop()));
    await mongo?.close();
    wire?.stop();
    await feeds?.close();
    await peers?.stop();
  });

  const call = async (base: string, method: string, p: string, who: string, body?: object) => {
    const res = await fetch(`${base}${p}`, {
      method,
      headers: { "Content-Type": "application/json", "Api-Key": users[who].key },
      body: body && JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  const db = () => mongo.db();

  test("every user subscribing to one feed at once, then refreshing it at once under the player load: one podcast, each episode once", async () => {
    // Everyone adds the same feed at the same moment.
    const added = await Promise.all(
      USERS.map((u) => call(urls[0], "POST", "/api/data/add_podcast", u, { podcast_values: { pod_feed_url: feedUrl(), user_id: users[u].id } })),
    );
    expect(added.map((r) => r.status)).toEqual(USERS.map(() => 200));
    const podcastIds = new Set(added.map((r) => r.body.podcast_id));
    expect(podcastIds.size).toBe(1);
    const podcast_id = [...podcastIds][0];

    let episodes: number[] = [];
    for (const end = Date.now() + 30_000; episodes.length < 20 && Date.now() < end; await sleep(200)) {
      episodes = (await call(urls[0], "GET", `/api/data/podcast_episodes?user_id=${users.alice.id}&podcast_id=${podcast_id}`, "alice")).body.episodes.map(
        (e: any) => e.episodeid,
      );
    }
    expect(episodes.length).toBe(20);
    const load = await startPlayerLoad({ gateways: () => urls, key: users.alice.key, userId: users.alice.id, episodes }, 4);

    // Overlapping refreshes: every user refreshes at once (each a job, run by either downloads replica, each
    // refreshing the shared podcast on either feeds replica), three rounds, the feed growing.
    for (let round = 0; round < 3; round++) {
      addItems(5);
      const refreshed = await Promise.all(USERS.map((u) => call(urls[0], "GET", "/api/data/refresh_pods", u)));
      expect(refreshed.map((r) => r.status)).toEqual(refreshed.map(() => 200));
    }
    const report = await load.stop();
    expect(report.readFailures).toEqual([]);
    expect(report.writeFailures).toEqual([]);
    expect(await load.verify(urls[0])).toEqual([]);

    // Once the refresh jobs are done: each guid stored once, every item of the feed there.
    await waitFor(
      async () =>
        (await db()
          .collection("tasks")
          .countDocuments({ status: { $in: ["PENDING", "STARTED", "RUNNING", "QUEUED"] } })) === 0,
      30_000,
    );
    const dupes = await db()
      .collection("episodes")
      .aggregate([{ $group: { _id: { p: "$podcast_id", g: "$guid" }, n: { $sum: 1 } } }, { $match: { n: { $gt: 1 } } }])
      .toArray();
    expect(dupes).toEqual([]);
    expect(await db().collection("episodes").countDocuments({ podcast_id })).toBe(items.length);
    expect(await db().collection("podcasts").countDocuments({})).toBe(1);

    // No stale replica: each library node's catalogue, asked directly, lists what the store holds.
    const stored = (await db().collection("episodes").find({ podcast_id }).project({ _id: 1 }).toArray()).map((d) => d._id).sort();
    for (const node of ["library-1", "library-2"]) {
      await waitFor(
        async () => {
          const stats: Record<number, { total_episodes: number }> = await probe.call(
            "episodes.user_podcast_stats",
            { user_id: users.bob.id, subscriptions: [{ podcast_id, feed_cutoff_days: 0 }] },
            { nodeID: node },
          );
          return stats[podcast_id].total_episodes === stored.length;
        },
        10_000,
        `${node}'s catalogue`,
      );
    }

    // A write through one gateway is in every replica's catalogue (the other re-reads it): sorted by duration
    // from the catalogue's rows, the episode made the longest comes first on each node.
    const target = episodes[3];
    expect((await call(urls[0], "POST", "/api/data/update_episode_duration", "alice", { episode_id: target, new_duration: 4321 })).status).toBe(200);
    for (const node of ["library-1", "library-2"]) {
      await waitFor(
        async () => {
          const page: any = await probe.call(
            "episodes.podcast_episodes",
            { user_id: users.bob.id, podcast_id, sort_by: "duration", sort_order: "desc", limit: 1 },
            { nodeID: node, meta: { user: { id: users.bob.id, isAdmin: false } } },
          );
          return page.episodes[0]?.episodeid === target;
        },
        10_000,
        `${node}'s catalogue after the write`,
      );
    }
  }, 240_000);

  test("one refresh job and one download job per key, however many replicas are asked at once", async () => {
    // The jobs take 3 s (slow feed and media): every request of a burst finds the first one unfinished.
    slowMs = 3000;
    const before = await db()
      .collection("tasks")
      .countDocuments({ dedupe_key: `refresh:${users.carol.id}` });
    const refreshes = await Promise.all(Array.from({ length: 12 }, () => call(urls[0], "GET", "/api/data/refresh_pods", "carol")));
    const ids = new Set(refreshes.map((r) => r.body.task_id));
    expect(ids.size).toBe(1);
    expect(
      await db()
        .collection("tasks")
        .countDocuments({ dedupe_key: `refresh:${users.carol.id}` }),
    ).toBe(before + 1);

    const [ep] = await db().collection<{ _id: number }>("episodes").find({}).sort({ _id: 1 }).limit(1).toArray();
    const downloads = await Promise.all(
      Array.from({ length: 12 }, () => call(urls[0], "POST", "/api/data/download_podcast", "dave", { episode_id: ep._id, user_id: users.dave.id })),
    );
    expect(downloads.map((r) => r.status)).toEqual(downloads.map(() => 200));
    expect(
      await db()
        .collection("tasks")
        .countDocuments({ dedupe_key: `episode:${users.dave.id}:${ep._id}` }),
    ).toBe(1);
    slowMs = 0;
  }, 120_000);

  test("gPodder: devices uploading at once through both sync replicas; a device reading `since` meanwhile misses nothing and sees nothing twice", async () => {
    const auth = { Authorization: basic("bob", PASSWORD), "Content-Type": "application/json" };
    const uploaded = new Set<string>();
    const seen: string[] = [];
    let since = 0;
    let running = true;
    const keyOf = (a: { episode: string; device?: string; position?: number }) => `${a.episode}|${a.device}|${a.position}`;
    const read = async () => {
      const res = await fetch(`${urls[0]}/api/2/episodes/bob.json?since=${since}`, { headers: auth });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { actions: any[]; timestamp: number };
      seen.push(...body.actions.map(keyOf));
      since = body.timestamp;
    };
    const reader = (async () => {
      while (running) {
        await read();
        await sleep(20);
      }
    })();
    const device = async (d: number) => {
      for (let n = 0; n < 15; n++) {
        const action = {
          podcast: feedUrl(),
          episode: `${feeds.url}/media/${n}.mp3`,
          device: `phone-${d}`,
          action: "play",
          timestamp: new Date(Date.UTC(2026, 1, 1, 0, d, n)).toISOString().slice(0, 19),
          started: 0,
          position: 100 * d + n,
          total: 600,
        };
        const res = await fetch(`${urls[0]}/api/2/episodes/bob.json`, { method: "POST", headers: auth, body: JSON.stringify([action]) });
        expect(res.status).toBe(200);
        uploaded.add(keyOf(action));
      }
    };
    await Promise.all([1, 2, 3, 4, 5, 6].map(device));
    running = false;
    await reader;
    // A read after every upload was answered: the reader's last one may have begun before the last upload ended.
    await read();
    expect(seen.length).toBe(new Set(seen).size);
    expect(new Set(seen)).toEqual(uploaded);
  }, 120_000);
});

async function waitFor(check: () => Promise<boolean>, ms: number, what = "condition"): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > end) throw new Error(`Timed out waiting for ${what}`);
    await sleep(200);
  }
}
