/**
 * The one way a service gets its collections (house rules 1-3, docs/architecture.md).
 *
 * - Without MONGO_URI each collection is a SQLite file under DATA_DIR (shared/sqlite-store.ts; a NeDB file
 *   of an older server is moved into it at the first start), and the service holds a lock there
 *   (shared/data-lock.ts) so that a second process cannot open the same data (scaling out needs MongoDB).
 * - With MONGO_URI each collection is a MongoDB collection of the database MONGO_URI names, through the
 *   official driver and one MongoClient per process (shared/mongo-store.ts).
 * Both stores answer the same methods (the store contract suite, test/unit/store-contract.test.ts, holds
 * them to the same answers), so nothing here or in a service asks which one it has.
 * The first collection is `this.adapter` (moleculer-db); further ones are `this.stores.<name>`.
 * moleculer-db's generic CRUD actions are switched off: the route table names only our own actions.
 * Every service exports and imports its own collections for server backups (backup_* actions, called
 * by services/backups.service.ts; the line format is shared/backup-format.ts).
 */
import fs from "fs";
import path from "path";
import DbService from "moleculer-db";
import { Readable } from "stream";
import type { Service, ServiceBroker, ServiceSchema } from "moleculer";
import { COUNTERS_COLLECTION, decodeLine, encodeRecord } from "./backup-format";
import { config } from "./config";
import { lockDataDir } from "./data-lock";
import { BadRequestError, ConflictError } from "./errors";
import { isMongoDuplicateKey, MongoStore } from "./mongo-store";
import { SqliteAdapter } from "./sqlite-store";
import { type Ctx, mixin, type Query, type Store, type StoredDoc, type Update } from "./service-types";

export interface IndexSpec {
  fields: Record<string, 1 | -1>;
  /** Two documents with equal values in every field collide (a compound key, say podcast and guid). */
  unique?: boolean;
  sparse?: boolean;
  /**
   * MongoDB's partialFilterExpression: only documents that match are in the index. A unique index whose field
   * may be missing needs one on MongoDB, where missing counts as null and two nulls collide; the embedded
   * store never indexes a missing value (SQLite's NULLs are distinct), so it ignores this.
   */
  partial?: Record<string, unknown>;
  /** TTL index: documents go this many seconds after the date in the (single) indexed field. */
  expireAfterSeconds?: number;
  /**
   * Only on MongoDB: an index for sorts (a compound one, say). The embedded store uses an index only to pick
   * the candidates of a query (one field at a time), never to sort, so there it would cost writes for nothing.
   */
  mongoOnly?: boolean;
  /**
   * A unique index that documents stored by an older version may break (creating it then fails): folds those
   * documents, then the index is created again. Runs only when the creation failed so.
   */
  repair?: (service: Service, store: Store) => Promise<void>;
}

export interface CollectionSpec {
  name: string;
  indexes?: IndexSpec[];
  /**
   * Indexes of one field that an older version created and the code no longer reads: each costs every insert,
   * so they are dropped at start. `before` runs first, only while the index still exists (once per store): what
   * the index answered is moved to where the code now reads it, with the index's help.
   */
  retired?: { field: string; before?: (service: Service, store: Store) => Promise<void> }[];
}

const COUNTERS = COUNTERS_COLLECTION;
/** Bytes of backup lines per chunk of an export stream. */
const EXPORT_CHUNK = 64 * 1024;
/** Ids per `$in` query of findByIds: bounded statements on the embedded store, and MongoDB is indifferent. */
const ID_CHUNK = 500;

function isMongo(): boolean {
  return !!config.mongoUri;
}

/** What this mixin uses of a store besides what the services do (shared/service-types.ts Store). */
interface StoreImpl extends Store {
  init(broker: ServiceBroker, service: { logger: { info(...args: unknown[]): void; warn(...args: unknown[]): void } }): void;
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  ensureIndex(spec: IndexSpec): void | Promise<void>;
  hasIndex(field: string): boolean | Promise<boolean>;
  dropIndex(field: string): void | Promise<void>;
  project(query: Query, fields: readonly string[]): StoredDoc[] | Promise<StoredDoc[]>;
  projected(fields: readonly string[]): Iterable<StoredDoc> | AsyncIterable<StoredDoc>;
  all(): Iterable<StoredDoc> | AsyncIterable<StoredDoc>;
  putAll(docs: StoredDoc[]): void | Promise<void>;
  /** Embedded store only: changes whenever the collection is written (storesMark). */
  changeMark?(): string;
}

