/**
 * The embedded store: one SQLite file per collection (better-sqlite3), each document one row of JSON.
 *
 * Why (bench/RESULTS.md "Household"): NeDB kept every document in the JS heap and ran every operation on a
 * collection through one queue, each write holding it across the three thread-pool round trips of an
 * append (open, write, close), each of which waits for the event loop: under a player load the writes
 * waited in line behind one another. Here a write is one synchronous statement of tens of microseconds
 * (nothing queues), and the documents stay on disk, in SQLite's page cache, not in the heap.
 *
 * Same answers as NeDB: queries are matched, documents modified and sorted with NeDB's own model functions
 * (match, modify, compareThings), so the query subset the services use ($in, $gt/$lt, $ne, $exists,
 * $regex, $or, $inc, $set, $push, $pull, $max...) means exactly what it meant. SQLite only narrows the
 * candidates (shared/sqlite-query.ts): by _id (the primary key), by an indexed field (an index on its JSON
 * value), and by the plain conditions of a query; NeDB's match then decides, unless SQLite decided it all.
 *
 * Durability: WAL with synchronous=NORMAL. A committed write survives the process being killed (it is in
 * the WAL, which the OS holds); a power loss may take the last transactions with it, as it could NeDB's
 * appends, which were never fsynced either.
 */
import Database from "better-sqlite3";
import type { IndexSpec } from "./db.mixin";
import { moveNedbFile } from "./nedb-migration";
import { byIdOnly, jsonPath, narrowQuery, PLAIN_FIELD, type Query, queryFields, rangesOnDates } from "./sqlite-query";
import { BACKSTOP_PAGES, unwatch, watch } from "./sqlite-checkpointer";
import { deserialize, line, OTHER, type Prepared, serializeDoc, storedKind } from "./sqlite-lines";
import type { StoredDoc, Update } from "./service-types";

type Doc = StoredDoc;

/** What the store uses of NeDB's model (lib/model.js), which ships no types. */
interface NedbModel {
  // Plain functions (properties, not methods): the store takes them off the module and calls them alone.
  deepCopy: <T>(obj: T, strictKeys?: boolean) => T;
  /** Throws on a key NeDB refuses ("$..." or a dot). */
  checkObject: (obj: unknown) => void;
  modify: (obj: Doc, update: Update) => Doc;
  match: (obj: Doc, query: Query) => boolean;
  getDotValue: (obj: Doc, field: string) => unknown;
  compareThings: (a: unknown, b: unknown) => number;
}

// require(): NeDB's internals, resolved from moleculer-db (the very module it loads), have no import path or types.
/* eslint-disable @typescript-eslint/no-require-imports -- NeDB's model ships no types, and is found through moleculer-db */
const nedbModel = require(require.resolve("@seald-io/nedb/lib/model", { paths: [require.resolve("moleculer-db")] })) as NedbModel;
const { uid } = require(require.resolve("@seald-io/nedb/lib/customUtils", { paths: [require.resolve("moleculer-db")] })) as { uid: (length: number) => string };
/* eslint-enable @typescript-eslint/no-require-imports */
const { deepCopy, checkObject, modify, match, getDotValue, compareThings } = nedbModel;

/** The document as stored, as the caller's own copy (insert and upsert answer it): prepare copied only what NeDB's functions decided. */
function storedCopy({ doc, kind }: Prepared): Doc {
  return kind === OTHER ? doc : deepCopy(doc);
}
interface Filters {
  query?: Query;
  sort?: string[] | string;
  offset?: number;
  limit?: number;
  search?: string;
}

/** Prepared statements kept per collection. */
const STATEMENTS = 256;
/** Rows per INSERT statement of a batch: one statement per row took twice the CPU (100,000 episode actions). */
const INSERT_ROWS = 100;

/**
 * The update NeDB's modify is given for one document: a $pull of a field the document lacks is left out
 * (MongoDB pulls nothing there; NeDB throws "Can't $pull an element from non-array values", failing the
 * whole update). Null when nothing is left to do.
 */
