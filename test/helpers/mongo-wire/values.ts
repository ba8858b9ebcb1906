/** Values: BSON-ish equality keys, copies, dotted paths, and values as MongoDB prints them. */
import { BSON, Long, ObjectId } from "mongodb";
import type { Doc } from "./types";

/** Numbers as JS numbers, regular expressions as RegExp, Dates as Dates: the values mingo evaluates. */
export const DESERIALIZE = { promoteLongs: true, promoteValues: true, promoteBuffers: false, bsonRegExp: false } as const;

export function isPlainObject(v: unknown): v is Doc {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/**
 * A string that is equal for two values exactly when MongoDB's index keys would be equal: numbers by value
 * (int, long and double alike), Dates by time, strings exactly, ObjectIds by bytes, embedded documents
 * field by field in order, null and missing alike.
 */
export function canon(v: unknown): string {
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
    case "symbol":
    case "function":
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
  return (
    "{" +
    Object.keys(o)
      .map((k) => JSON.stringify(k) + ":" + canon(o[k]))
      .join(",") +
    "}"
  );
}

/** Deep copy of plain objects, arrays and Dates; other BSON values (ObjectId, Binary, ...) are immutable here. */
export function deepClone<T>(v: T): T {
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
export function wireCopy<T extends Doc>(d: T): T {
  return BSON.deserialize(BSON.serialize(d), DESERIALIZE) as T;
}

export function idFirst(d: Doc): Doc {
  if (!d || !("_id" in d) || Object.keys(d)[0] === "_id") return d;
  return { _id: d._id, ...d };
}

/** Marks an empty array at the end of a path (indexed by MongoDB as `undefined`, distinct from null). */
export const EMPTY_ARRAY: Doc = Object.freeze({});

/** The values at a dotted path, through arrays of subdocuments; a terminal array yields its elements. */
export function valuesAtPath(doc: unknown, path: string): unknown[] {
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
export function setPath(doc: Doc, path: string, value: unknown): void {
  const parts = path.split(".");
  let cur: Doc = doc;
  for (let i = 0; i < parts.length - 1; i++) {
    if (!isPlainObject(cur[parts[i]])) cur[parts[i]] = {};
    cur = cur[parts[i]];
  }
  cur[parts[parts.length - 1]] = value;
}

/** A value as MongoDB prints it in an E11000 message. */
export function showValue(v: unknown): string {
  if (v === undefined || v === null || v === EMPTY_ARRAY) return v === EMPTY_ARRAY ? "undefined" : "null";
  if (typeof v === "string") return JSON.stringify(v);
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  if (v instanceof Date) return `new Date(${v.getTime()})`;
  if (v instanceof RegExp) return String(v);
  if (v instanceof ObjectId) return `ObjectId('${v.toHexString()}')`;
  if (Array.isArray(v)) return "[ " + v.map(showValue).join(", ") + " ]";
  if (isPlainObject(v))
    return (
      "{ " +
      Object.keys(v)
        .map((k) => `${k}: ${showValue(v[k])}`)
        .join(", ") +
      " }"
    );
  // The other BSON values (Long, Decimal128, Timestamp...) print themselves.
  return (v as { toString(): string }).toString();
}

export function toNumber(v: unknown, fallback = 0): number {
  if (typeof v === "number") return v;
  if (v instanceof Long) return v.toNumber();
  if (typeof v === "bigint") return Number(v);
  return fallback;
}

export function isOperatorDoc(u: unknown): boolean {
  if (!isPlainObject(u)) return false;
  const keys = Object.keys(u);
  return keys.length > 0 && keys[0].startsWith("$");
}
