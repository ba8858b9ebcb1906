/**
 * Indexes: their definitions, the createIndexes / dropIndexes spec checks, and the key entries of unique
 * (simple, compound, sparse, partial) indexes that enforce MongoDB's E11000 duplicate key errors.
 */
import { Query } from "mingo";
import { CommandError, badValue } from "./errors";
import type { Doc, IndexInfo } from "./types";
import { EMPTY_ARRAY, canon, isPlainObject, showValue, valuesAtPath, wireCopy } from "./values";

export interface IndexDef extends IndexInfo {
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

/** An index definition from one spec of a createIndexes command. */
export function parseIndexSpec(spec: Doc): IndexDef {
  if (!isPlainObject(spec) || !isPlainObject(spec.key) || !Object.keys(spec.key).length)
    throw new CommandError(67, "CannotCreateIndex", "index key pattern must be a non-empty object");
  if (typeof spec.name !== "string" || !spec.name) throw new CommandError(9, "FailedToParse", "index name must be a non-empty string");
  const ix: IndexDef = { v: 2, key: spec.key, name: spec.name };
  for (const [k, v] of Object.entries(spec)) if (!["v", "key", "name", "ns", "background"].includes(k)) ix[k] = v;
  return ix;
}

/** True when `ix` exists already with the same options (nothing to do); throws when it clashes with another index. */
export function indexExists(indexes: IndexDef[], ix: IndexDef): boolean {
  const sameName = indexes.find((x) => x.name === ix.name);
  if (sameName) {
    if (indexOptionsKey(sameName) === indexOptionsKey(ix)) return true;
    throw new CommandError(
      86,
      "IndexKeySpecsConflict",
      `An existing index has the same name as the requested index. When index names are not specified, they are auto generated and can cause conflicts. Please refer to our documentation. Requested index: ${showValue(ix)}, existing index: ${showValue(sameName)}`,
    );
  }
  const sameKey = indexes.find(
    (x) =>
      canon(x.key) === canon(ix.key) &&
      canon(x.partialFilterExpression ?? null) === canon(ix.partialFilterExpression ?? null) &&
      canon(x.collation ?? null) === canon(ix.collation ?? null),
  );
  if (sameKey) throw new CommandError(85, "IndexOptionsConflict", `Index already exists with a different name: ${sameKey.name}`);
  return false;
}

/** The names a dropIndexes `index` field designates ("*", a name, names, or a key pattern), all checked droppable. */
export function indexNamesToDrop(indexes: IndexDef[], spec: unknown): string[] {
  let names: string[];
  if (spec === "*") names = indexes.slice(1).map((ix) => ix.name);
  else if (typeof spec === "string") names = [spec];
  else if (Array.isArray(spec)) names = spec.map(String);
  else if (isPlainObject(spec)) {
    const ix = indexes.find((x) => canon(x.key) === canon(spec));
    if (!ix) throw new CommandError(27, "IndexNotFound", `can't find index with key: ${showValue(spec)}`);
    names = [ix.name];
  } else throw badValue("invalid index specification");
  for (const n of names) {
    if (n === "_id_") throw new CommandError(72, "InvalidOptions", "cannot drop _id index");
    if (!indexes.some((x) => x.name === n)) throw new CommandError(27, "IndexNotFound", `index not found with name [${n}]`);
  }
  return names;
}

/** An index as the instrumentation shows it (only the options IndexInfo knows). */
export function indexInfo(ix: IndexDef): IndexInfo {
  const out: IndexInfo = { key: { ...ix.key }, name: ix.name };
  if (ix.unique) out.unique = true;
  if (ix.sparse) out.sparse = true;
  if (ix.expireAfterSeconds !== undefined) out.expireAfterSeconds = ix.expireAfterSeconds;
  if (ix.partialFilterExpression) out.partialFilterExpression = wireCopy(ix.partialFilterExpression);
  return out;
}

export interface Conflict {
  index: IndexDef;
  values: unknown[];
}

/**
 * The indexes of one collection and the entries of its unique secondary indexes. Documents are named by
 * canon(_id); the collection checks the _id index itself against its documents.
 */
export class IndexSet {
  readonly list: IndexDef[] = [{ v: 2, key: { _id: 1 }, name: "_id_" }];
  /** Unique secondary index name -> entry key -> canon(_id) of the document holding it. */
  private readonly uniq = new Map<string, Map<string, string>>();
  private readonly partial = new Map<string, Query>();

  constructor(private readonly ns: string) {}

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

  /** The unique secondary index `doc` would violate; `selfId` is the canon(_id) of the document it replaces, if any. */
  conflict(doc: Doc, selfId: string | null): Conflict | null {
    for (const ix of this.list) {
      const map = this.uniq.get(ix.name);
      if (!map) continue;
      for (const e of this.entries(ix, doc)) {
        const other = map.get(e.key);
        if (other !== undefined && other !== selfId) return { index: ix, values: e.values };
      }
    }
    return null;
  }

  addEntries(doc: Doc, id: string): void {
    for (const ix of this.list) {
      const map = this.uniq.get(ix.name);
      if (map) for (const e of this.entries(ix, doc)) map.set(e.key, id);
    }
  }

  removeEntries(doc: Doc, id: string): void {
    for (const ix of this.list) {
      const map = this.uniq.get(ix.name);
      if (map) for (const e of this.entries(ix, doc)) if (map.get(e.key) === id) map.delete(e.key);
    }
  }

  clearEntries(): void {
    for (const map of this.uniq.values()) map.clear();
  }

  duplicateKeyError(c: Conflict, prefix = ""): CommandError {
    const fields = Object.keys(c.index.key);
    const keyValue: Doc = {};
    fields.forEach((f, i) => (keyValue[f] = c.values[i] === EMPTY_ARRAY ? null : (c.values[i] ?? null)));
    const shown = "{ " + fields.map((f, i) => `${f}: ${showValue(c.values[i])}`).join(", ") + " }";
    return new CommandError(11000, "DuplicateKey", `${prefix}E11000 duplicate key error collection: ${this.ns} index: ${c.index.name} dup key: ${shown}`, {
      keyPattern: { ...c.index.key },
      keyValue,
    });
  }

  /** Adds `ix`, building its entries over `docs` (canon(_id) -> document); an existing duplicate fails the build. */
  add(ix: IndexDef, docs: Map<string, Doc>): void {
    if (ix.partialFilterExpression) this.partial.set(ix.name, new Query(ix.partialFilterExpression));
    if (ix.unique && ix.name !== "_id_") {
      const map = new Map<string, string>();
      for (const [id, doc] of docs) {
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
    this.list.push(ix);
  }

  drop(name: string): void {
    const i = this.list.findIndex((ix) => ix.name === name);
    if (i > 0) this.list.splice(i, 1);
    this.uniq.delete(name);
    this.partial.delete(name);
  }
}
