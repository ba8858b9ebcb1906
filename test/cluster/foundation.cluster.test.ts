/**
 * The same black-box scenario as the embedded run, against the gateway and the account services in
 * separate processes over a real NATS server that the suite starts on a free loopback port.
 */
import { foundationScenario } from "../helpers/foundation.scenario";
import { tempDir } from "../helpers/server";
import { clusterPeers, ensureBuilt, findNatsServer, freePort, Proc, startNode, waitClusterHealthy } from "../helpers/processes";

const natsBin = findNatsServer();
const externalNats = process.env.NATS_URL;
if (!natsBin && !externalNats) {
  console.warn("\n!!! No nats-server binary and no NATS_URL: the cluster tests are SKIPPED. Install Debian's nats-server. !!!\n");
}
const describeCluster = natsBin || externalNats ? describe : describe.skip;

describeCluster("foundation, cluster runtime (gateway, users and auth as processes over NATS)", () => {
  const target = { url: "" };
  const procs: Record<string, Proc> = {};
  let peers: Awaited<ReturnType<typeof clusterPeers>> | null = null;

  beforeAll(async () => {
    ensureBuilt();
    peers = await clusterPeers(natsBin);
    const port = await freePort();
    const common = { ...peers.env, NAMESPACE: `test-${process.pid}-${Date.now()}`, DATA_DIR: tempDir("podcast-cluster-") };
    procs.api = startNode({ ...common, PORT: String(port), NODE_ID: "gateway" }, ["api"]);
    procs.users = startNode({ ...common, NODE_ID: "users-1" }, ["users"]);
    procs.auth = startNode({ ...common, NODE_ID: "auth-1" }, ["auth"]);
    target.url = `http://127.0.0.1:${port}`;
    await waitClusterHealthy([target.url], procs, ["auth", "users"]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all(Object.values(procs).map((p) => p.stop()));
    await peers?.stop();
  });

  foundationScenario(target);

  test("health answers 503 with database false when the users service is gone", async () => {
    await procs.users.stop();
    const res = await fetch(`${target.url}/api/health`);
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ status: "unhealthy", database: false });
  });
});
