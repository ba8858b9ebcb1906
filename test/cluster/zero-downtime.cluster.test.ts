/**
 * Zero downtime over NATS, each process as Kubernetes runs it (moleculer-runner, SERVICES=<group>):
 * - a rolling restart of each service group under steady load fails no request. As Kubernetes does it
 *   (maxSurge 1, maxUnavailable 0), the new node starts before the old one stops: a new gateway joins the
 *   round-robin "Service" once ready, then the old one leaves it (preStop) and gets SIGTERM; a one-instance
 *   group on NeDB, which cannot run twice, gets a standby (DATA_LOCK_WAIT) that loads and connects while
 *   the old node serves and takes its data over as soon as it stops, so callers wait only for the hand-over;
 * - a SIGKILLed node loses no write it had accepted (and a key deleted through one gateway is refused
 *   at once by the other, which had it cached), and a SIGKILLed downloads node no job: every accepted
 *   download ends SUCCESS once, after a new node took the jobs over;
 * - NATS itself restarted: the nodes reconnect and requests succeed again within seconds;
 * - the shared Redis cache restarted: no request fails (a cache away is a miss), /api/health says redis
 *   false while it is down and true once the cacher has reconnected.
 * Every node shares one Redis cache (CACHER), as compose and k8s deploy them.
 * Along the way: per-node /ready and /live, the Prometheus metrics of a gateway and its JSON log lines.
 */
import { spawn } from "child_process";
import fs from "fs";
import path from "path";
import { basic } from "../helpers/client";
import { Loopback, startLoopback } from "../helpers/loopback";
import { audioBytes, mediaRoute, waitForTask } from "../helpers/media";
import { rssFeed } from "../helpers/podcasts";
import { startProviders } from "../helpers/providers";
import { tempDir } from "../helpers/server";
import { until } from "../helpers/wait";
import { findNatsServer, freePort, portOpen, Proc, startNats, startNode, startRedis, waitClusterHealthy } from "../helpers/processes";
import { serviceGroups } from "../../shared/service-groups";

