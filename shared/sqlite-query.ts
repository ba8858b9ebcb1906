/**
 * How the embedded store (shared/sqlite-store.ts) turns a NeDB query into SQL that narrows its candidates:
 * SQLite picks the rows that may match (by _id, an indexed field's index, or the JSON of each row), and NeDB's
 * match decides, unless SQLite decided every part exactly as it would.
 */

import type { Query } from "./service-types";

export type { Query };

/** Bound parameters per statement (SQLite allows 32,766; a $in of more is read in chunks). */
const PARAMS = 500;

/** A field name SQLite can be asked for as '$.name': top level, plain characters. */
export const PLAIN_FIELD = /^[A-Za-z_][A-Za-z0-9_]*$/;
export const jsonPath = (field: string) => `'$.${field}'`;
/** A value SQLite compares as NeDB would (a number or a string; booleans, dates and objects are left to match). */
const bindable = (v: unknown): v is number | string => typeof v === "string" || (typeof v === "number" && Number.isFinite(v));

const RANGE_OPS: Record<string, string> = { $gt: ">", $gte: ">=", $lt: "<", $lte: "<=" };
/** No UTF-16 unit above 0x7f (the same test as [\x00-\x7f]*, without a control character in the pattern). */
const ASCII = /^[^\u0080-\uffff]*$/;

/**
 * SQL for a range ({$gt, $lte, ...}) on an indexed (single-valued) field, which SQLite answers from the
 * field's index, or null when SQLite might order differently from NeDB. NeDB compares a number only with
 * numbers and a string only with strings: the SQL keeps to the bound's type. Strings are compared by SQLite
 * as UTF-8 bytes and by NeDB as UTF-16 units, which agree whenever the bound is ASCII (a value's first
 * character that differs from an ASCII bound's is above it in both orders); other bounds are left to match().
 */
function rangeCondition(column: string, field: string, value: Record<string, unknown>): { where: string; params: unknown[] } | null {
  const ops = Object.keys(value);
  if (!ops.length || !ops.every((op) => op in RANGE_OPS)) return null;
  const bounds = ops.map((op) => value[op]);
  const numbers = bounds.every((b) => typeof b === "number" && Number.isFinite(b));
  const strings = bounds.every((b) => typeof b === "string" && ASCII.test(b));
  if (!numbers && !strings) return null;
  const compare = ops.map((op) => `${column} ${RANGE_OPS[op]} ?`).join(" AND ");
  if (strings && field !== "_id" && stringsOnly(value)) return { where: `(${compare})`, params: bounds };
  const type = field === "_id" ? `typeof(_id)` : `json_type(doc, ${jsonPath(field)})`;
  const typed = numbers ? `${type} IN ('integer', 'real')` : `${type} = 'text'`;
  return { where: `(${typed} AND ${compare})`, params: bounds };
}

/**
 * Does a range of strings on json_extract's value take strings only, without a json_type test (which parses
 * every row's JSON again)? json_extract gives numbers (and true, false as 1, 0), which SQLite orders below any
 * text, so a lower bound refuses them; and an object's or array's JSON text, which begins with "{" or "[",
 * so an upper bound below "[" refuses those.
 */
function stringsOnly(value: Record<string, unknown>): boolean {
  const upper = value.$lt ?? value.$lte;
  return (value.$gt ?? value.$gte) !== undefined && typeof upper === "string" && upper < "[";
}

/**
 * SQL for a range whose bounds are all Dates ({ next_try: { $lte: now } }) on a plain field, or null. A Date is
 * stored as {"$$date": ms}: SQLite compares the ms. The rows are a superset of NeDB's matches (match() still
 * decides): a $$date that is not a number (an Invalid Date is stored as null) is left to match().
 */
function dateRange(field: string, value: Record<string, unknown>): { where: string; params: unknown[] } | null {
  const ops = Object.keys(value);
  if (!ops.length || !ops.every((op) => op in RANGE_OPS && value[op] instanceof Date && !Number.isNaN(value[op].getTime()))) return null;
  const ms = `'$.${field}."$$date"'`;
  const compare = ops.map((op) => `json_extract(doc, ${ms}) ${RANGE_OPS[op]} ?`).join(" AND ");
  return {
    where: `(json_type(doc, ${ms}) IN ('integer', 'real') AND ${compare}) OR json_type(doc, ${ms}) NOT IN ('integer', 'real')`,
    params: ops.map((op) => (value[op] as Date).getTime()),
  };
}

/**
 * The top-level fields a query tests (through $or and $and too), or null when it tests anything else (a
 * dotted path, $where, $not...): a projection of those fields is then enough for NeDB's match.
 */
export function queryFields(query: Query, into = new Set<string>()): Set<string> | null {
  for (const [key, value] of Object.entries(query)) {
    if (key === "$or" || key === "$and") {
      if (!Array.isArray(value)) return null;
      for (const clause of value as Query[]) if (!queryFields(clause, into)) return null;
    } else if (PLAIN_FIELD.test(key)) into.add(key);
    else return null;
  }
  return into;
}

/** Does the query only ask for ids (one, or a $in of numbers and strings)? */
export function byIdOnly(query: Query): boolean {
  const keys = Object.keys(query);
  if (keys.length !== 1 || keys[0] !== "_id") return false;
  const v = query._id;
  if (bindable(v)) return true;
  if (v === null || typeof v !== "object" || Object.keys(v).length !== 1) return false;
  const list = (v as { $in?: unknown }).$in;
  return Array.isArray(list) && list.every(bindable);
}

