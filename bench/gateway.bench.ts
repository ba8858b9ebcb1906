/**
 * Gateway benchmark (issue 13): an authenticated read, GET /api/data/get_theme/{id} with an Api-Key,
 * under autocannon (32 connections) against
 *   (a) a bare node:http handler doing the same work: sha256 of the key, a cache of key lookups, the
 *       ownership check and one NeDB read;
 *   (b) the embedded server (every service in one process, as `npm start`);
 *   (c) over NATS: the gateway and the accounts group in separate processes;
 *   (d) two gateway processes behind the same NATS (two autocannon runs at once, 16 connections each).
 * Every server runs in its own process; autocannon runs in this one. Prints requests/s, p99 and the
 * ratios b/a, c/b, d/c. Not a test: it asserts nothing.
 *
 *   npm run build && node dist/bench/gateway.bench.js [seconds] [--profile]
 * --profile runs (b) and (c)'s gateway under --cpu-prof and prints where their CPU time went, by package.
 */
import { ChildProcess, spawn } from "child_process";
import crypto from "crypto";
import fs from "fs";
import http from "http";
import net from "net";
import os from "os";
import path from "path";

// eslint-disable-next-line @typescript-eslint/no-var-requires
const autocannon = require("autocannon"); // ships no types

const ROOT = path.resolve(__dirname, "..", "..");
const RUNNER = path.join(ROOT, "node_modules", "moleculer", "bin", "moleculer-runner.js");
const CONNECTIONS = 32;

interface Result { rps: number; p99: number; errors: number; non2xx: number }

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

const procs: ChildProcess[] = [];
function node(args: string[], env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, LOG_LEVEL: "warn", ...env }, stdio: ["ignore", "inherit", "inherit"] });
  procs.push(child);
  return child;
}
function server(env: Record<string, string>, services?: string): ChildProcess {
  const args = [...(env.CPU_PROF_DIR ? ["--cpu-prof", `--cpu-prof-dir=${env.CPU_PROF_DIR}`] : []), RUNNER, "--config", "dist/moleculer.config.js"];
  if (!services) args.push("dist/services");
  return node(args, services ? { ...env, SERVICEDIR: "dist/services", SERVICES: services } : env);
}
async function stop(child: ChildProcess) {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  await exited;
}

