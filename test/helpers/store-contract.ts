/**
 * The store contract as data: every query, update, sort and projection shape the services send to a store
 * (the table in test/unit/store-contract.test.ts names where each is used), as cases that run the same way
 * on the embedded store (shared/sqlite-store.ts) and on MongoDB (shared/mongo-store.ts). A case is
 * `{ name, readOnly, indexes?, docs?, run(store) }`: the runner creates the indexes, inserts the documents,
 * runs `run` and normalizes what it answers (Dates as ISO strings, documents sorted by _id where the shape has
 * no sort, an error as its kind). Two stores keep the contract when their normalized answers are equal.
 *
 * Used by the jest suite (every case, the embedded store against the wire double) and by
 * scripts/mongo-check.ts (the read-only cases, the embedded store against an operator's MongoDB). So nothing
 * here may need jest or a test double: plain TypeScript on the shared stores only.
 *
 * readOnly: `run` only reads. The runner still writes the case's documents and indexes into the collection it
 * is given (scratch collections, in the operator's check).
 * differs: a difference between the stores that is known and not fixed here (the suite runs the case as
 * test.failing, so that it starts to fail when the difference goes); the text says why it is left.
 */
import { isDuplicateKeyError, type IndexSpec } from "../../shared/db.mixin";
import { ensureLease, releaseLease, takeLease, type LeaseFields } from "../../shared/lease";
import { MongoStore } from "../../shared/mongo-store";
import { SqliteAdapter } from "../../shared/sqlite-store";

export type Doc = Record<string, any>;
export type ContractStore = SqliteAdapter | MongoStore;

export interface ContractCase {
  name: string;
  readOnly: boolean;
  /** Indexes created before the documents go in (a mongoOnly one only on MongoDB, as db.mixin does). */
  indexes?: IndexSpec[];
  /** The documents the case reads and writes: a new copy for each store. */
  docs?: () => Doc[];
  /** The operations; their answer, normalized by the runner. */
  run(store: any): Promise<unknown>;
  /** What each store must answer besides answering the same (races: exactly one winner). */
  expected?: unknown;
  /** A known difference between the stores, left as it is: why. */
  differs?: string;
  /**
   * A difference a real MongoDB may show that the wire double cannot (mingo evaluates in JavaScript): the suite
   * runs the case as usual, the operator's check reports a difference here as a note, not a failure.
   */
  realServer?: string;
}

export interface CaseAnswer {
  /** The normalized answer (or { threw: kind } when run threw). */
  answer: unknown;
  /** The message of what was thrown, for a reader (not compared: each store words its errors). */
  error?: string;
}

// ---------------------------------------------------------------------------------------------------------
// Normalization

const UNDEFINED = "<undefined>";

/** Plain data with Dates as ISO strings and keys in order; an undefined value stays visible. */
export function normal(v: unknown): unknown {
  if (v === undefined) return UNDEFINED;
  if (v === null || typeof v !== "object") return v;
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? "Invalid Date" : v.toISOString();
  if (v instanceof RegExp) return String(v);
  if (Array.isArray(v)) return v.map(normal);
  const bson = (v as { _bsontype?: string })._bsontype;
  if (bson) return `${bson}(${(v as { toString(): string }).toString()})`;
  const out: Doc = {};
  for (const k of Object.keys(v).sort()) out[k] = normal((v as Doc)[k]);
  return out;
}

/** Orders ids as MongoDB does for the types the services use: numbers, then strings. */
function compareIds(a: unknown, b: unknown): number {
  const rank = (x: unknown) => (typeof x === "number" ? 0 : typeof x === "string" ? 1 : 2);
  if (rank(a) !== rank(b)) return rank(a) - rank(b);
  if (typeof a === "number" && typeof b === "number") return a - b;
  const sa = String(a);
  const sb = String(b);
  return sa < sb ? -1 : sa > sb ? 1 : 0;
}

/** Documents of a shape without a sort: their order is the store's business, so compared by _id. */
export function byId(docs: Doc[] | null | undefined): unknown {
  if (!docs) return docs ?? null;
  return [...docs].sort((a, b) => compareIds(a._id, b._id)).map(normal);
}

/** Every document of a store (all(): a sync generator on SQLite, an async one on MongoDB), by _id. */
export async function everything(store: ContractStore): Promise<unknown> {
  const out: Doc[] = [];
  for await (const doc of store.all() as AsyncIterable<Doc>) out.push(doc);
  return byId(out);
}

/** How a store's error compares: a unique-index violation is one kind on both stores, anything else another. */
export function errorKind(err: unknown): string {
  return isDuplicateKeyError(err) ? "duplicate key" : "error";
}

/** Runs op and answers its result, or { threw: kind } (the store's own wording is not compared). */
async function outcome<T>(op: () => Promise<T> | T, map: (v: T) => unknown = normal): Promise<unknown> {
  try {
    return map(await op());
  } catch (err) {
    return { threw: errorKind(err) };
  }
}

// ---------------------------------------------------------------------------------------------------------
// The runner

export const isMongo = (store: ContractStore): boolean => store instanceof MongoStore;

/** Creates the case's indexes and documents in an empty, connected store, then runs the case. */
export async function runCase(c: ContractCase, store: ContractStore): Promise<CaseAnswer> {
  for (const ix of c.indexes ?? []) if (!ix.mongoOnly || isMongo(store)) await store.ensureIndex(ix);
  const docs = c.docs?.() ?? [];
  if (docs.length) await store.insertMany(docs);
  try {
    return { answer: normal(await c.run(store)) };
  } catch (err) {
    return { answer: { threw: errorKind(err) }, error: (err as Error)?.stack ?? String(err) };
  }
}

// ---------------------------------------------------------------------------------------------------------
// Data as the services store it

/** A fixed day of January 2026 (at noon), and an hour of it. */
const jan = (d: number, h = 12) => new Date(Date.UTC(2026, 0, d, h));

/** Episodes (services/episodes.parts/model.ts EpisodeDoc; p20 persons as the feed parser gives them). */
function episodes(): Doc[] {
  const ep = (_id: number, podcast_id: number, fields: Doc) => ({
    _id,
    podcast_id,
    guid: `g${_id}`,
    enclosure_key: `https://m.example/${podcast_id}/${_id}.mp3`,
    title: `Episode ${_id}`,
    description: null,
    pub_date: jan(_id),
    duration: 60 * _id,
    enclosure_url: `https://m.example/${podcast_id}/${_id}.mp3?src=feed`,
    enclosure_type: "audio/mpeg",
    created_at: jan(_id, 13),
    p20: {},
    ...fields,
  });
  return [
    ep(1, 10, { description: "The Alpha story", p20: { persons: [{ name: "Ada Lovelace", role: "host" }] } }),
    ep(2, 10, { pub_date: null, description: "beta", p20: { persons: [] } }),
    ep(3, 10, { guid: null, pub_date: jan(4), description: "ALPHA and omega" }),
    ep(4, 11, { guid: "g1", pub_date: jan(4), p20: { persons: [{ name: "ada lovelace" }, { name: "Grace Hopper", role: "guest" }] } }),
    ep(5, 11, { pub_date: jan(2), description: "no match here", title: "Épisode cinq" }),
    ep(6, 12, { pub_date: null, enclosure_url: null, enclosure_key: null }),
    ep(7, 12, { pub_date: jan(9), p20: { persons: [{ name: "Ada Lovelace (guest)" }, { name: null }] } }),
    ep(8, 13, { pub_date: jan(20), description: "alphabet", guid: null }),
  ];
}

/** Episode states (EpisodeStateDoc): _id "<user>:<episode>", last_listened_at null until played. */
function states(): Doc[] {
  const st = (user_id: number, episode_id: number, podcast_id: number, fields: Doc) => ({
    _id: `${user_id}:${episode_id}`,
    user_id,
    episode_id,
    podcast_id,
    listen_duration: 0,
    completed: false,
    saved: false,
    saved_at: null,
    last_listened_at: null,
    ...fields,
  });
  return [
    st(1, 1, 10, { listen_duration: 30, last_listened_at: jan(3) }),
    st(1, 2, 10, { saved: true, saved_at: jan(4) }),
    st(1, 4, 11, { completed: true, last_listened_at: jan(6), saved: true }),
    st(1, 5, 11, {}),
    st(2, 1, 10, { last_listened_at: jan(8) }),
    st(2, 7, 12, { saved: true }),
  ];
}

