/**
 * Gateway benchmark (issue 13): two authenticated reads with an Api-Key, GET /api/data/get_theme/{id}
 * and GET /api/data/get_queued_episodes with 200 queued episodes, under autocannon (32 connections) against
 *   (a) a bare node:http handler doing the same work: sha256 of the key, a cache of key lookups, the
 *       ownership check and the NeDB reads (the user; the queue and the 200 episodes it names);
 *   (b) the embedded server (every service in one process, as `npm start`);
 *   (c) over NATS: the gateway, the accounts, library and feeds groups in separate processes;
 *   (c redis) the same over NATS with the shared Redis cacher as compose and k8s deploy it (CACHER=redis://,
 *       a redis-server started here), beside (c) with each node's memory cacher, measured in turns with it;
 *   (d) two gateway processes behind the same NATS (two autocannon runs at once, 16 connections each).
 * (a) and (b) are measured in turns over several rounds, and so is a floor pair that does no work (node:http
 * and a moleculer-web gateway answering a constant: what the framework alone costs per request).
 * Every server runs in its own process; autocannon runs in this one. Prints requests/s, p99, the server
 * processes' CPU time per request and the ratios b/a, c/b, d/c per read. Not a test: it asserts nothing.
 *
 *   npm run build && node dist/bench/gateway.bench.js [seconds] [--profile] [--read=theme|queue]
 * --profile runs (b) and (c)'s gateway under --cpu-prof and prints where their CPU time went, by package;
 * --read measures one of the two reads only (a profile of that read alone).
 * --serializers=JSON,CBOR runs (c) once per moleculer serializer (SERIALIZER), a cluster each on the same NATS,
 * measured in turns like (a) and (b), instead of (c) and (d): the ratios are against the first serializer.
 */
import { spawn } from "child_process";
import crypto from "crypto";
import fs from "fs";
import http from "http";
import os from "os";
import path from "path";
import autocannon from "autocannon";
import type Nedb from "@seald-io/nedb";
import type { BrokerOptions, ServiceBroker, ServiceSchema } from "moleculer";
import { serviceGroups } from "../shared/service-groups";
import { cpuMsOf, freePort, login, node, procs, profileSummary, server, stop, stopAll, waitOk, waitReady } from "./kit";

const ROOT = path.resolve(__dirname, "..", "..");
const CONNECTIONS = 32;
const QUEUED = 200;
const READS = { theme: "/api/data/get_theme/1", queue: "/api/data/get_queued_episodes?user_id=1" };
type Read = keyof typeof READS;
const group = (name: string) => serviceGroups.find((g) => g.name === name)!.services.join(",");

/** cpuMs: CPU time (user + system) of every server process of the setup per request, in ms. */
interface Result {
  rps: number;
  p99: number;
  errors: number;
  non2xx: number;
  total: number;
  cpuMs: number;
  cpuMsByPid: number[];
}

/** An episode of get_queued_episodes' answer, as (a) stores and answers it: the fields it reads, and the rest as they came. */
type QueuedEpisode = { episodeid: number; queuedate: string; queueposition: number; queued: boolean; downloaded: boolean } & Record<string, unknown>;

/** A loopback feed of QUEUED episodes, served by this process. */
function feedServer(port: number) {
  const items = Array.from(
    { length: QUEUED },
    (_, i) =>
      `<item><title>Episode ${i + 1}</title><guid>ep-${i + 1}</guid><description>Episode ${i + 1} of the bench feed</description>` +
      `<pubDate>${new Date(Date.UTC(2024, 0, 1) + i * 86_400_000).toUTCString()}</pubDate><itunes:duration>1800</itunes:duration>` +
      `<enclosure url="http://127.0.0.1:${port}/ep-${i + 1}.mp3" length="1000" type="audio/mpeg"/></item>`,
  ).join("");
  const rss = `<?xml version="1.0"?><rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel><title>Bench</title><link>http://127.0.0.1/</link><description>Bench feed</description>${items}</channel></rss>`;
  return http.createServer((_req, res) => res.writeHead(200, { "Content-Type": "application/rss+xml" }).end(rss)).listen(port, "127.0.0.1");
}

