/**
 * Process-level test helpers: the compiled server (dist/) started with moleculer-runner exactly as
 * `npm start` and the Kubernetes pods do, and a nats-server and a redis-server of the suite's own on free
 * ports. Also compiled into dist/ for the benchmarks that run a cluster (bench/kill.bench.ts).
 */
import { ChildProcess, execFileSync, spawn } from "child_process";
import fs from "fs";
import net from "net";
import path from "path";

// The project root from test/helpers or from its compiled copy in dist/test/helpers.
const ROOT = path.resolve(__dirname, "..", "..", ...(path.basename(path.resolve(__dirname, "..", "..")) === "dist" ? [".."] : []));
const RUNNER = path.join(ROOT, "node_modules", "moleculer", "bin", "moleculer-runner.js");

export function ensureBuilt() {
  if (!fs.existsSync(path.join(ROOT, "dist", "moleculer.config.js"))) {
    execFileSync(process.execPath, [path.join(ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", ROOT], { stdio: "inherit" });
  }
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
    srv.on("error", reject);
  });
}

async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs = 30_000) {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`Timed out waiting for ${what}`);
}

export function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = net.connect(port, "127.0.0.1");
    sock.once("connect", () => {
      sock.destroy();
      resolve(true);
    });
    sock.once("error", () => resolve(false));
  });
}

export interface Proc {
  child: ChildProcess;
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

function track(child: ChildProcess): Proc {
  let out = "";
  child.stdout?.on("data", (d) => (out += d));
  child.stderr?.on("data", (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return {
    child,
    output: () => out,
    async stop(signal = "SIGTERM") {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** A server binary: its env override, then Debian's /usr/sbin and /usr/bin, then PATH. */
function findBinary(name: string, override: string | undefined): string | null {
  const candidates = [override, `/usr/sbin/${name}`, `/usr/bin/${name}`, `/usr/local/bin/${name}`];
  try {
    candidates.push(execFileSync("sh", ["-c", `command -v ${name}`], { encoding: "utf8" }).trim());
  } catch {
    /* not on PATH */
  }
  return candidates.find((c) => c && fs.existsSync(c)) || null;
}

/** The nats-server binary: NATS_SERVER_BIN, then Debian's, then PATH. */
export function findNatsServer(): string | null {
  return findBinary("nats-server", process.env.NATS_SERVER_BIN);
}

/** A nats-server on a free port, or on reusePort (a restart of one that was stopped). */
export async function startNats(bin: string, reusePort?: number): Promise<{ url: string; proc: Proc }> {
  const port = reusePort ?? (await freePort());
  // NATS's own defaults, as the deployment files run it: max_payload 1 MB (large calls travel in pieces).
  const proc = track(spawn(bin, ["-a", "127.0.0.1", "-p", String(port)], { stdio: ["ignore", "pipe", "pipe"] }));
  await waitFor(() => portOpen(port), `nats-server on port ${port}`);
  return { url: `nats://127.0.0.1:${port}`, proc };
}

/**
 * A redis-server of the suite's own on a free loopback port (or reusePort, a restart of one that was
 * stopped), without persistence: the shared cache of a cluster as compose and k8s deploy it
 * (CACHER=redis://...), with no key shared with anything else on the machine. There is no skip: the
 * cluster tests run with Redis as deployed, and .ci/run installs Debian's redis-server where missing.
 */
export async function startRedis(reusePort?: number): Promise<{ url: string; port: number; proc: Proc }> {
  const bin = findBinary("redis-server", process.env.REDIS_SERVER_BIN);
  if (!bin) throw new Error("No redis-server binary (install Debian's redis-server, as .ci/run does, or set REDIS_SERVER_BIN)");
  const port = reusePort ?? (await freePort());
  const proc = track(spawn(bin, ["--bind", "127.0.0.1", "--port", String(port), "--save", "", "--appendonly", "no"], { stdio: ["ignore", "pipe", "pipe"] }));
  await waitFor(() => portOpen(port), `redis-server on port ${port}`);
  return { url: `redis://127.0.0.1:${port}`, port, proc };
}

/**
 * One node of the server: moleculer-runner with the given services (all of them when omitted).
 * shellPrelude runs in a shell that then execs node, so `$$` in it is the node process's own pid.
 */
export function startNode(env: Record<string, string>, services?: string[], shellPrelude?: string): Proc {
  // Loopback feeds of the tests are open to normal users, as startServer does; the search gateway takes a
  // free loopback port unless a test names one (5000 may be in use on this machine).
  const childEnv: Record<string, string> = {
    ...(process.env as Record<string, string>),
    LOG_LEVEL: "warn",
    OUTBOUND_ALLOW_PRIVATE: "127.0.0.1/32",
    SEARCH_PORT: "0",
    SEARCH_HOST: "127.0.0.1",
    ...env,
  };
  const args = [RUNNER, "--config", path.join(ROOT, "dist", "moleculer.config.js")];
  if (services) {
    childEnv.SERVICEDIR = path.join(ROOT, "dist", "services");
    childEnv.SERVICES = services.join(",");
  } else {
    args.push(path.join(ROOT, "dist", "services"));
  }
  const [cmd, argv] = shellPrelude ? ["/bin/sh", ["-c", `${shellPrelude}\nexec "$0" "$@"`, process.execPath, ...args]] : [process.execPath, args];
  return track(spawn(cmd, argv, { cwd: ROOT, env: childEnv, stdio: ["ignore", "pipe", "pipe"] }));
}

/**
 * Waits until the gateway answers /api/health with 200 (every store reachable) and, in a cluster, until
 * the services with a store that the test expects have joined.
 */
export async function waitHealthy(url: string, timeoutMs = 30_000, services: string[] = []) {
  await waitFor(
    async () => {
      const res = await fetch(`${url}/api/health`);
      if (res.status !== 200) return false;
      const body = (await res.json()) as { services: string[] };
      return services.every((s) => body.services.includes(s));
    },
    `${url}/api/health`,
    timeoutMs,
  );
}

/**
 * The peers of a cluster suite, as compose and k8s deploy them: the transporter (NATS_URL when set, else a
 * nats-server of the suite's own) and the shared cache (a redis-server of the suite's own). `env` goes
 * into every node's environment; stop() ends what was started here.
 */
export async function clusterPeers(
  natsBin: string | null,
): Promise<{ env: { TRANSPORTER: string; CACHER: string }; redis: { url: string; port: number; proc: Proc }; stop(): Promise<void> }> {
  const nats = process.env.NATS_URL ? { url: process.env.NATS_URL, proc: null } : await startNats(natsBin!);
  const redis = await startRedis();
  return {
    env: { TRANSPORTER: nats.url, CACHER: redis.url },
    redis,
    async stop() {
      await Promise.all([nats.proc?.stop(), redis.proc.stop()]);
    },
  };
}

/** waitHealthy on every gateway; on failure every process's output is printed, the only clue to why. */
export async function waitClusterHealthy(urls: string[], procs: Record<string, Proc>, services: string[], timeoutMs = 45_000) {
  try {
    for (const url of urls) await waitHealthy(url, timeoutMs, services);
  } catch (err) {
    for (const [name, p] of Object.entries(procs)) console.error(`--- ${name} ---\n${p.output()}`);
    throw err;
  }
}