/** Tasks (services/tasks.service.ts TaskDoc), numeric ids. */
function tasks(): Doc[] {
  const now = jan(15);
  const t = (_id: number, fields: Doc) => ({
    _id,
    task_type: "refresh_feed",
    user_id: 1,
    status: "PENDING",
    progress: 0,
    message: "Waiting for a worker",
    result: null,
    payload: {},
    item_id: null,
    dedupe_key: null,
    open_key: null,
    attempts: 0,
    claim_seq: 0,
    lease_owner: null,
    lease_until: null,
    run_after: now,
    created_at: now,
    updated_at: now,
    ...fields,
  });
  return [
    t(1, { dedupe_key: "feed:1", open_key: "feed:1", run_after: jan(14) }),
    t(2, { task_type: "download_episode", status: "DOWNLOADING", lease_owner: "w1#1", lease_until: jan(15, 1), claim_seq: 1, attempts: 1 }),
    t(3, { status: "RUNNING", lease_owner: "w2#3", lease_until: jan(16), claim_seq: 3, attempts: 2, user_id: 2 }),
    t(4, { status: "SUCCESS", updated_at: jan(1), dedupe_key: "feed:2" }),
    t(5, { status: "FAILED", updated_at: jan(14), user_id: 2 }),
    t(6, { dedupe_key: "feed:2", open_key: "feed:2", run_after: jan(13) }),
    t(7, { task_type: "download_episode", run_after: jan(17) }),
    t(8, { run_after: jan(14), user_id: 2 }),
  ];
}

/** Podcasts (podcasts.parts PodcastDoc, the fields read here). */
function podcasts(): Doc[] {
  return [
    {
      _id: 10,
      feed_key: "https://f.example/a",
      feed_url: "https://f.example/a",
      username: null,
      password: null,
      title: "Alpha",
      podcast_index_id: 5,
      p20: { persons: [{ name: "Ada Lovelace" }] },
    },
    { _id: 11, feed_key: "https://f.example/b", feed_url: "https://f.example/b", username: "bob", password: "x", title: "beta", podcast_index_id: 0, p20: {} },
    { _id: 12, feed_key: "https://f.example/c", feed_url: "https://f.example/c", title: "Gamma", podcast_index_id: null },
    {
      _id: 13,
      feed_key: "https://f.example/a#2",
      feed_url: "https://f.example/a",
      username: null,
      title: "alpha two",
      podcast_index_id: 77,
      p20: { persons: [] },
    },
    { _id: 14, feed_key: "https://f.example/d", feed_url: "https://f.example/d", username: null, title: "Delta", p20: { persons: [{ name: "Grace Hopper" }] } },
  ];
}

// ---------------------------------------------------------------------------------------------------------
// The cases

const find = (store: ContractStore, query: Doc, more: Doc = {}) => store.find({ query, ...more });