/** Subscribes user 1 to the bench feed and queues its QUEUED episodes, through the API. */
async function seedQueue(base: string, key: string, feedUrl: string) {
  const call = <T>(method: string, p: string, body?: unknown) =>
    fetch(`${base}${p}`, {
      method,
      headers: { "Api-Key": key, "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    }).then(async (r) => {
      if (r.status !== 200) throw new Error(`${method} ${p}: ${r.status} ${await r.text()}`);
      return r.json() as Promise<T>;
    });
  const { podcast_id } = await call<{ podcast_id: number }>("POST", "/api/data/add_podcast", { podcast_values: { pod_feed_url: feedUrl, user_id: 1 } });
  // The import may finish after add_podcast answers: wait for every episode.
  let episodes: { episodeid: number }[] = [];
  for (const end = Date.now() + 60_000; episodes.length < QUEUED && Date.now() < end; await new Promise((r) => setTimeout(r, 200))) {
    episodes = (await call<{ episodes: { episodeid: number }[] }>("GET", `/api/data/podcast_episodes?user_id=1&podcast_id=${podcast_id}`)).episodes;
  }
  for (const e of episodes) await call("POST", "/api/data/queue_pod", { user_id: 1, episode_id: e.episodeid });
  const queued = (await call<{ data: QueuedEpisode[] }>("GET", READS.queue)).data;
  if (queued.length !== QUEUED) throw new Error(`queue holds ${queued.length} episodes, not ${QUEUED}`);
  return queued;
}

function cannon(url: string, key: string, seconds: number, connections = CONNECTIONS): Promise<Result> {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections, duration: seconds, headers: { "Api-Key": key } }, (err: Error | null, r) =>
      err
        ? reject(err)
        : resolve({
            rps: r.requests.average,
            p99: r.latency.p99,
            errors: r.errors + r.timeouts,
            non2xx: r.non2xx,
            total: r.requests.total,
            cpuMs: 0,
            cpuMsByPid: [],
          }),
    );
  });
}

/** CPU per request since `before`, of all the processes and of each. */
function cpuPerRequest(pids: number[], before: number[], requests: number): { cpuMs: number; cpuMsByPid: number[] } {
  const cpuMsByPid = pids.map((pid, i) => (cpuMsOf([pid]) - before[i]) / Math.max(requests, 1));
  return { cpuMs: cpuMsByPid.reduce((sum, ms) => sum + ms, 0), cpuMsByPid };
}

/** A short warm-up, then the measured run; `pids` are the setup's server processes. */
async function measure(urls: string[], key: string, seconds: number, pids: number[]): Promise<Result> {
  await Promise.all(urls.map((u) => cannon(u, key, 2, CONNECTIONS / urls.length)));
  const cpuBefore = pids.map((pid) => cpuMsOf([pid]));
  const rs = await Promise.all(urls.map((u) => cannon(u, key, seconds, CONNECTIONS / urls.length)));
  const total = rs.reduce((s, r) => s + r.total, 0);
  return {
    rps: rs.reduce((s, r) => s + r.rps, 0),
    p99: Math.max(...rs.map((r) => r.p99)),
    errors: rs.reduce((s, r) => s + r.errors, 0),
    non2xx: rs.reduce((s, r) => s + r.non2xx, 0),
    total,
    ...cpuPerRequest(pids, cpuBefore, total),
  };
}

/** The round with the median requests/s (its p99 with it), and the round with the median CPU per request (its split by process). */
function median(rounds: Result[]): Result {
  const mid = <T>(xs: T[], by: (x: T) => number) => [...xs].sort((x, y) => by(x) - by(y))[Math.floor(xs.length / 2)];
  const byCpu = mid(rounds, (r) => r.cpuMs);
  return { ...mid(rounds, (r) => r.rps), cpuMs: byCpu.cpuMs, cpuMsByPid: byCpu.cpuMsByPid };
}

/**
 * (a): the same work with nothing but node:http and NeDB, in its own process (this file with --bare).
 * queueFile holds the queue that (b) answered: its episodes become the store's documents, so that both
 * send the same bodies.
 */
