/**
 * Zero downtime over NATS, each process as Kubernetes runs it (moleculer-runner, SERVICES=<group>):
 * - a rolling restart of each service group under steady load fails no request (two gateways behind
 *   a round-robin "Service" that, like Kubernetes after preStop, stops sending to a pod before SIGTERM;
 *   the one-instance groups on NeDB stop, then start again while callers retry the missing endpoint);
 * - a SIGKILLed node loses no write it had accepted (and a key deleted through one gateway is refused
 *   at once by the other, which had it cached);
 * - NATS itself restarted: the nodes reconnect and requests succeed again within seconds.
 * Along the way: per-node /ready and /live, the Prometheus metrics of a gateway and its JSON log lines.
 */
import { basic } from "../helpers/client";
import { tempDir } from "../helpers/server";
import { findNatsServer, freePort, Proc, startNats, startNode, waitClusterHealthy } from "../helpers/processes";
import { serviceGroups } from "../../shared/service-groups";

const natsBin = findNatsServer();
// NATS is restarted here, so this suite needs a server of its own (NATS_URL is not enough).
const describeCluster = natsBin ? describe : describe.skip;
const groupServices = (name: string) => serviceGroups.find((g) => g.name === name)!.services;
// The groups that exist today: a group's services without a file yet are skipped by moleculer-runner.
const STATEFUL_GROUPS = ["accounts", "library"];

