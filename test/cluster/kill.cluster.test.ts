/**
 * A service process killed under load (SIGKILL, no goodbye to the cluster): a read never fails (it is
 * safe to repeat, so it is repeated until a new process has taken over), a write answers 200 or 503 JSON
 * (it may have run on the dead node, so it is not repeated), never a 500 or a hang, and everything
 * accepted before the kill is there when a new process takes over its data.
 */
import { api, basic } from "../helpers/client";
import { tempDir } from "../helpers/server";
import { clusterPeers, ensureBuilt, findNatsServer, freePort, Proc, startNode, waitClusterHealthy } from "../helpers/processes";

const natsBin = findNatsServer();
const describeCluster = natsBin || process.env.NATS_URL ? describe : describe.skip;

describeCluster("a killed service process under load", () => {
  const procs: Record<string, Proc> = {};
  let peers: Awaited<ReturnType<typeof clusterPeers>> | null = null;
  let url = "";
  let common: Record<string, string>;

  beforeAll(async () => {
    ensureBuilt();
    peers = await clusterPeers(natsBin);
    const port = await freePort();
    // Short timeouts so that calls to the dead node fail fast.
    common = {
      ...peers.env,
      NAMESPACE: `kill-${process.pid}-${Date.now()}`,
      DATA_DIR: tempDir("podcast-kill-"),
      REQUEST_TIMEOUT: "2000",
      HEARTBEAT_INTERVAL: "1",
      HEARTBEAT_TIMEOUT: "3",
      // The load creates an API key per write: past the default bound of a user's keys (100) it would be refused.
      MAX_USER_KEYS: "100000",
    };
    procs.api = startNode({ ...common, PORT: String(port), NODE_ID: "gateway" }, ["api"]);
    procs.users = startNode({ ...common, NODE_ID: "users-1" }, ["users"]);
    procs.auth = startNode({ ...common, NODE_ID: "auth-1" }, ["auth"]);
    url = `http://127.0.0.1:${port}`;
    await waitClusterHealthy([url], procs, ["auth", "users"]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all(Object.values(procs).map((p) => p.stop("SIGKILL")));
    await peers?.stop();
  });

  test("while auth is killed and replaced: no read fails, a write answers 200 or 503 JSON; its data survives", async () => {
    await api(url).post("/api/data/create_first").send({ username: "admin", password: "a long password", email: "a@example.org", fullname: "A" });
    const key: string = (await api(url).get("/api/data/get_key").set("Authorization", basic("admin", "a long password"))).body.retrieved_key;
    const made = await api(url).post("/api/data/create_api_key").set("Api-Key", key).send({ user_id: 1, rssonly: false });
    expect(made.status).toBe(200);

    const statuses: number[] = [];
    const bad: string[] = [];
    let running = true;
    const worker = async () => {
      for (let n = 0; running; n++) {
        const write = n % 2 === 1;
        const res = write
          ? await fetch(`${url}/api/data/create_api_key`, {
              method: "POST",
              headers: { "Api-Key": key, "Content-Type": "application/json" },
              body: JSON.stringify({ user_id: 1, rssonly: false }),
              signal: AbortSignal.timeout(15_000),
            })
          : await fetch(`${url}/api/data/verify_key`, { headers: { "Api-Key": key }, signal: AbortSignal.timeout(15_000) });
        statuses.push(res.status);
        if (res.status !== 200 && (res.status !== 503 || !write)) bad.push(`${write ? "write" : "read"}: ${res.status} ${await res.text()}`);
        else if (res.status === 503) expect((await res.json()).status_code).toBe(503);
        else await res.arrayBuffer();
      }
    };
    const load = Promise.all([worker(), worker(), worker(), worker()]);
    await new Promise((r) => setTimeout(r, 500));
    await procs.auth.stop("SIGKILL");
    // A gap with no auth process at all; short, because the new process's start under CI's load takes
    // most of a read's retry window (about 10 s, moleculer.config.ts) on its own.
    await new Promise((r) => setTimeout(r, 500));
    const before = statuses.length;
    procs.auth = startNode({ ...common, NODE_ID: "auth-2" }, ["auth"]);
    // Back to 200 once the new process has joined (its lock takes over from the dead pid).
    const deadline = Date.now() + 30_000;
    const recovered = () => statuses.length - before >= 20 && statuses.slice(-20).every((s) => s === 200);
    while (Date.now() < deadline && !recovered()) await new Promise((r) => setTimeout(r, 200));
    running = false;
    await load;

    expect(bad).toEqual([]);
    expect(statuses.slice(-10).every((s) => s === 200)).toBe(true);
    // The key created before the kill survived it.
    expect((await api(url).get("/api/data/verify_key").set("Api-Key", made.body.api_key)).status).toBe(200);
  }, 90_000);
});
