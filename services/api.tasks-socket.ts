/**
 * The gateway's WebSocket /ws/api/tasks/{user_id}?api_key=... (ws, on the gateway's HTTP server): an
 * `initial` message with the user's tasks, then an `update` message for every `tasks.changed` event,
 * which the tasks service broadcasts to every gateway, so it works when the workers run elsewhere.
 * A missing or unknown key is refused with 401, another user's id (not an admin) with 403: the
 * upgrade is answered with the API's JSON error instead of switching protocols.
 */
import type { IncomingMessage } from "http";
import type { Duplex } from "stream";
import { STATUS_CODES } from "http";
import { WebSocket, WebSocketServer } from "ws";
import { ForbiddenError, NotFoundError, toErrorResponse } from "../shared/errors";
import type { TaskRecord } from "../shared/contracts/tasks";
import type { AuthUser } from "../shared/types";
import { requestApiKey } from "../shared/secrets";

const PATH = /^\/ws\/api\/tasks\/(\d{1,10})\/?$/;
/** A socket watching a user's tasks: `deliver` sends an update, or holds it until the initial list has gone. */
type Watcher = WebSocket & { deliver(task: TaskRecord): void };
const PING_MS = 30_000;

export interface TaskSocket {
  /** Sends a changed task to its owner's sockets (and admins watching that user). */
  push(task: TaskRecord): void;
  close(): void;
}

/** `resolve` turns the key into the caller (throwing the gateway's 401/403 errors); `userTasks` lists a user's tasks. */
export function attachTaskSocket(
  server: import("http").Server,
  resolve: (key: string | undefined) => Promise<AuthUser>,
  userTasks: (user_id: number) => Promise<TaskRecord[]>,
  logger: { warn(...args: unknown[]): void },
): TaskSocket {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 4096 });
  const watchers = new Map<number, Set<Watcher>>();

  const refuse = (socket: Duplex, err: unknown) => {
    const { status, body } = toErrorResponse(err);
    const text = JSON.stringify(body);
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
    );
  };

  // Never rejects: a refused upgrade is answered on the socket (refuse).
  const upgrade = async (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? "/", "http://gateway");
    const match = PATH.exec(url.pathname);
    if (!match) return refuse(socket, new NotFoundError());
    const userId = Number(match[1]);
    let user: AuthUser;
    try {
      user = await resolve(url.searchParams.get("api_key") ?? requestApiKey(req.headers));
      if (user.id !== userId && !user.isAdmin) throw new ForbiddenError("You can only watch your own tasks");
    } catch (err) {
      return refuse(socket, err);
    }
    wss.handleUpgrade(req, socket, head, (socketWs) => {
      // Updates that arrive before the initial list is sent wait for it, so none is lost.
      const early: TaskRecord[] = [];
      let ready = false;
      const ws: Watcher = Object.assign(socketWs, {
        deliver: (task: TaskRecord) => (ready ? socketWs.send(JSON.stringify({ event: "update", type: "update", task })) : early.push(task)),
      });
      const set = watchers.get(userId) ?? new Set<Watcher>();
      watchers.set(userId, set.add(ws));
      let alive = true;
      ws.on("pong", () => (alive = true));
      const ping = setInterval(() => {
        if (!alive) return ws.terminate();
        alive = false;
        ws.ping();
      }, PING_MS);
      ws.on("close", () => {
        clearInterval(ping);
        set.delete(ws);
        if (!set.size) watchers.delete(userId);
      });
      userTasks(userId).then(
        (tasks) => {
          ws.send(JSON.stringify({ event: "initial", type: "initial", tasks }));
          ready = true;
          for (const t of early.splice(0)) ws.deliver(t);
        },
        (err: unknown) => {
          logger.warn("task socket: cannot list tasks", { error: (err as Error | undefined)?.message });
          ws.close(1011, "Tasks are unavailable");
        },
      );
    });
  };
  server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => void upgrade(req, socket, head));

  return {
    push(task) {
      for (const ws of watchers.get(task.user_id) ?? []) if (ws.readyState === WebSocket.OPEN) ws.deliver(task);
    },
    close() {
      for (const ws of wss.clients) ws.terminate();
      wss.close();
    },
  };
}
