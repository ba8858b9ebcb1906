/**
 * Listening benchmark (issue 8): a generated library of 500 podcasts and 200,000 episodes, one user
 * subscribed to all of them with a year of history (20,000 rows), saves, a queue of 200 and the system
 * playlists (when the queue and playlists services are present). Prints start-up time, RSS, store
 * sizes, then p50 / p99 latency and throughput of the listening reads, first with every service in
 * this process (embedded), then with the services in a child process over a NATS server started here
 * (the ratio NATS / embedded). Not a test: it asserts nothing.
 *
 *   npm run build && node --expose-gc dist/bench/listening.bench.js [podcasts] [episodes per podcast] [history rows]
 *   (env BENCH_CALLS: calls per operation, default 100; BENCH_OPS: a regex of the operations to run; BENCH_NATS=0: embedded only)
 */
import { ChildProcess, fork, spawn } from "child_process";
import fs from "fs";
import net from "net";
import os from "os";
import path from "path";
import v8 from "v8";
import { ServiceBroker, type ServiceSchema } from "moleculer";
import { config } from "../shared/config";
import type { EpisodesThis } from "../services/episodes.parts/this";

const SERVICE_DIR = path.join(__dirname, "..", "services");
const WORDS = ["climate", "history", "science", "music", "startup", "health", "football", "cooking", "space", "economy", "design", "privacy"];
const DAY = 86_400_000;
/** Sequential calls per operation (p50 / p99), then the same number with CONCURRENCY in flight (throughput). */
const CALLS = Number(process.env.BENCH_CALLS ?? 100);
const CONCURRENCY = 8;
/** Seconds without a heartbeat before a node counts as dead: a busy services node must not look dead mid-run. */
const HEARTBEAT_TIMEOUT = 300;

const mb = (n: number) => (n / 1024 / 1024).toFixed(0);

/** Every service but the gateways: the bench calls actions the way the gateway does, with ctx.meta.user. */
function schemas(): ServiceSchema[] {
  return fs
    .readdirSync(SERVICE_DIR)
    .filter((f) => f.endsWith(".service.js") && !/^(api|search-api)\.service\.js$/.test(f))
    .sort()
    .map((f) => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- each built service file by a path read at run time, loaded synchronously
      const mod = require(path.join(SERVICE_DIR, f)) as ServiceSchema & { default?: ServiceSchema };
      return mod.default ?? mod;
    });
}

async function brokerWith(services: ServiceSchema[], transporter: string | null, nodeID: string): Promise<ServiceBroker> {
  const brokerConfig = (await import("../moleculer.config")).default;
  const broker = new ServiceBroker({ ...brokerConfig, transporter, logger: false, nodeID });
  for (const s of services) broker.createService(s);
  await broker.start();
  return broker;
}

/**
 * The peak RSS of each phase of the run: sampled every 100 ms, and the kernel's high-water mark (VmHWM,
 * reset at each phase through /proc/self/clear_refs), which also sees a peak inside a synchronous stretch
 * that no timer can sample. The peak is what a container's memory limit meets, not a reading after a GC.
 */
class RssPeaks {
  readonly rows: { phase: string; sampled: number; hwm: number }[] = [];
  private phase: string | null = null;
  private max = 0;
  private timer = setInterval(() => (this.max = Math.max(this.max, process.memoryUsage.rss())), 100).unref();

  /** Closes the current phase (if any) and opens `phase`. */
  start(phase: string | null): void {
    const now = process.memoryUsage.rss();
    if (this.phase !== null) this.rows.push({ phase: this.phase, sampled: Math.max(this.max, now), hwm: highWaterMark() });
    this.phase = phase;
    this.max = now;
    try {
      fs.writeFileSync("/proc/self/clear_refs", "5");
    } catch {
      // Not Linux: the sampled figure only.
    }
  }

  stop(): void {
    this.start(null);
    clearInterval(this.timer);
  }
}