function presentPulls(doc: Doc, update: Update): Update | null {
  const pull = update.$pull;
  if (!pull || typeof pull !== "object") return update;
  const pulls = pull as Record<string, unknown>;
  const kept = Object.keys(pulls).filter((field) => getDotValue(doc, field) !== undefined);
  if (kept.length === Object.keys(pulls).length) return update;
  const rest = { ...update };
  delete rest.$pull;
  const next = kept.length ? { ...rest, $pull: Object.fromEntries(kept.map((f) => [f, pulls[f]])) } : rest;
  return Object.keys(next).length ? next : null;
}

/** An error that db.mixin's isDuplicateKeyError recognises, as NeDB's unique-index violation. */
function uniqueViolated(err: unknown): Error {
  return Object.assign(new Error(`Can't insert key: unique constraint violated (${(err as Error).message})`), { errorType: "uniqueViolated" });
}

function isConstraint(err: unknown): boolean {
  const code = (err as { code?: unknown } | null | undefined)?.code;
  return typeof code === "string" && code.startsWith("SQLITE_CONSTRAINT");
}

/** Connections opened in this process (SqliteAdapter.changeMark). */
let connections = 0;

/**
 * One collection in its own SQLite file (or in memory). Implements what the services call of a
 * moleculer-db adapter (find, findOne, findById, count, insert, insertMany, updateMany, updateById,
 * removeMany, removeById, clear), and what db.mixin needs besides (upsert, projections, every document).
 */
export class SqliteAdapter {
  private db!: Database.Database;
  private statements = new Map<string, Database.Statement>();
  /** Fields with an index on their JSON value (assumed to hold one value, never an array, as the services index them). */
  private indexed = new Set<string>(["_id"]);
  /** TTL fields and their lifetime in ms: a document past it is gone (removed when a read meets it), as on NeDB. */
  private ttl = new Map<string, number>();

  private logger: { info(...args: unknown[]): void } | null = null;
  /** Which connection this is (changeMark): a reconnected store starts counting its changes at 0 again. */
  private connection = 0;

  /**
   * background: checkpoints on the checkpointer's thread. Off for a store written once and closed (a move
   * from NeDB): its close, as the only connection, checkpoints everything into the file before it is renamed.
   */
  constructor(
    readonly file: string | null,
    private readonly background = true,
  ) {}

  /** moleculer-db calls init(broker, service) before connect. */
  init(_broker: unknown, service: { logger: { info(...args: unknown[]): void } }): void {
    this.logger = service.logger;
  }

  async connect(): Promise<void> {
    if (this.file) {
      const started = Date.now();
      const moved = await moveNedbFile(this.file, async (target) => {
        const store = new SqliteAdapter(target, false);
        await store.connect();
        return { putAll: (docs) => store.putAll(docs), close: () => store.disconnect() };
      });
      if (moved !== null) this.logger?.info("NeDB file moved into the SQLite store", { file: this.file, documents: moved, ms: Date.now() - started });
    }
    this.db = new Database(this.file ?? ":memory:");
    this.connection = ++connections;
    if (this.file) {
      this.db.pragma("journal_mode = WAL");
      this.db.pragma("synchronous = NORMAL");
    }
    if (this.file && this.background) {
      // Checkpoints (and their fsyncs) run on the checkpointer's thread; this connection only past the backstop.
      this.db.pragma(`wal_autocheckpoint = ${BACKSTOP_PAGES}`);
      watch(this.file);
    }
    const compiled = new Map<string, RegExp>();
    // source and flags are the RegExp's, bound by narrowQuery (shared/sqlite-query.ts) as strings.
    this.db.function("regexp_test", { deterministic: true }, (source: string, flags: string, value: unknown) => {
      if (typeof value !== "string") return 0;
      const key = `${flags}/${source}`;
      let re = compiled.get(key);
      if (!re) {
        if (compiled.size >= 64) compiled.clear();
        compiled.set(key, (re = new RegExp(source, flags)));
      }
      re.lastIndex = 0;
      return re.test(value) ? 1 : 0;
    });
    // The _id column has no type: 1 and "1" stay two ids, as on NeDB.
    this.db.exec(`CREATE TABLE IF NOT EXISTS docs (_id PRIMARY KEY, doc TEXT NOT NULL) WITHOUT ROWID`);
  }

