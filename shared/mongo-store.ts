/**
 * The production store: one MongoDB collection per store, through the official `mongodb` driver.
 *
 * Why not moleculer-db-adapter-mongo (docs/mongodb.md "The driver, and why not moleculer-db-adapter-mongo"):
 * its last release pins the 3.x driver, which
 * speaks to MongoDB servers up to 5.0 only, opens a MongoClient per adapter, and takes its third argument
 * as a database name. This is a thin adapter with the same methods the services call of a moleculer-db
 * adapter (and of shared/sqlite-store.ts): every store of a process shares ONE MongoClient, and every
 * collection lives in the database that MONGO_URI names.
 *
 * Answers are those of the embedded store: updateMany counts matched documents (not modified ones, so
 * that saving a value again is not "not found"), removals count what went, a new document without an _id
 * gets a 16-character string id (never an ObjectId, which would not survive JSON, backups or a path).
 */
import crypto from "crypto";
import { Collection, CreateIndexesOptions, Db, type Filter, MongoClient, MongoServerError, type OptionalId } from "mongodb";
import type { IndexSpec } from "./db.mixin";
import type { FindFilters as Filters, Query, StoredDoc as Doc, Update } from "./service-types";

interface Logger {
  info(...args: unknown[]): void;
  warn(...args: unknown[]): void;
}

/**
 * The process's one client (one MONGO_URI), shared by every store of every service in it; closed when the
 * last store disconnects. Keyed by URI only so that a test process can run servers on several databases.
 */
const clients = new Map<string, { client: MongoClient; ready: Promise<Db>; users: number }>();

async function acquire(uri: string): Promise<Db> {
  let entry = clients.get(uri);
  if (!entry) {
    // Bounded waits: a MongoDB that does not answer fails connect() (moleculer-db retries it) instead of hanging the start.
    // An operator's serverSelectionTimeoutMS in MONGO_URI wins (the options object would override it).
    const waits = /[?&]serverSelectionTimeoutMS=/i.test(uri) ? {} : { serverSelectionTimeoutMS: 10_000 };
    const client = new MongoClient(uri, { ...waits, appName: "podcast-server" });
    const created = { client, users: 0, ready: client.connect().then((c) => c.db()) };
    clients.set(uri, (entry = created));
    // A failed connect leaves nothing behind: the next attempt (moleculer-db retries every second) opens a new client.
    created.ready.catch(() => {
      if (clients.get(uri) === created) clients.delete(uri);
      void client.close().catch(() => undefined);
    });
  }
  const db = await entry.ready;
  entry.users++;
  return db;
}

async function release(uri: string): Promise<void> {
  const entry = clients.get(uri);
  if (!entry || --entry.users > 0) return;
  clients.delete(uri);
  await entry.client.close();
}

/** Characters of NeDB's ids (customUtils.uid): the embedded store and this one make ids of one kind. */
const ID_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
function newId(): string {
  const bytes = crypto.randomBytes(16);
  let id = "";
  for (const b of bytes) id += ID_CHARS[b % ID_CHARS.length];
  return id;
}

/** moleculer-db's sort forms ("-pub_date _id" or ["-pub_date", "_id"]) as a MongoDB sort document. */
export function sortDoc(sort: string[] | string | undefined): Record<string, 1 | -1> | undefined {
  const keys = typeof sort === "string" ? sort.split(/[ ,]+/).filter(Boolean) : sort;
  if (!keys?.length) return undefined;
  return Object.fromEntries(keys.map((k) => (k.startsWith("-") ? [k.slice(1), -1] : [k, 1])));
}

/**
 * A filter on _id, as the driver's types take it. They read an _id of type unknown as an ObjectId (InferIdType);
 * ours are the strings and numbers the services choose (never ObjectIds), which the Store types leave unknown.
 */
const idIs = (_id: unknown) => ({ _id }) as Filter<Doc>;

/** The projection of these fields (and _id). */
const only = (fields: readonly string[]) => Object.fromEntries(fields.map((f) => [f, 1]));

export function isMongoDuplicateKey(err: unknown): boolean {
  return err instanceof MongoServerError ? err.code === 11000 : (err as { code?: unknown })?.code === 11000;
}

export class MongoStore {
  collection!: Collection<Doc>;
  db!: Db;
  private logger: Logger | null = null;
  private connected = false;

  constructor(
    private readonly uri: string,
    readonly name: string,
  ) {}

  /** moleculer-db calls init(broker, service) before connect. */
  init(_broker: unknown, service: { logger: Logger }): void {
    this.logger = service.logger;
  }

  async connect(): Promise<void> {
    if (this.connected) return;
    this.db = await acquire(this.uri);
    this.collection = this.db.collection<Doc>(this.name);
    this.connected = true;
  }

  async disconnect(): Promise<void> {
    if (!this.connected) return;
    this.connected = false;
    await release(this.uri);
  }

  async ping(): Promise<void> {
    await this.db.command({ ping: 1 });
  }

  /**
   * Creates the index (named after its keys, as MongoDB does). An index of that name with other options,
   * left by an older version, is replaced: the code's index is the one its queries and guards rely on.
   */
  async ensureIndex(spec: IndexSpec): Promise<void> {
    const opts: CreateIndexesOptions = {};
    if (spec.unique) opts.unique = true;
    if (spec.sparse) opts.sparse = true;
    if (spec.partial) opts.partialFilterExpression = spec.partial;
    if (spec.expireAfterSeconds !== undefined) opts.expireAfterSeconds = spec.expireAfterSeconds;
    try {
      await this.collection.createIndex(spec.fields, opts);
    } catch (err) {
      // 85 IndexOptionsConflict, 86 IndexKeySpecsConflict: same name, other options.
      const code = (err as { code?: number }).code;
      if (code !== 85 && code !== 86) throw err;
      const name = Object.entries(spec.fields)
        .map(([k, v]) => `${k}_${v}`)
        .join("_");
      this.logger?.warn("Replacing an index whose options changed", { collection: this.name, index: name });
      await this.collection.dropIndex(name);
      await this.collection.createIndex(spec.fields, opts);
    }
  }

