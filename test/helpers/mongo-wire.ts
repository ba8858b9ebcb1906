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
 */
import net from "net";
import { BSON, Long, ObjectId } from "mongodb";
import { Aggregator, Query, updateOne as mingoUpdateOne } from "mingo";

type Doc = Record<string, any>;

export interface IndexInfo {
  key: Record<string, number>;
  name: string;
  unique?: boolean;
  sparse?: boolean;
  expireAfterSeconds?: number;
  partialFilterExpression?: Doc;
}

export interface QueryLogEntry {
  db: string;
  coll: string;
  op: "find" | "count" | "aggregate" | "update" | "delete" | "findAndModify" | "distinct";
  filter: Doc;
  sort?: Doc;
  /** aggregate only: the whole pipeline (`filter` is its leading $match). */
  pipeline?: Doc[];
}

export interface MongoWireOptions {
  /** Delay every answer by this many milliseconds (answers are always written after a setImmediate). */
  delayMs?: number;
  /** Port to listen on (default: a free one). */
  port?: number;
}

export interface MongoWire {
  port: number;
  uri(db?: string): string;
  close(): Promise<void>;
  databases(): string[];
  collections(db: string): string[];
  indexes(db: string, coll: string): IndexInfo[];
  docs(db: string, coll: string): any[];
  connections(): number;
  openConnections(): number;
  queries(): QueryLogEntry[];
  clearQueries(): void;
}

// ---------------------------------------------------------------------------------------------------------
// Wire protocol constants

const OP_REPLY = 1;
const OP_QUERY = 2004;
const OP_MSG = 2013;
const MSG_CHECKSUM_PRESENT = 1;
const MSG_MORE_TO_COME = 2;
const MAX_BSON_OBJECT_SIZE = 16 * 1024 * 1024;
const MAX_MESSAGE_SIZE = 48_000_000;
const MAX_WRITE_BATCH_SIZE = 100_000;
const MAX_WIRE_VERSION = 21; // MongoDB 7.0
/** A batch of a cursor stays below this many bytes of documents (the rest of the reply needs room too). */
const MAX_BATCH_BYTES = MAX_BSON_OBJECT_SIZE - 64 * 1024;
const DEFAULT_FIRST_BATCH = 101;

/** Numbers as JS numbers, regular expressions as RegExp, Dates as Dates: the values mingo evaluates. */
const DESERIALIZE = { promoteLongs: true, promoteValues: true, promoteBuffers: false, bsonRegExp: false } as const;

class CommandError extends Error {
  constructor(readonly code: number, readonly codeName: string, message: string, readonly extra: Doc = {}) {
    super(message);
  }
}

const notFound = (what: string) => new CommandError(26, "NamespaceNotFound", what);
const badValue = (msg: string) => new CommandError(2, "BadValue", msg);

// ---------------------------------------------------------------------------------------------------------
// Values: BSON-ish equality keys, copies, paths

