/**
 * What the benchmarks that run servers in processes of their own share: free ports, starting a server the
 * way `npm start` does (from this tree or another one, for a before/after run), waiting for it, the first
 * admin's key, the CPU time of processes, and a CPU profile's self time by package.
 */
import { ChildProcess, spawn } from "child_process";
import fs from "fs";
import net from "net";
import path from "path";

/** The root of this tree (dist/bench/.. /..). */
export const ROOT = path.resolve(__dirname, "..", "..");

export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** Every process the bench started, to stop at its end. */
export const procs: ChildProcess[] = [];

export function node(args: string[], env: Record<string, string>, cwd = ROOT): ChildProcess {
  const child = spawn(process.execPath, args, { cwd, env: { ...process.env, LOG_LEVEL: "warn", ...env }, stdio: ["ignore", "inherit", "inherit"] });
  procs.push(child);
  return child;
}

/** The V8 flags `npm start` runs the server with (its heap and young-generation sizes), from the tree's package.json. */
export function startFlags(root = ROOT): string[] {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { scripts: { start: string } };
  return (pkg.scripts.start.match(/ node ((?:--[\w-]+=\S+ )*)/)?.[1] ?? "").split(" ").filter(Boolean);
}

/** A server of the tree at `root` as `npm start` runs it: every service, or these (comma separated) only. CPU_PROF_DIR: under --cpu-prof. */
export function server(env: Record<string, string>, services?: string, root = ROOT): ChildProcess {
  const runner = path.join(root, "node_modules", "moleculer", "bin", "moleculer-runner.js");
  const args = [
    ...startFlags(root),
    ...(env.CPU_PROF_DIR ? ["--cpu-prof", `--cpu-prof-dir=${env.CPU_PROF_DIR}`] : []),
    runner,
    "--config",
    "dist/moleculer.config.js",
  ];
  if (!services) args.push("dist/services");
  return node(args, services ? { ...env, SERVICEDIR: "dist/services", SERVICES: services } : env, root);
}

export async function stop(child: ChildProcess) {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  await exited;
}

export async function stopAll() {
  // The nodes first, NATS (started before them) last: nodes would log its disappearance.
  for (const p of procs.reverse()) await stop(p);
}

export async function waitOk(url: string, accept: (status: number) => boolean = (status) => status === 200, timeoutMs = 60_000) {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    const ok = await fetch(url).then(
      (r) => accept(r.status),
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} did not answer`);
}

/** /api/health answers before every node has joined: wait until it lists the services the bench calls. */
export async function waitReady(base: string, timeoutMs = 60_000) {
  const needed = ["users", "auth", "podcasts", "episodes", "queue", "feeds"];
  await waitOk(`${base}/api/health`, (status) => status === 200, timeoutMs);
  for (const end = Date.now() + timeoutMs; Date.now() < end; await new Promise((r) => setTimeout(r, 200))) {
    const { services } = (await (await fetch(`${base}/api/health`)).json()) as { services: string[] };
    if (needed.every((s) => services.includes(s))) return;
  }
  throw new Error(`${base}: services missing`);
}

/** The API key of a user, through GET /api/data/get_key with their password. */
export async function keyOf(base: string, username: string, password: string): Promise<string> {
  const res = await fetch(`${base}/api/data/get_key`, { headers: { Authorization: "Basic " + Buffer.from(`${username}:${password}`).toString("base64") } });
  return ((await res.json()) as { retrieved_key: string }).retrieved_key;
}

/** The first admin and a key for it, through the API. */
export async function login(base: string): Promise<string> {
  await fetch(`${base}/api/data/create_first`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ username: "bench", password: "bench password", email: "b@example.org", fullname: "B" }),
  });
  return keyOf(base, "bench", "bench password");
}

/**
 * CPU time (user + system) the processes have used so far, in ms, from /proc/<pid>/stat (Linux; clock
 * ticks of 10 ms). Unlike requests/s it barely moves with what else runs on a shared machine.
 */
export function cpuMsOf(pids: number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    // The fields after the command name, from the state (field 3): utime and stime are fields 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks * 10;
}

/** A field of /proc/<pid>/status in MB (VmRSS: now, VmHWM: the peak). */
export function procMb(pid: number, field: "VmRSS" | "VmHWM"): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Math.round(Number(m[1]) / 1024) : NaN;
}

/** What profileSummary reads of a V8 .cpuprofile (Node's --cpu-prof output). */
interface CpuProfile {
  nodes: { id: number; callFrame: { url: string; functionName: string; lineNumber: number } }[];
  samples: number[];
  timeDeltas: number[];
}

/** Self time of a --cpu-prof profile, by package (node_modules/<pkg>), our code, or Node itself; with byFunction, the top functions. */
export function profileSummary(dir: string, byFunction = false): string {
  const file = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith(".cpuprofile"))
    .map((f) => path.join(dir, f))[0];
  if (!file) return "(no profile written)";
  const prof = JSON.parse(fs.readFileSync(file, "utf8")) as CpuProfile;
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  const dt = new Map<number, number>();
  prof.samples.forEach((id, i) => dt.set(id, (dt.get(id) ?? 0) + (prof.timeDeltas[i] ?? 0)));
  for (const [id, us] of dt) {
    const { url, functionName, lineNumber } = byId.get(id)!.callFrame;
    if (functionName === "(idle)" || functionName === "(program)") continue; // not this process's work
    const pkg = /node_modules\/((@[^/]+\/)?[^/]+)/.exec(url)?.[1];
    const where = pkg ?? (url.includes("/dist/") ? "ours (dist/)" : url ? "node internals" : `(${functionName || "native"})`);
    const key = byFunction ? `${where}: ${functionName || "(anonymous)"} ${path.basename(url)}:${lineNumber + 1}` : where;
    self.set(key, (self.get(key) ?? 0) + us);
  }
  const total = [...self.values()].reduce((s, v) => s + v, 0);
  return [...self.entries()]
    .sort((x, y) => y[1] - x[1])
    .slice(0, byFunction ? 25 : 12)
    .map(([k, v]) => `    ${((100 * v) / total).toFixed(1).padStart(5)}%  ${k}`)
    .join("\n");
}
