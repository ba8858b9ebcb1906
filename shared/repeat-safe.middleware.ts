/**
 * Calls that are safe to repeat are retried when the node running them died. The broker's retry policy
 * (moleculer.config.ts) retries only calls that surely did not run, because a write must never run twice;
 * a call that the dead node had taken (RequestRejectedError when the node left or came back as a new
 * instance, or a timeout while it is gone) may have run. An action that may run twice says so where it is
 * defined, `idempotent: true` (reads, and writes idempotent by design such as setting a position to a
 * value; `idempotent: false` says it was considered and is not), and such calls are retried too, within
 * the same retry window.
 *
 * A node killed and started again under the same node id (a container restarted by its runtime, a pod
 * by its kubelet) keeps heartbeating, so Moleculer never declares it gone: the calls the dead instance had
 * would wait for the request timeout. When a node's instance id changes, they are rejected at once, as
 * Moleculer does for a node that disconnected (a write among them answers 503, as it would have then).
 *
 * The action called decides, not the one that failed deeper down: a read whose own call to another
 * service was rejected is repeated whole. The middleware wraps the caller's side of every remote action
 * (inside the Retry middleware, so the errors it marks are the ones that middleware then checks); a
 * timeout is made outside it, by the Timeout middleware, so it is judged by the action name it carries.
 */
import type { ActionHandler, BrokerNode, Context, Middleware, ServiceBroker } from "moleculer";

const REPEAT_SAFE = Symbol("repeat-safe");
/** What a call that the node took and then lost looks like. */
const LOST = new Set(["RequestRejectedError"]);

/** The registry's node list, which Moleculer's types leave untyped. */
interface NodeList {
  nodes: { get(nodeID: string): BrokerNode | undefined };
}

/** What the hooks read of an action's definition. */
interface ActionDef {
  name: string;
  idempotent?: boolean;
}

/** What the check reads of a failed call's error (any value may be thrown). */
interface CallError {
  name?: string;
  data?: { action?: string; nodeID?: string };
  [REPEAT_SAFE]?: boolean;
}

export function repeatSafeRetry(): { middleware: Middleware; check: (err: unknown) => boolean } {
  // The brokers of this process using it (one in a deployed node; tests may start several).
  const brokers = new Set<ServiceBroker>();
  /** Every repeat-safe action ever seen, local or remote: a dead node's actions leave the registry at once. */
  const repeatSafe = new Set<string>();

  /**
   * The node left the registry or its heartbeats stopped: its calls are lost. A live node beats every
   * interval ± 0.5 s (Moleculer's jitter), so one and a half intervals of silence is a dead node; with
   * two, a call sent just before the kill timed out (a timeout of two intervals) before it counted as
   * dead and its read failed instead of being repeated. Misjudging a slow live node costs one repeat.
   */
  const nodeGone = (nodeID: string | undefined): boolean =>
    [...brokers].every((b) => {
      const node = nodeID && (b.registry as unknown as NodeList).nodes.get(nodeID);
      return !node || !node.available || process.uptime() - node.lastHeartbeatTime > 1.5 * (b.options.heartbeatInterval ?? 5);
    });

  const middleware: Middleware = {
    name: "RepeatSafeRetry",
    created(b: ServiceBroker) {
      brokers.add(b);
      const instances = new Map<string, string>();
      const seen = ({ node }: { node: { id: string; instanceID: string } }) => {
        const before = instances.get(node.id);
        instances.set(node.id, node.instanceID);
        if (before && before !== node.instanceID) b.transit?.removePendingRequestByNodeID(node.id);
      };
      b.localBus.on("$node.connected", seen);
      b.localBus.on("$node.updated", seen);
    },
    stopped(b: ServiceBroker) {
      brokers.delete(b);
    },
    localAction(handler: ActionHandler<unknown>, action: ActionDef) {
      if (action.idempotent === true) repeatSafe.add(action.name);
      return handler;
    },
    remoteAction(handler: (ctx: Context) => Promise<unknown>, action: ActionDef) {
      if (action.idempotent !== true) return handler;
      repeatSafe.add(action.name);
      return (ctx: Context) =>
        handler(ctx).catch((err: CallError | null | undefined) => {
          if (err && err.name !== undefined && LOST.has(err.name)) err[REPEAT_SAFE] = true;
          throw err;
        });
    },
  } as unknown as Middleware;

  const check = (thrown: unknown): boolean => {
    const err = thrown as CallError | null | undefined;
    return !!err && (err[REPEAT_SAFE] === true || (err.name === "RequestTimeoutError" && repeatSafe.has(err.data?.action ?? "") && nodeGone(err.data?.nodeID)));
  };

  return { middleware, check };
}