const natsBin = findNatsServer();
// NATS is restarted here, so this suite needs a server of its own (NATS_URL is not enough).
const describeCluster = natsBin ? describe : describe.skip;
const groupServices = (name: string) => serviceGroups.find((g) => g.name === name)!.services;
// The groups with NeDB data (each a standby hand-over); a group's services without a file yet are skipped by moleculer-runner.
const STATEFUL_GROUPS = ["accounts", "library", "feeds", "downloads", "search", "sync"];
/** The services of a group that keep NeDB data: each says when it waits as a standby. */
const storeServices = (name: string) =>
  groupServices(name).filter((s) => {
    const file = path.join(__dirname, "..", "..", "services", `${s}.service.ts`);
    return fs.existsSync(file) && /DbMixin\(/.test(fs.readFileSync(file, "utf8"));
  });
const EPISODES = 12;

interface Load {
  /** Statuses so far, in the order the answers came. */
  statuses: number[];
  stop(): Promise<{ statuses: number[]; failures: string[] }>;
}

/** Workers sending requests in turn to the gateways in `targets()` (read per request, like a Service's endpoints). */
let phase = "";
function steadyLoad(targets: () => string[], send: (base: string, i: number) => Promise<Response>, workers = 4): Load {
  const statuses: number[] = [];
  const failures: string[] = [];
  let running = true;
  let n = 0;
  const worker = async () => {
    while (running) {
      const live = targets();
      const i = n++;
      const base = live[i % live.length];
      try {
        const res = await send(base, i);
        statuses.push(res.status);
        const text = await res.text();
        if (res.status !== 200) failures.push(`${res.status} ${text} (${phase})`);
      } catch (err: any) {
        failures.push(`${base}: ${err.cause?.code ?? err.message} (${phase})`);
      }
    }
  };
  const all = Promise.all(Array.from({ length: workers }, worker));
  return { statuses, stop: async () => ((running = false), await all, { statuses, failures }) };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
describeCluster("zero downtime over NATS", () => {
  const procs: Record<string, Proc> = {};
  let nats: Proc;
  let natsPort = 0;
  let redis: Awaited<ReturnType<typeof startRedis>>;
  let common: Record<string, string>;
  const gateways: { name: string; url: string; observed: boolean }[] = [];
  let media: Loopback;
  let providers: Loopback;
  let live: string[] = [];
  let key = "";
  let healthPort = 0;
  let metricsPort = 0;
  let restarts = 0;
  const nodeIds: Record<string, string> = {};
  // The search group's own gateway (search-api on SEARCH_PORT); a new search pod has its own address.
  let searchUrl = "";
  /** phase:group for every read answered 200: each group's restart must have served its own reads. */
  const served = new Set<string>();

  /** A gateway on fresh ports (a new pod has its own address); g1 is observed: JSON logs at info level (one line per request), probes and metrics. */
  const startGateway = async (g: (typeof gateways)[number]) => {
    const port = await freePort();
    g.url = `http://127.0.0.1:${port}`;
    if (g.observed) [healthPort, metricsPort] = [await freePort(), await freePort()];
    const observed = { LOG_FORMAT: "json", LOG_LEVEL: "info", HEALTH_PORT: String(healthPort), METRICS_PORT: String(metricsPort) };
    nodeIds[g.name] = `${g.name}-${++restarts}`;
    procs[g.name] = startNode({ ...common, PORT: String(port), NODE_ID: nodeIds[g.name], ...(g.observed ? observed : {}) }, groupServices("gateway"));
  };
  const startGroup = (name: string, extra: Record<string, string> = {}) =>
    (procs[name] = startNode({ ...common, NODE_ID: `${name}-${++restarts}`, ...extra }, groupServices(name)));
  /** Reads each served by one group: through a gateway, or (search) the search group's own gateway. */
  const ACCOUNTS_LIBRARY_READS = [
    { group: "accounts", url: (g: string) => `${g}/api/data/verify_key` },
    { group: "accounts", url: (g: string) => `${g}/api/data/get_theme/1` },
    { group: "library", url: (g: string) => `${g}/api/data/return_pods/1` },
  ];
  const EVERY_GROUP_READS = [
    ...ACCOUNTS_LIBRARY_READS,
    { group: "feeds", url: (g: string) => `${g}/api/data/fetch_podcast_feed?podcast_feed=${encodeURIComponent(`${media.url}/steady.xml`)}` },
    { group: "downloads", url: (g: string) => `${g}/api/data/download_episode_list?user_id=1` },
    { group: "downloads", url: (g: string) => `${g}/api/tasks/active` },
    { group: "search", url: () => `${searchUrl}/api/stats` },
    { group: "sync", url: (g: string) => `${g}/api/data/get_podsync_settings/1` },
  ];
  const readLoad = (reads = ACCOUNTS_LIBRARY_READS) =>
    steadyLoad(
      () => live,
      async (base, i) => {
        const read = reads[i % reads.length];
        const res = await fetch(read.url(base), { headers: { "Api-Key": key }, signal: AbortSignal.timeout(20_000) });
        if (res.status === 200) served.add(`${phase}:${read.group}`);
        return res;
      },
    );

  beforeAll(async () => {
    const started = await startNats(natsBin!);
    nats = started.proc;
    natsPort = Number(new URL(started.url).port);
    redis = await startRedis();
    providers = await startProviders();
    common = {
      STORE_API_URL: providers.url,
      TRANSPORTER: started.url,
      CACHER: redis.url,
      NAMESPACE: `zd-${process.pid}-${Date.now()}`,
      DATA_DIR: tempDir("podcast-zd-"),
      DOWNLOAD_DIR: tempDir("podcast-zd-files-"),
      HEARTBEAT_INTERVAL: "1",
      HEARTBEAT_TIMEOUT: "3",
      REQUEST_TIMEOUT: "5000",
      TASK_LEASE_SECONDS: "2",
      WORKER_POLL_MS: "200",
      REFRESH_INTERVAL: "0",
      FEED_FETCH_PER_MINUTE: "1000000", // the steady load fetches a feed several times a second
      MAX_USER_KEYS: "100000", // and creates API keys, hundreds: past the default bound of a user's keys (100) they would be refused
    };
    media = await startLoopback();
    media.route("/steady.xml", { body: rssFeed("Steady", [{ title: "s1", guid: "s1", url: `${media.url}/s1.mp3`, date: "2024-01-01T00:00:00Z" }]) });
    gateways.push({ name: "g1", url: "", observed: true }, { name: "g2", url: "", observed: false });
    for (const g of gateways) await startGateway(g);
    const searchPort = await freePort();
    for (const name of STATEFUL_GROUPS) startGroup(name, name === "search" ? { SEARCH_PORT: String(searchPort) } : {});
    searchUrl = `http://127.0.0.1:${searchPort}`;
    live = gateways.map((g) => g.url);
    await waitClusterHealthy(live, procs, ["auth", "users", "podcasts", "episodes", "feeds", "tasks", "downloads", "search", "sync"]);

    const first = await fetch(`${live[0]}/api/data/create_first`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ username: "admin", password: "a long password", email: "a@example.org", fullname: "A" }),
    });
    expect(first.status).toBe(200);
    key = (await (await fetch(`${live[0]}/api/data/get_key`, { headers: { Authorization: basic("admin", "a long password") } })).json()).retrieved_key;
  }, 90_000);

  afterAll(async () => {
    await Promise.all(Object.values(procs).map((p) => p.stop("SIGKILL")));
    await nats?.stop();
    await redis?.proc.stop();
    await media?.close();
    await providers?.close();
  });

  test("per-node probes: /live and /ready answer 200 on a running node, unknown paths 404", async () => {
    expect((await fetch(`http://127.0.0.1:${healthPort}/live`)).status).toBe(200);
    expect(await (await fetch(`http://127.0.0.1:${healthPort}/ready`)).json()).toMatchObject({ status: "ok" });
    expect((await fetch(`http://127.0.0.1:${healthPort}/other`)).status).toBe(404);
  });

  test("rolling restart of every group under steady load: no failed request", async () => {
    const load = readLoad(EVERY_GROUP_READS);
    await sleep(500);
    for (const g of gateways) {
      phase = `restart of ${g.name}`;
      const [old, oldUrl] = [procs[g.name], g.url];
      // Surge: the new pod joins the Service once ready; then the old one leaves it (preStop), gets SIGTERM and drains.
      await startGateway(g);
      await waitClusterHealthy([g.url], procs, ["auth", "users", "podcasts"]);
      live = [...live.filter((u) => u !== oldUrl), g.url];
      await sleep(200);
      expect(await old.stop("SIGTERM")).toBe(0);
    }
    for (const name of STATEFUL_GROUPS) {
      phase = `restart of ${name}`;
      const old = procs[name];
      const searchPort = name === "search" ? await freePort() : 0;
      // The standby has loaded and connected once every store service of it waits for the old node's data.
      startGroup(name, { DATA_LOCK_WAIT: "60", ...(searchPort ? { SEARCH_PORT: String(searchPort) } : {}) });
      const waiting = () =>
        procs[name]
          .output()
          .split("\n")
          .filter((l) => l.includes("Standby: waiting")).length;
      await until(() => waiting() >= storeServices(name).length, 45_000);
      if (searchPort) {
        // The search group's gateway, like the main ones: the new pod joins the Service, then the old one leaves it.
        await until(() => portOpen(searchPort), 10_000);
        searchUrl = `http://127.0.0.1:${searchPort}`;
        await sleep(200);
      }
      expect(await old.stop("SIGTERM")).toBe(0);
      await waitClusterHealthy([live[0]], procs, storeServices(name));
      await sleep(500);
    }
    const { statuses, failures } = await load.stop();
    // The gateways log why a request failed (error name), the clue when this fails.
    if (failures.length)
      for (const g of gateways)
        console.error(
          procs[g.name]
            .output()
            .split("\n")
            .filter((l) => l.includes("request failed"))
            .join("\n"),
        );
    expect(failures).toEqual([]);
    expect(statuses.length).toBeGreaterThan(50);
    // Each group served its own reads while it was being restarted.
    for (const name of STATEFUL_GROUPS) expect(served).toContain(`restart of ${name}:${name}`);
  }, 150_000);

  test("the REPL (npm run repl) attaches from a node's own environment: nodes listed, an action called, an event watched", async () => {
    // The command of `npm run repl` after its build step, run where a node's env is set (kubectl exec): its
    // health port is taken, SERVICES, SERVICEDIR (the image sets it) and NODE_ID name the pod's own; the
    // script must clear them.
    const command = JSON.parse(fs.readFileSync(path.join(__dirname, "..", "..", "package.json"), "utf8"))
      .scripts.repl.split("&&")
      .slice(1)
      .join("&&")
      .trim();
    const bin = path.join(__dirname, "..", "..", "node_modules", ".bin");
    const env = {
      ...process.env,
      ...common,
      PATH: `${bin}:${process.env.PATH}`,
      HEALTH_PORT: String(healthPort),
      METRICS_PORT: String(metricsPort),
      SERVICES: "api",
      SERVICEDIR: "dist/services",
      NODE_ID: nodeIds.g1,
      LOG_LEVEL: "info",
    };
    const repl = spawn("sh", ["-c", command], { cwd: path.join(__dirname, "..", ".."), env, stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    repl.stdout.on("data", (d) => (out += d));
    repl.stderr.on("data", (d) => (out += d));
    // eslint-disable-next-line no-control-regex -- the REPL colours what it prints: its colour codes start with the control character ESC
    const text = () => out.replace(/\u001b\[[0-9;]*m/g, "");
    try {
      await until(() => text().includes("mol $"), 30_000);
      repl.stdin.write("listener add auth.keys_removed\n");
      await until(() => text().includes("listening to event: auth.keys_removed"), 10_000);
      // Once the REPL node has seen the cluster: every group's node is listed.
      await until(
        async () => {
          repl.stdin.write("nodes\n");
          await sleep(300);
          return STATEFUL_GROUPS.every((g) => text().includes(`${g}-`));
        },
        20_000,
        500,
      );
      repl.stdin.write("call users.get_theme --user_id 1\n");
      await until(() => /theme: '(light|dark|auto)'/.test(text()), 10_000);
      // A key deleted broadcasts auth.keys_removed. The other nodes learn of the REPL's listener from its
      // next INFO packet (Moleculer sends it up to a second after a change): delete keys until one is seen.
      const headers = { "Api-Key": key, "Content-Type": "application/json" };
      await until(
        async () => {
          const created = await (
            await fetch(`${live[0]}/api/data/create_api_key`, { method: "POST", headers, body: JSON.stringify({ user_id: 1, rssonly: false }) })
          ).json();
          expect(
            (await fetch(`${live[0]}/api/data/delete_api_key`, { method: "DELETE", headers, body: JSON.stringify({ api_id: created.api_id }) })).status,
          ).toBe(200);
          await sleep(300);
          return text().includes("Event Listener 'auth.keys_removed' received event");
        },
        15_000,
        200,
      );
      // It ran no service of the pod's (at info level they would have logged their start).
      expect(text()).not.toMatch(/Service '(api|users|auth)' started/);
      expect(text()).not.toMatch(/EADDRINUSE/);
    } finally {
      repl.stdin.end("exit\n");
      if (repl.exitCode === null) await new Promise((r) => repl.once("exit", r));
    }
  }, 60_000);

  test("a SIGKILLed accounts node loses no write it had accepted", async () => {
    const accepted: { api_key: string; api_id: number }[] = [];
    const load = steadyLoad(
      () => live,
      async (base) => {
        const res = await fetch(`${base}/api/data/create_api_key`, {
          method: "POST",
          headers: { "Api-Key": key, "Content-Type": "application/json" },
          body: JSON.stringify({ user_id: 1, rssonly: false }),
          signal: AbortSignal.timeout(20_000),
        });
        if (res.status === 200) accepted.push(await res.clone().json());
        return res;
      },
      2,
    );
    await sleep(800);
    await procs.accounts.stop("SIGKILL");
    startGroup("accounts");
    await waitClusterHealthy([gateways[0].url], procs, ["auth", "users"]);
    await sleep(500);
    const { failures } = await load.stop();
    // Calls caught by the kill may fail (503 JSON); none may be a 500, and every 200 must have stuck.
    expect(failures.filter((f) => !f.startsWith("503 "))).toEqual([]);
    expect(accepted.length).toBeGreaterThan(5);
    for (const k of accepted) expect((await fetch(`${live[0]}/api/data/verify_key`, { headers: { "Api-Key": k.api_key } })).status).toBe(200);
    // live[0] has these keys in its cache of key lookups now: a key deleted through the other gateway is refused by it at once.
    const [gone] = accepted;
    const deleted = await fetch(`${live[1]}/api/data/delete_api_key`, {
      method: "DELETE",
      headers: { "Api-Key": key, "Content-Type": "application/json" },
      body: JSON.stringify({ api_id: gone.api_id }),
    });
    expect(deleted.status).toBe(200);
    expect((await fetch(`${live[0]}/api/data/verify_key`, { headers: { "Api-Key": gone.api_key } })).status).toBe(401);
  }, 90_000);

  test("a SIGKILLed downloads node loses no accepted job: each ends SUCCESS once after the takeover", async () => {
    // Slow media (a 64 KiB chunk every 300 ms) keeps jobs running and queued when the node dies.
    const audio = audioBytes(300_000);
    const items = Array.from({ length: EPISODES }, (_, i) => ({
      title: `e${i}`,
      guid: `e${i}`,
      url: `${media.url}/e${i}.mp3`,
      date: `2024-01-${String(i + 1).padStart(2, "0")}T00:00:00Z`,
    }));
    items.forEach((it, i) => media.route(`/e${i}.mp3`, mediaRoute(audio, "audio/mpeg", 300)));
    media.route("/feed.xml", { body: rssFeed("Jobs", items) });
    const call = (base: string, method: string, p: string, body?: unknown) =>
      fetch(`${base}${p}`, {
        method,
        headers: { "Api-Key": key, "Content-Type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(20_000),
      });
    const added = await (
      await call(live[0], "POST", "/api/data/add_podcast", { podcast_values: { pod_feed_url: `${media.url}/feed.xml`, user_id: 1 } })
    ).json();
    let episodes: number[] = [];
    await until(async () => {
      const res = await call(live[0], "GET", `/api/data/podcast_episodes?user_id=1&podcast_id=${added.podcast_id}`);
      episodes = res.status === 200 ? (await res.json()).episodes.map((e: any) => e.episodeid) : [];
      return episodes.length === EPISODES;
    });

    // Each episode asked for in turn, again and again: a repeat answers the same task, or "already downloaded".
    const tasks = new Map<number, Set<string>>();
    const load = steadyLoad(
      () => live,
      async (base, i) => {
        const episode_id = episodes[i % EPISODES];
        const res = await call(base, "POST", "/api/data/download_podcast", { episode_id, user_id: 1 });
        const body = res.status === 200 ? await res.clone().json() : null;
        if (body?.task_id) tasks.set(episode_id, (tasks.get(episode_id) ?? new Set()).add(body.task_id));
        return res;
      },
      2,
    );
    phase = "downloads node killed";
    // Killed with jobs queued and a file half sent: each file takes at least 1.2 s, so one asked for
    // under 0.6 s ago is still being fetched (a RUNNING task alone may not have asked yet).
    await until(async () => {
      const res = await call(live[0], "GET", "/api/tasks/active");
      const statuses: string[] = res.status === 200 ? (await res.json()).map((t: any) => t.status) : [];
      const fetching = media.requests.some((r) => r.url.endsWith(".mp3") && Date.now() - r.at < 600);
      return statuses.includes("PENDING") && fetching;
    });
    await procs.downloads.stop("SIGKILL");
    startGroup("downloads");
    await waitClusterHealthy([live[0]], procs, ["tasks", "downloads"]);
    await sleep(1000);
    const { failures } = await load.stop();
    // Calls caught by the kill may answer 503 (not accepted); nothing else may fail.
    expect(failures.filter((f) => !f.startsWith("503 "))).toEqual([]);
    // A call answered 503 may still have run on the dead node: its job, once done, answers "already downloaded".
    for (const episode_id of episodes) {
      const res = await call(live[0], "POST", "/api/data/download_podcast", { episode_id, user_id: 1 });
      expect(res.status).toBe(200);
      const { task_id } = await res.json();
      if (task_id) tasks.set(episode_id, (tasks.get(episode_id) ?? new Set()).add(task_id));
    }
    expect(tasks.size).toBeGreaterThan(0);
    for (const ids of tasks.values()) expect(ids.size).toBe(1);
    for (const ids of tasks.values()) expect(await waitForTask(live[0], key, [...ids][0], 45_000)).toMatchObject({ status: "SUCCESS", progress: 100 });
    const list = await (await call(live[0], "GET", "/api/data/download_episode_list?user_id=1")).json();
    const downloaded = list.downloaded_episodes.map((d: any) => d.episodeid).sort((x: number, y: number) => x - y);
    expect(downloaded).toEqual([...episodes].sort((x, y) => x - y));
    for (const d of list.downloaded_episodes) expect(fs.readFileSync(d.downloadedlocation).equals(audio)).toBe(true);
    // The jobs cut off by the kill were fetched again by the new node.
    expect(media.requests.filter((r) => r.url.endsWith(".mp3")).length).toBeGreaterThan(EPISODES);
  }, 90_000);

  test("NATS restarted: requests succeed again within seconds", async () => {
    const load = readLoad();
    await sleep(500);
    await nats.stop();
    await sleep(1000);
    nats = (await startNats(natsBin!, natsPort)).proc;
    const back = Date.now();
    let recoveredAfter = -1;
    while (Date.now() - back < 20_000) {
      const res = await fetch(`${live[0]}/api/data/verify_key`, { headers: { "Api-Key": key } }).catch(() => null);
      if (res?.status === 200) {
        recoveredAfter = Date.now() - back;
        break;
      }
      await sleep(100);
    }
    // Calls caught while NATS was away may still be answered (503) after it is back (the last in flight when
    // the load stops among them): within 15 s of the recovery, 20 answers in a row must be 200.
    const settled = Date.now();
    const cleanRun = () => load.statuses.length >= 20 && load.statuses.slice(-20).every((s) => s === 200);
    while (Date.now() - settled < 15_000 && !cleanRun()) await sleep(200);
    const clean = cleanRun();
    const { statuses, failures } = await load.stop();
    expect(recoveredAfter).toBeGreaterThanOrEqual(0);
    expect(recoveredAfter).toBeLessThan(10_000);
    // While NATS was away a call could only wait (retried) or answer 503; once it is back, nothing fails.
    expect(failures.filter((f) => !f.startsWith("503 "))).toEqual([]);
    expect({ clean, last: statuses.slice(-40), failures: failures.slice(-5) }).toMatchObject({ clean: true });
  }, 60_000);

  test("the search service's cached answers are shared: a new search node answers from the cache the killed one filled", async () => {
    const search = (q: string) => fetch(`${searchUrl}/api/search?query=${q}&index=store`, { signal: AbortSignal.timeout(10_000) });
    const hits = () => providers.requests.filter((r) => r.url.startsWith("/search")).length;
    expect((await search("cached")).status).toBe(200);
    const before = hits();
    await procs.search.stop("SIGKILL");
    const searchPort = await freePort();
    startGroup("search", { SEARCH_PORT: String(searchPort) });
    searchUrl = `http://127.0.0.1:${searchPort}`;
    await waitClusterHealthy([live[0]], procs, storeServices("search"));
    await until(() => portOpen(searchPort), 10_000);
    expect((await search("cached")).status).toBe(200);
    expect(hits()).toBe(before);
    expect((await search("uncached")).status).toBe(200);
    expect(hits()).toBe(before + 1);
  }, 60_000);

  test("Redis restarted under steady load: no request fails, health says redis false while it is down, true after", async () => {
    const load = readLoad(EVERY_GROUP_READS);
    await sleep(500);
    await redis.proc.stop();
    const health = async () => (await (await fetch(`${live[0]}/api/health`)).json()).redis;
    await until(async () => (await health()) === false, 5_000, 100);
    await sleep(1500);
    redis = await startRedis(redis.port);
    await until(async () => (await health()) === true, 10_000, 100);
    await sleep(1000);
    const { statuses, failures } = await load.stop();
    expect(failures).toEqual([]);
    expect(statuses.length).toBeGreaterThan(20);
  }, 60_000);

  test("the observed gateway logged JSON lines and exposes per-route and per-action Prometheus metrics", async () => {
    const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    expect(metrics).toMatch(/api_request_total\{[^}]*method="GET",route="\/api\/data\/verify_key",status="200"\} \d+/);
    expect(metrics).toMatch(/api_request_time_bucket\{[^}]*route="\/api\/data\/get_theme\/:user_id"/);
    expect(metrics).toMatch(/moleculer_request_total\{[^}]*action="auth.resolve_key"/);
    // Node's own warnings go to stderr, which output() merges in; they are not log lines.
    const lines = procs.g1
      .output()
      .split("\n")
      .filter((l) => l.trim() && !/^\((node:\d+|Use `node)/.test(l));
    expect(lines.length).toBeGreaterThan(10);
    expect(
      lines.filter((l) => {
        try {
          JSON.parse(l);
          return false;
        } catch {
          return true;
        }
      }),
    ).toEqual([]);
    expect(lines.some((l) => JSON.parse(l).msg.startsWith("request"))).toBe(true);
  });
});