  async disconnect(): Promise<void> {
    if (this.file && this.background && this.db?.open) await unwatch(this.file);
    if (this.db?.open) this.db.close();
    this.statements.clear();
  }

  /**
   * Differs from any earlier mark once a row of this collection was written, by this connection (SQLite's
   * total_changes) or by another one (data_version): what was read under an equal mark is still what is stored.
   */
  changeMark(): string {
    const [changes, version] = this.stmt("SELECT total_changes(), data_version FROM pragma_data_version").raw().get() as [number, number];
    return `${this.connection}:${changes}:${version}`;
  }

  /**
   * An index of a field's JSON value, one field at a time (the candidates of a query are narrowed one field at
   * a time). A unique index over several fields is one compound index: the fields together are the key.
   */
  ensureIndex(spec: IndexSpec): void {
    const fields = Object.keys(spec.fields);
    if (spec.unique && fields.length > 1) {
      if (!fields.every((f) => PLAIN_FIELD.test(f))) throw new Error(`Unsupported index fields: ${fields.join(", ")}`);
      const columns = fields.map((f) => (f === "_id" ? "_id" : `json_extract(doc, ${jsonPath(f)})`)).join(", ");
      this.db.exec(`CREATE UNIQUE INDEX IF NOT EXISTS "by_${fields.join("_")}" ON docs (${columns})`);
      return;
    }
    for (const field of fields) {
      if (spec.expireAfterSeconds !== undefined) this.ttl.set(field, spec.expireAfterSeconds * 1000);
      if (!PLAIN_FIELD.test(field) || field === "_id") continue;
      const unique = spec.unique ? "UNIQUE " : "";
      this.db.exec(`CREATE ${unique}INDEX IF NOT EXISTS "by_${field}" ON docs (json_extract(doc, ${jsonPath(field)}))`);
      this.indexed.add(field);
    }
  }

  /** Whether an index of this one field (ensureIndex's) exists: an older version may have made one that is retired now. */
  hasIndex(field: string): boolean {
    return !!this.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?").get(`by_${field}`);
  }

  /** Drops the index of this one field, if there is one. */
  dropIndex(field: string): void {
    if (!PLAIN_FIELD.test(field)) throw new Error(`Unsupported index field: ${field}`);
    this.db.exec(`DROP INDEX IF EXISTS "by_${field}"`);
    this.indexed.delete(field);
  }

  /** Answers when the store does (GET /api/health). */
  async ping(): Promise<void> {
    this.stmt("SELECT 1").get();
  }

  private stmt(sql: string): Database.Statement {
    let s = this.statements.get(sql);
    if (!s) {
      // Statements differ by their number of ids and clauses: a bound keeps the cache from growing with them.
      if (this.statements.size >= STATEMENTS) this.statements.clear();
      this.statements.set(sql, (s = this.db.prepare(sql)));
    }
    return s;
  }

  /** The stored documents that match `query` (NeDB's match decides), with expired TTL documents removed. */
  private matching(query: Query = {}): Doc[] {
    const narrowed = narrowQuery(query, this.indexed);
    const rows = narrowed
      ? (this.stmt(`SELECT doc FROM docs WHERE ${narrowed.where}`)
          .pluck()
          .all(...narrowed.params) as string[])
      : (this.stmt("SELECT doc FROM docs").pluck().all() as string[]);
    const out: Doc[] = [];
    const expired: unknown[] = [];
    const now = Date.now();
    // SQLite decided every part of the query as NeDB would (ids, ranges on an index): nothing left to match.
    const exact = narrowed?.exact === true;
    const test = exact ? query : rangesOnDates(query);
    for (const raw of rows) {
      const doc = deserialize(raw);
      if (this.expired(doc, now)) expired.push(doc._id);
      else if (exact || match(doc, test)) out.push(doc);
    }
    if (expired.length) this.deleteIds(expired);
    return out;
  }

