/**
 * The data: databases of collections of documents (in memory, in insertion order), the open cursors kept
 * across getMore batches, and the log of the filters every read and write used.
 */
import { BSON, Long } from "mongodb";
import { CommandError } from "./errors";
import { type Conflict, type IndexDef, IndexSet } from "./indexes";
import { MAX_BSON_OBJECT_SIZE } from "./protocol";
import type { Doc, QueryLogEntry } from "./types";
import { canon, toNumber } from "./values";

/** A batch of a cursor stays below this many bytes of documents (the rest of the reply needs room too). */
const MAX_BATCH_BYTES = MAX_BSON_OBJECT_SIZE - 64 * 1024;
const DEFAULT_FIRST_BATCH = 101;

export class Coll {
  /** canon(_id) -> document, in insertion (natural) order. Stored documents are never mutated in place. */
  readonly docs = new Map<string, Doc>();
  private readonly keys: IndexSet;

  constructor(
    readonly db: string,
    readonly name: string,
    readonly options: Doc = {},
  ) {
    this.keys = new IndexSet(`${db}.${name}`);
  }

  get ns(): string {
    return `${this.db}.${this.name}`;
  }

  /** The _id index first. */
  get indexes(): IndexDef[] {
    return this.keys.list;
  }

  all(): Doc[] {
    return Array.from(this.docs.values());
  }

  /** The unique index `doc` would violate; `selfId` is the canon(_id) of the document it replaces, if any. */
  private conflict(doc: Doc, selfId: string | null): Conflict | null {
    const id = canon(doc._id);
    if (id !== selfId && this.docs.has(id)) return { index: this.indexes[0], values: [doc._id] };
    return this.keys.conflict(doc, selfId);
  }

  insert(doc: Doc): void {
    const id = canon(doc._id);
    const c = this.conflict(doc, null);
    if (c) throw this.keys.duplicateKeyError(c);
    this.docs.set(id, doc);
    this.keys.addEntries(doc, id);
  }

  /** Puts `next` in the place of `prev` (same _id), or throws E11000 leaving `prev` in place. */
  replace(prev: Doc, next: Doc): void {
    const id = canon(prev._id);
    this.keys.removeEntries(prev, id);
    const c = this.conflict(next, id);
    if (c) {
      this.keys.addEntries(prev, id);
      throw this.keys.duplicateKeyError(c);
    }
    this.docs.set(id, next);
    this.keys.addEntries(next, id);
  }

  remove(doc: Doc): void {
    const id = canon(doc._id);
    if (this.docs.get(id) !== doc) return;
    this.keys.removeEntries(doc, id);
    this.docs.delete(id);
  }

  clear(): void {
    this.docs.clear();
    this.keys.clearEntries();
  }

  addIndex(ix: IndexDef): void {
    this.keys.add(ix, this.docs);
  }

  dropIndex(name: string): void {
    this.keys.drop(name);
  }
}

export interface OpenCursor {
  id: number;
  ns: string;
  docs: Doc[];
  pos: number;
}

export class Store {
  private readonly dbs = new Map<string, Map<string, Coll>>();
  private readonly cursors = new Map<number, OpenCursor>();
  private nextCursorId = 1;
  /** Every read's and write's filter, in order (see QueryLogEntry). */
  readonly log: QueryLogEntry[] = [];

  /** The databases that hold a collection. */
  databases(): string[] {
    return Array.from(this.dbs)
      .filter(([, colls]) => colls.size > 0)
      .map(([name]) => name)
      .sort();
  }

  collections(db: string): string[] {
    return Array.from(this.dbs.get(db)?.keys() ?? []).sort();
  }

  /** The collections of `db`, in creation order. */
  collObjects(db: string): Coll[] {
    return Array.from(this.dbs.get(db)?.values() ?? []);
  }

  coll(db: string, name: string): Coll | undefined {
    return this.dbs.get(db)?.get(name);
  }

  ensureColl(db: string, name: string, options: Doc = {}): { coll: Coll; created: boolean } {
    if (!db || !name || name.includes("$") || db.includes(".")) throw new CommandError(73, "InvalidNamespace", `Invalid namespace specified '${db}.${name}'`);
    let colls = this.dbs.get(db);
    if (!colls) this.dbs.set(db, (colls = new Map()));
    const existing = colls.get(name);
    if (existing) return { coll: existing, created: false };
    const coll = new Coll(db, name, options);
    colls.set(name, coll);
    return { coll, created: true };
  }

  /** Removes a collection (and its database when it was the last), closing the cursors on it. */
  dropColl(db: string, name: string): Coll | undefined {
    const colls = this.dbs.get(db);
    const coll = colls?.get(name);
    if (!colls || !coll) return undefined;
    colls.delete(name);
    if (!colls.size) this.dbs.delete(db);
    for (const [id, cur] of this.cursors) if (cur.ns === coll.ns) this.cursors.delete(id);
    return coll;
  }

  record(entry: QueryLogEntry): void {
    this.log.push(entry);
  }

  /** First batch of a cursor; the rest stays open for getMore (id 0 when exhausted). */
  cursorAnswer(ns: string, docs: Doc[], batchSize: unknown, singleBatch = false): Doc {
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

  cursor(id: number): OpenCursor | undefined {
    return this.cursors.get(id);
  }

  /** Closes a cursor; false when there was none of that id. */
  killCursor(id: number): boolean {
    return this.cursors.delete(id);
  }

  takeBatch(cur: OpenCursor, batchSize: number): Doc[] {
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
}
