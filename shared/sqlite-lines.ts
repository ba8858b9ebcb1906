/**
 * How the embedded store (shared/sqlite-store.ts) writes a document as its row's line of JSON and reads it back, as
 * NeDB's serialize and deserialize did: Dates as {"$$date": ms}, everything else as JSON.
 */
import type { StoredDoc } from "./service-types";

type Doc = StoredDoc;

/** NeDB's stored dates, {"$$date": ms}, back into Dates, in place. */
function reviveDates(v: unknown): unknown {
  if (v === null || typeof v !== "object") return v;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) v[i] = reviveDates(v[i]);
    return v;
  }
  const o = v as Record<string, unknown>;
  if ("$$date" in o) return new Date(o.$$date as number);
  for (const k in o) o[k] = reviveDates(o[k]);
  return o;
}

/**
 * A stored line back into a document, as NeDB's deserialize reads it: a plain JSON.parse, then a walk
 * that turns {"$$date": ms} into Dates only when the line holds one (NeDB's reviver costs a call per value).
 */
export function deserialize(raw: string): Doc {
  // A stored line is always a document (an object): reviveDates changes it in place and gives it back.
  const v = JSON.parse(raw) as Doc;
  return raw.includes('"$$date"') ? (reviveDates(v) as Doc) : v;
}
/** Does the value hold a Date, or anything NeDB's serialize would take for one (an object with getTime)? */
function holdsDate(v: unknown): boolean {
  if (v === null || typeof v !== "object") return false;
  const o = v as Record<string, unknown>;
  if (typeof o.getTime === "function") return true;
  for (const k in o) if (holdsDate(o[k])) return true;
  return false;
}

/** The value with every Date (anything with getTime, as NeDB's serialize tells them) as {"$$date": ms}: copies only where one is. */
function datesStored(v: unknown): unknown {
  if (v === null || typeof v !== "object") return v;
  const o = v as Record<string, unknown>;
  if (typeof o.getTime === "function") return { $$date: (v as Date).getTime() };
  if (!holdsDate(v)) return v;
  if (Array.isArray(v)) return v.map(datesStored);
  const out: Doc = {};
  for (const k of Object.keys(o)) out[k] = datesStored(o[k]);
  return out;
}

/**
 * A document as its stored line, exactly as NeDB's serialize writes it. Its replacer, a call per value, only
 * turns Dates into {"$$date": ms} and checks keys, which prepare() and modify() have checked already: the line
 * is a plain JSON.stringify (of a copy with the Dates turned, when there are some), less than half the CPU.
 */
export function serializeDoc(doc: Doc): string {
  return JSON.stringify(holdsDate(doc) ? datesStored(doc) : doc);
}

/** What a document to insert holds (storedKind). */
export const JSON_ONLY = 0;
const DATED = 1;
export const OTHER = 2;

/**
 * One walk of a document to insert, in place of NeDB's deepCopy, checkObject and serialize's date test (three walks,
 * most of a first sync's insert of 1,000 feeds): JSON values only (JSON_ONLY: its JSON.stringify is its line), Dates
 * among them (DATED), or anything NeDB treats its own way (OTHER: a class instance, a BigInt, a key that begins with
 * "$" or holds a "."), which deepCopy and checkObject then decide as before, NeDB's errors included.
 */
export function storedKind(v: unknown): number {
  if (typeof v !== "object" || v === null) return typeof v === "bigint" ? OTHER : JSON_ONLY;
  let kind = JSON_ONLY;
  if (Array.isArray(v)) {
    for (const item of v as unknown[]) if ((kind = Math.max(kind, storedKind(item))) === OTHER) return OTHER;
    return kind;
  }
  const proto: unknown = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return v instanceof Date ? DATED : OTHER;
  const o = v as Record<string, unknown>;
  for (const k in o) {
    if (k[0] === "$" || k.includes(".") || (kind = Math.max(kind, storedKind(o[k]))) === OTHER) return OTHER;
  }
  return kind;
}

/** A document ready to insert (SqliteAdapter.prepare): with its _id, and what it holds (storedKind). */
export interface Prepared {
  doc: Doc;
  kind: number;
}

/** A prepared document's stored line. */
export function line({ doc, kind }: Prepared): string {
  return kind === JSON_ONLY ? JSON.stringify(doc) : serializeDoc(doc);
}
