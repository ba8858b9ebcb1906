/**
 * Calls safe to repeat (shared/repeat-safe.middleware.ts): every GET route's action says whether it is,
 * read from the broker's registry of the running server; and with the broker options of
 * moleculer.config.ts, a repeat-safe call whose node died with it is answered by another node, while any
 * other call keeps failing as before (it may have run).
 */
import { ServiceBroker } from "moleculer";
import brokerConfig from "../../moleculer.config";
import { routes } from "../../services/api.routes";
import { startServer } from "../helpers/server";
import { until } from "../helpers/wait";

test("every GET route's action declares whether it is safe to repeat (idempotent: true or false)", async () => {
  const server = await startServer();
  try {
    const actions = new Map<string, any>(
      server.broker.registry.getActionList({ onlyLocal: true, skipInternal: true, withEndpoints: false }).map((a: any) => [a.name, a.action]),
    );
    const gets = Object.entries(routes)
      .filter(([route]) => route.startsWith("GET "))
      .map(([route, def]) => ({ route, action: def.action }));
    expect(gets.length).toBeGreaterThan(50);
    const undeclared = gets.filter(({ action }) => typeof actions.get(action)?.idempotent !== "boolean");
    expect(undeclared).toEqual([]);
    // The gateway's own call on every request (the key lookup) is repeat-safe too.
    expect(actions.get("auth.resolve_key").idempotent).toBe(true);
    // A GET that issues a new key is not safe to repeat; a read is.
    expect(actions.get("auth.get_key").idempotent).toBe(false);
    expect(actions.get("episodes.get_stats").idempotent).toBe(true);
  } finally {
    await server.stop();
  }
});

describe("a call on a node that dies under it", () => {
  const namespace = `repeat-${process.pid}`;
  const brokers: ServiceBroker[] = [];
  const ran: Record<string, string[]> = { read: [], write: [] };
  let release: (() => void) | null = null;

  /** Two replicas of a service whose actions hang on the first node until it is declared dead. */
  const replica = async (nodeID: string) => {
    const broker = new ServiceBroker({
      ...brokerConfig,
      namespace,
      nodeID,
      transporter: "Fake",
      logger: false,
      metrics: { enabled: false },
      heartbeatInterval: 5,
      heartbeatTimeout: 15,
    });
    const work = (kind: "read" | "write") => async () => {
      ran[kind].push(nodeID);
      if (nodeID === "replica-1") await new Promise<void>((r) => (release = r));
      return { by: nodeID };
    };
    broker.createService({
      name: "store",
      actions: { read: { idempotent: true, handler: work("read") }, write: { idempotent: false, handler: work("write") } },
    });
    brokers.push(broker);
    await broker.start();
    return broker;
  };

  afterEach(async () => {
    release?.();
    await Promise.all(brokers.splice(0).map((b) => b.stop()));
    ran.read = [];
    ran.write = [];
  });

  const callWhileReplicaDies = async (action: string) => {
    const caller = new ServiceBroker({
      ...brokerConfig,
      namespace,
      nodeID: "caller",
      transporter: "Fake",
      logger: false,
      metrics: { enabled: false },
      registry: { strategy: "RoundRobin", preferLocal: true },
    });
    brokers.push(caller);
    await caller.start();
    await replica("replica-1");
    await caller.waitForServices("store");
    // Only replica-1 known yet: the call goes there; replica-2 joins while it hangs.
    const answer = caller.call(action).then(
      (r) => ({ ok: r }),
      (err) => ({ err }),
    );
    await new Promise((r) => setTimeout(r, 100));
    await replica("replica-2");
    await until(() => caller.registry.actions.get("store.read")!.endpoints.length === 2, 5_000);
    // What a heartbeat timeout (kill -9) or the node's restart as a new instance does: its pending calls are rejected.
    (caller.registry as any).nodes.disconnected("replica-1", true);
    return answer;
  };

  test("a repeat-safe read is answered by the other replica", async () => {
    const answer: any = await callWhileReplicaDies("store.read");
    expect(answer).toEqual({ ok: { by: "replica-2" } });
    expect(ran.read).toEqual(["replica-1", "replica-2"]);
  });

  test("a write is not repeated: it fails with the rejection, as before", async () => {
    const answer: any = await callWhileReplicaDies("store.write");
    expect(answer.err?.name).toBe("RequestRejectedError");
    expect(ran.write).toEqual(["replica-1"]);
  });
});