/** The mixin's own `this`: a service's stores as StoreImpl, and what started() keeps. */
interface DbMixinThis extends Service {
  adapter: StoreImpl;
  stores: Record<string, StoreImpl>;
  releaseDataLock?: () => Promise<void>;
  backupStores(): [string, StoreImpl][];
  upsert(store: StoreImpl, _id: unknown, update: Update): Promise<void>;
  incrementDoc(store: StoreImpl, id: string, inc: Record<string, number>): Promise<StoredDoc>;
  findFields(store: StoreImpl, query: Query, fields: readonly string[]): Promise<StoredDoc[]>;
}

function createAdapter(collection: string, file: string | null): StoreImpl {
  if (isMongo()) return new MongoStore(config.mongoUri, collection);
  // Embedded: a file under DATA_DIR, or memory only when DATA_DIR is ":memory:".
  return new SqliteAdapter(file);
}

function storeFile(name: string): string | null {
  if (config.dataDir.endsWith(":memory:")) return null;
  return path.join(config.dataDir, `${name}.sqlite`);
}

async function ensureIndex(service: DbMixinThis, adapter: StoreImpl, spec: IndexSpec): Promise<void> {
  if (!isMongo() && spec.mongoOnly) return;
  try {
    await adapter.ensureIndex(spec);
  } catch (err) {
    if (!spec.repair || !indexCollides(err)) throw err;
    const fields = Object.keys(spec.fields);
    service.logger.warn("Stored documents break a unique index: repairing them", { service: service.name, fields });
    await spec.repair(service, adapter);
    try {
      await adapter.ensureIndex(spec);
    } catch (again) {
      // Written again meanwhile (a replica of an older version): start without it; the next start repairs again.
      if (!indexCollides(again)) throw again;
      service.logger.error("Unique index not created: stored documents still collide", { service: service.name, fields, error: (again as Error).message });
    }
  }
}

/** Creating a unique index failed on documents that collide (the embedded store's CREATE UNIQUE INDEX throws SQLite's own error). */
function indexCollides(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return isDuplicateKeyError(err) || code === "SQLITE_CONSTRAINT_UNIQUE";
}

/** True when err is a unique-index violation, on the embedded store or MongoDB. */
export function isDuplicateKeyError(err: unknown): boolean {
  return (err as { errorType?: unknown } | null)?.errorType === "uniqueViolated" || isMongoDuplicateKey(err);
}

function usesFiles(): boolean {
  return !isMongo() && !config.dataDir.endsWith(":memory:");
}

/**
 * Mixed in after DbService so that its started() runs before moleculer-db's, which loads (and compacts)
 * the files and would retry forever on an error instead of letting the process exit.
 */
const DataLockMixin = mixin<DbMixinThis>({
  async started(this: DbMixinThis) {
    if (!usesFiles()) return;
    fs.mkdirSync(config.dataDir, { recursive: true });
    this.releaseDataLock = await lockDataDir(
      config.dataDir,
      `${this.name}.service`,
      (err) => this.broker.fatal(`Lost the lock of the ${this.name} data in ${config.dataDir}; stopping before the data splits`, err),
      config.dataLockWait
        ? { waitMs: config.dataLockWait * 1000, onWait: (holder) => this.logger.warn(`Standby: waiting for ${holder} to release the ${this.name} data`) }
        : undefined,
    );
  },
  async stopped(this: DbMixinThis) {
    await this.releaseDataLock?.();
  },
});

/**
 * Inserts restored records with their ids. When a record with one of these ids appeared meanwhile (a
 * restore into a running server races its own writes, say a scheduler's lease), the backup's record wins.
 */
async function insertAll(store: StoreImpl, docs: StoredDoc[]): Promise<void> {
  try {
    await store.putAll(docs);
  } catch (err) {
    if (!isDuplicateKeyError(err)) throw err;
    for (const doc of docs) await store.replaceOne(doc);
  }
}

/** The backup lines of these stores, in chunks of about EXPORT_CHUNK bytes. */
async function* exportChunks(service: string, stores: [string, StoreImpl][]): AsyncGenerator<Buffer> {
  let pending = "";
  for (const [collection, store] of stores) {
    for await (const doc of store.all()) {
      pending += encodeRecord(service, collection, doc);
      if (pending.length >= EXPORT_CHUNK) {
        yield Buffer.from(pending);
        pending = "";
      }
    }
  }
  if (pending) yield Buffer.from(pending);
}