  private expired(doc: Doc, now: number): boolean {
    for (const [field, ms] of this.ttl) {
      const v = doc[field];
      if (v instanceof Date && v.getTime() + ms < now) return true;
    }
    return false;
  }

  private deleteIds(ids: unknown[]): void {
    const del = this.stmt("DELETE FROM docs WHERE _id = ?");
    this.db.transaction(() => {
      for (const id of ids) del.run(id);
    })();
  }

  private sorted(docs: Doc[], filters: Filters): Doc[] {
    const sort = typeof filters.sort === "string" ? filters.sort.split(/[ ,]+/).filter(Boolean) : filters.sort;
    if (sort?.length) {
      const keys = sort.map((s) => (s.startsWith("-") ? { key: s.slice(1), dir: -1 } : { key: s, dir: 1 }));
      docs.sort((a, b) => {
        for (const { key, dir } of keys) {
          const c = compareThings(getDotValue(a, key), getDotValue(b, key));
          if (c !== 0) return dir * c;
        }
        return 0;
      });
    }
    const offset = typeof filters.offset === "number" && filters.offset > 0 ? filters.offset : 0;
    const limit = typeof filters.limit === "number" && filters.limit > 0 ? filters.limit : undefined;
    return offset || limit !== undefined ? docs.slice(offset, limit === undefined ? undefined : offset + limit) : docs;
  }

  async find(filters: Filters = {}): Promise<Doc[]> {
    if (filters.search) throw new Error("Text search is not supported by the embedded store");
    return this.sorted(this.matching(filters.query ?? {}), filters);
  }

  async findOne(query: Query): Promise<Doc | null> {
    return this.matching(query)[0] ?? null;
  }

  async findById(_id: unknown): Promise<Doc | null> {
    return this.findOne({ _id });
  }

  async findByIds(ids: unknown[]): Promise<Doc[]> {
    return this.matching({ _id: { $in: ids } });
  }

  async count(filters: Filters = {}): Promise<number> {
    const query = filters.query ?? {};
    if (!Object.keys(query).length && !this.ttl.size && !filters.limit && !filters.offset)
      return this.stmt("SELECT count(*) FROM docs").pluck().get() as number;
    return (await this.find(filters)).length;
  }

  /** Documents with only these fields (and _id), read by SQLite from the stored JSON: what an in-memory index reads of every document. */
  project(query: Query, fields: readonly string[]): Doc[] {
    const tested = queryFields(query);
    if (this.ttl.size || !tested || !fields.every((f) => PLAIN_FIELD.test(f))) {
      return this.matching(query).map((d) =>
        Object.fromEntries<unknown>([["_id", d._id], ...fields.filter((f) => d[f] !== undefined).map((f): [string, unknown] => [f, d[f]])]),
      );
    }
    if (!tested.size) return [...this.projected(fields)];
    const narrowed = narrowQuery(query, this.indexed);
    // SQLite decided the whole query (as in matching()): the rows are the answer (ids bound them: read at once).
    if (narrowed?.exact) return [...this.projected(fields, narrowed, byIdOnly(query))];
    // Only the fields asked for and those the query tests are read; NeDB's match on them decides as on the whole document.
    const extra = [...tested].filter((f) => f !== "_id" && !fields.includes(f));
    const out: Doc[] = [];
    const test = rangesOnDates(query);
    for (const doc of this.projected(extra.length ? [...fields, ...extra] : fields, narrowed ?? undefined)) {
      if (!match(doc, test)) continue;
      for (const f of extra) delete doc[f];
      out.push(doc);
    }
    return out;
  }

