/**
 * The SQLite store answers the services' query subset as NeDB did: the same random documents in both,
 * then the same queries, sorts, pages and updates, compared answer for answer. SQLite only narrows the
 * candidates (by _id, indexed fields, equalities, $in, RegExps), so a narrowing that dropped a match
 * NeDB keeps (an array field, a number against a string, a missing field) shows up here.
 */
import path from "path";
import { SqliteAdapter } from "../../shared/sqlite-store";

// eslint-disable-next-line @typescript-eslint/no-require-imports -- NeDB as moleculer-db resolves it, found at run time
const Datastore = require(require.resolve("@seald-io/nedb", { paths: [path.dirname(require.resolve("moleculer-db"))] }));

function random(seed: number) {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

const WORDS = ["alpha", "Beta", "gamma", "ÉCLAIR", "éclair", "7", "x.y", "a+b"];

function docs(n: number) {
  const rnd = random(5);
  const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)];
  return Array.from({ length: n }, (_, i) => {
    const d: any = { _id: i % 7 === 0 ? `s${i}` : i + 1, podcast_id: 1 + Math.floor(rnd() * 5) };
    if (rnd() < 0.8) d.title = `${pick(WORDS)} ${pick(WORDS)}`;
    if (rnd() < 0.6) d.n = rnd() < 0.2 ? String(Math.floor(rnd() * 10)) : Math.floor(rnd() * 10);
    if (rnd() < 0.5) d.tags = Array.from({ length: Math.floor(rnd() * 3) }, () => pick(WORDS));
    if (rnd() < 0.5) d.at = rnd() < 0.2 ? null : new Date(Date.UTC(2026, 0, 1 + Math.floor(rnd() * 30)));
    if (rnd() < 0.5) d.saved = rnd() < 0.5;
    if (rnd() < 0.3) d.nested = { k: pick(WORDS), list: [1, 2] };
    return d;
  });
}

const QUERIES: any[] = [
  {},
  { _id: 3 },
  { _id: "s7" },
  { _id: "3" },
  { _id: { $in: [1, 2, "s14", 99, "4"] } },
  { podcast_id: 2 },
  { podcast_id: { $in: [1, 3] } },
  { podcast_id: { $in: [] } },
  { n: 4 },
  { n: "4" },
  { n: { $in: [1, "2", 3] } },
  { n: { $gt: 3, $lt: 8 } },
  { n: { $ne: 5 } },
  { n: { $exists: false } },
  { tags: "alpha" },
  { tags: { $in: ["Beta", "7"] } },
  { title: { $regex: /ÉCLAIR/i } },
  { title: /^alpha/ },
  { title: { $regex: /a\+b/ } },
  { tags: { $regex: /gam/ } },
  { saved: true },
  { at: null },
  { at: { $gt: new Date(Date.UTC(2026, 0, 15)) } },
  { "nested.k": "gamma" },
  {
    $or: [
      { podcast_id: 1, n: { $gt: 5 } },
      { podcast_id: 4, at: { $gt: new Date(Date.UTC(2026, 0, 10)) } },
    ],
  },
  { $or: [{ podcast_id: 1 }, { title: /beta/i }] },
  { podcast_id: { $in: [2, 5] }, title: { $regex: /éclair/i } },
];

const ids = (xs: any[]) => xs.map((d) => d._id);