function isPlainObject(v: unknown): v is Doc {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/**
 * A string that is equal for two values exactly when MongoDB's index keys would be equal: numbers by value
 * (int, long and double alike), Dates by time, strings exactly, ObjectIds by bytes, embedded documents
 * field by field in order, null and missing alike.
 */
function canon(v: unknown): string {
  if (v === undefined || v === null) return "null";
  switch (typeof v) {
    case "number":
      return Number.isNaN(v) ? "num:NaN" : "num:" + (v === 0 ? "0" : String(v));
    case "bigint":
      return "num:" + v.toString();
    case "string":
      return "str:" + JSON.stringify(v);
    case "boolean":
      return v ? "bool:1" : "bool:0";
    case "object":
      break;
    default:
      return typeof v + ":" + String(v);
  }
  if (v === EMPTY_ARRAY) return "emptyarray";
  if (v instanceof Date) return "date:" + v.getTime();
  if (v instanceof RegExp) return "re:" + v.source + "/" + v.flags;
  if (Array.isArray(v)) return "[" + v.map(canon).join(",") + "]";
  const o = v as any;
  switch (o._bsontype) {
    case undefined:
      break;
    case "ObjectId":
      return "oid:" + o.toHexString();
    case "Long":
    case "Int32":
    case "Double":
    case "Decimal128":
      return "num:" + o.toString();
    case "Binary":
      return "bin:" + o.sub_type + ":" + o.toString("base64");
    case "MinKey":
    case "MaxKey":
      return o._bsontype;
    default:
      return o._bsontype + ":" + String(o);
  }
  return "{" + Object.keys(o).map((k) => JSON.stringify(k) + ":" + canon(o[k])).join(",") + "}";
}

/** Deep copy of plain objects, arrays and Dates; other BSON values (ObjectId, Binary, ...) are immutable here. */
function deepClone<T>(v: T): T {
  if (Array.isArray(v)) return v.map(deepClone) as unknown as T;
  if (v instanceof Date) return new Date(v.getTime()) as unknown as T;
  if (isPlainObject(v)) {
    const out: Doc = {};
    for (const k of Object.keys(v)) out[k] = deepClone(v[k]);
    return out as T;
  }
  return v;
}

/** A full, independent copy (what a client would get back over the wire). */
function wireCopy<T extends Doc>(d: T): T {
  return BSON.deserialize(BSON.serialize(d), DESERIALIZE) as T;
}

function idFirst(d: Doc): Doc {
  if (!d || !("_id" in d) || Object.keys(d)[0] === "_id") return d;
  return { _id: d._id, ...d };
}

/** Marks an empty array at the end of a path (indexed by MongoDB as `undefined`, distinct from null). */
const EMPTY_ARRAY: Doc = Object.freeze({});

/** The values at a dotted path, through arrays of subdocuments; a terminal array yields its elements. */
function valuesAtPath(doc: unknown, path: string): unknown[] {
  const parts = path.split(".");
  const out: unknown[] = [];
  const walk = (v: unknown, i: number) => {
    if (i === parts.length) {
      if (Array.isArray(v)) {
        if (v.length === 0) out.push(EMPTY_ARRAY);
        else for (const e of v) out.push(e);
      } else out.push(v);
      return;
    }
    const part = parts[i];
    if (Array.isArray(v)) {
      if (/^\d+$/.test(part) && Number(part) < v.length) walk(v[Number(part)], i + 1);
      else for (const e of v) if (isPlainObject(e)) walk(e, i);
      return;
    }
    if (isPlainObject(v) && Object.prototype.hasOwnProperty.call(v, part)) walk(v[part], i + 1);
  };
  walk(doc, 0);
  return out;
}

/** Sets a dotted path, creating the subdocuments on the way. */
function setPath(doc: Doc, path: string, value: unknown): void {
  const parts = path.split(".");
  let cur: Doc = doc;
  for (let i = 0; i < parts.length - 1; i++) {
    if (!isPlainObject(cur[parts[i]])) cur[parts[i]] = {};
    cur = cur[parts[i]];
  }
  cur[parts[parts.length - 1]] = value;
}

/** A value as MongoDB prints it in an E11000 message. */
function showValue(v: unknown): string {
  if (v === undefined || v === null || v === EMPTY_ARRAY) return v === EMPTY_ARRAY ? "undefined" : "null";
  if (typeof v === "string") return JSON.stringify(v);
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  if (v instanceof Date) return `new Date(${v.getTime()})`;
  if (v instanceof RegExp) return String(v);
  if (v instanceof ObjectId) return `ObjectId('${v.toHexString()}')`;
  if (Array.isArray(v)) return "[ " + v.map(showValue).join(", ") + " ]";
  if (isPlainObject(v)) return "{ " + Object.keys(v).map((k) => `${k}: ${showValue(v[k])}`).join(", ") + " }";
  return String(v);
}

function toNumber(v: unknown, fallback = 0): number {
  if (typeof v === "number") return v;
  if (v instanceof Long) return v.toNumber();
  if (typeof v === "bigint") return Number(v);
  return fallback;
}

function isOperatorDoc(u: unknown): boolean {
  if (!isPlainObject(u)) return false;
  const keys = Object.keys(u);
  return keys.length > 0 && keys[0].startsWith("$");
}

// ---------------------------------------------------------------------------------------------------------
// Collections and indexes

interface IndexDef extends IndexInfo {
  v: number;
  [option: string]: any;
}

/** The options of an index that make two specs of one name differ. */
function indexOptionsKey(ix: Doc): string {
  return canon({
    key: ix.key,
    unique: !!ix.unique,
    sparse: !!ix.sparse,
    expireAfterSeconds: ix.expireAfterSeconds ?? null,
    partialFilterExpression: ix.partialFilterExpression ?? null,
    collation: ix.collation ?? null,
    hidden: !!ix.hidden,
  });
}

interface Conflict {
  index: IndexDef;
  values: unknown[];
}

class Coll {
  /** canon(_id) -> document, in insertion (natural) order. Stored documents are never mutated in place. */
  readonly docs = new Map<string, Doc>();
  readonly indexes: IndexDef[] = [{ v: 2, key: { _id: 1 }, name: "_id_" }];
  /** Unique secondary index name -> entry key -> canon(_id) of the document holding it. */
  private readonly uniq = new Map<string, Map<string, string>>();
  private readonly partial = new Map<string, Query>();

  constructor(readonly db: string, readonly name: string, readonly options: Doc = {}) {}

  get ns(): string {
    return `${this.db}.${this.name}`;
  }

  all(): Doc[] {
    return Array.from(this.docs.values());
  }

  /** The index entries of a document: one per value combination; none when sparse/partial leave it out. */
  private entries(ix: IndexDef, doc: Doc): { key: string; values: unknown[] }[] {
    const partial = this.partial.get(ix.name);
    if (partial && !partial.test(doc)) return [];
    const fields = Object.keys(ix.key);
    const perField = fields.map((f) => valuesAtPath(doc, f));
    if (ix.sparse && perField.every((vals) => vals.length === 0)) return [];
    let combos: unknown[][] = [[]];
    for (const vals of perField) {
      const options = vals.length ? vals : [null];
      const next: unknown[][] = [];
      for (const c of combos) for (const v of options) next.push([...c, v]);
      combos = next;
    }
    const seen = new Map<string, unknown[]>();
    for (const c of combos) seen.set(c.map(canon).join("\u0000"), c);
    return Array.from(seen, ([key, values]) => ({ key, values }));
  }

  /** The unique index `doc` would violate; `selfId` is the canon(_id) of the document it replaces, if any. */
  private conflict(doc: Doc, selfId: string | null): Conflict | null {
    const id = canon(doc._id);
    if (id !== selfId && this.docs.has(id)) return { index: this.indexes[0], values: [doc._id] };
    for (const ix of this.indexes) {
      const map = this.uniq.get(ix.name);
      if (!map) continue;
      for (const e of this.entries(ix, doc)) {
        const other = map.get(e.key);
        if (other !== undefined && other !== selfId) return { index: ix, values: e.values };
      }
    }
    return null;
  }

  private addEntries(doc: Doc, id: string): void {
    for (const ix of this.indexes) {
      const map = this.uniq.get(ix.name);
      if (map) for (const e of this.entries(ix, doc)) map.set(e.key, id);
    }
  }

  private removeEntries(doc: Doc, id: string): void {
    for (const ix of this.indexes) {
      const map = this.uniq.get(ix.name);
      if (map) for (const e of this.entries(ix, doc)) if (map.get(e.key) === id) map.delete(e.key);
    }
  }

  duplicateKeyError(c: Conflict, prefix = ""): CommandError {
    const fields = Object.keys(c.index.key);
    const keyValue: Doc = {};
    fields.forEach((f, i) => (keyValue[f] = c.values[i] === EMPTY_ARRAY ? null : (c.values[i] ?? null)));
    const shown = "{ " + fields.map((f, i) => `${f}: ${showValue(c.values[i])}`).join(", ") + " }";
    return new CommandError(11000, "DuplicateKey",
      `${prefix}E11000 duplicate key error collection: ${this.ns} index: ${c.index.name} dup key: ${shown}`,
      { keyPattern: { ...c.index.key }, keyValue });
  }

  insert(doc: Doc): void {
    const id = canon(doc._id);
    const c = this.conflict(doc, null);
    if (c) throw this.duplicateKeyError(c);
    this.docs.set(id, doc);
    this.addEntries(doc, id);
  }

  /** Puts `next` in the place of `prev` (same _id), or throws E11000 leaving `prev` in place. */
  replace(prev: Doc, next: Doc): void {
    const id = canon(prev._id);
    this.removeEntries(prev, id);
    const c = this.conflict(next, id);
    if (c) {
      this.addEntries(prev, id);
      throw this.duplicateKeyError(c);
    }
    this.docs.set(id, next);
    this.addEntries(next, id);
  }

  remove(doc: Doc): void {
    const id = canon(doc._id);
    if (this.docs.get(id) !== doc) return;
    this.removeEntries(doc, id);
    this.docs.delete(id);
  }

  clear(): void {
    this.docs.clear();
    for (const map of this.uniq.values()) map.clear();
  }

  addIndex(ix: IndexDef): void {
    if (ix.partialFilterExpression) this.partial.set(ix.name, new Query(ix.partialFilterExpression as any));
    if (ix.unique && ix.name !== "_id_") {
      const map = new Map<string, string>();
      for (const [id, doc] of this.docs) {
        for (const e of this.entries(ix, doc)) {
          const other = map.get(e.key);
          if (other !== undefined && other !== id) {
            this.partial.delete(ix.name);
            throw this.duplicateKeyError({ index: ix, values: e.values }, "Index build failed: ");
          }
          map.set(e.key, id);
        }
      }
      this.uniq.set(ix.name, map);
    }
    this.indexes.push(ix);
  }

  dropIndex(name: string): void {
    const i = this.indexes.findIndex((ix) => ix.name === name);
    if (i > 0) this.indexes.splice(i, 1);
    this.uniq.delete(name);
    this.partial.delete(name);
  }
}

// ---------------------------------------------------------------------------------------------------------
// Queries, updates and upserts through mingo

interface FindSpec {
  sort?: Doc;
  skip?: number;
  limit?: number;
  projection?: Doc;
  collation?: Doc;
  variables?: Doc;
}

function queryOptions(spec: { collation?: Doc; variables?: Doc }): Doc {
  const opts: Doc = {};
  if (spec.collation) opts.collation = spec.collation;
  if (spec.variables) opts.variables = spec.variables;
  return opts;
}

function runFind(source: Doc[], filter: Doc, spec: FindSpec = {}): Doc[] {
  let docs = source;
  let sort = spec.sort && Object.keys(spec.sort).length ? { ...spec.sort } : undefined;
  if (sort && "$natural" in sort) {
    if (toNumber(sort.$natural, 1) < 0) docs = docs.slice().reverse();
    delete sort.$natural;
    if (!Object.keys(sort).length) sort = undefined;
  }
  const projection = spec.projection && Object.keys(spec.projection).length ? spec.projection : undefined;
  let cursor = new Query(filter as any, queryOptions(spec)).find<Doc>(docs, (projection ?? {}) as any);
  if (spec.collation) cursor = cursor.collation(spec.collation as any);
  if (sort) cursor = cursor.sort(sort);
  if (spec.skip && spec.skip > 0) cursor = cursor.skip(spec.skip);
  if (spec.limit && spec.limit !== 0) cursor = cursor.limit(Math.abs(spec.limit));
  const out = cursor.all();
  return projection ? out.map(idFirst) : out;
}

function project(doc: Doc, projection: Doc | undefined): Doc {
  if (!projection || !Object.keys(projection).length) return doc;
  return idFirst(new Query({}).find<Doc>([doc], projection as any).all()[0]);
}

const UPDATE_OPERATORS = new Set([
  "$set", "$unset", "$inc", "$mul", "$rename", "$min", "$max", "$currentDate", "$addToSet", "$pop", "$pull",
  "$pullAll", "$push", "$bit", "$setOnInsert",
]);

function checkUpdate(u: unknown): void {
  if (Array.isArray(u)) return;
  if (!isPlainObject(u)) throw new CommandError(9, "FailedToParse", "Update argument must be either an object or an array");
  if (!isOperatorDoc(u)) return;
  for (const k of Object.keys(u)) {
    if (!UPDATE_OPERATORS.has(k)) {
      throw new CommandError(9, "FailedToParse",
        `Unknown modifier: ${k}. Expected a valid update modifier or pipeline-style update specified as an array`);
    }
  }
}

/** Applies an update document (operators, replacement or pipeline) to a copy of `doc`. */
function applyUpdate(doc: Doc, u: any, condition: Doc, arrayFilters: Doc[] | undefined, insert: boolean, opts: Doc): Doc {
  try {
    return applyUpdateUnchecked(doc, u, condition, arrayFilters, insert, opts);
  } catch (err) {
    if (!(err instanceof CommandError) && /immutable field '_id'/.test((err as Error)?.message)) throw immutableId();
    throw err;
  }
}

function applyUpdateUnchecked(doc: Doc, u: any, condition: Doc, arrayFilters: Doc[] | undefined, insert: boolean, opts: Doc): Doc {
  let next: Doc;
  if (Array.isArray(u)) {
    const arr = [deepClone(doc)];
    mingoUpdateOne(arr, {}, u as any, { cloneMode: "deep" }, opts);
    next = arr[0];
  } else if (isOperatorDoc(u)) {
    const modifier: Doc = { ...u };
    const onInsert = modifier.$setOnInsert;
    delete modifier.$setOnInsert;
    // mingo refuses any _id path in an update; MongoDB accepts `$set: {_id: <same value>}` and, when an
    // upsert inserts, `$set`/`$setOnInsert` of the new document's _id. Those are applied here instead.
    const ids: unknown[] = [];
    const withoutId = (fields: unknown): Doc | undefined => {
      if (!isPlainObject(fields) || !("_id" in fields)) return fields as Doc | undefined;
      const { _id, ...rest } = fields;
      ids.push(_id);
      return rest;
    };
    if (modifier.$set) modifier.$set = withoutId(modifier.$set);
    const insertFields = insert ? withoutId(onInsert) : undefined;
    for (const op of Object.keys(modifier)) if (isPlainObject(modifier[op]) && !Object.keys(modifier[op]).length) delete modifier[op];
    next = deepClone(doc);
    if (Object.keys(modifier).length) {
      const arr = [next];
      mingoUpdateOne(arr, insert ? {} : (condition as any), modifier as any, { arrayFilters, cloneMode: "deep" }, opts);
      next = arr[0];
    }
    if (insertFields && Object.keys(insertFields).length) {
      const arr = [next];
      mingoUpdateOne(arr, {}, { $set: insertFields } as any, { cloneMode: "deep" }, opts);
      next = arr[0];
    }
    for (const id of ids) {
      if ("_id" in next && canon(next._id) !== canon(id)) throw immutableId();
      next._id = deepClone(id);
    }
  } else {
    const replacement: Doc = deepClone(u ?? {});
    if ("_id" in replacement && "_id" in doc && canon(replacement._id) !== canon(doc._id)) throw immutableId();
    delete replacement._id;
    next = "_id" in doc ? { _id: doc._id, ...replacement } : replacement;
  }
  if ("_id" in doc && canon(next._id) !== canon(doc._id)) throw immutableId();
  return idFirst(next);
}

const immutableId = () =>
  new CommandError(66, "ImmutableField", "Performing an update on the path '_id' would modify the immutable field '_id'");

/** The equality fields of a query (as MongoDB seeds an upserted document with them). */
function equalityFields(q: Doc, into: Doc): Doc {
  for (const [k, v] of Object.entries(q ?? {})) {
    if (k === "$and" && Array.isArray(v)) {
      for (const sub of v) if (isPlainObject(sub)) equalityFields(sub, into);
    } else if (k.startsWith("$")) {
      continue;
    } else if (isOperatorDoc(v)) {
      if ("$eq" in (v as Doc)) setPath(into, k, deepClone((v as Doc).$eq));
    } else if (!(v instanceof RegExp)) {
      setPath(into, k, deepClone(v));
    }
  }
  return into;
}

function buildUpsert(q: Doc, u: any, opts: Doc): Doc {
  let doc: Doc;
  if (Array.isArray(u) || isOperatorDoc(u)) {
    doc = applyUpdate(equalityFields(q, {}), u, {}, undefined, true, opts);
  } else {
    doc = deepClone(u ?? {});
    if (!("_id" in doc) && q && "_id" in q && !isOperatorDoc(q._id) && !(q._id instanceof RegExp)) doc._id = deepClone(q._id);
  }
  return prepareForInsert(doc);
}

function prepareForInsert(doc: Doc): Doc {
  if (!isPlainObject(doc)) throw badValue("document to insert must be an object");
  if (doc._id === undefined) {
    const { _id, ...rest } = doc;
    return { _id: new ObjectId(), ...rest };
  }
  if (Array.isArray(doc._id)) throw new CommandError(53, "InvalidIdField", "The '_id' value cannot be of type array");
  if (doc._id instanceof RegExp) throw new CommandError(53, "InvalidIdField", "The '_id' value cannot be of type regex");
  return idFirst(doc);
}

function writeError(index: number, err: unknown): Doc {
  if (err instanceof CommandError) return { index, code: err.code, codeName: err.codeName, errmsg: err.message, ...err.extra };
  return { index, code: 2, codeName: "BadValue", errmsg: err instanceof Error ? err.message : String(err) };
}

// ---------------------------------------------------------------------------------------------------------
// The server

interface OpenCursor {
  id: number;
  ns: string;
  docs: Doc[];
  pos: number;
}

interface Ctx {
  db: string;
  body: Doc;
  conn: Conn;
}

interface Conn {
  id: number;
  socket: net.Socket;
}

class WireServer {
  private readonly dbs = new Map<string, Map<string, Coll>>();
  private readonly cursors = new Map<number, OpenCursor>();
  private nextCursorId = 1;
  private nextConnId = 1;
  private readonly log: QueryLogEntry[] = [];
  private readonly sockets = new Set<net.Socket>();
  private readonly timers = new Set<NodeJS.Timeout | NodeJS.Immediate>();
  private accepted = 0;
  private closed = false;
  readonly server: net.Server;

  constructor(private readonly delayMs: number) {
    this.server = net.createServer((socket) => this.accept(socket));
  }

  // ----- instrumentation -----

  databases(): string[] {
    return Array.from(this.dbs).filter(([, colls]) => colls.size > 0).map(([name]) => name).sort();
  }

  collections(db: string): string[] {
    return Array.from(this.dbs.get(db)?.keys() ?? []).sort();
  }

  indexes(db: string, coll: string): IndexInfo[] {
    return (this.coll(db, coll)?.indexes ?? []).map((ix) => {
      const out: IndexInfo = { key: { ...ix.key }, name: ix.name };
      if (ix.unique) out.unique = true;
      if (ix.sparse) out.sparse = true;
      if (ix.expireAfterSeconds !== undefined) out.expireAfterSeconds = ix.expireAfterSeconds;
      if (ix.partialFilterExpression) out.partialFilterExpression = wireCopy(ix.partialFilterExpression);
      return out;
    });
  }

  docs(db: string, coll: string): any[] {
    return (this.coll(db, coll)?.all() ?? []).map(wireCopy);
  }

  connections(): number {
    return this.accepted;
  }

  openConnections(): number {
    return this.sockets.size;
  }

  queries(): QueryLogEntry[] {
    return this.log.map((e) => wireCopy(e) as QueryLogEntry);
  }

  clearQueries(): void {
    this.log.length = 0;
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

  // ----- transport -----

  private accept(socket: net.Socket): void {
    if (this.closed) {
      socket.destroy();
      return;
    }
    this.accepted++;
    this.sockets.add(socket);
    socket.setNoDelay(true);
    const conn: Conn = { id: this.nextConnId++, socket };
    let chunks: Buffer[] = [];
    let buffered = 0;
    socket.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      buffered += chunk.length;
      while (buffered >= 4) {
        if (chunks[0].length < 4) chunks = [Buffer.concat(chunks)];
        const length = chunks[0].readInt32LE(0);
        if (length < 16 || length > MAX_MESSAGE_SIZE) {
          socket.destroy();
          return;
        }
        if (buffered < length) return;
        const all = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
        const message = all.subarray(0, length);
        const rest = all.subarray(length);
        chunks = rest.length ? [rest] : [];
        buffered = rest.length;
        try {
          this.handleMessage(conn, message);
        } catch {
          socket.destroy(); // an unparseable message: a real server closes the connection too
          return;
        }
      }
    });
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
    const requestId = msg.readInt32LE(4);
    const opCode = msg.readInt32LE(12);
    if (opCode === OP_MSG) {
      const flags = msg.readUInt32LE(16);
      const end = msg.length - (flags & MSG_CHECKSUM_PRESENT ? 4 : 0);
      let pos = 20;
      let body: Doc | null = null;
      const sequences: [string, Doc[]][] = [];
      while (pos < end) {
        const kind = msg[pos++];
        const size = msg.readInt32LE(pos);
        if (kind === 0) {
          body = BSON.deserialize(msg.subarray(pos, pos + size), DESERIALIZE);
          pos += size;
        } else if (kind === 1) {
          const sectionEnd = pos + size;
          let p = pos + 4;
          const zero = msg.indexOf(0, p);
          const identifier = msg.toString("utf8", p, zero);
          p = zero + 1;
          const docs: Doc[] = [];
          while (p < sectionEnd) {
            const docSize = msg.readInt32LE(p);
            docs.push(BSON.deserialize(msg.subarray(p, p + docSize), DESERIALIZE));
            p += docSize;
          }
          sequences.push([identifier, docs]);
          pos = sectionEnd;
        } else {
          throw new Error(`unknown OP_MSG section kind ${kind}`);
        }
      }
      if (!body) throw new Error("OP_MSG without a body section");
      for (const [identifier, docs] of sequences) body[identifier] = [...(Array.isArray(body[identifier]) ? body[identifier] : []), ...docs];
      const db = typeof body.$db === "string" ? body.$db : "";
      const answer = this.run(conn, db, body);
      if (flags & MSG_MORE_TO_COME) return; // unacknowledged (w:0): no answer
      this.send(conn.socket, this.opMsg(requestId, answer));
    } else if (opCode === OP_QUERY) {
      let pos = 20;
      const zero = msg.indexOf(0, pos);
      const fullName = msg.toString("utf8", pos, zero);
      pos = zero + 1 + 8; // numberToSkip, numberToReturn
      const size = msg.readInt32LE(pos);
      let query: Doc = BSON.deserialize(msg.subarray(pos, pos + size), DESERIALIZE);
      if (isPlainObject(query.$query)) query = query.$query;
      const db = fullName.slice(0, fullName.indexOf("."));
      const name = Object.keys(query)[0] ?? "";
      let answer: Doc;
      if (!fullName.endsWith(".$cmd") || !["hello", "isMaster", "ismaster"].includes(name)) {
        answer = { ok: 0, errmsg: `Unsupported OP_QUERY command: ${name}. The client driver may require an upgrade.`, code: 352, codeName: "UnsupportedOpQueryCommand" };
      } else {
        answer = this.run(conn, db, query);
      }
      this.send(conn.socket, this.opReply(requestId, answer));
    } else {
      throw new Error(`unsupported opCode ${opCode}`);
    }
  }

  private serializeAnswer(answer: Doc): Uint8Array {
    try {
      const bson = BSON.serialize(answer);
      if (bson.length > MAX_BSON_OBJECT_SIZE + 16 * 1024) throw new Error("BSONObj size is too large");
      return bson;
    } catch (err) {
      return BSON.serialize({ ok: 0, errmsg: (err as Error).message, code: 10334, codeName: "BSONObjectTooLarge" });
    }
  }

  private opMsg(responseTo: number, answer: Doc): Buffer {
    const bson = this.serializeAnswer(answer);
    const header = Buffer.alloc(21);
    header.writeInt32LE(21 + bson.length, 0);
    header.writeInt32LE(this.nextRequestId(), 4);
    header.writeInt32LE(responseTo, 8);
    header.writeInt32LE(OP_MSG, 12);
    header.writeUInt32LE(0, 16);
    header[20] = 0; // section kind 0
    return Buffer.concat([header, bson]);
  }

  private opReply(responseTo: number, answer: Doc): Buffer {
    const bson = this.serializeAnswer(answer);
    const header = Buffer.alloc(36);
    header.writeInt32LE(36 + bson.length, 0);
    header.writeInt32LE(this.nextRequestId(), 4);
    header.writeInt32LE(responseTo, 8);
    header.writeInt32LE(OP_REPLY, 12);
    header.writeInt32LE(0, 16); // responseFlags
    header.writeBigInt64LE(0n, 20); // cursorID
    header.writeInt32LE(0, 28); // startingFrom
    header.writeInt32LE(1, 32); // numberReturned
    return Buffer.concat([header, bson]);
  }

  private requestCounter = 1;
  private nextRequestId(): number {
    this.requestCounter = (this.requestCounter + 1) & 0x7fffffff;
    return this.requestCounter;
  }

  // ----- commands -----

  private run(conn: Conn, db: string, body: Doc): Doc {
    const name = Object.keys(body)[0] ?? "";
    try {
      const handler = COMMANDS[name];
      if (!handler) throw new CommandError(59, "CommandNotFound", `no such command: '${name}'`);
      if (body.txnNumber !== undefined || body.startTransaction !== undefined || body.autocommit !== undefined) {
        throw new CommandError(20, "IllegalOperation", "Transaction numbers are only allowed on a replica set member or mongos");
      }
      if (!db && !HANDSHAKE.has(name)) throw new CommandError(40414, "Location40414", "BSON field '$db' is missing but a required field");
      return handler.call(this, { db, body, conn });
    } catch (err) {
      if (err instanceof CommandError) return { ok: 0, errmsg: err.message, code: err.code, codeName: err.codeName, ...err.extra };
      return { ok: 0, errmsg: err instanceof Error ? err.message : String(err), code: 2, codeName: "BadValue" };
    }
  }

  coll(db: string, name: string): Coll | undefined {
    return this.dbs.get(db)?.get(name);
  }

  private ensureColl(db: string, name: string, options: Doc = {}): { coll: Coll; created: boolean } {
    if (!db || !name || name.includes("$") || db.includes(".")) throw new CommandError(73, "InvalidNamespace", `Invalid namespace specified '${db}.${name}'`);
    let colls = this.dbs.get(db);
    if (!colls) this.dbs.set(db, (colls = new Map()));
    const existing = colls.get(name);
    if (existing) return { coll: existing, created: false };
    const coll = new Coll(db, name, options);
    colls.set(name, coll);
    return { coll, created: true };
  }

  private dropColl(db: string, name: string): Coll | undefined {
    const colls = this.dbs.get(db);
    const coll = colls?.get(name);
    if (!colls || !coll) return undefined;
    colls.delete(name);
    if (!colls.size) this.dbs.delete(db);
    for (const [id, cur] of this.cursors) if (cur.ns === coll.ns) this.cursors.delete(id);
    return coll;
  }

  private collName(ctx: Ctx, field: string): string {
    const name = ctx.body[field];
    if (typeof name !== "string" || !name) throw new CommandError(73, "InvalidNamespace", `collection name has invalid type ${typeof name}`);
    return name;
  }

  private record(entry: QueryLogEntry): void {
    this.log.push(entry);
  }

  /** First batch of a cursor; the rest stays open for getMore (id 0 when exhausted). */
  private cursorAnswer(ns: string, docs: Doc[], batchSize: unknown, singleBatch = false): Doc {
    const cur: OpenCursor = { id: 0, ns, docs, pos: 0 };
    const size = batchSize === undefined || batchSize === null ? DEFAULT_FIRST_BATCH : toNumber(batchSize, DEFAULT_FIRST_BATCH);
    const firstBatch = size === 0 ? [] : this.takeBatch(cur, size);
    let id = 0;
    if (!singleBatch && cur.pos < docs.length) {
      id = this.nextCursorId++;
      cur.id = id;
      this.cursors.set(id, cur);
    }
    return { cursor: { firstBatch, id: Long.fromNumber(id), ns }, ok: 1 };
  }

  private takeBatch(cur: OpenCursor, batchSize: number): Doc[] {
    const max = batchSize > 0 ? batchSize : Infinity;
    const out: Doc[] = [];
    let bytes = 0;
    while (cur.pos < cur.docs.length && out.length < max) {
      const doc = cur.docs[cur.pos];
      const size = BSON.calculateObjectSize(doc);
      if (out.length && bytes + size > MAX_BATCH_BYTES) break;
      out.push(doc);
      bytes += size;
      cur.pos++;
    }
    return out;
  }

  hello(ctx: Ctx): Doc {
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

  find(ctx: Ctx): Doc {
    const { db, body } = ctx;
    const name = this.collName(ctx, "find");
    const filter: Doc = body.filter ?? {};
    const sort: Doc | undefined = body.sort && Object.keys(body.sort).length ? body.sort : undefined;
    this.record({ db, coll: name, op: "find", filter, ...(sort ? { sort } : {}) });
    const coll = this.coll(db, name);
    const limit = toNumber(body.limit, 0);
    const docs = runFind(coll?.all() ?? [], filter, {
      sort, skip: toNumber(body.skip, 0), limit, projection: body.projection, collation: body.collation, variables: body.let,
    });
    return this.cursorAnswer(`${db}.${name}`, docs, body.batchSize, body.singleBatch === true || limit < 0);
  }

  getMore(ctx: Ctx): Doc {
    const { db, body } = ctx;
    const id = toNumber(body.getMore, -1);
    const cur = this.cursors.get(id);
    if (!cur) throw new CommandError(43, "CursorNotFound", `cursor id ${id} not found`);
    const ns = `${db}.${body.collection}`;
    if (cur.ns !== ns) {
      throw new CommandError(13, "Unauthorized", `Requested getMore on namespace '${ns}', but cursor belongs to a different namespace ${cur.ns}`);
    }
    const nextBatch = this.takeBatch(cur, toNumber(body.batchSize, 0));
    let outId = id;
    if (cur.pos >= cur.docs.length) {
      this.cursors.delete(id);
      outId = 0;
    }
    return { cursor: { nextBatch, id: Long.fromNumber(outId), ns: cur.ns }, ok: 1 };
  }

  killCursors(ctx: Ctx): Doc {
    const killed: Long[] = [];
    const missing: Long[] = [];
    for (const raw of (ctx.body.cursors ?? []) as unknown[]) {
      const id = toNumber(raw, -1);
      (this.cursors.delete(id) ? killed : missing).push(Long.fromNumber(id));
    }
    return { cursorsKilled: killed, cursorsNotFound: missing, cursorsAlive: [], cursorsUnknown: [], ok: 1 };
  }

  count(ctx: Ctx): Doc {
    const { db, body } = ctx;
    const name = this.collName(ctx, "count");
    const filter: Doc = body.query ?? {};
    this.record({ db, coll: name, op: "count", filter });
    const coll = this.coll(db, name);
    const n = runFind(coll?.all() ?? [], filter, { skip: toNumber(body.skip, 0), limit: toNumber(body.limit, 0), collation: body.collation }).length;
    return { n, ok: 1 };
  }

  distinct(ctx: Ctx): Doc {
    const { db, body } = ctx;
    const name = this.collName(ctx, "distinct");
    if (typeof body.key !== "string") throw badValue("distinct key must be a string");
    const filter: Doc = body.query ?? {};
    this.record({ db, coll: name, op: "distinct", filter });
    const coll = this.coll(db, name);
    const seen = new Map<string, unknown>();
    for (const doc of runFind(coll?.all() ?? [], filter, { collation: body.collation })) {
      for (const v of valuesAtPath(doc, body.key)) if (v !== EMPTY_ARRAY && v !== undefined && !seen.has(canon(v))) seen.set(canon(v), v);
    }
    return { values: Array.from(seen.values()), ok: 1 };
  }

  aggregate(ctx: Ctx): Doc {
    const { db, body } = ctx;
    const target = body.aggregate;
    if (!Array.isArray(body.pipeline)) throw badValue("'pipeline' option must be specified as an array");
    if (body.explain) throw badValue("explain is not supported by the test double");
    let pipeline: Doc[] = body.pipeline;
    const collName = typeof target === "string" ? target : "$cmd.aggregate";
    const first = pipeline[0];
    const sortStage = pipeline.find((s) => s && "$sort" in s);
    this.record({
      db, coll: collName, op: "aggregate",
      filter: first && "$match" in first ? first.$match : {},
      ...(sortStage ? { sort: sortStage.$sort } : {}),
      pipeline,
    });
    const last = pipeline[pipeline.length - 1];
    if (pipeline.some((s) => s && "$merge" in s)) throw badValue("$merge is not supported by the test double");
    let out: { db: string; coll: string } | undefined;
    if (last && "$out" in last) {
      out = typeof last.$out === "string" ? { db, coll: last.$out } : { db: last.$out.db ?? db, coll: last.$out.coll };
      pipeline = pipeline.slice(0, -1);
    }
    const input = typeof target === "string" ? (this.coll(db, target)?.all() ?? []).map(deepClone) : [];
    const options: Doc = {
      ...queryOptions({ collation: body.collation, variables: body.let }),
      collectionResolver: (name: string) => (this.coll(db, name)?.all() ?? []).map(deepClone),
    };
    const result = new Aggregator(pipeline, options).run<Doc>(input);
    if (out) {
      const { coll } = this.ensureColl(out.db, out.coll);
      const previous = coll.all();
      coll.clear();
      try {
        for (const doc of result) coll.insert(prepareForInsert(deepClone(doc)));
      } catch (err) {
        coll.clear();
        for (const doc of previous) coll.insert(doc);
        throw err;
      }
      return this.cursorAnswer(`${db}.${collName}`, [], body.cursor?.batchSize);
    }
    return this.cursorAnswer(`${db}.${collName}`, result, body.cursor?.batchSize);
  }

  insert(ctx: Ctx): Doc {
    const { db, body } = ctx;
    const name = this.collName(ctx, "insert");
    const documents = body.documents;
    if (!Array.isArray(documents)) throw badValue("insert requires a 'documents' array");
    const ordered = body.ordered !== false;
    const { coll } = this.ensureColl(db, name);
    let n = 0;
    const writeErrors: Doc[] = [];
    for (let i = 0; i < documents.length; i++) {
      try {
        coll.insert(prepareForInsert(documents[i]));
        n++;
      } catch (err) {
        writeErrors.push(writeError(i, err));
        if (ordered) break;
      }
    }
    return { n, ...(writeErrors.length ? { writeErrors } : {}), ok: 1 };
  }

  update(ctx: Ctx): Doc {
    const { db, body } = ctx;
    const name = this.collName(ctx, "update");
    const updates = body.updates;
    if (!Array.isArray(updates)) throw badValue("update requires an 'updates' array");
    const ordered = body.ordered !== false;
    let n = 0;
    let nModified = 0;
    const upserted: Doc[] = [];
    const writeErrors: Doc[] = [];
    for (let i = 0; i < updates.length; i++) {
      const st: Doc = updates[i] ?? {};
      const q: Doc = st.q ?? {};
      this.record({ db, coll: name, op: "update", filter: q, ...(st.sort ? { sort: st.sort } : {}) });
      try {
        checkUpdate(st.u);
        const opts = queryOptions({ collation: st.collation, variables: st.c ?? body.let });
        if (st.multi && !Array.isArray(st.u) && !isOperatorDoc(st.u)) throw badValue("multi update is not supported for replacement-style update");
        const coll = this.coll(db, name);
        const matches = runFind(coll?.all() ?? [], q, { sort: st.sort, limit: st.multi ? 0 : 1, collation: st.collation, variables: opts.variables });
        if (matches.length && coll) {
          for (const doc of matches) {
            const next = applyUpdate(doc, st.u, q, st.arrayFilters, false, opts);
            const changed = canon(next) !== canon(doc);
            if (changed) coll.replace(doc, next);
            n++;
            if (changed) nModified++;
          }
        } else if (st.upsert) {
          const doc = buildUpsert(q, st.u, opts);
          this.ensureColl(db, name).coll.insert(doc);
          n++;
          upserted.push({ index: i, _id: doc._id });
        }
      } catch (err) {
        writeErrors.push(writeError(i, err));
        if (ordered) break;
      }
    }
    return { n, nModified, ...(upserted.length ? { upserted } : {}), ...(writeErrors.length ? { writeErrors } : {}), ok: 1 };
  }

  delete(ctx: Ctx): Doc {
    const { db, body } = ctx;
    const name = this.collName(ctx, "delete");
    const deletes = body.deletes;
    if (!Array.isArray(deletes)) throw badValue("delete requires a 'deletes' array");
    const ordered = body.ordered !== false;
    let n = 0;
    const writeErrors: Doc[] = [];
    for (let i = 0; i < deletes.length; i++) {
      const st: Doc = deletes[i] ?? {};
      const q: Doc = st.q ?? {};
      this.record({ db, coll: name, op: "delete", filter: q });
      try {
        const coll = this.coll(db, name);
        const limit = toNumber(st.limit, 0);
        for (const doc of runFind(coll?.all() ?? [], q, { limit: limit === 1 ? 1 : 0, collation: st.collation })) {
          coll?.remove(doc);
          n++;
        }
      } catch (err) {
        writeErrors.push(writeError(i, err));
        if (ordered) break;
      }
    }
    return { n, ...(writeErrors.length ? { writeErrors } : {}), ok: 1 };
  }

  findAndModify(ctx: Ctx): Doc {
    const { db, body } = ctx;
    const name = this.collName(ctx, "findAndModify");
    const q: Doc = body.query ?? {};
    const sort: Doc | undefined = body.sort && Object.keys(body.sort).length ? body.sort : undefined;
    this.record({ db, coll: name, op: "findAndModify", filter: q, ...(sort ? { sort } : {}) });
    const fields: Doc | undefined = body.fields ?? body.projection;
    const remove = body.remove === true;
    if (remove === (body.update !== undefined)) throw new CommandError(9, "FailedToParse", "Either an update or remove=true must be specified");
    if (remove && body.upsert) throw new CommandError(9, "FailedToParse", "Cannot specify both upsert=true and remove=true");
    if (!remove) checkUpdate(body.update);
    const opts = queryOptions({ collation: body.collation, variables: body.let });
    const coll = this.coll(db, name);
    const found: Doc | undefined = runFind(coll?.all() ?? [], q, { sort, limit: 1, collation: body.collation, variables: body.let })[0];
    if (remove) {
      if (found && coll) coll.remove(found);
      return { lastErrorObject: { n: found ? 1 : 0 }, value: found ? project(found, fields) : null, ok: 1 };
    }
    if (found && coll) {
      const next = applyUpdate(found, body.update, q, body.arrayFilters, false, opts);
      if (canon(next) !== canon(found)) coll.replace(found, next);
      return { lastErrorObject: { n: 1, updatedExisting: true }, value: project(body.new ? next : found, fields), ok: 1 };
    }
    if (body.upsert) {
      const doc = buildUpsert(q, body.update, opts);
      this.ensureColl(db, name).coll.insert(doc);
      return { lastErrorObject: { n: 1, updatedExisting: false, upserted: doc._id }, value: body.new ? project(doc, fields) : null, ok: 1 };
    }
    return { lastErrorObject: { n: 0, updatedExisting: false }, value: null, ok: 1 };
  }

  createIndexes(ctx: Ctx): Doc {
    const { db, body } = ctx;
    const name = this.collName(ctx, "createIndexes");
    if (!Array.isArray(body.indexes) || !body.indexes.length) throw badValue("Must specify at least one index to create");
    const { coll, created } = this.ensureColl(db, name);
    const before = coll.indexes.length;
    for (const spec of body.indexes as Doc[]) {
      if (!isPlainObject(spec) || !isPlainObject(spec.key) || !Object.keys(spec.key).length) throw new CommandError(67, "CannotCreateIndex", "index key pattern must be a non-empty object");
      if (typeof spec.name !== "string" || !spec.name) throw new CommandError(9, "FailedToParse", "index name must be a non-empty string");
      const ix: IndexDef = { v: 2, key: spec.key, name: spec.name };
      for (const [k, v] of Object.entries(spec)) if (!["v", "key", "name", "ns", "background"].includes(k)) ix[k] = v;
      const sameName = coll.indexes.find((x) => x.name === ix.name);
      if (sameName) {
        if (indexOptionsKey(sameName) === indexOptionsKey(ix)) continue;
        throw new CommandError(86, "IndexKeySpecsConflict",
          `An existing index has the same name as the requested index. When index names are not specified, they are auto generated and can cause conflicts. Please refer to our documentation. Requested index: ${showValue(ix)}, existing index: ${showValue(sameName)}`);
      }
      const sameKey = coll.indexes.find((x) => canon(x.key) === canon(ix.key)
        && canon(x.partialFilterExpression ?? null) === canon(ix.partialFilterExpression ?? null)
        && canon(x.collation ?? null) === canon(ix.collation ?? null));
      if (sameKey) throw new CommandError(85, "IndexOptionsConflict", `Index already exists with a different name: ${sameKey.name}`);
      coll.addIndex(ix);
    }
    const after = coll.indexes.length;
    return {
      numIndexesBefore: before,
      numIndexesAfter: after,
      ...(before === after ? { note: "all indexes already exist" } : {}),
      createdCollectionAutomatically: created,
      ok: 1,
    };
  }

  listIndexes(ctx: Ctx): Doc {
    const { db } = ctx;
    const name = this.collName(ctx, "listIndexes");
    const coll = this.coll(db, name);
    if (!coll) throw notFound(`ns does not exist: ${db}.${name}`);
    return this.cursorAnswer(`${db}.${name}`, coll.indexes.map((ix) => wireCopy(ix)), ctx.body.cursor?.batchSize);
  }

  dropIndexes(ctx: Ctx): Doc {
    const { db, body } = ctx;
    const name = this.collName(ctx, "dropIndexes");
    const coll = this.coll(db, name);
    if (!coll) throw notFound(`ns not found ${db}.${name}`);
    const was = coll.indexes.length;
    const spec = body.index;
    let names: string[];
    if (spec === "*") names = coll.indexes.slice(1).map((ix) => ix.name);
    else if (typeof spec === "string") names = [spec];
    else if (Array.isArray(spec)) names = spec.map(String);
    else if (isPlainObject(spec)) {
      const ix = coll.indexes.find((x) => canon(x.key) === canon(spec));
      if (!ix) throw new CommandError(27, "IndexNotFound", `can't find index with key: ${showValue(spec)}`);
      names = [ix.name];
    } else throw badValue("invalid index specification");
    for (const n of names) {
      if (n === "_id_") throw new CommandError(72, "InvalidOptions", "cannot drop _id index");
      if (!coll.indexes.some((x) => x.name === n)) throw new CommandError(27, "IndexNotFound", `index not found with name [${n}]`);
    }
    for (const n of names) coll.dropIndex(n);
    return { nIndexesWas: was, ok: 1 };
  }

  listCollections(ctx: Ctx): Doc {
    const { db, body } = ctx;
    const infos = Array.from(this.dbs.get(db)?.values() ?? []).map((c) =>
      body.nameOnly ? { name: c.name, type: "collection" } : {
        name: c.name,
        type: "collection",
        options: wireCopy(c.options),
        info: { readOnly: false },
        idIndex: { v: 2, key: { _id: 1 }, name: "_id_" },
      });
    const filter: Doc = body.filter ?? {};
    return this.cursorAnswer(`${db}.$cmd.listCollections`, runFind(infos, filter), body.cursor?.batchSize);
  }

  listDatabases(ctx: Ctx): Doc {
    const { body } = ctx;
    let dbs: Doc[] = this.databases().map((name) => (body.nameOnly ? { name } : { name, sizeOnDisk: 8192, empty: false }));
    if (isPlainObject(body.filter)) dbs = runFind(dbs, body.filter);
    return body.nameOnly ? { databases: dbs, ok: 1 } : { databases: dbs, totalSize: dbs.length * 8192, totalSizeMb: 0, ok: 1 };
  }

  create(ctx: Ctx): Doc {
    const { db, body } = ctx;
    const name = this.collName(ctx, "create");
    const options: Doc = {};
    for (const [k, v] of Object.entries(body)) {
      if (!["create", "$db", "lsid", "$clusterTime", "writeConcern", "comment", "$readPreference", "apiVersion", "apiStrict", "apiDeprecationErrors", "maxTimeMS"].includes(k)) options[k] = v;
    }
    const existing = this.coll(db, name);
    if (existing) {
      if (canon(existing.options) === canon(options)) return { ok: 1 };
      throw new CommandError(48, "NamespaceExists", `Collection ${db}.${name} already exists.`);
    }
    this.ensureColl(db, name, options);
    return { ok: 1 };
  }

  drop(ctx: Ctx): Doc {
    const { db } = ctx;
    const name = this.collName(ctx, "drop");
    const coll = this.dropColl(db, name);
    return coll ? { ns: coll.ns, nIndexesWas: coll.indexes.length, ok: 1 } : { ok: 1 };
  }

  dropDatabase(ctx: Ctx): Doc {
    const { db } = ctx;
    for (const name of this.collections(db)) this.dropColl(db, name);
    return { dropped: db, ok: 1 };
  }

  renameCollection(ctx: Ctx): Doc {
    const { body } = ctx;
    const from = String(body.renameCollection ?? "");
    const to = String(body.to ?? "");
    const split = (ns: string) => [ns.slice(0, ns.indexOf(".")), ns.slice(ns.indexOf(".") + 1)];
    const [fromDb, fromName] = split(from);
    const [toDb, toName] = split(to);
    const source = this.coll(fromDb, fromName);
    if (!source) throw notFound("Source collection " + from + " does not exist");
    if (this.coll(toDb, toName)) {
      if (!body.dropTarget) throw new CommandError(48, "NamespaceExists", "target namespace exists");
      this.dropColl(toDb, toName);
    }
    this.dropColl(fromDb, fromName);
    const { coll } = this.ensureColl(toDb, toName, source.options);
    for (const ix of source.indexes.slice(1)) coll.addIndex(ix);
    for (const doc of source.all()) coll.insert(doc);
    return { ok: 1 };
  }
}

const HANDSHAKE = new Set(["hello", "isMaster", "ismaster"]);

type Handler = (this: WireServer, ctx: Ctx) => Doc;

const COMMANDS: Record<string, Handler> = {
  hello: WireServer.prototype.hello,
  isMaster: WireServer.prototype.hello,
  ismaster: WireServer.prototype.hello,
  ping: () => ({ ok: 1 }),
  buildInfo: buildInfo,
  buildinfo: buildInfo,
  getParameter: (ctx) => {
    const known: Doc = { featureCompatibilityVersion: { version: "7.0" }, authenticationMechanisms: [] };
    const out: Doc = {};
    for (const k of Object.keys(ctx.body)) if (k in known) out[k] = known[k];
    return { ...out, ok: 1 };
  },
  endSessions: () => ({ ok: 1 }),
  killCursors: WireServer.prototype.killCursors,
  listDatabases: WireServer.prototype.listDatabases,
  listCollections: WireServer.prototype.listCollections,
  create: WireServer.prototype.create,
  drop: WireServer.prototype.drop,
  dropDatabase: WireServer.prototype.dropDatabase,
  renameCollection: WireServer.prototype.renameCollection,
  find: WireServer.prototype.find,
  getMore: WireServer.prototype.getMore,
  insert: WireServer.prototype.insert,
  update: WireServer.prototype.update,
  delete: WireServer.prototype.delete,
  findAndModify: WireServer.prototype.findAndModify,
  findandmodify: WireServer.prototype.findAndModify,
  count: WireServer.prototype.count,
  distinct: WireServer.prototype.distinct,
  aggregate: WireServer.prototype.aggregate,
  createIndexes: WireServer.prototype.createIndexes,
  listIndexes: WireServer.prototype.listIndexes,
  dropIndexes: WireServer.prototype.dropIndexes,
  deleteIndexes: WireServer.prototype.dropIndexes,
  serverStatus: () => ({ host: "127.0.0.1", version: "7.0.0", process: "mongo-wire", uptime: 0, localTime: new Date(), ok: 1 }),
  dbStats: function (this: WireServer, ctx) {
    const colls = this.collections(ctx.db);
    const objects = colls.reduce((n, c) => n + (this.coll(ctx.db, c)?.docs.size ?? 0), 0);
    return { db: ctx.db, collections: colls.length, views: 0, objects, dataSize: 0, storageSize: 0, indexes: 0, indexSize: 0, ok: 1 };
  },
  connectionStatus: () => ({ authInfo: { authenticatedUsers: [], authenticatedUserRoles: [] }, ok: 1 }),
  whatsmyuri: (ctx) => ({ you: `${ctx.conn.socket.remoteAddress}:${ctx.conn.socket.remotePort}`, ok: 1 }),
};

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
  return {
    port,
    uri: (db = "podcasts") => `mongodb://127.0.0.1:${port}/${db}`,
    close: () => wire.close(),
    databases: () => wire.databases(),
    collections: (db) => wire.collections(db),
    indexes: (db, coll) => wire.indexes(db, coll),
    docs: (db, coll) => wire.docs(db, coll),
    connections: () => wire.connections(),
    openConnections: () => wire.openConnections(),
    queries: () => wire.queries(),
    clearQueries: () => wire.clearQueries(),
  };
}

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