/** The read shapes (find, findOne, count, project, projected, all): readOnly. */
const READS: ContractCase[] = [
  {
    name: 'findOne / findById by _id: numbers and strings, 1 and "1" two ids',
    readOnly: true,
    docs: () => [
      { _id: 1, v: "number" },
      { _id: "1", v: "string" },
      { _id: "server", self_service: false },
      { _id: 2, v: null },
    ],
    run: async (s) => [
      await s.findOne({ _id: 1 }),
      await s.findOne({ _id: "1" }),
      await s.findById("server"),
      await s.findById(2),
      await s.findOne({ _id: 3 }),
      await s.findById("2"),
    ],
  },
  {
    name: "equality on unique string fields, alone and together (case-sensitive)",
    readOnly: true,
    indexes: [
      { fields: { username: 1 }, unique: true },
      { fields: { email: 1 }, unique: true },
    ],
    docs: () => [
      { _id: 1, username: "ann", email: "ann@example.org", isadmin: true },
      { _id: 2, username: "bob", email: "bob@example.org", isadmin: false },
      { _id: 3, username: "Carl", email: "carl@example.org", isadmin: true },
    ],
    run: async (s) => [
      await s.findOne({ username: "ann" }),
      await s.findOne({ username: "Ann" }),
      await s.findOne({ email: "bob@example.org" }),
      await s.findOne({ email: "bob@example.org", username: "bob" }),
      await s.findOne({ email: "bob@example.org", username: "ann" }),
      await s.count({ query: { isadmin: true } }),
    ],
  },
  {
    name: "equality on two fields, one of them null-able (podcast_id + guid, podcast_id + enclosure_url)",
    readOnly: true,
    indexes: [{ fields: { podcast_id: 1 } }],
    docs: episodes,
    run: async (s) => [
      await s.findOne({ podcast_id: 11, guid: "g1" }),
      await s.findOne({ podcast_id: 10, guid: "g1" }),
      byId(await find(s, { podcast_id: 10, guid: null })),
      await s.findOne({ podcast_id: 10, enclosure_url: "https://m.example/10/2.mp3?src=feed" }),
      await s.findOne({ podcast_id: 12, enclosure_key: "https://m.example/12/7.mp3" }),
    ],
  },
  {
    name: "equality on booleans (an indexed boolean field too) and on user_id + boolean",
    readOnly: true,
    indexes: [{ fields: { enabled: 1 } }, { fields: { user_id: 1 } }],
    docs: () => [
      { _id: 1, user_id: 1, enabled: true, saved: true },
      { _id: 2, user_id: 1, enabled: false, saved: false },
      { _id: 3, user_id: 2, enabled: true },
      { _id: 4, user_id: 1, saved: true },
      { _id: 5, user_id: 1, enabled: 1, saved: 1 },
    ],
    run: async (s) => [
      byId(await find(s, { enabled: true })),
      byId(await find(s, { enabled: false })),
      byId(await find(s, { user_id: 1, saved: true })),
      await s.count({ query: { user_id: 1, saved: true } }),
    ],
  },
  {
    name: "a scalar against an array field (podcast_ids: id), also empty and missing arrays",
    readOnly: true,
    indexes: [{ fields: { user_id: 1 } }],
    docs: () => [
      { _id: 1, user_id: 1, podcast_ids: [7, 8] },
      { _id: 2, user_id: 1, podcast_ids: [] },
      { _id: 3, user_id: 1 },
      { _id: 4, user_id: 2, podcast_ids: [7] },
      { _id: 5, user_id: 1, podcast_ids: [9, 7, 7] },
    ],
    run: async (s) => [
      byId(await find(s, { user_id: 1, podcast_ids: 7 })),
      byId(await find(s, { podcast_ids: { $in: [8, 9] } })),
      byId(await find(s, { user_id: 1, podcast_ids: 6 })),
    ],
  },
  {
    name: "equality to null where every document has the field (as this version writes podcasts and login flows)",
    readOnly: true,
    indexes: [{ fields: { feed_url: 1 } }],
    docs: () => podcasts().map((p) => ({ username: null, podcast_index_id: null, ...p })),
    run: async (s) => [
      byId(await find(s, { feed_url: { $in: ["https://f.example/a", "https://f.example/c", "https://f.example/d"] }, username: null })),
      byId(await find(s, { podcast_index_id: null })),
      byId(await find(s, { _id: 11, username: null })),
    ],
  },
  {
    name: "equality to null: a field null in some documents and missing in others",
    readOnly: true,
    indexes: [{ fields: { feed_url: 1 } }],
    docs: podcasts,
    run: async (s) => [
      byId(await find(s, { feed_url: { $in: ["https://f.example/a", "https://f.example/c", "https://f.example/d"] }, username: null })),
      byId(await find(s, { podcast_index_id: null })),
    ],
    differs:
      "MongoDB matches { f: null } on a missing field too; the embedded store keeps NeDB's answer (only null), which test/unit/sqlite-store.test.ts " +
      "holds it to ({ at: null }). The services write these fields on every document (username: subscribe.actions.ts:224, granted: " +
      "login-flow.actions.ts:80; mfa.actions.ts:94 asks $exists: false besides), so only documents of older versions or hand-made ones differ.",
  },
  {
    name: "$ne: true on a field some documents lack",
    readOnly: true,
    indexes: [{ fields: { user_id: 1 } }],
    docs: () => [
      { _id: "1:1", user_id: 1, episode_id: 1, from_sync: true },
      { _id: "1:2", user_id: 1, episode_id: 2, from_sync: false },
      { _id: "1:3", user_id: 1, episode_id: 3 },
      { _id: "2:1", user_id: 2, episode_id: 1 },
    ],
    run: async (s) => byId(await find(s, { user_id: 1, from_sync: { $ne: true } })),
  },
  {
    name: "$ne: null and $gt on a Date where every document has the field (null until played)",
    readOnly: true,
    indexes: [{ fields: { user_id: 1 } }, { fields: { podcast_id: 1 } }],
    docs: states,
    run: async (s) => [
      byId(await find(s, { user_id: 1, podcast_id: { $in: [10, 11] }, last_listened_at: { $ne: null } })),
      byId(await find(s, { user_id: 1, podcast_id: { $in: [10, 11] }, last_listened_at: { $gt: jan(4) } })),
    ],
  },
  {
    name: "$ne: null on a field null in some documents and missing in others",
    readOnly: true,
    indexes: [{ fields: { user_id: 1 } }, { fields: { podcast_id: 1 } }],
    docs: () => {
      const docs = states();
      delete docs[3].last_listened_at; // a state of an older version, written before the field existed
      return docs;
    },
    run: async (s) => [
      byId(await find(s, { user_id: 1, podcast_id: { $in: [10, 11] }, last_listened_at: { $ne: null } })),
      byId(await find(s, { user_id: 1, podcast_id: { $in: [10, 11] }, last_listened_at: { $gt: jan(4) } })),
    ],
    differs:
      "MongoDB's $ne: null refuses a missing field; NeDB's (the embedded store's) matches it. episodes.parts/sync.actions.ts:58 lists a " +
      "user's played states with it: a state without last_listened_at (none is written so by this version: access.ts:91, sync.actions.ts:123) " +
      "would be uploaded by a sync on the embedded store only. Left as NeDB answers, like { f: null }.",
  },
  {
    name: "$in on _id: numbers, strings, and both types of one value",
    readOnly: true,
    docs: () => [{ _id: 1 }, { _id: 2 }, { _id: 3 }, { _id: "3" }, { _id: "1:4" }, { _id: "x" }],
    run: async (s) => [
      byId(await find(s, { _id: { $in: [1, 3, 99] } })),
      byId(await find(s, { _id: { $in: ["3", "1:4", "nope"] } })),
      byId(await find(s, { _id: { $in: [3, "x"] } })),
      byId(await s.findByIds([2, "3", 4])),
    ],
  },
  {
    name: "$in: [] matches nothing (find, count, inside an $or)",
    readOnly: true,
    indexes: [{ fields: { podcast_id: 1 } }],
    docs: episodes,
    run: async (s) => [
      await find(s, { _id: { $in: [] } }),
      await find(s, { podcast_id: { $in: [] } }),
      await s.count({ query: { podcast_id: { $in: [] } } }),
      byId(await find(s, { $or: [{ podcast_id: { $in: [] } }, { podcast_id: 13 }] })),
    ],
  },
  {
    name: "$in with more than 500 values (on _id and on a field that is not indexed)",
    readOnly: true,
    docs: () =>
      Array.from({ length: 700 }, (_, i) => ({ _id: i + 1, episode_id: i + 1, user_id: 1 + (i % 3), ...(i === 10 ? { episode_id: [11, 1001] } : {}) })),
    run: async (s) => {
      const ids: (number | string)[] = Array.from({ length: 650 }, (_, i) => 2 * i + 1);
      ids.push("4", "6", 10_000);
      const wanted = Array.from({ length: 520 }, (_, i) => 1000 + i);
      return [
        byId(await s.project({ _id: { $in: ids } }, ["user_id"])),
        await s.count({ query: { _id: { $in: ids } } }),
        byId(await find(s, { episode_id: { $in: wanted } })),
        byId(await find(s, { user_id: 2, episode_id: { $in: [...wanted, 5, 8] } })),
      ];
    },
  },
  {
    name: "$in of strings on indexed fields, combined (dedupe_key + status, user_id + task_type + status)",
    readOnly: true,
    indexes: [{ fields: { user_id: 1 } }, { fields: { status: 1 } }, { fields: { dedupe_key: 1 } }],
    docs: tasks,
    run: async (s) => [
      byId(await find(s, { dedupe_key: { $in: ["feed:1", "feed:2", "feed:3"] }, status: { $in: ["PENDING", "RUNNING", "DOWNLOADING"] } })),
      await s.count({ query: { user_id: 1, task_type: { $in: ["download_episode"] }, status: { $in: ["PENDING", "RUNNING", "DOWNLOADING"] } } }),
      await s.count({ query: { status: { $in: ["PENDING", "RUNNING", "DOWNLOADING"] } } }),
    ],
  },
  {
    name: "$gt on Dates (find and count), with null and missing dates",
    readOnly: true,
    indexes: [{ fields: { user_id: 1 } }],
    docs: () => [
      { _id: "1:1", user_id: 1, episode_id: 1, downloaded_at: jan(1) },
      { _id: "1:2", user_id: 1, episode_id: 2, downloaded_at: jan(5) },
      { _id: "1:3", user_id: 1, episode_id: 3, downloaded_at: null },
      { _id: "1:4", user_id: 1, episode_id: 4 },
      { _id: "2:5", user_id: 2, episode_id: 5, downloaded_at: jan(9) },
      { _id: "1:6", user_id: 1, episode_id: 6, downloaded_at: jan(3, 0) },
    ],
    run: async (s) => [
      byId(await find(s, { user_id: 1, downloaded_at: { $gt: jan(2) } })),
      await s.count({ query: { user_id: 1, downloaded_at: { $gt: jan(3, 0) } } }),
      await s.count({ query: { downloaded_at: { $gte: jan(3, 0) } } }),
      byId(await find(s, { downloaded_at: { $lte: jan(3, 0) } })),
    ],
  },
  {
    name: "the claim query: $or of (status, run_after $lt) and (status $in, lease_until $lt on a null-able date), sort run_after,_id, limit",
    readOnly: true,
    indexes: [{ fields: { user_id: 1 } }, { fields: { status: 1 } }, { fields: { dedupe_key: 1 } }],
    docs: tasks,
    run: async (s) => {
      const now = jan(15, 12);
      const query = {
        task_type: { $in: ["refresh_feed", "download_episode"] },
        $or: [
          { status: "PENDING", run_after: { $lt: now } },
          { status: { $in: ["RUNNING", "DOWNLOADING"] }, lease_until: { $lt: now } },
        ],
      };
      return [await s.find({ query, sort: ["run_after", "_id"], limit: 10 }), await s.find({ query, sort: ["run_after", "_id"], limit: 2 })];
    },
  },
  {
    name: "a string range ($gt + $lte on rkey), alone, with $in and with an equality",
    readOnly: true,
    indexes: [{ fields: { rkey: 1 } }],
    docs: () => {
      const rkey = (u: number, seq: number) => `${String(u).padStart(10, "0")}:${String(seq).padStart(12, "0")}`;
      return [1, 2, 3, 9, 10, 11].flatMap((seq) =>
        [1, 2].map((u) => ({
          _id: `${u}:${seq}`,
          rkey: rkey(u, seq),
          user_id: u,
          episode: `https://m.example/${seq % 3}.mp3`,
          action: seq % 2 ? "play" : "download",
          podcast: "https://f.example/a",
        })),
      );
    },
    run: async (s) => {
      const range = (u: number, since: number, until: number) => ({
        rkey: {
          $gt: `${String(u).padStart(10, "0")}:${String(since).padStart(12, "0")}`,
          $lte: `${String(u).padStart(10, "0")}:${String(until).padStart(12, "0")}`,
        },
      });
      return [
        byId(await s.project(range(1, 2, 10), ["url", "episode"])),
        byId(await find(s, { ...range(2, 0, 9), episode: { $in: ["https://m.example/0.mp3"] } })),
        byId(await find(s, { ...range(1, 0, 11), action: "play" })),
        byId(await find(s, { ...range(1, 0, 11), podcast: { $in: ["https://f.example/a"] }, action: "play" })),
      ];
    },
  },
  {
    name: "$gt: 0 on a number that is null, 0 or missing in some documents, with _id $in",
    readOnly: true,
    docs: podcasts,
    run: async (s) => byId(await find(s, { _id: { $in: [10, 11, 12, 13, 14] }, podcast_index_id: { $gt: 0 } })),
  },
  {
    name: "$exists: false, alone and in an $or with null and $lt",
    readOnly: true,
    docs: () => [
      { _id: 1, username: "a" },
      { _id: 2, username: "b", mfa_last_step: null, write_holder: null, write_until: new Date(0) },
      { _id: 3, username: "c", mfa_last_step: 5, scheduled_at: jan(1) },
      { _id: 4, username: "d", mfa_last_step: 10, scheduled_at: jan(20) },
      { _id: 5, username: "e", scheduled_at: null },
    ],
    run: async (s) => [
      byId(await find(s, { $or: [{ mfa_last_step: { $exists: false } }, { mfa_last_step: null }, { mfa_last_step: { $lt: 7 } }] })),
      byId(await find(s, { _id: 1, write_until: { $exists: false } })),
      byId(await find(s, { _id: 2, write_until: { $exists: false } })),
      byId(await find(s, { $or: [{ scheduled_at: { $lt: jan(10) } }, { scheduled_at: { $exists: false } }] })),
      byId(await find(s, { write_until: { $exists: true } })),
    ],
  },
  {
    name: "feeds due for a try (gpodder library.ts): $in + $or of null, $exists: false and $lte on a Date (null, missing, past, future, in an array)",
    readOnly: true,
    indexes: [{ fields: { user_id: 1 } }, { fields: { library: 1 } }],
    docs: () => [
      { _id: "1:a", user_id: 1, library: "pending", next_try: null },
      { _id: "1:b", user_id: 1, library: "failed", next_try: jan(1) },
      { _id: "1:c", user_id: 1, library: "failed", next_try: jan(20) },
      { _id: "1:d", user_id: 1, library: "failed" },
      { _id: "1:e", user_id: 1, library: "applied", next_try: null },
      { _id: "2:a", user_id: 2, library: "failed", next_try: jan(2) },
      { _id: "1:f", user_id: 1, library: "failed", next_try: jan(10, 12) },
      { _id: "1:g", user_id: 1, library: "failed", next_try: [jan(1)] },
      { _id: "1:h", user_id: 1, library: "failed", next_try: "2024-01-01T00:00:00.000Z" },
    ],
    run: async (s) => {
      const notWaiting = (now: Date) => [{ next_try: null }, { next_try: { $exists: false } }, { next_try: { $lte: now } }];
      return [
        byId(await find(s, { user_id: 1, library: { $in: ["pending", "failed"] }, $or: notWaiting(jan(10, 12)) })),
        byId(await find(s, { library: { $in: ["pending", "failed"] }, $or: notWaiting(jan(1)) })),
        byId(await find(s, { next_try: { $gt: jan(1), $lt: jan(20) } })),
        byId(await find(s, { next_try: { $gte: jan(1) } })),
      ];
    },
  },
  {
    name: "$regex (a RegExp with flag i) on a dotted path into an array of subdocuments (hosts.name)",
    readOnly: true,
    docs: () => [
      { _id: 1, hosts: [{ name: "Ada Lovelace", role: "host" }, { name: "Grace Hopper" }] },
      { _id: 2, hosts: [] },
      { _id: 3 },
      { _id: 4, hosts: [{ name: "ADA LOVELACE" }] },
      { _id: 5, hosts: [{ name: null }, { role: "guest" }] },
      { _id: 6, hosts: [{ name: "Ada Lovelace Jr." }] },
      { _id: 7, hosts: { name: "Grace Hopper" } },
    ],
    run: async (s) => [
      byId(await find(s, { "hosts.name": { $regex: /^(Ada Lovelace|Grace Hopper)$/i } })),
      byId(await find(s, { "hosts.name": { $regex: /^(nobody)$/i } })),
      byId(await find(s, { _id: { $in: [1, 2, 3, 4, 5, 6, 7] }, "hosts.name": /lovelace/i })),
    ],
  },
  {
    name: "$or of a $regex on p20.persons.name and a $in (unsorted, and sorted title,_id)",
    readOnly: true,
    indexes: [{ fields: { feed_key: 1 }, unique: true }, { fields: { feed_url: 1 } }, { fields: { "p20.persons.name": 1 }, sparse: true, mongoOnly: true }],
    docs: podcasts,
    run: async (s) => {
      const query = { $or: [{ "p20.persons.name": { $regex: /^(ada lovelace)$/i } }, { podcast_index_id: { $in: [0, 42] } }] };
      return [byId(await find(s, query)), await s.find({ query, sort: ["title", "_id"] })];
    },
  },
  {
    name: "$or of a $regex on p20.persons.name (null names, empty and missing persons) and podcast_id $in, on episodes",
    readOnly: true,
    indexes: [{ fields: { podcast_id: 1 } }, { fields: { "p20.persons.name": 1 }, sparse: true, mongoOnly: true }],
    docs: episodes,
    run: async (s) => [
      byId(await find(s, { $or: [{ "p20.persons.name": { $regex: /^(ada lovelace|grace hopper)$/i } }, { podcast_id: { $in: [13] } }] })),
      byId(await find(s, { "p20.persons.name": { $regex: /^(ada lovelace \(guest\))$/i } })),
    ],
  },
  {
    name: "$regex on a scalar field that is null in some documents, with $in, projected",
    readOnly: true,
    indexes: [{ fields: { podcast_id: 1 } }],
    docs: episodes,
    run: async (s) => [
      byId(await s.project({ podcast_id: { $in: [10, 11, 13] }, description: { $regex: /alpha/i } }, ["podcast_id"])),
      byId(await s.project({ description: { $regex: /^beta$/ } }, ["podcast_id"])),
    ],
  },
  {
    name: "visible episodes: $or of per-podcast clauses with a pub_date cutoff, sort -pub_date,-_id with a limit; and pub_date,_id after a date",
    readOnly: true,
    indexes: [{ fields: { podcast_id: 1 } }, { fields: { podcast_id: 1, pub_date: -1, _id: -1 }, mongoOnly: true }],
    docs: episodes,
    run: async (s) => {
      const query = { $or: [{ podcast_id: { $in: [10, 12] } }, { podcast_id: 11, pub_date: { $gt: jan(3) } }, { podcast_id: 13, pub_date: { $gt: jan(30) } }] };
      return [
        (await s.find({ query, sort: ["-pub_date", "-_id"], limit: 4 })).map((d: Doc) => d._id),
        await s.find({ query, sort: ["-pub_date", "-_id"] }),
        await s.find({ query: { podcast_id: { $in: [10, 11] }, pub_date: { $gt: jan(2) } }, sort: ["pub_date", "_id"], limit: 50 }),
        await s.findOne({ podcast_id: { $in: [12] }, enclosure_url: "https://m.example/12/7.mp3?src=feed", title: "Episode 7" }),
      ];
    },
  },
  {
    name: "{ user_id, $or: [_id, peopledb_id, key] } (following)",
    readOnly: true,
    indexes: [{ fields: { key: 1 }, unique: true }, { fields: { user_id: 1 } }],
    docs: () => [
      { _id: 1, user_id: 1, key: "1:ada lovelace", name: "Ada Lovelace", peopledb_id: 501 },
      { _id: 2, user_id: 1, key: "1:grace", name: "Grace", peopledb_id: null },
      { _id: 3, user_id: 2, key: "2:ada lovelace", name: "Ada Lovelace", peopledb_id: 501 },
      { _id: 4, user_id: 1, key: "1:x", name: "X" },
    ],
    run: async (s) => [
      await s.findOne({ user_id: 1, $or: [{ _id: 501 }, { peopledb_id: 501 }] }),
      await s.findOne({ user_id: 2, $or: [{ _id: 4 }, { peopledb_id: 4 }] }),
      await s.findOne({ user_id: 1, $or: [{ _id: 9 }, { peopledb_id: 9 }, { key: "1:grace" }] }),
      await s.findOne({ user_id: 1, $or: [{ _id: 4 }, { peopledb_id: 4 }] }),
    ],
  },
  {
    name: "{}: every document, count({}), find({}) without a query",
    readOnly: true,
    docs: podcasts,
    run: async (s) => [byId(await s.find({ query: {} })), byId(await s.find({})), await s.count({}), await s.count({ query: {} })],
  },
  {
    name: 'sort -pub_date,-_id (nulls, equal dates) and its string form "-pub_date -_id", ascending too',
    readOnly: true,
    indexes: [{ fields: { podcast_id: 1 } }],
    docs: episodes,
    run: async (s) => [
      (await s.find({ query: { _id: { $in: [1, 2, 3, 4, 5, 6, 7, 8] } }, sort: ["-pub_date", "-_id"] })).map((d: Doc) => d._id),
      (await s.find({ query: {}, sort: "-pub_date -_id" })).map((d: Doc) => d._id),
      (await s.find({ query: {}, sort: "pub_date,_id" })).map((d: Doc) => d._id),
      (await s.find({ query: { podcast_id: 10 }, sort: ["pub_date", "-_id"] })).map((d: Doc) => d._id),
    ],
  },
  {
    name: "sort on a field null in some documents and missing in others (-pub_date,-_id and pub_date,_id)",
    readOnly: true,
    docs: () => {
      const docs = episodes();
      delete docs[5].pub_date; // _id 6: no pub_date at all; _id 2 has null
      return docs;
    },
    run: async (s) => [
      (await s.find({ query: {}, sort: ["-pub_date", "-_id"] })).map((d: Doc) => d._id),
      (await s.find({ query: {}, sort: ["pub_date", "_id"] })).map((d: Doc) => d._id),
    ],
    differs:
      "MongoDB sorts a missing field as null (the next key decides between them); NeDB, and so the embedded store, puts missing before null " +
      '(test/unit/sqlite-store.test.ts holds it to NeDB\'s order for ["-at", "-_id"]). Episodes always carry pub_date (null when the feed ' +
      "gives none), so the catalogue's order is the same; only documents lacking a sorted field differ.",
  },
  {
    name: "sort name,_id and title,_id on strings (case, accents, digits, equal names)",
    readOnly: true,
    docs: () =>
      ["beta", "Alpha", "alpha", "Émile", "emile", "Zed", "10 things", "9 lives", "alpha", "ångström", "Ada"].map((name, i) => ({
        _id: i + 1,
        user_id: 1,
        name,
        title: name,
      })),
    run: async (s) => [
      (await s.find({ query: { user_id: 1 }, sort: ["name", "_id"] })).map((d: Doc) => d._id),
      (await s.find({ query: {}, sort: ["-title", "_id"] })).map((d: Doc) => d._id),
    ],
  },
  {
    name: "sort name,_id on strings beyond the Basic Multilingual Plane (emoji) and just below it (U+FB01)",
    readOnly: true,
    docs: () => ["\u{1F3A7} Podcast", "\uFB01ne", "zebra", "\u00E9t\u00E9", "\u{1D400}bold"].map((name, i) => ({ _id: i + 1, user_id: 1, name })),
    run: async (s) => (await s.find({ query: { user_id: 1 }, sort: ["name", "_id"] })).map((d: Doc) => d._id),
    realServer:
      "The embedded store compares strings as JavaScript does (UTF-16 code units: a character beyond U+FFFF, a surrogate pair, sorts before " +
      "U+E000-U+FFFF); MongoDB compares UTF-8 bytes (code points: after them). The double sorts with mingo, in JavaScript, so it cannot tell.",
  },
  {
    name: "sort on Dates with a tie-breaker: -subscribed_date,-_id; -downloaded_at; -created_at limit 1; run_after,_id",
    readOnly: true,
    docs: () => [
      { _id: 1, user_id: 1, subscribed_date: jan(3), downloaded_at: jan(3), created_at: jan(1), run_after: jan(2) },
      { _id: 2, user_id: 1, subscribed_date: jan(5), downloaded_at: jan(1), created_at: jan(7), run_after: jan(2) },
      { _id: 3, user_id: 1, subscribed_date: jan(3), downloaded_at: jan(9), created_at: jan(4), run_after: jan(1) },
      { _id: 4, user_id: 2, subscribed_date: jan(1), downloaded_at: jan(2), created_at: jan(8), run_after: jan(5) },
    ],
    run: async (s) => [
      (await s.find({ query: { user_id: 1 }, sort: ["-subscribed_date", "-_id"] })).map((d: Doc) => d._id),
      (await s.find({ query: { user_id: 1 }, sort: ["-downloaded_at"] })).map((d: Doc) => d._id),
      await s.find({ query: { user_id: 1 }, sort: ["-created_at"], limit: 1 }),
      (await s.find({ query: {}, sort: ["run_after", "_id"], limit: 3 })).map((d: Doc) => d._id),
    ],
  },
  {
    name: "sort created_at alone (devices) when two documents have the same date",
    readOnly: true,
    indexes: [{ fields: { user_id: 1 } }],
    docs: () => [
      { _id: "1:phone", user_id: 1, device_id: "phone", created_at: jan(2) },
      { _id: "1:laptop", user_id: 1, device_id: "laptop", created_at: jan(2) },
      { _id: "1:tv", user_id: 1, device_id: "tv", created_at: jan(1) },
      { _id: "1:alpha", user_id: 1, device_id: "alpha", created_at: jan(3) },
    ],
    run: async (s) => (await s.find({ query: { user_id: 1 }, sort: ["created_at"] })).map((d: Doc) => d._id),
    differs:
      "Documents equal on every sort key come in an order neither store promises: the embedded store gives them in _id order (its index or table order), " +
      "MongoDB in the order it finds them (here: insertion order). devices.actions.ts:25/125 sort on created_at alone; two devices created in the same " +
      "millisecond can list differently. Not fixed here: adding _id to every sort is a change of what the services ask (and of which MongoDB indexes serve them).",
  },
  {
    name: "sort on booleans: -is_system,_id and -is_default,_id (one document without the field)",
    readOnly: true,
    indexes: [{ fields: { user_id: 1 } }],
    docs: () => [
      { _id: 1, user_id: 1, is_system: false, is_default: false },
      { _id: 2, user_id: 1, is_system: true, is_default: true },
      { _id: 3, user_id: 1, is_system: true, is_default: false },
      { _id: 4, user_id: 1, is_system: false },
      { _id: 5, user_id: 2, is_system: true },
    ],
    run: async (s) => [
      (await s.find({ query: { user_id: 1 }, sort: ["-is_system", "_id"] })).map((d: Doc) => d._id),
      (await s.find({ query: { user_id: 1 }, sort: ["-is_default", "_id"] })).map((d: Doc) => d._id),
    ],
  },
  {
    name: "sort on _id (numbers and strings), -_id with a limit, podcast_id",
    readOnly: true,
    docs: () => [
      { _id: 3, podcast_id: 2 },
      { _id: 11, podcast_id: 1 },
      { _id: 2, podcast_id: 3 },
      { _id: "b", podcast_id: 5 },
      { _id: "a", podcast_id: 4 },
    ],
    run: async (s) => [
      (await s.find({ query: {}, sort: ["_id"] })).map((d: Doc) => d._id),
      (await s.find({ query: {}, sort: ["-_id"], limit: 3 })).map((d: Doc) => d._id),
      (await s.find({ query: {}, sort: ["podcast_id"] })).map((d: Doc) => d._id),
    ],
  },
  {
    name: "offset and limit (the store API; no service pages in the store)",
    readOnly: true,
    docs: episodes,
    run: async (s) => [
      (await s.find({ query: {}, sort: ["_id"], offset: 2, limit: 3 })).map((d: Doc) => d._id),
      (await s.find({ query: {}, sort: ["_id"], offset: 6 })).map((d: Doc) => d._id),
      (await s.find({ query: {}, sort: ["_id"], offset: 20, limit: 5 })).map((d: Doc) => d._id),
      await s.count({ query: {}, offset: 2, limit: 3 }),
    ],
  },
  {
    name: "project(query, fields): fields null or missing in some documents, {} and an equality + boolean query",
    readOnly: true,
    indexes: [{ fields: { user_id: 1 } }, { fields: { podcast_id: 1 } }],
    docs: () => {
      const docs = states();
      delete docs[2].completed;
      return docs;
    },
    run: async (s) => [
      byId(await s.project({}, ["user_id", "episode_id", "podcast_id", "listen_duration", "completed"])),
      byId(await s.project({}, ["podcast_id"])),
      byId(await s.project({ user_id: 1, saved: true }, ["episode_id", "saved_at"])),
      byId(await s.project({ user_id: 1, podcast_id: { $in: [10] } }, ["episode_id", "last_listened_at"])),
    ],
  },
  {
    name: "project with $in and $gt on a Date, and by _id $in (findByIds with fields)",
    readOnly: true,
    indexes: [{ fields: { podcast_id: 1 } }],
    docs: episodes,
    run: async (s) => [
      byId(await s.project({ podcast_id: { $in: [10, 11, 12] }, created_at: { $gt: jan(2) } }, ["podcast_id", "enclosure_url", "enclosure_key", "guid"])),
      byId(await s.project({ _id: { $in: [1, 4, 6, 99] } }, ["enclosure_url", "duration", "p20"])),
      byId(await s.project({ _id: { $in: [2, 3] } }, ["nothing_here"])),
    ],
  },
  {
    name: "projected(fields) and all(): every document, fields picked",
    readOnly: true,
    docs: episodes,
    run: async (s) => {
      const picked: Doc[] = [];
      for await (const d of s.projected(["podcast_id", "title", "pub_date", "duration", "enclosure_type"]) as AsyncIterable<Doc>) picked.push(d);
      return [byId(picked), await everything(s)];
    },
  },
  {
    name: "count with queries (equality, boolean, $in)",
    readOnly: true,
    indexes: [{ fields: { user_id: 1 } }],
    docs: states,
    run: async (s) => [
      await s.count({ query: { user_id: 1 } }),
      await s.count({ query: { user_id: 1, saved: true } }),
      await s.count({ query: { episode_id: { $in: [1, 7] } } }),
      await s.count({ query: { user_id: 3 } }),
    ],
  },
  {
    name: "findOne when several documents match (stored_file: any user's download of an episode)",
    readOnly: true,
    indexes: [{ fields: { user_id: 1 } }, { fields: { episode_id: 1 } }],
    // Inserted as they happen: user 2 downloaded the episode before user 1.
    docs: () => [
      { _id: "2:5", user_id: 2, episode_id: 5, file: "p/5.mp3" },
      { _id: "1:5", user_id: 1, episode_id: 5, file: "p/5.mp3" },
      { _id: "1:6", user_id: 1, episode_id: 6, file: "p/6.mp3" },
    ],
    run: async (s) => [(await s.findOne({ episode_id: 5 }))._id, (await s.findOne({ episode_id: 6 }))._id],
    differs:
      "Which of several matches findOne answers is the store's choice: the embedded store takes the lowest _id of its index, MongoDB the first " +
      "it finds (here: the first inserted). downloads.service.ts:294 (stored_file) wants any one of them; the other findOne calls ask by a unique key.",
  },
  {
    name: "a TTL index: a document past its expiry date",
    readOnly: true,
    indexes: [{ fields: { expires_at: 1 }, expireAfterSeconds: 0 }],
    docs: () => [
      { _id: "gone", user_id: 1, expires_at: new Date(Date.now() - 3_600_000) },
      { _id: "live", user_id: 1, expires_at: new Date(Date.now() + 3_600_000) },
    ],
    run: async (s) => [(await s.find({ query: { user_id: 1 } })).map((d: Doc) => d._id).sort(), await s.count({ query: {} })],
    differs:
      "The embedded store drops an expired document when a read meets it; MongoDB's TTL monitor deletes it within about a minute (the wire double never). " +
      "Known and handled: the services check expiry themselves (auth.service.ts:271, :136; oidc.service.ts:355; login-flow flowExpired; sharing live()).",
  },
];