describe("SQLite store: the query subset as NeDB answers it", () => {
  let nedb: any;
  let store: SqliteAdapter;

  beforeEach(async () => {
    const all = docs(400);
    nedb = new Datastore({ inMemoryOnly: true });
    await nedb.ensureIndexAsync({ fieldName: "podcast_id" });
    await nedb.insertAsync(all);
    store = new SqliteAdapter(null);
    await store.connect();
    store.ensureIndex({ fields: { podcast_id: 1 } });
    await store.insertMany(all);
  });

  afterEach(() => store.disconnect());

  test("find, count, sort, skip and limit", async () => {
    for (const query of QUERIES) {
      const expected = await nedb.findAsync(query).sort({ _id: 1 });
      const got = await store.find({ query, sort: ["_id"] });
      expect([query, got]).toEqual([query, expected]);
      expect(await store.count({ query })).toBe(expected.length);
    }
    // Projections (what in-memory indexes and id lists read): only the fields the query tests and those asked for are read.
    const byId = (xs: any[]) => [...xs].sort((x, y) => String(x._id).localeCompare(String(y._id)));
    for (const query of QUERIES.filter((q) => !Object.keys(q).some((k) => k.includes(".")))) {
      expect([query, byId(store.project(query, ["title", "at"]))]).toEqual([query, byId(await nedb.findAsync(query, { title: 1, at: 1 }))]);
    }
    const expected = await nedb
      .findAsync({ podcast_id: { $in: [1, 2] } })
      .sort({ at: -1, _id: -1 })
      .skip(5)
      .limit(20);
    expect(ids(await store.find({ query: { podcast_id: { $in: [1, 2] } }, sort: ["-at", "-_id"], offset: 5, limit: 20 }))).toEqual(ids(expected));
  });

  test("updates ($set, $inc, $push, $pull, $max, whole documents, upserts) and removals", async () => {
    const updates: [any, any, any][] = [
      [{ podcast_id: 3 }, { $set: { title: "set", "nested.k": "deep" }, $inc: { plays: 2 } }, { multi: true }],
      [{ tags: "alpha" }, { $push: { tags: "pushed" } }, { multi: true }],
      [{ tags: { $exists: true } }, { $pull: { tags: "Beta" } }, { multi: true }],
      [{ n: { $gt: 2 } }, { $max: { n: 6 } }, { multi: true }],
      [{ _id: 2 }, { podcast_id: 9, whole: true }, {}],
      [{ _id: "missing" }, { $inc: { seq: 1 } }, { upsert: true }],
      [{ _id: "missing" }, { $inc: { seq: 1 } }, { upsert: true }],
    ];
    for (const [query, update, opts] of updates) {
      await nedb.updateAsync(query, update, opts);
      store.update(query, update, opts);
    }
    await nedb.removeAsync({ podcast_id: 5 }, { multi: true });
    await store.removeMany({ podcast_id: 5 });
    expect(await store.find({ sort: ["_id"] })).toEqual(await nedb.findAsync({}).sort({ _id: 1 }));
  });

  test("a unique index refuses a second value as NeDB does, and a refused batch writes nothing", async () => {
    store.ensureIndex({ fields: { email: 1 }, unique: true });
    await store.insert({ _id: "u1", email: "a@x" });
    await expect(store.insert({ _id: "u2", email: "a@x" })).rejects.toMatchObject({ errorType: "uniqueViolated" });
    await expect(
      store.insertMany([
        { _id: "u3", email: "b@x" },
        { _id: "u1", email: "c@x" },
      ]),
    ).rejects.toMatchObject({ errorType: "uniqueViolated" });
    expect(await store.findById("u3")).toBeNull();
    await expect(store.updateMany({ _id: "u1" }, { $set: { email: "a@x" } })).resolves.toBe(1);
  });

  test("projections keep null fields and leave absent ones out, narrowed or not", async () => {
    await store.insertMany([
      { _id: "p1", a: null, b: 1, c: [1, 2] },
      { _id: "p2", b: 2 },
    ]);
    expect(store.project({ _id: { $in: ["p1", "p2"] } }, ["a", "c"])).toEqual([{ _id: "p1", a: null, c: [1, 2] }, { _id: "p2" }]);
    expect(store.project({ b: 2 }, ["a"])).toEqual([{ _id: "p2" }]);
    expect([...store.projected(["a", "b"])].filter((d) => String(d._id).startsWith("p"))).toEqual([
      { _id: "p1", a: null, b: 1 },
      { _id: "p2", b: 2 },
    ]);
  });

  test("the change mark moves with every write, not with reads, and differs on another connection", async () => {
    const before = store.changeMark();
    await store.find({ query: {} });
    expect(store.changeMark()).toBe(before);
    await store.insert({ _id: "m1", n: 1 });
    const inserted = store.changeMark();
    expect(inserted).not.toBe(before);
    await store.updateMany({ _id: "m1" }, { $set: { n: 2 } });
    expect(store.changeMark()).not.toBe(inserted);
    const other = new SqliteAdapter(null);
    await other.connect();
    expect(other.changeMark()).not.toBe(store.changeMark());
    await other.disconnect();
  });
});
