/**
 * The types every service is written against (house rule 1, docs/architecture.md): the Context of a
 * handler, the stores of the db mixin (shared/db.mixin.ts) and what the mixin adds to a service's `this`.
 *
 * A service declares its `this` once, Moleculer's TypeScript way, and every handler, method, hook and
 * event handler of it (and of its `.parts/`) names it:
 *
 *   type QueueThis = DbThis<QueueDoc> & QueueMethods & { turns: Map<number, Promise<unknown>> };
 *   async handler(this: QueueThis, ctx: Ctx<QueueBulkAddParams>): Promise<QueueBulkAddResult> { ... }
 */
import type { Context, Service, ServiceSchema, ServiceSettingSchema } from "moleculer";
import type { GatewayMeta } from "./types";

/** A handler's Context: its params, and ctx.meta as the gateway fills it. */
export type Ctx<P = Record<string, never>> = Context<P, GatewayMeta>;

/** A query of the stores: MongoDB's query language, the subset both stores answer alike (test/unit/store-contract.test.ts). */
export type Query = Record<string, unknown>;
/** An update of the stores: $set, $inc, $push, $pull, $max, $unset... as MongoDB reads them. */
export type Update = Record<string, unknown>;

export interface FindFilters {
  query?: Query;
  sort?: string | string[];
  offset?: number;
  limit?: number;
  search?: string;
}

/**
 * One collection, on the embedded store (shared/sqlite-store.ts) or MongoDB (shared/mongo-store.ts); both
 * answer these the same way. D is the shape of its documents.
 */
export interface Store<D extends object = StoredDoc> {
  find(filters?: FindFilters): Promise<D[]>;
  findOne(query: Query): Promise<D | null>;
  findById(id: unknown): Promise<D | null>;
  findByIds(ids: unknown[]): Promise<D[]>;
  count(filters?: FindFilters): Promise<number>;
  insert(doc: D): Promise<D>;
  insertMany(docs: D[]): Promise<D[]>;
  /** How many documents matched. */
  updateMany(query: Query, update: Update): Promise<number>;
  updateById(id: unknown, update: Update): Promise<D | null>;
  upsertOne(id: unknown, update: Update): Promise<void>;
  increment(id: unknown, inc: Record<string, number>): Promise<D>;
  replaceOne(doc: D): Promise<void>;
  /** How many documents went. */
  removeMany(query: Query): Promise<number>;
  removeById(id: unknown): Promise<number>;
  clear(): Promise<number>;
  ping(): Promise<void>;
}

/** A document whose shape the caller does not know (backups, the mixin's own collections). */
export interface StoredDoc {
  _id?: unknown;
  [field: string]: unknown;
}

/** What shared/db.mixin.ts adds to a service's `this` (its methods are documented there). */
export interface DbMethods {
  backupStores(): [string, Store][];
  insertUnique<D extends object>(store: Store<D>, doc: D, conflictMessage: string): Promise<void>;
  storesMark(...stores: Store<object>[]): string | null;
  insertEach<D extends { _id: unknown }, R>(
    store: Store<D>,
    docs: D[],
    collided: (doc: D, err: unknown) => Promise<R | null>,
  ): Promise<{ written: D[]; refused: R[] }>;
  findByIds<D extends object>(store: Store<D>, ids: unknown[]): Promise<D[]>;
  findByIds<D extends object, K extends keyof D>(store: Store<D>, ids: unknown[], fields: readonly K[]): Promise<Pick<D, K | Extract<keyof D, "_id">>[]>;
  findFields<D extends object, K extends keyof D>(store: Store<D>, query: Query, fields: readonly K[]): Promise<Pick<D, K | Extract<keyof D, "_id">>[]>;
  forEachDoc<D extends object, K extends keyof D>(
    store: Store<D>,
    fields: readonly K[],
    each: (doc: Pick<D, K | Extract<keyof D, "_id">>) => void,
  ): Promise<void>;
  upsert(store: Store<object>, id: unknown, update: Update): Promise<void>;
  incrementDoc<D extends object>(store: Store<D>, id: string, inc: Record<string, number>): Promise<D>;
  /** Next int32 id of a sequence (house rule 3). */
  nextId(sequence: string): Promise<number>;
}

/**
 * `this` of a service with the db mixin: D is its main collection's documents (`this.adapter`), S maps the
 * names of its further collections to theirs (`this.stores.<name>`).
 */
export type DbThis<D extends object, S extends Record<string, object> = Record<never, never>> = Service &
  DbMethods & {
    adapter: Store<D>;
    stores: { [K in keyof S]: Store<S[K]> } & { counters: Store };
  };

/**
 * A mixin written against its own `this` (T), as a service's `mixins` entry: Moleculer's types give mixins
 * the plain Service as `this`, so the one cast between the two is here.
 */
export function mixin<T extends Service>(schema: Partial<ServiceSchema<ServiceSettingSchema, T>>): Partial<ServiceSchema> {
  return schema as unknown as Partial<ServiceSchema>;
}