/** What a unique-index violation answers, on either store. */
const DUP = { threw: "duplicate key" };

/** The write shapes and the semantics the services build on: not readOnly. */
const WRITES: ContractCase[] = [
  {
    name: "updateMany answers the matched count: 1 when the $set changes nothing, 0 when nothing matches, n for many",
    readOnly: false,
    indexes: [{ fields: { user_id: 1 } }],
    docs: () => [
      { _id: 1, user_id: 1, enabled: true },
      { _id: 2, user_id: 1, enabled: false },
      { _id: 3, user_id: 2, enabled: true },
    ],
    run: async (s) => [
      await s.updateMany({ _id: 1 }, { $set: { enabled: true } }),
      await s.updateMany({ _id: 9 }, { $set: { enabled: true } }),
      await s.updateMany({ user_id: 1 }, { $set: { enabled: true } }),
      await s.updateMany({ user_id: 1 }, { $set: { enabled: true } }),
      await everything(s),
    ],
    expected: [
      1,
      0,
      2,
      2,
      [
        { _id: 1, user_id: 1, enabled: true },
        { _id: 2, user_id: 1, enabled: true },
        { _id: 3, user_id: 2, enabled: true },
      ],
    ],
  },
  {
    name: "$set of Dates, nulls, arrays and objects; other fields kept; updateById answers the document after",
    readOnly: false,
    docs: () => [{ _id: 7, user_id: 1, last_status: "failed", last_error: "boom", remote_feeds: ["a"], kept: { deep: [1, { x: jan(1) }] } }],
    run: async (s) => [
      await s.updateMany(
        { _id: 7 },
        { $set: { last_sync: jan(5), last_status: "success", last_error: null, last_result: { added: 1, removed: [] }, remote_feeds: [] } },
      ),
      await s.updateById(7, { $set: { device_id: "phone", subs_since: 0 } }),
      await s.updateById(8, { $set: { device_id: "phone" } }),
      await everything(s),
    ],
  },
  {
    name: "$set with dotted paths (an existing and a missing subdocument)",
    readOnly: false,
    docs: () => [{ _id: 1, settings: { a: 1, b: 2 } }, { _id: 2 }],
    run: async (s) => [await s.updateMany({}, { $set: { "settings.a": 5, "other.x.y": "z" } }), await everything(s)],
  },
  {
    name: "compare-and-set: $set + $inc on { _id, claim_seq } (a stale claim_seq matches nothing)",
    readOnly: false,
    docs: () => tasks().slice(0, 3),
    run: async (s) => {
      const set = { status: "RUNNING", lease_owner: "w#1", lease_until: jan(15, 13), updated_at: jan(15) };
      return [
        await s.updateMany({ _id: 1, claim_seq: 0 }, { $set: set, $inc: { claim_seq: 1, attempts: 1 } }),
        await s.updateMany({ _id: 1, claim_seq: 0 }, { $set: set, $inc: { claim_seq: 1, attempts: 1 } }),
        await s.findById(1),
        await s.updateMany({ _id: 2, lease_owner: "w1#1", status: { $in: ["PENDING", "RUNNING", "DOWNLOADING"] } }, { $set: { progress: 50 } }),
        await s.updateMany({ _id: 3, lease_owner: "w1#1", status: { $in: ["PENDING", "RUNNING", "DOWNLOADING"] } }, { $set: { progress: 50 } }),
      ];
    },
  },
  {
    name: "$inc: on an existing and a missing field, several fields at once; upsert with $inc of a computed field",
    readOnly: false,
    docs: () => [
      { _id: "s1", attempts: 1 },
      { _id: "stats", search: 3 },
    ],
    run: async (s) => [
      await s.updateMany({ _id: "s1" }, { $inc: { attempts: 1 } }),
      await s.increment("stats", { search: 2, vidsite: 1 }),
      await s.upsertOne(42, { $inc: { listen_seconds: 60 } }),
      await s.upsertOne(42, { $inc: { listen_seconds: 60, played: 1 } }),
      await everything(s),
    ],
  },
  {
    name: "$max: upsert creates, raises, never lowers; $max + $set in one update (backup counters too)",
    readOnly: false,
    docs: () => [{ _id: 5, clock: 10, issued: 10, write_holder: "t1", write_until: jan(2) }],
    run: async (s) => [
      await s.upsertOne(6, { $max: { clock: 3 } }),
      await s.upsertOne(6, { $max: { clock: 2 } }),
      await s.upsertOne(6, { $max: { clock: 7 } }),
      await s.updateMany({ _id: 5, write_holder: "t1" }, { $max: { clock: 12 }, $set: { write_holder: null, write_until: new Date(0) } }),
      await s.upsertOne("tasks", { $max: { seq: 40 }, $set: { note: "restored" } }),
      await s.upsertOne("tasks", { $max: { seq: 30 } }),
      await everything(s),
    ],
  },
  {
    name: "$addToSet + $pull + $set in one update; $addToSet of a value already there",
    readOnly: false,
    docs: () => [{ _id: 1, user_id: 1, episode_ids: [1, 2], excluded_ids: [5, 9], podcast_ids: [], updated_at: jan(1) }],
    run: async (s) => [
      await s.updateMany({ _id: 1 }, { $addToSet: { episode_ids: 5 }, $pull: { excluded_ids: 5 }, $set: { updated_at: jan(2) } }),
      await s.updateMany({ _id: 1 }, { $addToSet: { episode_ids: 2 }, $set: { updated_at: jan(3) } }),
      await s.updateMany({ _id: 1 }, { $pull: { episode_ids: 1 }, $addToSet: { excluded_ids: 1 }, $set: { updated_at: jan(4) } }),
      await s.updateMany({ _id: 1 }, { $addToSet: { podcast_ids: 10 } }),
      await s.updateMany({ _id: 1 }, { $addToSet: { new_list: 1 } }),
      await everything(s),
    ],
  },
  {
    name: "$pull of a value from the array field the query found it by",
    readOnly: false,
    indexes: [{ fields: { user_id: 1 } }],
    docs: () => [
      { _id: 1, user_id: 1, podcast_ids: [7, 8, 7] },
      { _id: 2, user_id: 1, podcast_ids: [8] },
      { _id: 3, user_id: 2, podcast_ids: [7] },
    ],
    run: async (s) => [await s.updateMany({ user_id: 1, podcast_ids: 7 }, { $pull: { podcast_ids: 7 } }), await everything(s)],
  },
  {
    name: "$pull of several arrays with a value and a $in condition, on every document of a user",
    readOnly: false,
    indexes: [{ fields: { user_id: 1 } }],
    docs: () => [
      { _id: 1, user_id: 1, podcast_ids: [10, 11], episode_ids: [1, 2, 3], excluded_ids: [3, 4] },
      { _id: 2, user_id: 1, podcast_ids: [], episode_ids: [], excluded_ids: [] },
    ],
    run: async (s) => [
      await s.updateMany({ user_id: 1 }, { $pull: { podcast_ids: 10, episode_ids: { $in: [2, 3] }, excluded_ids: { $in: [2, 3] } } }),
      await everything(s),
    ],
  },
  {
    name: "$pull on a document that lacks one of the arrays (a document of an older version)",
    readOnly: false,
    indexes: [{ fields: { user_id: 1 } }],
    docs: () => [
      { _id: 1, user_id: 1, podcast_ids: [10, 11], episode_ids: [1, 2, 3] },
      { _id: 2, user_id: 1, podcast_ids: [10], episode_ids: [2], excluded_ids: [2] },
    ],
    run: async (s) => [
      await outcome(() => s.updateMany({ user_id: 1 }, { $pull: { podcast_ids: 10, episode_ids: { $in: [2] }, excluded_ids: { $in: [2] } } })),
      await everything(s),
    ],
  },
  {
    name: "removeMany by $in + $lt on a Date, by fields, by _id $in, removeById, then everything: answers how many went",
    readOnly: false,
    indexes: [{ fields: { user_id: 1 } }, { fields: { status: 1 } }],
    docs: tasks,
    run: async (s) => [
      await s.removeMany({ status: { $in: ["SUCCESS", "FAILED"] }, updated_at: { $lt: jan(10) } }),
      await s.removeMany({ user_id: 2, status: "PENDING" }),
      await s.removeMany({ _id: { $in: [1, 2, 99] } }),
      await s.removeById(3),
      await s.removeById(3),
      await everything(s),
      await s.removeMany({}),
      await s.count({}),
    ],
  },
  {
    name: "upsertOne $set: creates the document with the _id, then modifies it",
    readOnly: false,
    run: async (s) => [
      await s.upsertOne("schedule", { $set: { cron_schedule: "0 3 * * *", enabled: true, updated_at: jan(1) } }),
      await s.findById("schedule"),
      await s.upsertOne("schedule", { $set: { enabled: false, updated_at: jan(2) } }),
      await s.upsertOne("1:5", { $set: { user_id: 1, episode_id: 5, last_listened_at: jan(3) } }),
      await everything(s),
    ],
    expected: [
      undefined,
      { _id: "schedule", cron_schedule: "0 3 * * *", enabled: true, updated_at: jan(1) },
      undefined,
      undefined,
      [
        { _id: "1:5", user_id: 1, episode_id: 5, last_listened_at: jan(3) },
        { _id: "schedule", cron_schedule: "0 3 * * *", enabled: false, updated_at: jan(2) },
      ],
    ],
  },
  {
    name: "replaceOne: inserts, then replaces the whole document (fields not in the replacement go)",
    readOnly: false,
    run: async (s) => [
      await s.replaceOne({ _id: 1, a: 1, b: { c: [jan(1)] } }),
      await s.findById(1),
      await s.replaceOne({ _id: 1, d: "x" }),
      await everything(s),
    ],
  },
  {
    name: "insert and insertMany: ids kept, a missing _id gets a 16-character string, answers the documents",
    readOnly: false,
    run: async (s) => {
      const one = await s.insert({ name: "no id", at: jan(1) });
      const many = await s.insertMany([
        { _id: 1, n: 1 },
        { _id: "two", n: 2 },
      ]);
      return [typeof one._id === "string" && /^[A-Za-z0-9]{16}$/.test(one._id), { ...one, _id: "<generated>" }, many, await s.count({})];
    },
  },
  {
    name: "insertMany with a duplicate _id inside the batch",
    readOnly: false,
    run: async (s) => [await outcome(() => s.insertMany([{ _id: 1 }, { _id: 2 }, { _id: 1 }, { _id: 3 }])), await everything(s)],
    differs:
      "By design (mongo-store.ts insertMany, tasks.service.ts insertJobs, episodes.parts/access.ts storeStates): the embedded store writes a refused batch " +
      "all or none, MongoDB's ordered insert keeps the documents before the duplicate. Every caller retries one at a time after a duplicate-key error.",
  },
  {
    name: "a document with an undefined field (insert and $set): stored as missing or as null?",
    readOnly: false,
    docs: () => [{ _id: 1, a: 1, b: "keep" }],
    run: async (s) => [
      await s.insert({ _id: 2, a: undefined, c: 3 }),
      await s.updateMany({ _id: 1 }, { $set: { b: undefined, d: 4 } }),
      await everything(s),
      await s.count({ query: { a: null } }),
      await s.count({ query: { b: { $exists: true } } }),
    ],
    differs:
      "The driver writes an undefined value as null (its ignoreUndefined is off); the embedded store serializes to JSON, which drops it, and a " +
      "$set of undefined there removes the field. Not fixed with ignoreUndefined: it would also drop undefined from filters, so " +
      "updateMany({ _id: undefined }, ...) would match every document. The services write null explicitly (`?? null`) where a value may be absent.",
  },
  {
    name: "nextId: increment from a missing document gives seq 1, then 2",
    readOnly: false,
    run: async (s) => [
      await s.increment("tasks", { seq: 1 }),
      await s.increment("tasks", { seq: 1 }),
      await s.increment("other", { seq: 5 }),
      await everything(s),
    ],
    expected: [
      { _id: "tasks", seq: 1 },
      { _id: "tasks", seq: 2 },
      { _id: "other", seq: 5 },
      [
        { _id: "other", seq: 5 },
        { _id: "tasks", seq: 2 },
      ],
    ],
  },
  {
    name: "nextId: 50 increments fired at once never answer the same value",
    readOnly: false,
    run: async (s) => {
      const seqs = (await Promise.all(Array.from({ length: 50 }, () => s.increment("tasks", { seq: 1 })))).map((d: Doc) => d.seq);
      return { distinct: new Set(seqs).size, min: Math.min(...seqs), max: Math.max(...seqs), stored: (await s.findById("tasks")).seq };
    },
    expected: { distinct: 50, min: 1, max: 50, stored: 50 },
  },
  {
    name: "leases (shared/lease.ts): ensure twice, take, refused while held, renew, release, take by another, release by anyone",
    readOnly: false,
    run: async (s) => {
      const steps: unknown[] = [];
      await ensureLease(s, "feed-refresh-scheduler", { last_run_at: null });
      await ensureLease(s, "feed-refresh-scheduler", { last_run_at: null });
      steps.push(await takeLease(s, "feed-refresh-scheduler", "a", 60, { renew: true }));
      steps.push(await takeLease(s, "feed-refresh-scheduler", "b", 60, { renew: true }));
      steps.push(await takeLease(s, "feed-refresh-scheduler", "a", 60, { renew: true }));
      await releaseLease(s, "feed-refresh-scheduler", "b"); // not b's: nothing happens
      steps.push(await takeLease(s, "feed-refresh-scheduler", "b", 60, { renew: true }));
      await releaseLease(s, "feed-refresh-scheduler", "a");
      steps.push(await takeLease(s, "feed-refresh-scheduler", "b", 60, { renew: true }));
      await releaseLease(s, "feed-refresh-scheduler", null);
      const doc = await s.findById("feed-refresh-scheduler");
      // A lease without renewal (the sync write lease): its own holder cannot take it twice.
      const fields: LeaseFields = { holder: "write_holder", until: "write_until" };
      await s.insert({ _id: 9, clock: 0 });
      const old = await s.updateMany({ _id: 9, write_until: { $exists: false } }, { $set: { write_holder: null, write_until: new Date(0) } });
      if (!old) await ensureLease(s, 9, {}, fields);
      steps.push(old, await takeLease(s, 9, "t1", 60, { renew: false, fields }), await takeLease(s, 9, "t1", 60, { renew: false, fields }));
      return { steps, doc };
    },
    expected: {
      steps: [true, false, true, false, true, 1, true, false],
      doc: { _id: "feed-refresh-scheduler", holder: null, expires_at: new Date(0).toISOString(), last_run_at: null },
    },
  },
  {
    name: "leases: ten holders racing for a free lease, exactly one wins",
    readOnly: false,
    run: async (s) => {
      await Promise.all(Array.from({ length: 5 }, () => ensureLease(s, "race")));
      const won = await Promise.all(Array.from({ length: 10 }, (_, i) => takeLease(s, "race", `h${i}`, 60, { renew: true })));
      const winner = won.indexOf(true);
      return { winners: won.filter(Boolean).length, heldByWinner: (await s.findById("race")).holder === `h${winner}` };
    },
    expected: { winners: 1, heldByWinner: true },
  },
  {
    name: "claims: updateMany({ _id, claim_seq }) raced 20 times at once, exactly one answers 1",
    readOnly: false,
    docs: () => tasks().slice(0, 1),
    run: async (s) => {
      const won = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          s.updateMany(
            { _id: 1, claim_seq: 0 },
            { $set: { status: "RUNNING", lease_owner: `w${i}#1`, updated_at: jan(15) }, $inc: { claim_seq: 1, attempts: 1 } },
          ),
        ),
      );
      const doc = await s.findById(1);
      return {
        winners: won.filter((n: number) => n === 1).length,
        losers: won.filter((n: number) => n === 0).length,
        ownerIsWinner: doc.lease_owner === `w${won.indexOf(1)}#1`,
        claim_seq: doc.claim_seq,
        attempts: doc.attempts,
      };
    },
    expected: { winners: 1, losers: 19, ownerIsWinner: true, claim_seq: 1, attempts: 1 },
  },
  {
    name: "version checks: updateMany({ _id, version }) raced 20 times at once, exactly one wins",
    readOnly: false,
    docs: () => [{ _id: 7, version: 3, items: [{ episode_id: 1, position: 0 }] }],
    run: async (s) => {
      const won = await Promise.all(
        Array.from({ length: 20 }, (_, i) => s.updateMany({ _id: 7, version: 3 }, { $set: { items: [{ episode_id: 100 + i, position: 0 }], version: 4 } })),
      );
      const doc = await s.findById(7);
      return { winners: won.filter((n: number) => n === 1).length, itemsOfWinner: doc.items[0].episode_id === 100 + won.indexOf(1), version: doc.version };
    },
    expected: { winners: 1, itemsOfWinner: true, version: 4 },
  },
  {
    name: "mfa step compare-and-set: { _id, $or: [$exists false, null, $lt] } accepts a step once",
    readOnly: false,
    docs: () => [
      { _id: 1, username: "a" },
      { _id: 2, username: "b", mfa_last_step: null },
    ],
    run: async (s) => {
      const accept = (id: number, step: number) =>
        s.updateMany(
          { _id: id, $or: [{ mfa_last_step: { $exists: false } }, { mfa_last_step: null }, { mfa_last_step: { $lt: step } }] },
          { $set: { mfa_last_step: step } },
        );
      return [
        await accept(1, 100),
        await accept(1, 100),
        await accept(1, 99),
        await accept(1, 101),
        await accept(2, 5),
        await accept(2, 5),
        await everything(s),
      ];
    },
  },
  {
    name: "unique index on one field: insert, updateMany and upsert into a taken value are duplicate-key errors; a duplicate _id too",
    readOnly: false,
    indexes: [
      { fields: { username: 1 }, unique: true },
      { fields: { email: 1 }, unique: true },
    ],
    docs: () => [
      { _id: 1, username: "ann", email: "ann@example.org" },
      { _id: 2, username: "bob", email: "bob@example.org" },
    ],
    run: async (s) => [
      await outcome(
        () => s.insert({ _id: 3, username: "ann", email: "other@example.org" }),
        () => "ok",
      ),
      await outcome(
        () => s.insert({ _id: 3, username: "carl", email: "carl@example.org" }),
        () => "ok",
      ),
      await outcome(
        () => s.insert({ _id: 3, username: "dora", email: "dora@example.org" }),
        () => "ok",
      ),
      await outcome(() => s.updateMany({ _id: 2 }, { $set: { email: "ann@example.org" } })),
      await outcome(
        () => s.upsertOne(4, { $set: { username: "bob", email: "x@example.org" } }),
        () => "ok",
      ),
      await outcome(
        () => s.upsertOne(2, { $set: { username: "bobby" } }),
        () => "ok",
      ),
      await everything(s),
    ],
    expected: [
      DUP,
      "ok",
      DUP,
      DUP,
      DUP,
      "ok",
      [
        { _id: 1, username: "ann", email: "ann@example.org" },
        { _id: 2, username: "bobby", email: "bob@example.org" },
        { _id: 3, username: "carl", email: "carl@example.org" },
      ],
    ],
  },
  {
    name: 'compound unique { podcast_id, guid } with partial { guid: { $type: "string" } }: null and missing guids never collide',
    readOnly: false,
    indexes: [{ fields: { podcast_id: 1 } }, { fields: { podcast_id: 1, guid: 1 }, unique: true, partial: { guid: { $type: "string" } } }],
    run: async (s) => {
      const ins = (doc: Doc) =>
        outcome(
          () => s.insert(doc),
          () => "ok",
        );
      return [
        await ins({ _id: 1, podcast_id: 10, guid: "g1" }),
        await ins({ _id: 2, podcast_id: 10, guid: "g1" }),
        await ins({ _id: 3, podcast_id: 11, guid: "g1" }),
        await ins({ _id: 4, podcast_id: 10, guid: null }),
        await ins({ _id: 5, podcast_id: 10, guid: null }),
        await ins({ _id: 6, podcast_id: 10 }),
        await ins({ _id: 7, podcast_id: 10 }),
        await outcome(() => s.updateMany({ _id: 4 }, { $set: { guid: "g1" } })),
        await outcome(() => s.updateMany({ _id: 4 }, { $set: { guid: "g4" } })),
        await outcome(
          () => s.upsertOne(8, { $set: { podcast_id: 11, guid: "g1" } }),
          () => "ok",
        ),
        await outcome(
          () => s.upsertOne(8, { $set: { podcast_id: 11, guid: null } }),
          () => "ok",
        ),
        await everything(s),
      ];
    },
    expected: [
      "ok",
      DUP,
      "ok",
      "ok",
      "ok",
      "ok",
      "ok",
      DUP,
      1,
      DUP,
      "ok",
      [
        { _id: 1, podcast_id: 10, guid: "g1" },
        { _id: 3, podcast_id: 11, guid: "g1" },
        { _id: 4, podcast_id: 10, guid: "g4" },
        { _id: 5, podcast_id: 10, guid: null },
        { _id: 6, podcast_id: 10 },
        { _id: 7, podcast_id: 10 },
        { _id: 8, podcast_id: 11, guid: null },
      ],
    ],
  },
  {
    name: "partial unique on one field (open_key, owner_key): nulls never collide, a key freed by a null is free again",
    readOnly: false,
    indexes: [{ fields: { open_key: 1 }, unique: true, partial: { open_key: { $type: "string" } } }],
    run: async (s) => {
      const ins = (doc: Doc) =>
        outcome(
          () => s.insert(doc),
          () => "ok",
        );
      return [
        await ins({ _id: 1, open_key: "feed:1", status: "PENDING" }),
        await ins({ _id: 2, open_key: "feed:1", status: "PENDING" }),
        await ins({ _id: 3, open_key: null }),
        await ins({ _id: 4, open_key: null }),
        await ins({ _id: 5 }),
        await s.updateMany({ _id: 1, open_key: "feed:1", status: { $in: ["SUCCESS", "FAILED"] } }, { $set: { open_key: null } }),
        await s.updateMany({ _id: 1 }, { $set: { status: "SUCCESS", open_key: null } }),
        await ins({ _id: 2, open_key: "feed:1", status: "PENDING" }),
        await everything(s),
      ];
    },
    expected: [
      "ok",
      DUP,
      "ok",
      "ok",
      "ok",
      0,
      1,
      "ok",
      [
        { _id: 1, open_key: null, status: "SUCCESS" },
        { _id: 2, open_key: "feed:1", status: "PENDING" },
        { _id: 3, open_key: null },
        { _id: 4, open_key: null },
        { _id: 5 },
      ],
    ],
  },
  {
    name: "sparse unique (system_key): documents without the field never collide, two with it do",
    readOnly: false,
    indexes: [{ fields: { user_id: 1 } }, { fields: { system_key: 1 }, unique: true, sparse: true }],
    run: async (s) => {
      const ins = (doc: Doc) =>
        outcome(
          () => s.insert(doc),
          () => "ok",
        );
      return [
        await ins({ _id: 1, user_id: 1, is_system: false }),
        await ins({ _id: 2, user_id: 1, is_system: false }),
        await ins({ _id: 3, user_id: 1, is_system: true, system_key: "1:saved" }),
        await ins({ _id: 4, user_id: 1, is_system: true, system_key: "1:saved" }),
        await outcome(() => s.updateMany({ _id: 2 }, { $set: { system_key: "1:saved" } })),
        await everything(s),
      ];
    },
    expected: [
      "ok",
      "ok",
      "ok",
      DUP,
      DUP,
      [
        { _id: 1, user_id: 1, is_system: false },
        { _id: 2, user_id: 1, is_system: false },
        { _id: 3, user_id: 1, is_system: true, system_key: "1:saved" },
      ],
    ],
  },
  {
    // db.mixin's retired indexes (gpodder_feeds' user_id and library): found, dropped once, the field still queried.
    name: "a retired index: hasIndex, dropIndex (twice), and queries on its field after",
    readOnly: false,
    indexes: [{ fields: { rkey: 1 } }, { fields: { library: 1 } }],
    docs: () => [
      { _id: "5:a", rkey: "5:1", library: "failed" },
      { _id: "5:b", rkey: "5:2", library: "applied" },
      { _id: "50:c", rkey: "50:1", library: "failed" },
    ],
    run: async (s: ContractStore) => [
      await s.hasIndex("library"),
      await s.dropIndex("library"),
      await s.dropIndex("library"),
      await s.hasIndex("library"),
      await s.hasIndex("rkey"),
      await s.find({ query: { library: "failed" }, sort: ["_id"] }),
      await s.find({ query: { _id: { $gte: "5:", $lt: "5;" }, library: "failed" } }),
    ],
    expected: [
      true,
      undefined,
      undefined,
      false,
      true,
      [
        { _id: "50:c", rkey: "50:1", library: "failed" },
        { _id: "5:a", rkey: "5:1", library: "failed" },
      ],
      [{ _id: "5:a", rkey: "5:1", library: "failed" }],
    ],
  },
];

export const CASES: ContractCase[] = [...READS, ...WRITES];

/** The cases that only read (the operator's check runs these against a real MongoDB). */
export const READ_ONLY_CASES: ContractCase[] = CASES.filter((c) => c.readOnly);
