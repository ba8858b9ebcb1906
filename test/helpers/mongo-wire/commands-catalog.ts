/**
 * The catalog commands: databases and collections (listDatabases, listCollections, create, drop,
 * dropDatabase, renameCollection) and indexes (createIndexes, listIndexes, dropIndexes).
 */
import { type Ctx, type Handler, collName } from "./context";
import { CommandError, badValue, notFound } from "./errors";
import { indexExists, indexNamesToDrop, parseIndexSpec } from "./indexes";
import { runFind } from "./query";
import type { Doc } from "./types";
import { canon, isPlainObject, wireCopy } from "./values";

/** Fields of a create command that are not options of the collection. */
const NOT_COLLECTION_OPTIONS = [
  "create",
  "$db",
  "lsid",
  "$clusterTime",
  "writeConcern",
  "comment",
  "$readPreference",
  "apiVersion",
  "apiStrict",
  "apiDeprecationErrors",
  "maxTimeMS",
];

function listDatabases(ctx: Ctx): Doc {
  const { store, body } = ctx;
  let dbs: Doc[] = store.databases().map((name) => (body.nameOnly ? { name } : { name, sizeOnDisk: 8192, empty: false }));
  if (isPlainObject(body.filter)) dbs = runFind(dbs, body.filter);
  return body.nameOnly ? { databases: dbs, ok: 1 } : { databases: dbs, totalSize: dbs.length * 8192, totalSizeMb: 0, ok: 1 };
}

function listCollections(ctx: Ctx): Doc {
  const { store, db, body } = ctx;
  const infos = store.collObjects(db).map((c) =>
    body.nameOnly
      ? { name: c.name, type: "collection" }
      : {
          name: c.name,
          type: "collection",
          options: wireCopy(c.options),
          info: { readOnly: false },
          idIndex: { v: 2, key: { _id: 1 }, name: "_id_" },
        },
  );
  const filter: Doc = body.filter ?? {};
  return store.cursorAnswer(`${db}.$cmd.listCollections`, runFind(infos, filter), body.cursor?.batchSize);
}

function create(ctx: Ctx): Doc {
  const { store, db, body } = ctx;
  const name = collName(ctx, "create");
  const options: Doc = {};
  for (const [k, v] of Object.entries(body)) if (!NOT_COLLECTION_OPTIONS.includes(k)) options[k] = v;
  const existing = store.coll(db, name);
  if (existing) {
    if (canon(existing.options) === canon(options)) return { ok: 1 };
    throw new CommandError(48, "NamespaceExists", `Collection ${db}.${name} already exists.`);
  }
  store.ensureColl(db, name, options);
  return { ok: 1 };
}

function drop(ctx: Ctx): Doc {
  const { store, db } = ctx;
  const name = collName(ctx, "drop");
  const coll = store.dropColl(db, name);
  return coll ? { ns: coll.ns, nIndexesWas: coll.indexes.length, ok: 1 } : { ok: 1 };
}

function dropDatabase(ctx: Ctx): Doc {
  const { store, db } = ctx;
  for (const name of store.collections(db)) store.dropColl(db, name);
  return { dropped: db, ok: 1 };
}

function renameCollection(ctx: Ctx): Doc {
  const { store, body } = ctx;
  const from = String(body.renameCollection ?? "");
  const to = String(body.to ?? "");
  const split = (ns: string) => [ns.slice(0, ns.indexOf(".")), ns.slice(ns.indexOf(".") + 1)];
  const [fromDb, fromName] = split(from);
  const [toDb, toName] = split(to);
  const source = store.coll(fromDb, fromName);
  if (!source) throw notFound("Source collection " + from + " does not exist");
  if (store.coll(toDb, toName)) {
    if (!body.dropTarget) throw new CommandError(48, "NamespaceExists", "target namespace exists");
    store.dropColl(toDb, toName);
  }
  store.dropColl(fromDb, fromName);
  const { coll } = store.ensureColl(toDb, toName, source.options);
  for (const ix of source.indexes.slice(1)) coll.addIndex(ix);
  for (const doc of source.all()) coll.insert(doc);
  return { ok: 1 };
}

function createIndexes(ctx: Ctx): Doc {
  const { store, db, body } = ctx;
  const name = collName(ctx, "createIndexes");
  if (!Array.isArray(body.indexes) || !body.indexes.length) throw badValue("Must specify at least one index to create");
  const { coll, created } = store.ensureColl(db, name);
  const before = coll.indexes.length;
  for (const spec of body.indexes as Doc[]) {
    const ix = parseIndexSpec(spec);
    if (!indexExists(coll.indexes, ix)) coll.addIndex(ix);
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

function listIndexes(ctx: Ctx): Doc {
  const { store, db } = ctx;
  const name = collName(ctx, "listIndexes");
  const coll = store.coll(db, name);
  if (!coll) throw notFound(`ns does not exist: ${db}.${name}`);
  return store.cursorAnswer(
    `${db}.${name}`,
    coll.indexes.map((ix) => wireCopy(ix)),
    ctx.body.cursor?.batchSize,
  );
}

function dropIndexes(ctx: Ctx): Doc {
  const { store, db, body } = ctx;
  const name = collName(ctx, "dropIndexes");
  const coll = store.coll(db, name);
  if (!coll) throw notFound(`ns not found ${db}.${name}`);
  const was = coll.indexes.length;
  for (const n of indexNamesToDrop(coll.indexes, body.index)) coll.dropIndex(n);
  return { nIndexesWas: was, ok: 1 };
}

export const CATALOG_COMMANDS: Record<string, Handler> = {
  listDatabases,
  listCollections,
  create,
  drop,
  dropDatabase,
  renameCollection,
  createIndexes,
  listIndexes,
  dropIndexes,
  deleteIndexes: dropIndexes,
};