  /** Whether an ascending index of this one field (ensureIndex's, named as MongoDB names it) exists. */
  async hasIndex(field: string): Promise<boolean> {
    return (await this.collection.indexExists(`${field}_1`).catch(() => false)) === true;
  }

  /** Drops the ascending index of this one field, if there is one. */
  async dropIndex(field: string): Promise<void> {
    if (await this.hasIndex(field)) await this.collection.dropIndex(`${field}_1`);
  }

  async find(filters: Filters = {}): Promise<Doc[]> {
    if (filters.search) throw new Error("Text search is not supported");
    let cursor = this.collection.find(filters.query ?? {});
    const sort = sortDoc(filters.sort);
    if (sort) cursor = cursor.sort(sort);
    if (typeof filters.offset === "number" && filters.offset > 0) cursor = cursor.skip(filters.offset);
    if (typeof filters.limit === "number" && filters.limit > 0) cursor = cursor.limit(filters.limit);
    return cursor.toArray();
  }

  findOne(query: Query): Promise<Doc | null> {
    return this.collection.findOne(query);
  }

  findById(_id: unknown): Promise<Doc | null> {
    return this.collection.findOne(idIs(_id));
  }

  findByIds(ids: unknown[]): Promise<Doc[]> {
    return this.collection.find(idIs({ $in: ids })).toArray();
  }

  count(filters: Filters = {}): Promise<number> {
    const opts: { skip?: number; limit?: number } = {};
    if (typeof filters.offset === "number" && filters.offset > 0) opts.skip = filters.offset;
    if (typeof filters.limit === "number" && filters.limit > 0) opts.limit = filters.limit;
    return this.collection.countDocuments(filters.query ?? {}, opts);
  }

  /** Documents with only these fields (and _id). */
  project(query: Query, fields: readonly string[]): Promise<Doc[]> {
    return this.collection.find(query, { projection: only(fields) }).toArray();
  }

  /** Every document, through a cursor: never all of them in memory. */
  async *all(): AsyncGenerator<Doc> {
    for await (const doc of this.collection.find({})) yield doc;
  }

  /** Every document with only these fields (and _id), through a cursor. */
  async *projected(fields: readonly string[]): AsyncGenerator<Doc> {
    for await (const doc of this.collection.find({}, { projection: only(fields) })) yield doc;
  }

  private prepare(doc: Doc): Doc {
    return doc._id === undefined ? { ...doc, _id: newId() } : { ...doc };
  }

  async insert(doc: Doc): Promise<Doc> {
    const prepared = this.prepare(doc);
    await this.collection.insertOne(prepared as OptionalId<Doc>); // its _id is ours, not an ObjectId (idIs)
    return prepared;
  }

  /** In order; a failure leaves the ones before it written (MongoDB has no all-or-none insert without a transaction). */
  async insertMany(docs: Doc[]): Promise<Doc[]> {
    if (!docs.length) return [];
    const prepared = docs.map((d) => this.prepare(d));
    await this.collection.insertMany(prepared as OptionalId<Doc>[], { ordered: true }); // their _ids are ours (idIs)
    return prepared;
  }

  /** Documents with these ids written back as they are (restores): inserted, or replacing one that appeared meanwhile. */
  async putAll(docs: Doc[]): Promise<void> {
    if (!docs.length) return;
    await this.collection.bulkWrite(
      docs.map((doc) => ({ replaceOne: { filter: idIs(doc._id), replacement: doc, upsert: true } })),
      { ordered: true },
    );
  }

  /** How many documents matched (as the embedded store and NeDB answer), whether or not the update changed them. */
  async updateMany(query: Query, update: Update): Promise<number> {
    const res = await this.collection.updateMany(query, update);
    return res.matchedCount;
  }

  async updateById(_id: unknown, update: Update): Promise<Doc | null> {
    return this.collection.findOneAndUpdate(idIs(_id), update, { returnDocument: "after" });
  }

  /** Applies a modifier to the document with this _id, creating it when missing: one atomic write. */
  async upsertOne(_id: unknown, update: Update): Promise<void> {
    await this.collection.updateOne(idIs(_id), update, { upsert: true });
  }

  /** One atomic $inc on the document _id (created when missing); the document after it. */
  async increment(_id: unknown, inc: Record<string, number>): Promise<Doc> {
    // As an Update: the driver's $inc type takes only fields it knows to be numbers, and ours are unknown.
    const update: Update = { $inc: inc };
    const doc = await this.collection.findOneAndUpdate(idIs(_id), update, { upsert: true, returnDocument: "after" });
    return doc!;
  }

  /** Writes this document over the one with its _id, or inserts it. */
  async replaceOne(doc: Doc): Promise<void> {
    await this.collection.replaceOne(idIs(doc._id), doc, { upsert: true });
  }

  async removeMany(query: Query): Promise<number> {
    return (await this.collection.deleteMany(query)).deletedCount;
  }

  async removeById(_id: unknown): Promise<number> {
    return (await this.collection.deleteOne(idIs(_id))).deletedCount;
  }

  async clear(): Promise<number> {
    return this.removeMany({});
  }

  entityToObject(doc: Doc): Doc {
    return doc;
  }

  beforeSaveTransformID(doc: Doc): Doc {
    return doc;
  }

  afterRetrieveTransformID(doc: Doc): Doc {
    return doc;
  }
}