function bareServer(port: number, key: string, queueFile: string) {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded in the --bare process only, as its CommonJS export (the class itself)
  const Datastore = require("@seald-io/nedb") as typeof Nedb;
  type StoredEpisode = { _id: number; user_id: number } & Record<string, unknown>;
  const [users, queues, episodes] = [
    new Datastore<{ _id: number; username: string; settings: { theme: string } }>({ inMemoryOnly: true }),
    new Datastore<{ _id: number; items: { episode_id: number; queued_at: string }[] }>({ inMemoryOnly: true }),
    new Datastore<StoredEpisode>({ inMemoryOnly: true }),
  ];
  const keys = new Map([[crypto.hash("sha256", key, "hex"), { id: 1, isAdmin: true }]]);
  const cache = new Map<string, { user: { id: number; isAdmin: boolean } | null; until: number }>();
  const queued = JSON.parse(fs.readFileSync(queueFile, "utf8")) as QueuedEpisode[];
  // Stored without the queue's own fields (each answer adds them back, in queue order).
  const queueFields = new Set(["queueposition", "queuedate", "queued", "downloaded"]);
  episodes.insert(queued.map((e) => ({ ...Object.fromEntries(Object.entries(e).filter(([k]) => !queueFields.has(k))), _id: e.episodeid, user_id: 1 })));
  queues.insert({ _id: 1, items: queued.map((e) => ({ episode_id: e.episodeid, queued_at: e.queuedate })) });
  /** The queue document, then its episodes in one $in read, joined in queue order. */
  const queueOf = (userId: number, send: (status: number, body: unknown) => void) =>
    queues.findOne({ _id: userId }, (err, doc) => {
      if (err || !doc) return send(200, { data: [] });
      episodes.find({ _id: { $in: doc.items.map((i) => i.episode_id) } }, (err2: Error | null, docs: StoredEpisode[]) => {
        if (err2) return send(500, { error: "internal" });
        // The rest of each document without _id and user_id, by a rest pattern: this is (a)'s measured path, kept as it was.
        const byId = new Map(docs.map(({ _id, user_id: _u, ...e }) => [_id, e] as const));
        send(200, {
          data: doc.items.map((i, n) => ({ ...byId.get(i.episode_id), queueposition: n + 1, queuedate: i.queued_at, queued: true, downloaded: false })),
        });
      });
    });
  users.insert({ _id: 1, username: "bench", settings: { theme: "dark" } }, () => {
    http
      .createServer((req, res) => {
        const url = new URL(req.url || "/", "http://x");
        const m = /^\/api\/data\/get_theme\/(\d+)$/.exec(url.pathname);
        const hash = crypto.hash("sha256", String(req.headers["api-key"] || ""), "hex"); // as shared/secrets.ts
        let hit = cache.get(hash);
        if (!hit || hit.until < Date.now()) cache.set(hash, (hit = { user: keys.get(hash) ?? null, until: Date.now() + 60_000 }));
        const send = (status: number, body: unknown) => {
          res.writeHead(status, { "Content-Type": "application/json; charset=utf-8" });
          res.end(JSON.stringify(body));
        };
        const isQueue = url.pathname === "/api/data/get_queued_episodes";
        if (!m && !isQueue) return send(404, { error: "not_found" });
        if (!hit.user) return send(401, { error: "unauthorized" });
        const id = Number(isQueue ? url.searchParams.get("user_id") : m![1]);
        if (id !== hit.user.id && !hit.user.isAdmin) return send(403, { error: "forbidden" });
        if (isQueue) return queueOf(id, send);
        users.findOne({ _id: id }, (err, doc) => (err || !doc ? send(404, { error: "not_found" }) : send(200, { theme: doc.settings.theme })));
      })
      .listen(port, "127.0.0.1");
  });
}

/**
 * The floor pair, no work at all: node:http answering a constant (--floor-bare), and a moleculer-web gateway
 * with this project's broker options (moleculer.config.ts: validator, tracking, retries, breaker, the
 * ownership middleware) calling one action that answers the same constant (--floor-moleculer). Their ratio is
 * what the framework alone leaves of a bare handler's rate, whatever the handler does.
 */
function floorServer(port: number, framework: boolean) {
  const body = JSON.stringify({ theme: "dark" });
  if (!framework) {
    http.createServer((_req, res) => res.writeHead(200, { "Content-Type": "application/json; charset=utf-8" }).end(body)).listen(port, "127.0.0.1");
    return;
  }
  // Loaded here, in the --floor-moleculer process only: the node:http floor's process must not carry moleculer.
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded lazily, in one of the processes only (above) */
  const { ServiceBroker: Broker } = require("moleculer") as { ServiceBroker: typeof ServiceBroker };
  const ApiGateway = require("moleculer-web") as ServiceSchema;
  const options = require(path.join(ROOT, "dist", "moleculer.config.js")) as BrokerOptions;
  /* eslint-enable @typescript-eslint/no-require-imports */
  const broker = new Broker({ ...options, transporter: null, logger: false });
  broker.createService({
    name: "users",
    actions: { get_theme: { params: { user_id: { type: "number", convert: true } }, handler: () => ({ theme: "dark" }) } },
  });
  // Configured as services/api.service.ts configures moleculer-web: no route logging, no breaker on api.rest.
  broker.createService({
    name: "api",
    mixins: [ApiGateway],
    actions: { rest: { circuitBreaker: { enabled: false } } },
    settings: {
      port,
      ip: "127.0.0.1",
      logRequest: null,
      logResponse: null,
      routes: [
        { path: "/", mappingPolicy: "restrict", autoAliases: false, logging: false, aliases: { "GET /api/data/get_theme/:user_id": "users.get_theme" } },
      ],
    },
  });
  void broker.start();
}

