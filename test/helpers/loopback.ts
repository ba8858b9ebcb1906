/**
 * A real HTTP peer on loopback for tests: serves a route map (or one handler) on 127.0.0.1 with a
 * random port and logs every request it received.
 */
import http from "http";
import type { AddressInfo } from "net";

export type LoopbackHandler = (req: http.IncomingMessage, res: http.ServerResponse) => void | Promise<void>;

/** A fixed answer: status (200), headers, body. */
export interface StaticAnswer {
  status?: number;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

export type LoopbackRoute = LoopbackHandler | StaticAnswer;

export interface LoggedRequest {
  method: string;
  /** Path with query string, as sent. */
  url: string;
  headers: http.IncomingHttpHeaders;
  /** When it arrived (Date.now()): tests that must act while a slow answer is still being sent. */
  at: number;
}

export interface Loopback {
  /** Base URL without trailing slash, e.g. http://127.0.0.1:41234 */
  url: string;
  port: number;
  server: http.Server;
  /** Every request received, oldest first. */
  requests: LoggedRequest[];
  /** Adds or replaces the route of a path (matched without the query string). */
  route(path: string, route: LoopbackRoute): void;
  close(): Promise<void>;
}

function answer(route: StaticAnswer, res: http.ServerResponse): void {
  const body = route.body ?? "";
  res.writeHead(route.status ?? 200, { "Content-Length": String(Buffer.byteLength(body)), ...route.headers });
  res.end(body);
}

/**
 * Starts the peer. `routes` maps a path ("/feed.xml") to a handler or a fixed answer; unknown paths
 * get 404. A single handler instead of a map receives every request.
 */
export async function startLoopback(routes: Record<string, LoopbackRoute> | LoopbackHandler = {}, host = "127.0.0.1"): Promise<Loopback> {
  const table = new Map<string, LoopbackRoute>(typeof routes === "function" ? [] : Object.entries(routes));
  const fallback = typeof routes === "function" ? routes : null;
  const requests: LoggedRequest[] = [];
  const server = http.createServer((req, res) => {
    requests.push({ method: req.method ?? "GET", url: req.url ?? "/", headers: req.headers, at: Date.now() });
    const route = table.get((req.url ?? "/").split("?")[0]) ?? fallback;
    if (!route) return answer({ status: 404, body: "not found" }, res);
    if (typeof route !== "function") return answer(route, res);
    Promise.resolve(route(req, res)).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${port}`,
    port,
    server,
    requests,
    route: (path, route) => void table.set(path, route),
    close: () =>
      new Promise<void>((resolve) => {
        // Handlers that never answer must not keep the server open.
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