interface Load {
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
  return { stop: async () => ((running = false), await all, { statuses, failures }) };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describeCluster("zero downtime over NATS", () => {
  const procs: Record<string, Proc> = {};
  let nats: Proc;
  let natsPort = 0;
  let common: Record<string, string>;
  const gateways: { name: string; port: number; url: string; env: Record<string, string> }[] = [];
  let live: string[] = [];
  let key = "";
  let healthPort = 0;
  let metricsPort = 0;
  let restarts = 0;

  const startGateway = (g: (typeof gateways)[number]) =>
    (procs[g.name] = startNode({ ...common, PORT: String(g.port), NODE_ID: `${g.name}-${++restarts}`, ...g.env }, groupServices("gateway")));
  const startGroup = (name: string, extra: Record<string, string> = {}) =>
    (procs[name] = startNode({ ...common, NODE_ID: `${name}-${++restarts}`, ...extra }, groupServices(name)));
  const readLoad = () =>
    steadyLoad(() => live, (base, i) => {
      const path = ["/api/data/verify_key", "/api/data/get_theme/1", "/api/data/return_pods/1"][i % 3];
      return fetch(`${base}${path}`, { headers: { "Api-Key": key }, signal: AbortSignal.timeout(20_000) });
    });

  beforeAll(async () => {
    const started = await startNats(natsBin!);
    nats = started.proc;
    natsPort = Number(new URL(started.url).port);
    [healthPort, metricsPort] = [await freePort(), await freePort()];
    common = { TRANSPORTER: started.url, NAMESPACE: `zd-${process.pid}-${Date.now()}`, DATA_DIR: tempDir("podcast-zd-"), HEARTBEAT_INTERVAL: "1", HEARTBEAT_TIMEOUT: "3", REQUEST_TIMEOUT: "5000" };
    // g1 is the one observed: JSON logs at info level (one line per request), probes and metrics.
    const observed = { LOG_FORMAT: "json", LOG_LEVEL: "info", HEALTH_PORT: String(healthPort), METRICS_PORT: String(metricsPort) };
    for (const [name, env] of [["g1", observed], ["g2", {}]] as const) {
      const port = await freePort();
      gateways.push({ name, port, url: `http://127.0.0.1:${port}`, env });
    }
    gateways.forEach(startGateway);
    for (const name of STATEFUL_GROUPS) startGroup(name);
    live = gateways.map((g) => g.url);
    await waitClusterHealthy(live, procs, ["auth", "users", "podcasts", "episodes"]);

    const first = await fetch(`${live[0]}/api/data/create_first`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ username: "admin", password: "a long password", email: "a@example.org", fullname: "A" }) });
    expect(first.status).toBe(200);
    key = (await (await fetch(`${live[0]}/api/data/get_key`, { headers: { Authorization: basic("admin", "a long password") } })).json()).retrieved_key;
  }, 90_000);

  afterAll(async () => {
    await Promise.all(Object.values(procs).map((p) => p.stop("SIGKILL")));
    await nats?.stop();
  });

  test("per-node probes: /live and /ready answer 200 on a running node, unknown paths 404", async () => {
    expect((await fetch(`http://127.0.0.1:${healthPort}/live`)).status).toBe(200);
    expect(await (await fetch(`http://127.0.0.1:${healthPort}/ready`)).json()).toMatchObject({ status: "ok" });
    expect((await fetch(`http://127.0.0.1:${healthPort}/other`)).status).toBe(404);
  });

  test("rolling restart of every group under steady load: no failed request", async () => {
    const load = readLoad();
    await sleep(500);
    for (const g of gateways) {
      phase = `restart of ${g.name}`;
      // What Kubernetes does: the pod leaves the Service (preStop), then gets SIGTERM and drains.
      live = live.filter((u) => u !== g.url);
      await sleep(200);
      expect(await procs[g.name].stop("SIGTERM")).toBe(0);
      startGateway(g);
      await waitClusterHealthy([g.url], procs, ["auth", "users", "podcasts"]);
      live = [...live, g.url];
    }
    for (const name of STATEFUL_GROUPS) {
      phase = `restart of ${name}`;
      // One instance on NeDB: the old process drains and frees its data, the new one takes it over;
      // calls in between wait in the callers' retry policy.
      expect(await procs[name].stop("SIGTERM")).toBe(0);
      startGroup(name);
      await waitClusterHealthy([gateways[0].url], procs, ["auth", "users", "podcasts"]);
      await sleep(500);
    }
    const { statuses, failures } = await load.stop();
    // The gateways log why a request failed (error name), the clue when this fails.
    if (failures.length) for (const g of gateways) console.error(procs[g.name].output().split("\n").filter((l) => l.includes("request failed")).join("\n"));
    expect(failures).toEqual([]);
    expect(statuses.length).toBeGreaterThan(50);
  }, 120_000);

  test("a SIGKILLed accounts node loses no write it had accepted", async () => {
    const accepted: { api_key: string; api_id: number }[] = [];
    const load = steadyLoad(() => live, async (base) => {
      const res = await fetch(`${base}/api/data/create_api_key`, { method: "POST", headers: { "Api-Key": key, "Content-Type": "application/json" }, body: JSON.stringify({ user_id: 1, rssonly: false }), signal: AbortSignal.timeout(20_000) });
      if (res.status === 200) accepted.push(await res.clone().json());
      return res;
    }, 2);
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
    // g1 has these keys in its cache of key lookups now: a key deleted through g2 is refused by g1 at once.
    const [gone] = accepted;
    const deleted = await fetch(`${live[1]}/api/data/delete_api_key`, { method: "DELETE", headers: { "Api-Key": key, "Content-Type": "application/json" }, body: JSON.stringify({ api_id: gone.api_id }) });
    expect(deleted.status).toBe(200);
    expect((await fetch(`${live[0]}/api/data/verify_key`, { headers: { "Api-Key": gone.api_key } })).status).toBe(401);
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
    await sleep(2000);
    const { statuses, failures } = await load.stop();
    expect(recoveredAfter).toBeGreaterThanOrEqual(0);
    expect(recoveredAfter).toBeLessThan(10_000);
    // While NATS was away a call could only wait (retried) or answer 503; once it is back, nothing fails.
    expect(failures.filter((f) => !f.startsWith("503 "))).toEqual([]);
    expect(statuses.slice(-20).every((s) => s === 200)).toBe(true);
  }, 60_000);

  test("the observed gateway logged JSON lines and exposes per-route and per-action Prometheus metrics", async () => {
    const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    expect(metrics).toMatch(/api_request_total\{[^}]*method="GET",route="\/api\/data\/verify_key",status="200"\} \d+/);
    expect(metrics).toMatch(/api_request_time_bucket\{[^}]*route="\/api\/data\/get_theme\/:user_id"/);
    expect(metrics).toMatch(/moleculer_request_total\{[^}]*action="auth.resolve_key"/);
    // Node's own warnings go to stderr, which output() merges in; they are not log lines.
    const lines = procs.g1.output().split("\n").filter((l) => l.trim() && !/^\((node:\d+|Use `node)/.test(l));
    expect(lines.length).toBeGreaterThan(10);
    expect(lines.filter((l) => { try { JSON.parse(l); return false; } catch { return true; } })).toEqual([]);
    expect(lines.some((l) => JSON.parse(l).msg.startsWith("request"))).toBe(true);
  });
});