/** The process's peak RSS since the last reset, in bytes (0 where /proc is missing). */
function highWaterMark(): number {
  try {
    return Number(/VmHWM:\s+(\d+) kB/.exec(fs.readFileSync("/proc/self/status", "utf8"))?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

const peaks = new RssPeaks();

function rss(): number {
  global.gc?.();
  return process.memoryUsage().rss;
}

/** A seeded generator, so every run builds the same library. */
function random(seed: number) {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

/** A store written in bulk by the bench (the db mixin's adapter and stores). */
interface BulkStore {
  insertMany(docs: object[]): Promise<unknown>;
}
/**
 * What the bench reaches into the services for: their stores, and the episodes service's in-memory indexes,
 * which moleculer's Service type (what getLocalService answers) leaves out.
 */
interface PodcastsInternals {
  adapter: BulkStore;
  stores: { subscriptions: BulkStore };
}
type EpisodesInternals = Pick<EpisodesThis, "catalog" | "loadCatalog" | "statesChanged" | "userStates"> & {
  adapter: BulkStore;
  stores: { episode_states: BulkStore };
};

async function generate(broker: ServiceBroker, pods: number, perPodcast: number, historyRows: number) {
  const rnd = random(42);
  const pick = <T>(list: T[]) => list[Math.floor(rnd() * list.length)];
  const first = await broker.call<{ user_id: number }, object>("users.create_first", {
    username: "listener",
    password: "a long password",
    email: "listener@example.org",
    fullname: "Listener",
  });
  const user_id: number = first.user_id;
  const podcasts = broker.getLocalService("podcasts") as unknown as PodcastsInternals;
  const episodes = broker.getLocalService("episodes") as unknown as EpisodesInternals;
  const now = Date.now();
  const podDocs: object[] = [];
  const subDocs: object[] = [];
  for (let p = 1; p <= pods; p++) {
    podDocs.push({
      _id: p,
      feed_key: `bench-${p}`,
      feed_url: `https://feeds.test/${p}.xml`,
      final_url: null,
      username: null,
      password: null,
      title: `Podcast ${p} about ${pick(WORDS)}`,
      description: `A show about ${pick(WORDS)} and ${pick(WORDS)}.`,
      author: `Host ${p}`,
      owner_email: null,
      artwork_url: `https://img.test/${p}.jpg`,
      website_url: null,
      language: "en",
      explicit: false,
      categories: [pick(WORDS)],
      podcast_index_id: null,
      last_build_date: null,
      p20: {},
      etag: null,
      last_modified: null,
      content_hash: "x",
      last_fetched_at: null,
      episode_count: perPodcast,
      last_episode_date: null,
      created_at: new Date(now),
    });
    subDocs.push({
      _id: p,
      key: `${user_id}:${p}`,
      user_id,
      podcast_id: p,
      subscribed_date: new Date(now - p * 60_000),
      feed_cutoff_days: 0,
      auto_download: false,
      notifications_enabled: false,
      categories: null,
      overrides: {},
    });
  }
  await podcasts.adapter.insertMany(podDocs);
  await podcasts.stores.subscriptions.insertMany(subDocs);
  let id = 0;
  for (let p = 1; p <= pods; p++) {
    const batch: object[] = [];
    for (let n = 0; n < perPodcast; n++) {
      id++;
      batch.push({
        _id: id,
        podcast_id: p,
        guid: `g-${id}`,
        enclosure_key: `https://media.test/${p}/${n}.mp3`,
        title: `Episode ${n} of podcast ${p}: ${pick(WORDS)} and ${pick(WORDS)}`,
        description: `In this episode we talk about ${pick(WORDS)}, ${pick(WORDS)} and ${pick(WORDS)}. `.repeat(3),
        pub_date: new Date(now - (perPodcast - n) * 2 * DAY + p * 1000),
        duration: 300 + Math.floor(rnd() * 7000),
        enclosure_url: `https://media.test/${p}/${n}.mp3`,
        enclosure_type: "audio/mpeg",
        enclosure_length: 1_000_000,
        artwork: null,
        link: null,
        author: null,
        explicit: false,
        season: null,
        episode: n,
        episode_type: "full",
        p20: {},
        created_at: new Date(now),
      });
    }
    await episodes.adapter.insertMany(batch);
  }
  const total = id;
  const chosen = new Set<number>();
  while (chosen.size < Math.min(historyRows, total)) chosen.add(1 + Math.floor(rnd() * total));
  const states = [...chosen].map((episode_id) => ({
    _id: `${user_id}:${episode_id}`,
    user_id,
    episode_id,
    podcast_id: Math.ceil(episode_id / perPodcast),
    listen_duration: Math.floor(rnd() * 3000),
    completed: rnd() < 0.6,
    saved: rnd() < 0.02,
    saved_at: new Date(now - rnd() * 365 * DAY),
    last_listened_at: new Date(now - rnd() * 365 * DAY),
  }));
  for (let i = 0; i < states.length; i += 5000) await episodes.stores.episode_states.insertMany(states.slice(i, i + 5000));
  // Written straight into the stores (fast), so the episodes service's in-memory indexes are told.
  await episodes.loadCatalog();
  await episodes.statesChanged(user_id, null);
  const meta = { user: { id: user_id, isAdmin: false, keyId: 0, rssOnly: false, podcastIds: null } };
  if (broker.getLocalService("queue")) {
    const ids = Array.from({ length: 200 }, (_, i) => total - i * 7);
    await broker.call("queue.bulk_add", { user_id, episode_ids: ids }, { meta });
  }
  return { user_id, total, meta };
}

interface Op {
  name: string;
  action: string;
  /** The same params on every call, or new ones per call (n counts the calls). */
  params: object | ((n: number) => object);
  /** A write before each call (not timed in the latency runs; part of the throughput runs). */
  before?: (broker: ServiceBroker, n: number) => Promise<unknown>;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** Sequential latency (p50 / p99) and throughput with CONCURRENCY calls in flight. */
async function measure(broker: ServiceBroker, ops: Op[], meta: object): Promise<Map<string, { p50: number; p99: number; perSecond: number }>> {
  const out = new Map<string, { p50: number; p99: number; perSecond: number }>();
  for (const op of ops) {
    // Over NATS the peaks that matter are the services process's (it reports its own).
    if (!broker.transit) peaks.start(op.name);
    let n = 0;
    const call = () => broker.call(op.action, typeof op.params === "function" ? op.params(n++) : op.params, { meta });
    for (let i = 0; i < 5; i++) await call();
    const times: number[] = [];
    const cpu: number[] = [];
    for (let i = 0; i < CALLS; i++) {
      await op.before?.(broker, i);
      const t = process.hrtime.bigint();
      const c = process.cpuUsage();
      await call();
      times.push(Number(process.hrtime.bigint() - t) / 1e6);
      const used = process.cpuUsage(c);
      cpu.push((used.user + used.system) / 1000);
    }
    times.sort((a, b) => a - b);
    cpu.sort((a, b) => a - b);
    let left = CALLS;
    const start = process.hrtime.bigint();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (left-- > 0) {
          await op.before?.(broker, left);
          await call();
        }
      }),
    );
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    out.set(op.name, { p50: percentile(times, 50), p99: percentile(times, 99), perSecond: CALLS / seconds });
    // This process's CPU time per call: on a shared machine wall time mostly measures the others.
    console.log(
      `  ${op.name}: wall p50 ${percentile(times, 50).toFixed(1)} ms, p99 ${percentile(times, 99).toFixed(1)} ms; this process's CPU p50 ${percentile(cpu, 50).toFixed(1)} ms, p99 ${percentile(cpu, 99).toFixed(1)} ms; ${(CALLS / seconds).toFixed(0)}/s`,
    );
  }
  return out;
}

/**
 * What the process's memory is made of, right after a full GC and again 2 s later (V8 hands the pages a
 * GC freed back to the system in the background, so RSS right after a run still counts them).
 */
async function memory(): Promise<string> {
  const now = process.memoryUsage.rss();
  rss();
  await new Promise((r) => setTimeout(r, 2000));
  rss();
  const m = process.memoryUsage();
  return `RSS ${mb(now)} MB, settled ${mb(m.rss)} MB (V8 heap ${mb(m.heapUsed)} MB used of ${mb(m.heapTotal)} MB, buffers ${mb(m.external)} MB)`;
}

/** Heap used after a full GC (run with --expose-gc). */
function heap(): number {
  rss();
  return process.memoryUsage().heapUsed;
}

/**
 * What each in-memory index of the episodes service costs, rebuilt alone on the loaded data (time, heap):
 * the catalogue and one user's cached states (the store's own indexes live in its files).
 */
async function indexCosts(episodes: EpisodesInternals, user_id: number) {
  const { CatalogIndex } = await import("../services/episodes.parts/catalog-index");
  episodes.catalog = new CatalogIndex();
  let before = heap();
  let t0 = Date.now();
  await episodes.loadCatalog();
  console.log(`  episodes catalogue (${episodes.catalog.size} rows): built in ${Date.now() - t0} ms, heap +${mb(heap() - before)} MB`);
  await episodes.statesChanged(user_id, null);
  before = heap();
  t0 = Date.now();
  const states = await episodes.userStates(user_id);
  console.log(`  cached states of the user (${states.byEpisode.size}): read in ${Date.now() - t0} ms, heap +${mb(heap() - before)} MB`);
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

async function waitForPort(port: number) {
  for (let i = 0; i < 100; i++) {
    const open = await new Promise<boolean>((r) => {
      const s = net
        .connect(port, "127.0.0.1")
        .once("connect", () => (s.destroy(), r(true)))
        .once("error", () => r(false));
    });
    if (open) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("nats-server did not start");
}

/** Child mode: generates the library in dataDir and sends back what the calls need. */
async function generateIn(dataDir: string, pods: number, perPodcast: number, historyRows: number) {
  config.dataDir = dataDir;
  config.refreshInterval = 0;
  const broker = await brokerWith(schemas(), null, "bench-generate");
  const lib = await generate(broker, pods, perPodcast, historyRows);
  await broker.stop();
  process.send?.(lib, () => process.exit(0));
}

/** Child mode: every service on the generated data, over NATS. */
async function serve(dataDir: string, nats: string) {
  config.dataDir = dataDir;
  config.refreshInterval = 0;
  config.heartbeatTimeout = HEARTBEAT_TIMEOUT;
  const broker = await brokerWith(schemas(), nats, `bench-services-${process.pid}`);
  const startup = Math.max(highWaterMark(), process.memoryUsage.rss());
  peaks.start("runs");
  process.send?.({ ready: true, memory: `${await memory()}; peak RSS ${mb(startup)} MB` });
  const finish = async () => {
    peaks.stop();
    const runs = peaks.rows[0];
    process.send?.({ memory: `${await memory()}; peak RSS during the runs ${mb(Math.max(runs.sampled, runs.hwm))} MB (sampled ${mb(runs.sampled)} MB)` });
    await broker.stop();
    process.exit(0);
  };
  process.on("message", () => void finish());
}

async function main() {
  const [pods, perPodcast, historyRows] = [Number(process.argv[2] ?? 500), Number(process.argv[3] ?? 400), Number(process.argv[4] ?? 20_000)];
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "listening-bench-"));
  config.dataDir = dataDir;
  config.refreshInterval = 0;
  config.heartbeatTimeout = HEARTBEAT_TIMEOUT;
  console.log(
    `listening benchmark: ${pods} podcasts x ${perPodcast} episodes, ${historyRows} history rows; ${os.cpus().length} CPUs, node ${process.version} (V8 heap limit ${mb(v8.getHeapStatistics().heap_size_limit)} MB, flags: ${process.execArgv.join(" ") || "none"}), store in ${dataDir}`,
  );

  let t = Date.now();
  // In a child process, so the embedded server below starts in a process that holds nothing of the generation.
  const generator = fork(__filename, ["generate", dataDir, String(pods), String(perPodcast), String(historyRows)], { execArgv: ["--expose-gc"] });
  const lib: Awaited<ReturnType<typeof generate>> = await new Promise((resolve, reject) => {
    generator.once("message", resolve);
    generator.once("exit", (code) => reject(new Error(`generation exited with ${code}`)));
  });
  console.log(`generated ${lib.total} episodes in ${((Date.now() - t) / 1000).toFixed(1)} s`);
  for (const f of fs
    .readdirSync(dataDir)
    .filter((n) => n.endsWith(".sqlite"))
    .sort()) {
    const size = fs.statSync(path.join(dataDir, f)).size;
    if (size > 100_000) console.log(`  ${f.padEnd(28)} ${mb(size)} MB on disk`);
  }

  const before = rss();
  peaks.start("embedded start-up");
  t = Date.now();
  const broker = await brokerWith(schemas(), null, "bench-embedded");
  const startup = Date.now() - t;
  console.log(
    `embedded start-up (stores opened, catalogue built): ${(startup / 1000).toFixed(1)} s; RSS before ${mb(before)} MB, after: ${await memory()}; load average ${os.loadavg()[0].toFixed(1)}`,
  );
  peaks.start("index costs (rebuilt by this bench)");
  await indexCosts(broker.getLocalService("episodes") as unknown as EpisodesInternals, lib.user_id);

  const { user_id, meta } = lib;
  const ops: Op[] = [
    { name: "user_history (page of 50)", action: "episodes.user_history", params: { user_id, limit: 50 } },
    { name: "user_history (search)", action: "episodes.user_history", params: { user_id, limit: 50, search: "climate" } },
    { name: "saved_episode_list", action: "episodes.saved_episode_list", params: { user_id, limit: 50 } },
    { name: "get_stats", action: "episodes.get_stats", params: { user_id } },
    { name: "home_overview", action: "episodes.home_overview", params: { user_id } },
    { name: "search_data (page of 50)", action: "episodes.search_data", params: { user_id, search_term: "climate", limit: 50 } },
    // A term not searched before on every call: the scan of every title and description, not the kept matches.
    { name: "search_data (new term)", action: "episodes.search_data", params: (n: number) => ({ user_id, search_term: `podcast ${n + 1}:`, limit: 50 }) },
  ];
  if (broker.getLocalService("queue")) ops.push({ name: "get_queued_episodes (200)", action: "queue.get_queued_episodes", params: { user_id } });
  if (broker.getLocalService("playlists")) {
    type Listed = { playlist_id: number }[];
    const lists = await broker.call<{ playlists?: Listed; data?: Listed }, object>("playlists.get_playlists", { user_id }, { meta });
    const first = (lists.playlists ?? lists.data ?? [])[0];
    if (first) {
      const params = { user_id, playlist_id: first.playlist_id, limit: 50 };
      ops.push({ name: "get_playlist_episodes (50)", action: "playlists.get_playlist_episodes", params });
      // A position recorded before each read: the user's kept playlist orders are stale, so each read works its playlist out.
      const listen = (b: ServiceBroker, n: number) =>
        b.call("episodes.update_state", { user_id, episode_id: 1 + (n % 1000), listen_duration: n + 1 }, { meta });
      ops.push({ name: "get_playlist_episodes (after a write)", action: "playlists.get_playlist_episodes", params, before: listen });
    }
  }
  // BENCH_OPS=<regex> measures only the matching operations (for profiling one of them).
  if (process.env.BENCH_OPS) ops.splice(0, ops.length, ...ops.filter((o) => new RegExp(process.env.BENCH_OPS!).test(o.name)));
  const embedded = await measure(broker, ops, meta);
  peaks.start("after the runs");
  console.log(`embedded, after the runs: ${await memory()}`);
  await broker.stop();
  peaks.start(null);
  console.log("\nembedded peak RSS per phase (sampled every 100 ms / kernel high-water mark):");
  for (const p of peaks.rows) console.log(`  ${p.phase.padEnd(48)} ${mb(p.sampled).padStart(6)} MB / ${mb(p.hwm).padStart(6)} MB`);

  let natsRows: Map<string, { p50: number; p99: number; perSecond: number }> | null = null;
  const natsBin = ["/usr/sbin/nats-server", "/usr/bin/nats-server", "/usr/local/bin/nats-server"].find((p) => fs.existsSync(p));
  if (natsBin && process.env.BENCH_NATS !== "0") {
    const port = await freePort();
    const nats: ChildProcess = spawn(natsBin, ["-a", "127.0.0.1", "-p", String(port)], { stdio: "ignore" });
    await waitForPort(port);
    const url = `nats://127.0.0.1:${port}`;
    const services = fork(__filename, ["serve", dataDir, url], { execArgv: process.execArgv });
    const ready = await new Promise<{ memory: string }>((r) => services.once("message", r));
    console.log(`over NATS: services process after start-up: ${ready.memory}`);
    const caller = await brokerWith([], url, "bench-caller");
    try {
      await caller.waitForServices(["episodes", "podcasts", "users"]);
      natsRows = await measure(caller, ops, meta);
    } finally {
      await caller.stop();
      const after = new Promise<{ memory: string }>((r) => services.once("message", r));
      services.send("stop");
      const mem = await after;
      console.log(`over NATS: services process after the runs: ${mem.memory}`);
      await new Promise((r) => services.once("exit", r));
      nats.kill();
    }
  } else {
    console.log("over NATS: skipped (BENCH_NATS=0 or no nats-server binary)");
  }

  console.log(
    `\n${"operation".padEnd(38)} ${"embedded p50/p99 ms".padStart(20)} ${"/s".padStart(7)}   ${"NATS p50/p99 ms".padStart(16)} ${"/s".padStart(7)}  NATS/embedded`,
  );
  for (const op of ops) {
    const e = embedded.get(op.name)!;
    const n = natsRows?.get(op.name);
    const cell = (r: { p50: number; p99: number }) => `${r.p50.toFixed(1)} / ${r.p99.toFixed(1)}`;
    console.log(
      `${op.name.padEnd(38)} ${cell(e).padStart(20)} ${e.perSecond.toFixed(0).padStart(7)}   ${n ? cell(n).padStart(16) : "-".padStart(16)} ${n ? n.perSecond.toFixed(0).padStart(7) : "-".padStart(7)}  ${n ? `${((n.perSecond / e.perSecond) * 100).toFixed(0)}%` : "-"}`,
    );
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
}

if (process.argv[2] === "serve") void serve(process.argv[3], process.argv[4]);
else if (process.argv[2] === "generate") void generateIn(process.argv[3], ...(process.argv.slice(4, 7).map(Number) as [number, number, number]));
else
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