/**
 * The query NeDB's match is given. NeDB compares a range on a Date with null as if null were 0 (typeof both
 * "object", then `null < date`), so `{ at: { $lt: date } }` matched documents whose `at` is null; MongoDB never
 * compares values of different types. A range on a Date also refuses null here (an added `$ne: null`).
 */
export function rangesOnDates(query: Query): Query {
  let out: Query | null = null;
  for (const [key, value] of Object.entries(query)) {
    let next = value;
    if ((key === "$or" || key === "$and") && Array.isArray(value)) {
      const clauses = (value as unknown[]).map((q) => (q && typeof q === "object" ? rangesOnDates(q as Query) : q));
      if (clauses.some((q, i) => q !== value[i])) next = clauses;
    } else if (!key.startsWith("$") && value && typeof value === "object" && !Array.isArray(value) && !(value instanceof Date) && !(value instanceof RegExp)) {
      const ops = value as Record<string, unknown>;
      if (!("$ne" in ops) && ["$lt", "$lte", "$gt", "$gte"].some((op) => ops[op] instanceof Date)) next = { ...ops, $ne: null };
    }
    if (next !== value) (out ??= { ...query })[key] = next;
  }
  return out ?? query;
}

/** The RegExp a condition tests (`/re/` or `{ $regex: /re/ }` alone), or null. */
function regexOf(value: unknown): RegExp | null {
  if (value instanceof RegExp) return value;
  if (!value || typeof value !== "object" || Object.keys(value).length !== 1) return null;
  const re = (value as { $regex?: unknown }).$regex;
  return re instanceof RegExp ? re : null;
}

/**
 * SQL conditions a document must meet to possibly match `query` (a superset of the matches), with their
 * parameters; `indexed`: the fields with an index (single-valued). exact: SQLite decides each part as NeDB's
 * match would (ids, and ranges on an indexed field), so the rows are the matches.
 */
export function narrowQuery(query: Query, indexed: ReadonlySet<string>): { where: string; params: unknown[]; exact: boolean } | null {
  const conds: string[] = [];
  const params: unknown[] = [];
  let exact = true;
  for (const [field, value] of Object.entries(query)) {
    if (field === "$or" && Array.isArray(value) && value.length) {
      exact = false;
      const parts = (value as Query[]).map((q) => narrowQuery(q, indexed));
      // One clause that narrows nothing and the $or narrows nothing.
      if (parts.every((p) => p)) {
        conds.push(`(${parts.map((p) => `(${p!.where})`).join(" OR ")})`);
        for (const p of parts) params.push(...p!.params);
      }
      continue;
    }
    // Ids compare in SQLite as NeDB compares them (the column has no type affinity); other equalities may not (true is 1 there).
    let decided = field === "_id" && byIdOnly({ _id: value });
    if (!PLAIN_FIELD.test(field)) {
      exact = false;
      continue;
    }
    const column = field === "_id" ? "_id" : `json_extract(doc, ${jsonPath(field)})`;
    // An array field matches a value that one of its elements equals: only indexed (single-valued) fields and _id compare directly.
    const orArray = indexed.has(field) ? "" : ` OR json_type(doc, ${jsonPath(field)}) = 'array'`;
    const re = regexOf(value);
    if (bindable(value)) {
      conds.push(`(${column} = ?${orArray})`);
      params.push(value);
    } else if (re) {
      // The very RegExp, run by SQLite on each candidate's value: no document is parsed in JavaScript to be refused.
      conds.push(`(regexp_test(?, ?, ${column})${orArray})`);
      params.push(re.source, re.flags);
    } else if (value === null && field !== "_id") {
      // NeDB matches a null (not a missing field), or an array that holds one.
      conds.push(`(json_type(doc, ${jsonPath(field)}) = 'null'${orArray})`);
    } else if (value && typeof value === "object" && !(value instanceof Date) && !(value instanceof RegExp)) {
      const spec = value as Record<string, unknown>;
      const ops = Object.keys(spec);
      const list = spec.$in;
      // A range narrows on any field: SQLite decides it on an indexed (single-valued) one, keeping to NeDB's order or
      // declining (rangeCondition); on another, an array's elements are left to match.
      const range = rangeCondition(column, field, spec);
      if (range) {
        conds.push(`(${range.where}${orArray})`);
        params.push(...range.params);
        decided = !orArray;
      } else if (ops.length === 1 && ops[0] === "$in" && Array.isArray(list) && list.every(bindable)) {
        if (!list.length) return { where: "0", params: [], exact: true };
        if (list.length <= PARAMS) {
          conds.push(`(${column} IN (${list.map(() => "?").join(",")})${orArray})`);
          params.push(...list);
        } else {
          // A long list as one JSON array (SQLite binds at most so many parameters): its numbers and
          // strings compare as the bound values would, so the list narrows whatever its length.
          conds.push(`(${column} IN (SELECT value FROM json_each(?))${orArray})`);
          params.push(JSON.stringify(list));
        }
      } else if (field !== "_id" && ops.length === 1 && ops[0] === "$exists" && !(spec.$exists || spec.$exists === "")) {
        // NeDB's $exists: false (0, null, ...): the field is missing.
        conds.push(`(json_type(doc, ${jsonPath(field)}) IS NULL)`);
      } else if (field !== "_id") {
        const dates = dateRange(field, spec);
        if (dates) {
          conds.push(`(${dates.where}${orArray})`);
          params.push(...dates.params);
        }
      }
    }
    exact = exact && decided;
  }
  return conds.length ? { where: conds.join(" AND "), params, exact } : null;
}
