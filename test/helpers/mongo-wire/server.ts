/**
 * The TCP server: accepts connections, hands each whole message to the commands, writes every answer
 * asynchronously (after `delayMs`, or a setImmediate), and exposes the instrumentation of `MongoWire`.
 */
import net from "net";
import { HANDSHAKE, runCommand } from "./commands";
import type { Conn } from "./context";
import { indexInfo } from "./indexes";
import { encodeOpMsg, encodeOpReply, parseMessage, readMessages } from "./protocol";
import { Store } from "./store";
import type { Doc, MongoWire, MongoWireOptions, QueryLogEntry } from "./types";
import { wireCopy } from "./values";

class WireServer {
  readonly store = new Store();
  private nextConnId = 1;
  private requestCounter = 1;
  private readonly sockets = new Set<net.Socket>();
  private readonly timers = new Set<NodeJS.Timeout | NodeJS.Immediate>();
  private accepted = 0;
  private closed = false;
  readonly server: net.Server;

  constructor(private readonly delayMs: number) {
    this.server = net.createServer((socket) => this.accept(socket));
  }

  /** Sockets accepted in total. */
  connections(): number {
    return this.accepted;
  }

  openConnections(): number {
    return this.sockets.size;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.timers) {
      clearTimeout(t as NodeJS.Timeout);
      clearImmediate(t as NodeJS.Immediate);
    }
    this.timers.clear();
    const closing = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
    await closing;
  }

  private accept(socket: net.Socket): void {
    if (this.closed) {
      socket.destroy();
      return;
    }
    this.accepted++;
    this.sockets.add(socket);
    socket.setNoDelay(true);
    const conn: Conn = { id: this.nextConnId++, socket };
    readMessages(socket, (message) => this.handleMessage(conn, message));
    socket.on("error", () => undefined);
    socket.on("close", () => this.sockets.delete(socket));
  }

  private send(socket: net.Socket, reply: Buffer): void {
    if (this.closed) return;
    const write = () => {
      this.timers.delete(timer);
      if (!socket.destroyed && socket.writable) socket.write(reply);
    };
    const timer: NodeJS.Timeout | NodeJS.Immediate = this.delayMs > 0 ? setTimeout(write, this.delayMs) : setImmediate(write);
    this.timers.add(timer);
  }

  private handleMessage(conn: Conn, msg: Buffer): void {
    const request = parseMessage(msg);
    if (request.opCode === "msg") {
      const answer = runCommand(this.store, conn, request.db, request.body);
      if (request.moreToCome) return; // unacknowledged (w:0): no answer
      this.send(conn.socket, encodeOpMsg(this.nextRequestId(), request.requestId, answer));
      return;
    }
    const { fullName, query } = request;
    const name = Object.keys(query)[0] ?? "";
    let answer: Doc;
    if (!fullName.endsWith(".$cmd") || !HANDSHAKE.has(name)) {
      answer = {
        ok: 0,
        errmsg: `Unsupported OP_QUERY command: ${name}. The client driver may require an upgrade.`,
        code: 352,
        codeName: "UnsupportedOpQueryCommand",
      };
    } else {
      answer = runCommand(this.store, conn, request.db, query);
    }
    this.send(conn.socket, encodeOpReply(this.nextRequestId(), request.requestId, answer));
  }

  private nextRequestId(): number {
    this.requestCounter = (this.requestCounter + 1) & 0x7fffffff;
    return this.requestCounter;
  }
}

/** Starts the double on 127.0.0.1 (a free port unless `opts.port`). */
export async function startMongoWire(opts: MongoWireOptions = {}): Promise<MongoWire> {
  const wire = new WireServer(Math.max(0, opts.delayMs ?? 0));
  await new Promise<void>((resolve, reject) => {
    wire.server.once("error", reject);
    wire.server.listen(opts.port ?? 0, "127.0.0.1", () => {
      wire.server.off("error", reject);
      resolve();
    });
  });
  const port = (wire.server.address() as net.AddressInfo).port;
  const { store } = wire;
  return {
    port,
    uri: (db = "podcasts") => `mongodb://127.0.0.1:${port}/${db}`,
    close: () => wire.close(),
    databases: () => store.databases(),
    collections: (db) => store.collections(db),
    indexes: (db, coll) => (store.coll(db, coll)?.indexes ?? []).map(indexInfo),
    docs: (db, coll) => (store.coll(db, coll)?.all() ?? []).map(wireCopy),
    connections: () => wire.connections(),
    openConnections: () => wire.openConnections(),
    queries: () => store.log.map((e) => wireCopy<QueryLogEntry>(e)),
    clearQueries: () => void (store.log.length = 0),
  };
}