  /**
   * Every document (narrowed: those that meet `where`) with only these fields (and _id), one at a time.
   * Each line is parsed whole and the fields picked: measured on 20,000 rows of 10 B to 20 KB, V8's
   * JSON.parse beat SQLite's json_extract at every size once absent fields had to be told from null ones
   * (a json_type per field). Lines are read at once where the ids bound them (callers ask for at most
   * ID_CHUNK), in pages for a whole table, and stepped one by one otherwise: never all of a big match in memory.
   */
  *projected(fields: readonly string[], narrowed?: { where: string; params: unknown[] }, byIds = false): Generator<Doc> {
    const docs = !narrowed
      ? this.all()
      : byIds
        ? (
            this.stmt(`SELECT doc FROM docs WHERE ${narrowed.where}`)
              .pluck()
              .all(...narrowed.params) as string[]
          ).map(deserialize)
        : this.lines(narrowed);
    for (const whole of docs) {
      const doc: Doc = { _id: whole._id };
      for (const f of fields) if (whole[f] !== undefined) doc[f] = whole[f];
      yield doc;
    }
  }

  private *lines(narrowed: { where: string; params: unknown[] }): Generator<Doc> {
    for (const raw of this.stmt(`SELECT doc FROM docs WHERE ${narrowed.where}`)
      .pluck()
      .iterate(...narrowed.params) as IterableIterator<string>)
      yield deserialize(raw);
  }

  /** Every document, a page at a time in _id order (backups, migration checks): never all of them in memory at once. */
  *all(page = 1000): Generator<Doc> {
    let after: unknown = null;
    for (;;) {
      const rows = (
        after === null
          ? this.stmt("SELECT _id, doc FROM docs ORDER BY _id LIMIT ?").raw().all(page)
          : this.stmt("SELECT _id, doc FROM docs WHERE _id > ? ORDER BY _id LIMIT ?").raw().all(after, page)
      ) as [unknown, string][];
      for (const [, raw] of rows) yield deserialize(raw);
      if (rows.length < page) return;
      after = rows[rows.length - 1][0];
    }
  }

  /**
   * A document to insert, checked as NeDB checks one, with an _id (a new one where it has none: on a copy, never on
   * the caller's). A document of JSON values is not copied: what is stored is its line, written before the caller
   * goes on; other documents are copied by NeDB's deepCopy, as they always were.
   */
  private prepare(doc: Doc): Prepared {
    const kind = storedKind(doc);
    let out = doc;
    if (kind === OTHER) {
      out = deepCopy(doc);
      checkObject(out);
    }
    if (out._id === undefined) out = { ...out, _id: uid(16) };
    return { doc: out, kind };
  }

  /**
   * Prepared documents in one transaction, INSERT_ROWS a statement, each serialized just before its statement:
   * the lines of a large batch never live all at once (100,000 actions are some 30 MB of them).
   */
  private insertPrepared(docs: Prepared[]): void {
    try {
      if (docs.length === 1) this.stmt("INSERT INTO docs (_id, doc) VALUES (?, ?)").run(docs[0].doc._id, line(docs[0]));
      else
        this.db.transaction(() => {
          let i = 0;
          if (docs.length >= INSERT_ROWS) {
            const many = this.stmt(`INSERT INTO docs (_id, doc) VALUES ${"(?, ?), ".repeat(INSERT_ROWS - 1)}(?, ?)`);
            const params: unknown[] = new Array(INSERT_ROWS * 2);
            for (; i + INSERT_ROWS <= docs.length; i += INSERT_ROWS) {
              for (let k = 0; k < INSERT_ROWS; k++) {
                params[2 * k] = docs[i + k].doc._id;
                params[2 * k + 1] = line(docs[i + k]);
              }
              many.run(params);
            }
          }
          const one = this.stmt("INSERT INTO docs (_id, doc) VALUES (?, ?)");
          for (; i < docs.length; i++) one.run(docs[i].doc._id, line(docs[i]));
        })();
    } catch (err) {
      throw isConstraint(err) ? uniqueViolated(err) : err;
    }
  }

