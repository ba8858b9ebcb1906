/** Queries, updates and upserts through mingo (MongoDB's query language in JavaScript). */
import { ObjectId } from "mongodb";
import { Query, updateOne as mingoUpdateOne } from "mingo";
import { CommandError, badValue } from "./errors";
import type { Doc } from "./types";
import { canon, deepClone, idFirst, isOperatorDoc, isPlainObject, setPath, toNumber } from "./values";

export interface FindSpec {
  sort?: Doc;
  skip?: number;
  limit?: number;
  projection?: Doc;
  collation?: Doc;
  variables?: Doc;
}

export function queryOptions(spec: { collation?: Doc; variables?: Doc }): Doc {
  const opts: Doc = {};
  if (spec.collation) opts.collation = spec.collation;
  if (spec.variables) opts.variables = spec.variables;
  return opts;
}

export function runFind(source: Doc[], filter: Doc, spec: FindSpec = {}): Doc[] {
  let docs = source;
  let sort = spec.sort && Object.keys(spec.sort).length ? { ...spec.sort } : undefined;
  if (sort && "$natural" in sort) {
    if (toNumber(sort.$natural, 1) < 0) docs = docs.slice().reverse();
    delete sort.$natural;
    if (!Object.keys(sort).length) sort = undefined;
  }
  const projection = spec.projection && Object.keys(spec.projection).length ? spec.projection : undefined;
  let cursor = new Query(filter, queryOptions(spec)).find<Doc>(docs, projection ?? {});
  if (spec.collation) cursor = cursor.collation(spec.collation as any);
  if (sort) cursor = cursor.sort(sort);
  if (spec.skip && spec.skip > 0) cursor = cursor.skip(spec.skip);
  if (spec.limit && spec.limit !== 0) cursor = cursor.limit(Math.abs(spec.limit));
  const out = cursor.all();
  return projection ? out.map(idFirst) : out;
}

export function project(doc: Doc, projection: Doc | undefined): Doc {
  if (!projection || !Object.keys(projection).length) return doc;
  return idFirst(new Query({}).find<Doc>([doc], projection).all()[0]);
}

const UPDATE_OPERATORS = new Set([
  "$set",
  "$unset",
  "$inc",
  "$mul",
  "$rename",
  "$min",
  "$max",
  "$currentDate",
  "$addToSet",
  "$pop",
  "$pull",
  "$pullAll",
  "$push",
  "$bit",
  "$setOnInsert",
]);

export function checkUpdate(u: unknown): void {
  if (Array.isArray(u)) return;
  if (!isPlainObject(u)) throw new CommandError(9, "FailedToParse", "Update argument must be either an object or an array");
  if (!isOperatorDoc(u)) return;
  for (const k of Object.keys(u)) {
    if (!UPDATE_OPERATORS.has(k)) {
      throw new CommandError(9, "FailedToParse", `Unknown modifier: ${k}. Expected a valid update modifier or pipeline-style update specified as an array`);
    }
  }
}

/** Applies an update document (operators, replacement or pipeline) to a copy of `doc`. */
export function applyUpdate(doc: Doc, u: any, condition: Doc, arrayFilters: Doc[] | undefined, insert: boolean, opts: Doc): Doc {
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

const immutableId = () => new CommandError(66, "ImmutableField", "Performing an update on the path '_id' would modify the immutable field '_id'");

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

export function buildUpsert(q: Doc, u: any, opts: Doc): Doc {
  let doc: Doc;
  if (Array.isArray(u) || isOperatorDoc(u)) {
    doc = applyUpdate(equalityFields(q, {}), u, {}, undefined, true, opts);
  } else {
    doc = deepClone(u ?? {});
    if (!("_id" in doc) && q && "_id" in q && !isOperatorDoc(q._id) && !(q._id instanceof RegExp)) doc._id = deepClone(q._id);
  }
  return prepareForInsert(doc);
}

export function prepareForInsert(doc: Doc): Doc {
  if (!isPlainObject(doc)) throw badValue("document to insert must be an object");
  if (doc._id === undefined) {
    const { _id, ...rest } = doc;
    return { _id: new ObjectId(), ...rest };
  }
  if (Array.isArray(doc._id)) throw new CommandError(53, "InvalidIdField", "The '_id' value cannot be of type array");
  if (doc._id instanceof RegExp) throw new CommandError(53, "InvalidIdField", "The '_id' value cannot be of type regex");
  return idFirst(doc);
}
