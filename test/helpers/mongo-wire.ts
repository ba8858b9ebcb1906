/**
 * A MongoDB wire-protocol server test double on a loopback TCP port.
 *
 * The real, official `mongodb` driver connects to it (`mongodb://127.0.0.1:PORT/db`, with or without
 * `directConnection=true`) exactly as it would to a standalone mongod 7.0: only the network peer is
 * replaced. The double speaks the wire protocol (OP_QUERY for the driver's initial `ismaster` handshake,
 * OP_MSG with document sequences for everything after it), keeps its data in memory, and evaluates
 * filters, updates, projections, sorts and aggregation pipelines with mingo (MongoDB's query language in
 * JavaScript). Unique indexes (simple, compound, sparse, partial) are enforced with MongoDB's E11000
 * errors, cursors are kept open across getMore batches, and every answer is written asynchronously.
 *
 * What it proves: the commands the driver sends and the answers it accepts, and the semantics of the
 * query language as mingo implements them. What it does not prove: query plans or index use (every
 * query is a scan), server-version specific behaviour beyond the subset below, transactions (it is a
 * standalone: commands carrying a txnNumber are refused as mongod does), authentication, change streams,
 * write concerns, or TTL timing: TTL indexes are accepted and listed but never expire documents.
 *
 * Supported commands: hello/isMaster/ismaster, ping, buildInfo, getParameter, endSessions, killCursors,
 * listDatabases, listCollections, create, drop, dropDatabase, renameCollection, find, getMore, insert,
 * update, delete, findAndModify, count, distinct, aggregate ($out as its last stage; no $merge),
 * createIndexes, listIndexes, dropIndexes, plus harmless answers to serverStatus, dbStats,
 * connectionStatus and whatsmyuri. Anything else is `CommandNotFound` (code 59).
 *
 * Instrumentation for tests: `databases()`, `collections(db)`, `indexes(db, coll)` (including `_id_`),
 * `docs(db, coll)` (copies), `connections()` (sockets accepted in total), `openConnections()`, and a
 * query log of the filters every read and write used (`queries()`, `clearQueries()`). `delayMs` delays
 * each answer (the command itself runs when it arrives) to widen race windows in the caller.
 *
 * Run on its own (`node mongo-wire.js`, compiled) it listens on MONGO_WIRE_PORT (or a free port), prints
 * `{"port":N}` as one line on stdout and runs until SIGTERM.
 *
 * The double lives in test/helpers/mongo-wire/, by concern: types.ts (the exported types), protocol.ts
 * (message framing, OP_MSG, OP_QUERY, OP_REPLY), store.ts (databases, collections, documents, cursors, the
 * query log), indexes.ts (index specs, unique/sparse/partial key checks), query.ts (filters, updates and
 * upserts through mingo), values.ts (equality keys, copies, paths), errors.ts, commands.ts (dispatch,
 * handshake) with context.ts, commands-read.ts, commands-write.ts and commands-catalog.ts, and server.ts
 * (the TCP server, `startMongoWire`, instrumentation). This file is the public entry, and what `node` runs.
 */
import { startMongoWire } from "./mongo-wire/server";

export { startMongoWire };
export type { IndexInfo, MongoWire, MongoWireOptions, QueryLogEntry } from "./mongo-wire/types";

if (require.main === module) {
  startMongoWire({ port: Number(process.env.MONGO_WIRE_PORT || 0) }).then(
    (wire) => {
      process.stdout.write(JSON.stringify({ port: wire.port }) + "\n");
      const stop = () => void wire.close().then(() => process.exit(0));
      process.once("SIGTERM", stop);
      process.once("SIGINT", stop);
    },
    (err) => {
      process.stderr.write(`mongo-wire: ${(err as Error).message}\n`);
      process.exit(1);
    },
  );
}