async function waitOk(url: string, accept: (status: number) => boolean = (status) => status === 200, timeoutMs = 60_000) {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    const ok = await fetch(url).then((r) => accept(r.status), () => false);
    if (ok) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} did not answer`);
}

/** The first admin and a key for it, through the API. */
async function login(base: string): Promise<string> {
  await fetch(`${base}/api/data/create_first`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ username: "bench", password: "bench password", email: "b@example.org", fullname: "B" }) });
  const res = await fetch(`${base}/api/data/get_key`, { headers: { Authorization: "Basic " + Buffer.from("bench:bench password").toString("base64") } });
  return ((await res.json()) as { retrieved_key: string }).retrieved_key;
}

function cannon(url: string, key: string, seconds: number, connections = CONNECTIONS): Promise<Result> {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections, duration: seconds, headers: { "Api-Key": key } }, (err: any, r: any) =>
      err ? reject(err) : resolve({ rps: r.requests.average, p99: r.latency.p99, errors: r.errors + r.timeouts, non2xx: r.non2xx }));
  });
}

/** A short warm-up, then the measured run. */
async function measure(urls: string[], key: string, seconds: number): Promise<Result> {
  await Promise.all(urls.map((u) => cannon(u, key, 2, CONNECTIONS / urls.length)));
  const rs = await Promise.all(urls.map((u) => cannon(u, key, seconds, CONNECTIONS / urls.length)));
  return { rps: rs.reduce((s, r) => s + r.rps, 0), p99: Math.max(...rs.map((r) => r.p99)), errors: rs.reduce((s, r) => s + r.errors, 0), non2xx: rs.reduce((s, r) => s + r.non2xx, 0) };
}

/** (a): the same work with nothing but node:http and NeDB, in its own process (this file with --bare). */
function bareServer(port: number, key: string) {
  // eslint-disable-next-line @typescript-eslint/no-var-requires
  const Datastore = require("@seald-io/nedb");
  const users = new Datastore({ inMemoryOnly: true });
  const keys = new Map([[crypto.createHash("sha256").update(key).digest("hex"), { id: 1, isAdmin: true }]]);
  const cache = new Map<string, { user: any; until: number }>();
  users.insert({ _id: 1, username: "bench", settings: { theme: "dark" } }, () => {
    http.createServer((req, res) => {
      const m = /^\/api\/data\/get_theme\/(\d+)$/.exec(req.url || "");
      const hash = crypto.createHash("sha256").update(String(req.headers["api-key"] || "")).digest("hex");
      let hit = cache.get(hash);
      if (!hit || hit.until < Date.now()) cache.set(hash, (hit = { user: keys.get(hash) ?? null, until: Date.now() + 60_000 }));
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { "Content-Type": "application/json; charset=utf-8" });
        res.end(JSON.stringify(body));
      };
      if (!m) return send(404, { error: "not_found" });
      if (!hit.user) return send(401, { error: "unauthorized" });
      const id = Number(m[1]);
      if (id !== hit.user.id && !hit.user.isAdmin) return send(403, { error: "forbidden" });
      users.findOne({ _id: id }, (err: any, doc: any) => (err || !doc ? send(404, { error: "not_found" }) : send(200, { theme: doc.settings.theme })));
    }).listen(port, "127.0.0.1");
  });
}

/** Self time of a --cpu-prof profile, by package (node_modules/<pkg>), our code, or Node itself. */
function profileSummary(dir: string): string {
  const file = fs.readdirSync(dir).filter((f) => f.endsWith(".cpuprofile")).map((f) => path.join(dir, f))[0];
  if (!file) return "(no profile written)";
  const prof = JSON.parse(fs.readFileSync(file, "utf8"));
  const byId = new Map<number, any>(prof.nodes.map((n: any) => [n.id, n]));
  const self = new Map<string, number>();
  const dt = new Map<number, number>();
  prof.samples.forEach((id: number, i: number) => dt.set(id, (dt.get(id) ?? 0) + (prof.timeDeltas[i] ?? 0)));
  for (const [id, us] of dt) {
    const { url, functionName } = byId.get(id).callFrame;
    if (functionName === "(idle)" || functionName === "(program)") continue; // not this process's work
    const pkg = /node_modules\/((@[^/]+\/)?[^/]+)/.exec(url)?.[1];
    const where = pkg ?? (url.includes("/dist/") ? "ours (dist/)" : url ? "node internals" : `(${functionName || "native"})`);
    self.set(where, (self.get(where) ?? 0) + us);
  }
  const total = [...self.values()].reduce((s, v) => s + v, 0);
  return [...self.entries()].sort((x, y) => y[1] - x[1]).slice(0, 12).map(([k, v]) => `    ${((100 * v) / total).toFixed(1).padStart(5)}%  ${k}`).join("\n");
}

const fmt = (r: Result) => `${Math.round(r.rps).toString().padStart(6)} req/s  p99 ${String(r.p99).padStart(4)} ms${r.errors || r.non2xx ? `  (${r.errors} errors, ${r.non2xx} non-2xx)` : ""}`;

async function main() {
  const seconds = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 10);
  const profile = process.argv.includes("--profile");
  const natsBin = ["/usr/sbin/nats-server", "/usr/bin/nats-server", process.env.NATS_SERVER_BIN].find((p) => p && fs.existsSync(p));
  const results: Record<string, Result> = {};
  const profiles: string[] = [];
  const temp = () => fs.mkdtempSync(path.join(os.tmpdir(), "gateway-bench-"));
  console.log(`GET /api/data/get_theme/1 with an Api-Key, autocannon ${CONNECTIONS} connections, ${seconds} s per run, ${os.cpus().length} cores\n`);

  // (b) embedded, first: it also makes the key that (a) accepts.
  const profDir = temp();
  const bPort = await freePort();
  const b = server({ PORT: String(bPort), DATA_DIR: temp(), TRANSPORTER: "", ...(profile ? { CPU_PROF_DIR: profDir } : {}) });
  const bUrl = `http://127.0.0.1:${bPort}`;
  await waitOk(`${bUrl}/api/health`);
  const key = await login(bUrl);
  results.b = await measure([`${bUrl}/api/data/get_theme/1`], key, seconds);
  await stop(b);
  if (profile) profiles.push(`(b) embedded:\n${profileSummary(profDir)}`);

  const aPort = await freePort();
  const a = node([__filename, "--bare", String(aPort), key], {});
  await waitOk(`http://127.0.0.1:${aPort}/`, (status) => status > 0); // listening
  results.a = await measure([`http://127.0.0.1:${aPort}/api/data/get_theme/1`], key, seconds);
  await stop(a);

  if (natsBin) {
    const natsPort = await freePort();
    procs.push(spawn(natsBin, ["-a", "127.0.0.1", "-p", String(natsPort)], { stdio: "ignore" }));
    const env = { TRANSPORTER: `nats://127.0.0.1:${natsPort}`, DATA_DIR: temp(), NAMESPACE: "bench" };
    const [g1, g2] = [await freePort(), await freePort()];
    const cProfDir = temp();
    const gw1 = server({ ...env, PORT: String(g1), NODE_ID: "gw-1", ...(profile ? { CPU_PROF_DIR: cProfDir } : {}) }, "api");
    server({ ...env, NODE_ID: "accounts" }, "users,auth,oidc,notifications");
    await waitOk(`http://127.0.0.1:${g1}/api/health`);
    const natsKey = await login(`http://127.0.0.1:${g1}`);
    results.c = await measure([`http://127.0.0.1:${g1}/api/data/get_theme/1`], natsKey, seconds);
    if (profile) {
      await stop(gw1); // writes its profile; a fresh gw-1 joins for (d)
      profiles.push(`(c)'s gateway:\n${profileSummary(cProfDir)}`);
      server({ ...env, PORT: String(g1), NODE_ID: "gw-1b" }, "api");
    }
    server({ ...env, PORT: String(g2), NODE_ID: "gw-2" }, "api");
    for (const p of [g1, g2]) await waitOk(`http://127.0.0.1:${p}/api/health`);
    results.d = await measure([g1, g2].map((p) => `http://127.0.0.1:${p}/api/data/get_theme/1`), natsKey, seconds);
  } else {
    console.log("No nats-server binary: (c) and (d) are skipped.");
  }

  const names: Record<string, string> = { a: "(a) bare node:http", b: "(b) embedded", c: "(c) over NATS", d: "(d) 2 gateways, NATS" };
  for (const k of ["a", "b", "c", "d"]) if (results[k]) console.log(`${names[k].padEnd(22)} ${fmt(results[k])}`);
  const ratio = (x: string, y: string, goal: string) => results[x] && results[y] && console.log(`${x}/${y} = ${(results[x].rps / results[y].rps).toFixed(2)}  (goal ${goal})`);
  console.log("");
  ratio("b", "a", ">= 0.70");
  ratio("c", "b", ">= 0.50");
  ratio("d", "c", ">= 1.6 when the machine has the cores");
  if (profile) console.log(`\nWhere the CPU time went (self time by package, idle left out)\n${profiles.join("\n")}`);
}

if (process.argv[2] === "--bare") {
  bareServer(Number(process.argv[3]), process.argv[4]);
} else {
  main()
    .catch((err) => {
      console.error(err);
      process.exitCode = 1;
    })
    .finally(async () => {
      // The nodes first, NATS (started before them) last: nodes would log its disappearance.
      for (const p of procs.reverse()) await stop(p);
    });
}