export function DbMixin(main: CollectionSpec, extra: CollectionSpec[] = []): Partial<ServiceSchema> {
  return mixin<DbMixinThis>({
    name: "db-mixin",
    mixins: [DbService, DataLockMixin],
    // moleculer-db reads `adapter` from the schema; created() puts ours in its place.
    adapter: null,
    collection: main.name,
    settings: { idField: "_id" },
    actions: {
      list: false,
      find: false,
      count: false,
      create: false,
      insert: false,
      get: false,
      update: false,
      remove: false,
      /** Used by GET /api/health: answers only when this service's store answers. */
      db_health: {
        visibility: "public",
        async handler(this: DbMixinThis) {
          await this.adapter.ping();
          return { ok: true };
        },
      },
      /** Backups: every record of this service's collections (counters last) as backup lines, streamed. */
      backup_export: {
        visibility: "public",
        params: {},
        handler(this: DbMixinThis) {
          return Readable.from(exportChunks(this.name, this.backupStores()), { objectMode: false });
        },
      },
      /** Backups: records of a backup written back as they were (ids kept); counters only move up. */
      backup_import: {
        visibility: "public",
        params: { lines: { type: "array", items: "string", max: 10_000 } },
        async handler(this: DbMixinThis, ctx: Ctx<{ lines: string[] }>) {
          const stores = new Map<string, StoreImpl>(this.backupStores());
          const byCollection = new Map<string, StoredDoc[]>();
          for (const line of ctx.params.lines) {
            const rec = decodeLine(line);
            if (rec?.service !== this.name || !rec.collection || !stores.has(rec.collection) || !rec.doc || rec.doc._id === undefined) {
              throw new BadRequestError(`Backup record not for a collection of the ${this.name} service`);
            }
            if (!byCollection.has(rec.collection)) byCollection.set(rec.collection, []);
            byCollection.get(rec.collection)!.push(rec.doc);
          }
          for (const [collection, docs] of byCollection) {
            const store = stores.get(collection)!; // every collection was checked against `stores` above
            if (collection === COUNTERS) {
              // With MongoDB every service shares one counters collection, so each export holds all of it.
              for (const { _id, ...fields } of docs) {
                const numbers = Object.fromEntries(Object.entries(fields).filter(([, v]) => typeof v === "number"));
                const others = Object.fromEntries(Object.entries(fields).filter(([, v]) => typeof v !== "number"));
                await this.upsert(store, _id, { $max: numbers, ...(Object.keys(others).length ? { $set: others } : {}) });
              }
            } else {
              await insertAll(store, docs);
            }
          }
          return { records: ctx.params.lines.length };
        },
      },
      /** Backups: records per collection of this service (a restore target must hold no accounts). */
      backup_counts: {
        visibility: "public",
        params: {},
        async handler(this: DbMixinThis): Promise<Record<string, number>> {
          const counts: Record<string, number> = {};
          for (const [collection, store] of this.backupStores()) {
            counts[collection] = await store.count({});
          }
          return counts;
        },
      },
      /** Backups: removes every record of this service; a restore replaces all data. */
      backup_clear: {
        visibility: "public",
        params: {},
        async handler(this: DbMixinThis) {
          for (const [, store] of this.backupStores()) {
            await store.removeMany({});
          }
          return { ok: true };
        },
      },
    },
    events: {
      /** A restore replaced the data under every service: cached answers describe the old data. Once a node: its first store service cleans. */
      "backup.restored"(this: DbMixinThis) {
        if (this.broker.services.find((s) => "backupStores" in s) === this) return this.broker.cacher?.clean();
      },
    },
    created(this: DbMixinThis) {
      const files: Record<string, string | null> = {};
      for (const spec of [main, ...extra]) files[spec.name] = storeFile(spec.name);
      files[COUNTERS] = storeFile(`${COUNTERS}.${this.name}`);
      // moleculer-db's created() has already run: it made (and init'ed) a memory adapter; this one needs its init too.
      this.adapter = createAdapter(main.name, files[main.name]);
      this.adapter.init(this.broker, this);
      this.stores = {};
      for (const spec of extra) this.stores[spec.name] = createAdapter(spec.name, files[spec.name]);
      this.stores[COUNTERS] = createAdapter(COUNTERS, files[COUNTERS]);
    },
    async started(this: DbMixinThis) {
      // moleculer-db connects this.adapter in its own started(); the extra stores are ours.
      for (const store of Object.values(this.stores)) {
        store.init(this.broker, this);
        await store.connect();
      }
      const all: [StoreImpl, CollectionSpec][] = [[this.adapter, main], ...extra.map((s) => [this.stores[s.name], s] as [StoreImpl, CollectionSpec])];
      for (const [adapter, spec] of all) {
        for (const idx of spec.indexes || []) await ensureIndex(this, adapter, idx);
        for (const { field, before } of spec.retired || []) {
          if (!(await adapter.hasIndex(field))) continue;
          this.logger.info("Dropping an index this version no longer reads", { collection: spec.name, field });
          await before?.(this, adapter);
          await adapter.dropIndex(field);
        }
      }
    },
    async stopped(this: DbMixinThis) {
      for (const store of Object.values(this.stores || {})) await store.disconnect();
    },
    methods: {
      /** [collection name, adapter] of every store of this service, counters last. */
      backupStores(this: DbMixinThis): [string, StoreImpl][] {
        return [
          [main.name, this.adapter],
          ...extra.map((spec) => [spec.name, this.stores[spec.name]] as [string, StoreImpl]),
          [COUNTERS, this.stores[COUNTERS]],
        ];
      },
      /** Inserts into a store; a unique-index violation (also of a racing insert) becomes a 409 with this message. */
      async insertUnique(this: DbMixinThis, store: StoreImpl, doc: StoredDoc, conflictMessage: string): Promise<void> {
        try {
          await store.insert(doc);
        } catch (err) {
          if (isDuplicateKeyError(err)) throw new ConflictError(conflictMessage);
          throw err;
        }
      },
      /**
       * A mark that changes whenever one of these stores is written (embedded store), for answers kept in
       * memory between requests; null on MongoDB, where other replicas write too: keep nothing then.
       */
      storesMark(this: DbMixinThis, ...stores: StoreImpl[]): string | null {
        return stores.every((s) => typeof s.changeMark === "function") ? stores.map((s) => s.changeMark!()).join("/") : null;
      },
      /**
       * Inserts documents that carry their _ids, in one batch. When a unique index refuses one (a racing writer
       * stored its key first) the rest go one at a time (MongoDB's ordered batch stopped there with the ones
       * before it written; the embedded store's wrote none), and each refused one goes to `collided`, which
       * answers what to report for it, or null when it got the document written after all.
       */
      async insertEach<D extends { _id: unknown }, R>(
        this: DbMixinThis,
        store: Store<D>,
        docs: D[],
        collided: (doc: D, err: unknown) => Promise<R | null>,
      ): Promise<{ written: D[]; refused: R[] }> {
        if (!docs.length) return { written: [], refused: [] };
        try {
          await store.insertMany(docs);
          return { written: docs, refused: [] };
        } catch (err) {
          if (!isDuplicateKeyError(err)) throw err;
        }
        const written: D[] = [];
        const refused: R[] = [];
        for (const doc of docs) {
          try {
            await store.insert(doc);
            written.push(doc);
          } catch (err) {
            if (!isDuplicateKeyError(err)) throw err;
            // Its own id collides when the batch wrote it before stopping.
            const outcome = (await store.findById(doc._id)) ? null : await collided(doc, err);
            if (outcome === null) written.push(doc);
            else refused.push(outcome);
          }
        }
        return { written, refused };
      },
      /** Documents of a store by _id (in ID_CHUNK queries); with `fields`, only those fields (and _id). */
      async findByIds(this: DbMixinThis, store: StoreImpl, ids: unknown[], fields?: readonly string[]): Promise<StoredDoc[]> {
        const out: StoredDoc[] = [];
        for (let i = 0; i < ids.length; i += ID_CHUNK) {
          const query = { _id: { $in: ids.slice(i, i + ID_CHUNK) } };
          out.push(...(await (fields ? this.findFields(store, query, fields) : store.find({ query }))));
        }
        return out;
      },
      /** Documents of a store with only these fields (and _id): far less to copy than whole documents. */
      async findFields(this: DbMixinThis, store: StoreImpl, query: Query, fields: readonly string[]): Promise<StoredDoc[]> {
        return store.project(query, fields);
      },
      /** Calls `each` with every document of a store, only these fields (and _id), one at a time: never all of them in memory. */
      async forEachDoc(this: DbMixinThis, store: StoreImpl, fields: readonly string[], each: (doc: StoredDoc) => void): Promise<void> {
        for await (const doc of store.projected(fields)) each(doc);
      },
      /** Applies a modifier ($set, $inc) to the document with this _id, creating it when missing: one atomic write. */
      async upsert(this: DbMixinThis, store: StoreImpl, _id: unknown, update: Update): Promise<void> {
        await store.upsertOne(_id, update);
      },
      /** One atomic $inc on the document _id of a store (created when missing); returns the document after it. */
      async incrementDoc(this: DbMixinThis, store: StoreImpl, id: string, inc: Record<string, number>): Promise<StoredDoc> {
        return store.increment(id, inc);
      },
      /** Next int32 id of a sequence (house rule 3, docs/architecture.md): one atomic $inc on the counters collection. */
      async nextId(this: DbMixinThis, sequence: string): Promise<number> {
        const seq = (await this.incrementDoc(this.stores[COUNTERS], sequence, { seq: 1 })).seq as number;
        if (seq > 2147483647) throw new Error(`Sequence ${sequence} is past int32`);
        return seq;
      },
    },
  });
}
