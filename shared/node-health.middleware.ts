/**
 * Per-node probes on HEALTH_PORT, for every process (most nodes have no HTTP server of their own):
 * GET /live answers 200 while the event loop turns; GET /ready answers 200 once this node's services
 * have started and its transporter is connected, and 503 from the moment it starts stopping, so that
 * Kubernetes takes the pod out of its Service before the broker drains its in-flight calls.
 */
import http from "http";
import type { Middleware, ServiceBroker } from "moleculer";
import { config } from "./config";

/** What readiness reads of the broker: `stopping` is Moleculer's, left out of its types. */
interface BrokerState {
  stopping?: boolean;
}

function isReady(broker: ServiceBroker): boolean {
  const transit = broker.transit;
  return broker.started && !(broker as unknown as BrokerState).stopping && (!transit || transit.connected);
}

export function NodeHealthMiddleware(port = config.healthPort): Middleware {
  let server: http.Server | null = null;
  return {
    name: "NodeHealth",
    created(broker: ServiceBroker) {
      if (!port) return;
      server = http.createServer((req, res) => {
        const path = (req.url || "").split("?")[0];
        const ok = path === "/live" ? true : path === "/ready" ? isReady(broker) : null;
        const status = ok === null ? 404 : ok ? 200 : 503;
        res.writeHead(status, { "Content-Type": "application/json" });
        res.end(JSON.stringify({ status: status === 200 ? "ok" : status === 404 ? "not found" : "unavailable", node: broker.nodeID }));
      });
      server.listen(port);
    },
    stopped() {
      return new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    },
  } as unknown as Middleware;
}
