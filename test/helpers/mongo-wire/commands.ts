/**
 * Command dispatch: the table of supported commands (anything else is CommandNotFound, code 59), the checks
 * every command passes first, and the handshake and diagnostic commands a driver or a shell sends.
 */
import { CATALOG_COMMANDS } from "./commands-catalog";
import { READ_COMMANDS } from "./commands-read";
import { WRITE_COMMANDS } from "./commands-write";
import type { Conn, Ctx, Handler } from "./context";
import { CommandError, errorAnswer } from "./errors";
import { MAX_BSON_OBJECT_SIZE, MAX_MESSAGE_SIZE, MAX_WIRE_VERSION, MAX_WRITE_BATCH_SIZE } from "./protocol";
import type { Store } from "./store";
import type { Doc } from "./types";

/** The commands a connection may send before it knows a database (and the only ones OP_QUERY may carry). */
export const HANDSHAKE = new Set(["hello", "isMaster", "ismaster"]);

function hello(ctx: Ctx): Doc {
  return {
    helloOk: true,
    isWritablePrimary: true,
    ismaster: true,
    maxBsonObjectSize: MAX_BSON_OBJECT_SIZE,
    maxMessageSizeBytes: MAX_MESSAGE_SIZE,
    maxWriteBatchSize: MAX_WRITE_BATCH_SIZE,
    localTime: new Date(),
    logicalSessionTimeoutMinutes: 30,
    connectionId: ctx.conn.id,
    minWireVersion: 0,
    maxWireVersion: MAX_WIRE_VERSION,
    readOnly: false,
    ok: 1,
  };
}

function buildInfo(): Doc {
  return {
    version: "7.0.0",
    gitVersion: "mongo-wire-test-double",
    versionArray: [7, 0, 0, 0],
    bits: 64,
    debug: false,
    maxBsonObjectSize: MAX_BSON_OBJECT_SIZE,
    storageEngines: ["memory"],
    ok: 1,
  };
}

const COMMANDS: Record<string, Handler> = {
  hello,
  isMaster: hello,
  ismaster: hello,
  ping: () => ({ ok: 1 }),
  buildInfo,
  buildinfo: buildInfo,
  getParameter: (ctx) => {
    const known: Doc = { featureCompatibilityVersion: { version: "7.0" }, authenticationMechanisms: [] };
    const out: Doc = {};
    for (const k of Object.keys(ctx.body)) if (k in known) out[k] = known[k];
    return { ...out, ok: 1 };
  },
  endSessions: () => ({ ok: 1 }),
  ...READ_COMMANDS,
  ...WRITE_COMMANDS,
  ...CATALOG_COMMANDS,
  serverStatus: () => ({ host: "127.0.0.1", version: "7.0.0", process: "mongo-wire", uptime: 0, localTime: new Date(), ok: 1 }),
  dbStats: ({ store, db }) => {
    const colls = store.collections(db);
    const objects = colls.reduce((n, c) => n + (store.coll(db, c)?.docs.size ?? 0), 0);
    return { db, collections: colls.length, views: 0, objects, dataSize: 0, storageSize: 0, indexes: 0, indexSize: 0, ok: 1 };
  },
  connectionStatus: () => ({ authInfo: { authenticatedUsers: [], authenticatedUserRoles: [] }, ok: 1 }),
  whatsmyuri: (ctx) => ({ you: `${ctx.conn.socket.remoteAddress}:${ctx.conn.socket.remotePort}`, ok: 1 }),
};

/** Runs the command `body` (named by its first field) on `db`; errors become `ok: 0` answers. */
export function runCommand(store: Store, conn: Conn, db: string, body: Doc): Doc {
  const name = Object.keys(body)[0] ?? "";
  try {
    const handler = COMMANDS[name];
    if (!handler) throw new CommandError(59, "CommandNotFound", `no such command: '${name}'`);
    if (body.txnNumber !== undefined || body.startTransaction !== undefined || body.autocommit !== undefined) {
      throw new CommandError(20, "IllegalOperation", "Transaction numbers are only allowed on a replica set member or mongos");
    }
    if (!db && !HANDSHAKE.has(name)) throw new CommandError(40414, "Location40414", "BSON field '$db' is missing but a required field");
    return handler({ store, db, body, conn });
  } catch (err) {
    return errorAnswer(err);
  }
}
