/**
 * Which queries the services sent to MongoDB that no index serves (read off the wire double's query log
 * and its index lists). MongoDB itself decides plans, which the double cannot show; what it can check is
 * that for every query an index exists that a planner can use without a collection scan:
 * - a filter on `_id` (the _id index), or
 * - an index whose first field the filter narrows (an equality, `$in`, a range, a `$regex` on a sparse
 *   index's field); a `$or` needs that of every branch;
 * - and a sort on a collection that grows with the library must follow that index after its equality
 *   fields (else MongoDB sorts every match in memory).
 * Whole-collection reads are listed by name in SCANS_BY_DESIGN with the reason.
 */
import type { IndexInfo, MongoWire, QueryLogEntry } from "./mongo-wire";

/** Collections that stay small whatever the library's size (settings, one document per user or per job kind): any query is cheap. */
export const SMALL_COLLECTIONS: Record<string, string> = {
  counters: "one document per id sequence and change mark",
  users: "one per account; read by _id, username and email (indexed)",
  backup_state: "one document",
  rss_settings: "one per user, by _id",
  email_settings: "one document",
  feed_leases: "one document per scheduler",
  download_leases: "one document per scheduler",
  download_settings: "one document",
  search_stats: "one per provider",
  oidc_providers: "a handful",
  imports: "one per user's OPML import",
  queue: "one per user, by _id",
  local_artwork: "one per local folder",
  local_folders: "a handful",
  sync_accounts: "one per user",
  gpodder_users: "one per user, by _id",
  mfa_sessions: "sign-ins waiting for their second step, gone after minutes (TTL)",
  login_flows: "Nextcloud Login Flows in progress, gone after 20 minutes (TTL)",
};

/** Reads of every document of a collection that are the point (a start-up index, a backup), not a missing index. */
const SCANS_BY_DESIGN: { coll: string; why: string; test: (q: QueryLogEntry) => boolean }[] = [
  { coll: "*", why: "backups export every document", test: (q) => q.op === "find" && !Object.keys(q.filter).length },
  { coll: "api_keys", why: "an admin's get_api_info lists every key of the server", test: (q) => Object.keys(q.filter).join() === "kind" },
];

type Doc = Record<string, any>;

/** The fields of a filter that an index can narrow on (top level and inside $and). */
function narrowingFields(filter: Doc, sparseFields: Set<string>): Set<string> {
  const out = new Set<string>();
  for (const [key, value] of Object.entries(filter)) {
    if (key === "$and" && Array.isArray(value)) for (const c of value) for (const f of narrowingFields(c, sparseFields)) out.add(f);
    if (key.startsWith("$")) continue;
    if (value instanceof RegExp || (value && typeof value === "object" && ("$regex" in value || "$not" in value))) {
      // An unanchored or case-insensitive regex scans the whole index: fine when the index holds only documents that have the field.
      if (sparseFields.has(key)) out.add(key);
      continue;
    }
    if (value && typeof value === "object" && !Array.isArray(value) && !(value instanceof Date)) {
      const ops = Object.keys(value);
      // $ne, $nin and $exists: false match documents an index cannot bound.
      if (
        ops.some((op) => ["$eq", "$in", "$gt", "$gte", "$lt", "$lte"].includes(op)) ||
        (ops.includes("$exists") && value.$exists === true && sparseFields.has(key))
      )
        out.add(key);
      continue;
    }
    out.add(key);
  }
  return out;
}

/** Fields the planner treats as points: equalities and `$in` (a short list is exploded into points, each range read in index order and merged). */
function equalityFields(filter: Doc): Set<string> {
  const out = new Set<string>();
  for (const [key, value] of Object.entries(filter)) {
    if (key.startsWith("$")) continue;
    const plain = value === null || typeof value !== "object" || value instanceof Date || Array.isArray(value);
    if (plain || (Object.keys(value).length === 1 && ("$eq" in value || "$in" in value))) out.add(key);
  }
  return out;
}

/** Does some index serve this filter (and sort)? */
function served(filter: Doc, sort: Doc | undefined, indexes: IndexInfo[], checkSort: boolean): boolean {
  if (Array.isArray(filter.$or)) {
    const rest = { ...filter };
    delete rest.$or;
    // Narrowed by the rest alone, or else every branch on its own.
    if (Object.keys(rest).length && served(rest, undefined, indexes, false)) return !checkSort || !sort || served(rest, sort, indexes, true);
    return (filter.$or as Doc[]).every((branch) => served({ ...rest, ...branch }, undefined, indexes, false));
  }
  if ("_id" in filter) return true;
  const sparse = new Set(indexes.filter((i) => i.sparse || i.partialFilterExpression).flatMap((i) => Object.keys(i.key)));
  const narrowing = narrowingFields(filter, sparse);
  const usable = indexes.filter((i) => narrowing.has(Object.keys(i.key)[0]));
  if (!usable.length) return false;
  if (!checkSort || !sort || !Object.keys(sort).length) return true;
  const equal = equalityFields(filter);
  const wanted = Object.entries(sort);
  return usable.some((i) => {
    const keys = Object.entries(i.key).filter(([f]) => !equal.has(f));
    if (keys.length < wanted.length) return false;
    const dir = Math.sign(keys[0][1]) === Math.sign(wanted[0][1] as number) ? 1 : -1;
    return wanted.every(([f, d], n) => keys[n][0] === f && Math.sign(keys[n][1]) * dir === Math.sign(d as number));
  });
}

/** Collections whose sorted reads must come off an index (they grow with the library). */
const SORTED_BY_INDEX = new Set(["episodes"]);

export interface UnindexedQuery {
  coll: string;
  op: string;
  filter: string;
  sort?: string;
}

/** The shape of a filter: its fields and operators, values replaced (so one shape is listed once). */
export function shapeOf(v: unknown): unknown {
  if (v instanceof RegExp) return "/regex/";
  if (v instanceof Date) return "<date>";
  if (Array.isArray(v)) return v.length && typeof v[0] === "object" && v[0] !== null ? v.map(shapeOf) : "<list>";
  if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, shapeOf(x)]));
  return "<value>";
}

/** Every logged query of `db` on a collection that is not small that no index serves, one entry per shape. */
export function unindexedQueries(wire: MongoWire, db: string): UnindexedQuery[] {
  const out = new Map<string, UnindexedQuery>();
  for (const q of wire.queries()) {
    if (q.db !== db || SMALL_COLLECTIONS[q.coll] !== undefined) continue;
    if (SCANS_BY_DESIGN.some((s) => (s.coll === "*" || s.coll === q.coll) && s.test(q))) continue;
    const sort = q.sort && Object.keys(q.sort).length ? q.sort : undefined;
    if (served(q.filter, sort, wire.indexes(db, q.coll), SORTED_BY_INDEX.has(q.coll))) continue;
    const entry = { coll: q.coll, op: q.op, filter: JSON.stringify(shapeOf(q.filter)), ...(sort ? { sort: JSON.stringify(sort) } : {}) };
    out.set(JSON.stringify(entry), entry);
  }
  return [...out.values()];
}