const fmt = (r: Result) =>
  `${Math.round(r.rps).toString().padStart(6)} req/s  p99 ${String(r.p99).padStart(4)} ms  CPU ${r.cpuMs.toFixed(3)} ms${r.errors || r.non2xx ? ` (${r.errors} err, ${r.non2xx} non-2xx)` : ""}`;
/** (a) and (b) are measured in turns, this many rounds each, and their median kept: load from elsewhere hits both alike. */
const ROUNDS = 3;

async function main() {
  const seconds = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 10);
  const profile = process.argv.includes("--profile");
  const only = process.argv.find((a) => a.startsWith("--read="))?.slice("--read=".length);
  const reads = (Object.keys(READS) as Read[]).filter((r) => !only || r === only);
  const serializers =
    process.argv
      .find((a) => a.startsWith("--serializers="))
      ?.slice("--serializers=".length)
      .split(",") ?? [];
  const natsBin = ["/usr/sbin/nats-server", "/usr/bin/nats-server", process.env.NATS_SERVER_BIN].find((p) => p && fs.existsSync(p));
  const redisBin = ["/usr/bin/redis-server", "/usr/sbin/redis-server", process.env.REDIS_SERVER_BIN].find((p) => p && fs.existsSync(p));
  const results: Record<string, Partial<Record<Read, Result>>> = {
    a: {},
    b: {},
    c: {},
    "c redis": {},
    d: {},
    ...Object.fromEntries(serializers.map((s) => [`c ${s}`, {}])),
  };
  const profiles: string[] = [];
  const temp = () => fs.mkdtempSync(path.join(os.tmpdir(), "gateway-bench-"));
  const feedPort = await freePort();
  const feed = feedServer(feedPort);
  const feedUrl = `http://127.0.0.1:${feedPort}/feed.xml`;
  // The bench feed is on loopback.
  const allow = { OUTBOUND_ALLOW_PRIVATE: "127.0.0.1/32", REFRESH_INTERVAL: "0" };
  /** Both reads against the gateways at `bases`, one after the other. */
  const measureReads = async (bases: string[], key: string, pids: number[], into: Partial<Record<Read, Result>>) => {
    for (const read of reads)
      into[read] = await measure(
        bases.map((b) => `${b}${READS[read]}`),
        key,
        seconds,
        pids,
      );
  };
  console.log(
    `With an Api-Key: GET ${READS.theme} and GET ${READS.queue} (${QUEUED} queued), autocannon ${CONNECTIONS} connections, ${seconds} s per run, ${os.cpus().length} cores\n`,
  );

  // (b) embedded, first: it also makes the key and the queue that (a) serves.
  const profDir = temp();
  const bPort = await freePort();
  const b = server({ ...allow, PORT: String(bPort), DATA_DIR: temp(), TRANSPORTER: "", ...(profile ? { CPU_PROF_DIR: profDir } : {}) });
  const bUrl = `http://127.0.0.1:${bPort}`;
  await waitReady(bUrl);
  const key = await login(bUrl);
  const queueFile = path.join(temp(), "queue.json");
  fs.writeFileSync(queueFile, JSON.stringify(await seedQueue(bUrl, key, feedUrl)));
  const aPort = await freePort();
  const a = node([__filename, "--bare", String(aPort), key, queueFile], {});
  const aUrl = `http://127.0.0.1:${aPort}`;
  await waitOk(`${aUrl}/`, (status) => status > 0); // listening
  const rounds: Record<"a" | "b", Partial<Record<Read, Result>>[]> = { a: [], b: [] };
  for (let i = 0; i < ROUNDS; i++) {
    await measureReads([aUrl], key, [a.pid!], (rounds.a[i] = {}));
    await measureReads([bUrl], key, [b.pid!], (rounds.b[i] = {}));
  }
  for (const k of ["a", "b"] as const) for (const read of reads) results[k][read] = median(rounds[k].map((r) => r[read]!));
  await stop(a);
  await stop(b);
  // The floor pair on the theme's URL, also in turns.
  const [f0Port, f1Port] = [await freePort(), await freePort()];
  const floors = [node([__filename, "--floor-bare", String(f0Port)], {}), node([__filename, "--floor-moleculer", String(f1Port)], {})];
  const floorUrls = [f0Port, f1Port].map((p) => `http://127.0.0.1:${p}${READS.theme}`);
  for (const u of floorUrls) await waitOk(u);
  const floorRounds: Result[][] = [[], []];
  for (let i = 0; i < ROUNDS; i++) for (const f of [0, 1]) floorRounds[f].push(await measure([floorUrls[f]], key, seconds, [floors[f].pid!]));
  const [floorBare, floorMoleculer] = floorRounds.map(median);
  for (const f of floors) await stop(f);
  if (profile) profiles.push(`(b) embedded:\n${profileSummary(profDir)}`);

  if (natsBin) {
    const natsPort = await freePort();
    const nats = spawn(natsBin, ["-a", "127.0.0.1", "-p", String(natsPort)], { stdio: "ignore" });
    procs.push(nats);
    const env = { ...allow, TRANSPORTER: `nats://127.0.0.1:${natsPort}` };
    /** A gateway and the service groups on the NATS, with their own data, logged in and seeded. */
    const cluster = async (namespace: string, extra: Record<string, string>, gatewayEnv: Record<string, string> = {}) => {
      const clusterEnv = { ...env, ...extra, DATA_DIR: temp(), NAMESPACE: namespace };
      const url = `http://127.0.0.1:${await freePort()}`;
      const gateway = server({ ...clusterEnv, PORT: new URL(url).port, NODE_ID: `gw-1-${namespace}`, ...gatewayEnv }, "api");
      // add_podcast needs feeds.fetch_feed; the downloads group is there for an import run as a job.
      const nodes = ["accounts", "library", "feeds", "downloads"].map((name) => server({ ...clusterEnv, NODE_ID: `${name}-${namespace}` }, group(name)));
      await waitReady(url);
      const clusterKey = await login(url);
      await seedQueue(url, clusterKey, feedUrl);
      // CPU per request counts NATS and every node of the cluster.
      return { env: clusterEnv, url, gateway, key: clusterKey, pids: [nats.pid!, ...nodes.map((n) => n.pid!)] };
    };
    if (serializers.length) {
      // One cluster per serializer, all up at once and measured in turns: the neighbours' load hits them alike.
      const clusters: Awaited<ReturnType<typeof cluster>>[] = [];
      for (const s of serializers) clusters.push(await cluster(`bench-${s.toLowerCase()}`, { SERIALIZER: s }));
      const sRounds = serializers.map(() => [] as Partial<Record<Read, Result>>[]);
      for (let i = 0; i < ROUNDS; i++) {
        for (const [j, c] of clusters.entries()) await measureReads([c.url], c.key, [...c.pids, c.gateway.pid!], (sRounds[j][i] = {}));
      }
      serializers.forEach((s, j) => {
        for (const read of reads) results[`c ${s}`][read] = median(sRounds[j].map((r) => r[read]!));
      });
    } else {
      const cProfDir = temp();
      const c = await cluster("bench", {}, profile ? { CPU_PROF_DIR: cProfDir } : {});
      if (redisBin) {
        // The same cluster with the Redis cacher, measured in turns with (c): the neighbours' load hits them alike.
        const redisPort = await freePort();
        const redis = spawn(redisBin, ["--bind", "127.0.0.1", "--port", String(redisPort), "--save", "", "--appendonly", "no"], { stdio: "ignore" });
        procs.push(redis);
        const cr = await cluster("bench-redis", { CACHER: `redis://127.0.0.1:${redisPort}` });
        const cRounds: Record<"c" | "c redis", Partial<Record<Read, Result>>[]> = { c: [], "c redis": [] };
        for (let i = 0; i < ROUNDS; i++) {
          await measureReads([c.url], c.key, [...c.pids, c.gateway.pid!], (cRounds.c[i] = {}));
          await measureReads([cr.url], cr.key, [...cr.pids, cr.gateway.pid!, redis.pid!], (cRounds["c redis"][i] = {}));
        }
        for (const k of ["c", "c redis"] as const) for (const read of reads) results[k][read] = median(cRounds[k].map((r) => r[read]!));
        await stop(cr.gateway);
      } else {
        console.log("No redis-server binary: (c redis) is skipped.");
        await measureReads([c.url], c.key, [...c.pids, c.gateway.pid!], results.c);
      }
      const g2 = `http://127.0.0.1:${await freePort()}`;
      let gw1b = c.gateway;
      if (profile) {
        await stop(c.gateway); // writes its profile; a fresh gw-1 joins for (d)
        profiles.push(`(c)'s gateway:\n${profileSummary(cProfDir)}`);
        gw1b = server({ ...c.env, PORT: new URL(c.url).port, NODE_ID: "gw-1b" }, "api");
      }
      const gw2 = server({ ...c.env, PORT: new URL(g2).port, NODE_ID: "gw-2" }, "api");
      for (const g of [c.url, g2]) await waitReady(g);
      await measureReads([c.url, g2], c.key, [...c.pids, gw1b.pid!, gw2.pid!], results.d);
    }
  } else {
    console.log("No nats-server binary: (c) and (d) are skipped.");
  }
  feed.close();

  const names: Record<string, string> = {
    a: "(a) bare node:http",
    b: "(b) embedded",
    c: "(c) over NATS",
    "c redis": "(c) NATS, Redis cacher",
    d: "(d) 2 gateways, NATS",
    ...Object.fromEntries(serializers.map((s) => [`c ${s}`, `(c) NATS, ${s}`])),
  };
  const cell = (r?: Result) => (r ? fmt(r) : "").padEnd(52);
  console.log(`(a) and (b): median of ${ROUNDS} rounds taken in turns; CPU: the setup's server processes' CPU time per request\n`);
  console.log(`${"".padEnd(22)} ${"get_theme".padEnd(52)} get_queued_episodes (${QUEUED})`);
  for (const k of Object.keys(results))
    if (reads.some((r) => results[k][r])) console.log(`${names[k].padEnd(22)} ${cell(results[k].theme)} ${cell(results[k].queue)}`);
  const ratio = (x: string, y: string, goal: string) => {
    // Requests/s, and in brackets the same ratio by CPU per request (y's CPU / x's).
    const r = (read: Read) => {
      const [rx, ry] = [results[x][read], results[y][read]];
      return rx && ry ? `${(rx.rps / ry.rps).toFixed(2)} (CPU ${(ry.cpuMs / rx.cpuMs).toFixed(2)})` : "-";
    };
    if (r("theme") === "-" && r("queue") === "-") return;
    console.log(`${`${x}/${y}`.padEnd(22)} ${r("theme").padEnd(52)} ${r("queue").padEnd(52)} (goal ${goal})`);
  };
  console.log("");
  ratio("b", "a", ">= 0.70");
  console.log(
    `${"floor".padEnd(22)} ${`${(floorMoleculer.rps / floorBare.rps).toFixed(2)} (CPU ${(floorBare.cpuMs / floorMoleculer.cpuMs).toFixed(2)})`.padEnd(52)} ` +
      `moleculer-web + broker options, constant answer: ${Math.round(floorMoleculer.rps)} req/s, CPU ${floorMoleculer.cpuMs.toFixed(3)} ms; node:http: ${Math.round(floorBare.rps)} req/s, CPU ${floorBare.cpuMs.toFixed(3)} ms`,
  );
  ratio("c", "b", ">= 0.50");
  // Where (c)'s CPU goes: the processes in the order measureReads got them.
  const cNames = ["NATS", "accounts", "library", "feeds", "downloads", "gateway"];
  for (const read of reads) {
    const r = results.c[read];
    if (r) console.log(`${"".padEnd(22)} (c) ${read} by process, ms a request: ${r.cpuMsByPid.map((ms, i) => `${cNames[i]} ${ms.toFixed(3)}`).join(", ")}`);
  }
  ratio("c redis", "c", "the shared cache's cost: close to 1");
  ratio("d", "c", ">= 1.6 when the machine has the cores");
  for (const s of serializers) ratio(`c ${s}`, "b", ">= 0.50");
  for (const s of serializers.slice(1)) ratio(`c ${s}`, `c ${serializers[0]}`, "CPU >= 1.10");
  if (profile) console.log(`\nWhere the CPU time went (self time by package, idle left out)\n${profiles.join("\n")}`);
}

if (process.argv[2] === "--bare") {
  bareServer(Number(process.argv[3]), process.argv[4], process.argv[5]);
} else if (process.argv[2] === "--floor-bare" || process.argv[2] === "--floor-moleculer") {
  floorServer(Number(process.argv[3]), process.argv[2] === "--floor-moleculer");
} else {
  main()
    .catch((err) => {
      console.error(err);
      process.exitCode = 1;
    })
    .finally(stopAll);
}