  /** The document as stored (a copy of the caller's: nothing else holds it). */
  async insert(doc: Doc): Promise<Doc> {
    const prepared = this.prepare(doc);
    this.insertPrepared([prepared]);
    return storedCopy(prepared);
  }

  /** All or none, as NeDB inserts an array. The documents as given (a copy where an _id was added): no caller reads them back but tests. */
  async insertMany(docs: Doc[]): Promise<Doc[]> {
    const prepared = docs.map((d) => this.prepare(d));
    this.insertPrepared(prepared);
    return prepared.map((p) => p.doc);
  }

  /**
   * Applies `update` (modifiers or a whole document) to every match, in one transaction; with upsert and
   * no match, inserts what NeDB would (the query's plain fields, modified). Returns the documents written.
   */
  update(query: Query, update: Update, opts: { multi?: boolean; upsert?: boolean } = {}): Doc[] {
    const found = this.matching(query);
    const targets = opts.multi ? found : found.slice(0, 1);
    if (!targets.length && opts.upsert) {
      let doc: Doc;
      try {
        checkObject(update);
        doc = update;
      } catch {
        doc = modify(deepCopy(query, true), update);
      }
      const prepared = this.prepare(doc);
      this.insertPrepared([prepared]);
      return [storedCopy(prepared)];
    }
    const written = targets.map((d) => {
      const applied = presentPulls(d, update);
      return applied ? modify(d, applied) : d;
    });
    const upd = this.stmt("UPDATE docs SET doc = ? WHERE _id = ?");
    try {
      // One statement is atomic by itself: BEGIN and COMMIT only around several.
      if (written.length === 1) upd.run(serializeDoc(written[0]), written[0]._id);
      else
        this.db.transaction(() => {
          for (const d of written) upd.run(serializeDoc(d), d._id);
        })();
    } catch (err) {
      throw isConstraint(err) ? uniqueViolated(err) : err;
    }
    return written;
  }

  /** Like NeDB's (and so moleculer-db's memory adapter's): how many documents matched. */
  async updateMany(query: Query, update: Update): Promise<number> {
    return this.update(query, update, { multi: true }).length;
  }

  async updateById(_id: unknown, update: Update): Promise<Doc | null> {
    return this.update({ _id }, update)[0] ?? null;
  }

  /** Applies a modifier to the document with this _id, creating it when missing: one atomic write. */
  async upsertOne(_id: unknown, update: Update): Promise<void> {
    this.update({ _id }, update, { upsert: true });
  }

  /** One atomic $inc on the document _id (created when missing); the document after it. */
  async increment(_id: unknown, inc: Record<string, number>): Promise<Doc> {
    return this.update({ _id }, { $inc: inc }, { upsert: true })[0];
  }

  /** Writes this document over the one with its _id, or inserts it. */
  async replaceOne(doc: Doc): Promise<void> {
    this.update({ _id: doc._id }, doc, { upsert: true });
  }

  async removeMany(query: Query): Promise<number> {
    if (!Object.keys(query).length) return this.stmt("DELETE FROM docs").run().changes;
    const ids = this.matching(query).map((d) => d._id);
    this.deleteIds(ids);
    return ids.length;
  }

  async removeById(_id: unknown): Promise<number> {
    return this.removeMany({ _id });
  }

  async clear(): Promise<number> {
    return this.removeMany({});
  }

  entityToObject(doc: Doc): Doc {
    return doc;
  }

  /** Documents inserted as one transaction, all or none (a move from NeDB, a restore). */
  putAll(docs: Doc[]): void {
    this.insertPrepared(docs.map((d) => this.prepare(d)));
  }
}
