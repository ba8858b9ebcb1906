/**
 * The MongoDB wire-protocol test double (test/helpers/mongo-wire.ts) driven by the real `mongodb` driver:
 * what the driver sends for each collection method, and MongoDB's query language (through mingo) on the
 * answers. Plus the framing of the protocol itself (partial and concatenated TCP chunks), the answer
 * delay, and a clean shutdown.
 */
import net from "net";
import { BSON, CommandStartedEvent, Db, MongoBulkWriteError, MongoClient, MongoServerError, ObjectId } from "mongodb";
import { MongoWire, startMongoWire } from "../helpers/mongo-wire";

let wire: MongoWire;
let client: MongoClient;
let db: Db;
const started: CommandStartedEvent[] = [];

beforeAll(async () => {
  wire = await startMongoWire();
  client = new MongoClient(wire.uri(), { monitorCommands: true, serverSelectionTimeoutMS: 5000 });
  client.on("commandStarted", (e) => started.push(e));
  await client.connect();
  db = client.db();
});

afterAll(async () => {
  await client?.close();
  await wire?.close();
});

const codeOf = async (p: Promise<unknown>): Promise<number | undefined> => {
  try {
    await p;
  } catch (err) {
    return (err as { code?: number }).code;
  }
  throw new Error("expected a rejection");
};

describe("mongo-wire: connection and commands", () => {
  test("the driver connects (handshake) and runs db.command({ping:1})", async () => {
    expect(db.databaseName).toBe("podcasts");
    expect(wire.uri()).toBe(`mongodb://127.0.0.1:${wire.port}/podcasts`);
    expect(await db.command({ ping: 1 })).toEqual({ ok: 1 });
    expect(wire.connections()).toBeGreaterThanOrEqual(1);
    expect(wire.openConnections()).toBeGreaterThanOrEqual(1);
    const info = await db.admin().command({ buildInfo: 1 });
    expect(info.version).toBe("7.0.0");
  });

  test("with directConnection=true too", async () => {
    const direct = new MongoClient(`${wire.uri("other")}?directConnection=true`, { serverSelectionTimeoutMS: 5000 });
    try {
      expect(await direct.db().command({ ping: 1 })).toEqual({ ok: 1 });
      expect(await direct.db().collection("nothing").findOne({})).toBeNull();
    } finally {
      await direct.close();
    }
  });

  test("an unknown command is CommandNotFound (59), and the double keeps serving", async () => {
    const err = await db.command({ noSuchThing: 1 }).catch((e) => e);
    expect(err).toBeInstanceOf(MongoServerError);
    expect(err.code).toBe(59);
    expect(err.message).toBe("no such command: 'noSuchThing'");
    // A malformed query is an error answer too, never a crash.
    expect(await codeOf(db.collection("x").find({ $bogus: 1 }).toArray())).toBe(2);
    expect(await db.command({ ping: 1 })).toEqual({ ok: 1 });
  });
});

describe("mongo-wire: writes", () => {
  test("insertOne / insertMany, duplicate _id -> 11000", async () => {
    const c = db.collection("ins");
    const { insertedId } = await c.insertOne({ title: "one" });
    expect(insertedId).toBeInstanceOf(ObjectId);
    expect((await c.findOne({ _id: insertedId }))?.title).toBe("one");

    await c.insertOne({ _id: "a" as any, n: 1 });
    const dup = await c.insertOne({ _id: "a" as any, n: 2 }).catch((e) => e);
    expect(dup).toBeInstanceOf(MongoServerError);
    expect(dup.code).toBe(11000);
    expect(dup.message).toContain('E11000 duplicate key error collection: podcasts.ins index: _id_ dup key: { _id: "a" }');

    // Ordered: stops at the first error.
    const ordered = await c.insertMany([{ _id: "b" }, { _id: "a" }, { _id: "c" }] as any[]).catch((e) => e);
    expect(ordered).toBeInstanceOf(MongoBulkWriteError);
    expect(ordered.code).toBe(11000);
    expect(ordered.result.insertedCount).toBe(1);
    expect(await c.countDocuments({ _id: { $in: ["b", "c"] } as any })).toBe(1);

    // Unordered: continues past it.
    const unordered = await c.insertMany([{ _id: "d" }, { _id: "a" }, { _id: "e" }] as any[], { ordered: false }).catch((e) => e);
    expect(unordered.code).toBe(11000);
    expect(unordered.result.insertedCount).toBe(2);
    expect(await c.countDocuments({ _id: { $in: ["d", "e"] } as any })).toBe(2);
  });

  test("unique compound index: duplicate on insert and on updateOne -> 11000; sparse; index over duplicates fails", async () => {
    const c = db.collection("subs");
    expect(await c.createIndex({ user: 1, feed: 1 }, { unique: true })).toBe("user_1_feed_1");
    // The same index again is fine; the same name with other options is IndexKeySpecsConflict (86).
    expect(await c.createIndex({ user: 1, feed: 1 }, { unique: true })).toBe("user_1_feed_1");
    expect(await codeOf(c.createIndex({ user: 1, feed: 1 }, { unique: true, sparse: true }))).toBe(86);
    expect(await codeOf(c.createIndex({ user: 1, feed: 1 }, { name: "other", unique: true }))).toBe(85);

    await c.insertMany([
      { user: "u1", feed: "f1" },
      { user: "u1", feed: "f2" },
      { user: "u2", feed: "f1" },
    ]);
    const dup = await c.insertOne({ user: "u1", feed: "f1", extra: true }).catch((e) => e);
    expect(dup.code).toBe(11000);
    expect(dup.message).toContain('index: user_1_feed_1 dup key: { user: "u1", feed: "f1" }');
    expect(dup.keyValue).toEqual({ user: "u1", feed: "f1" });

    const upd = await c.updateOne({ user: "u1", feed: "f2" }, { $set: { feed: "f1" } }).catch((e) => e);
    expect(upd).toBeInstanceOf(MongoServerError);
    expect(upd.code).toBe(11000);
    expect(await c.countDocuments({ user: "u1", feed: "f2" })).toBe(1); // unchanged

    // Missing fields count as null: two documents without `feed` for one user collide.
    await c.insertOne({ user: "u3" });
    expect(await codeOf(c.insertOne({ user: "u3", feed: null }))).toBe(11000);

    // Sparse: documents without the field are not indexed.
    const s = db.collection("sparse");
    await s.createIndex({ email: 1 }, { unique: true, sparse: true });
    await s.insertMany([{ n: 1 }, { n: 2 }, { email: "a@x" }]);
    expect(await codeOf(s.insertOne({ email: "a@x" }))).toBe(11000);

    // Numbers compare by value, Dates by time.
    const k = db.collection("keys");
    await k.createIndex({ at: 1 }, { unique: true });
    await k.insertOne({ at: new Date(1000) });
    expect(await codeOf(k.insertOne({ at: new Date(1000) }))).toBe(11000);
    await k.insertOne({ at: 1 });
    expect(await codeOf(k.insertOne({ at: 1.0 }))).toBe(11000);

    // A unique index over existing duplicates cannot be built.
    const d = db.collection("dups");
    await d.insertMany([{ v: 1 }, { v: 1 }]);
    expect(await codeOf(d.createIndex({ v: 1 }, { unique: true }))).toBe(11000);
    expect((await d.listIndexes().toArray()).map((i) => i.name)).toEqual(["_id_"]);
  });

  test("updateOne / updateMany with $set, $inc, $push, $pull, $addToSet, $max, $unset", async () => {
    interface UpdDoc {
      _id: number;
      n?: number;
      tags?: string[];
      best?: number;
      gone?: boolean;
      title?: string;
      items?: { k: string; v: number }[];
    }
    const c = db.collection<UpdDoc>("upd");
    await c.insertMany([
      { _id: 1, n: 1, tags: ["a", "b"], best: 5, gone: true },
      { _id: 2, n: 2, tags: ["b"], best: 1 },
      { _id: 3, n: 3, tags: [], best: 9 },
    ]);
    let r = await c.updateOne(
      { _id: 1 },
      {
        $set: { title: "T" },
        $inc: { n: 10 },
        $push: { tags: { $each: ["c", "d"] } },
        $max: { best: 7 },
        $unset: { gone: "" },
      },
    );
    expect(r).toMatchObject({ matchedCount: 1, modifiedCount: 1, upsertedCount: 0 });
    expect(await c.findOne({ _id: 1 })).toEqual({ _id: 1, n: 11, tags: ["a", "b", "c", "d"], best: 7, title: "T" });

    r = await c.updateMany({}, { $pull: { tags: "b" } });
    expect(r).toMatchObject({ matchedCount: 3, modifiedCount: 2 });
    r = await c.updateMany({ n: { $lte: 3 } }, { $addToSet: { tags: { $each: ["x", "x", "y"] } } });
    expect(r).toMatchObject({ matchedCount: 2, modifiedCount: 2 });
    expect((await c.findOne({ _id: 2 }))?.tags).toEqual(["x", "y"]);
    // Setting what is already there matches but modifies nothing.
    r = await c.updateOne({ _id: 2 }, { $set: { n: 2 }, $max: { best: 0 } });
    expect(r).toMatchObject({ matchedCount: 1, modifiedCount: 0 });
    r = await c.updateOne({ _id: 99 }, { $set: { n: 2 } });
    expect(r).toMatchObject({ matchedCount: 0, modifiedCount: 0, upsertedId: null });

    // The positional operator and arrayFilters.
    await c.insertOne({
      _id: 4,
      items: [
        { k: "a", v: 1 },
        { k: "b", v: 2 },
      ],
    });
    await c.updateOne({ _id: 4, "items.k": "b" }, { $inc: { "items.$.v": 5 } });
    await c.updateOne({ _id: 4 }, { $set: { "items.$[e].v": 0 } }, { arrayFilters: [{ "e.k": "a" }] });
    expect((await c.findOne({ _id: 4 }))?.items).toEqual([
      { k: "a", v: 0 },
      { k: "b", v: 7 },
    ]);

    // An update may not change _id; an unknown operator is FailedToParse (9).
    expect(await codeOf(c.updateOne({ _id: 4 }, { $set: { _id: 5 } }))).toBe(66);
    expect(await codeOf(c.updateOne({ _id: 4 }, { $foo: { n: 1 } } as any))).toBe(9);

    // A pipeline-style update.
    await c.updateOne({ _id: 1 }, [{ $set: { best: { $multiply: ["$n", 2] } } }]);
    expect((await c.findOne({ _id: 1 }))?.best).toBe(22);
  });

  test("upsert builds the document from the query's equality fields, then applies the update", async () => {
    const c = db.collection("ups");
    const r = await c.updateOne(
      { user: "u1", "meta.lang": "en", $and: [{ kind: "feed" }], n: { $gt: 5 }, title: /re/ },
      { $set: { seen: true }, $inc: { count: 1 }, $setOnInsert: { createdAt: new Date(5) } },
      { upsert: true },
    );
    expect(r.upsertedCount).toBe(1);
    expect(r.upsertedId).toBeInstanceOf(ObjectId);
    const doc = await c.findOne({ _id: r.upsertedId! });
    expect(doc).toEqual({ _id: r.upsertedId, user: "u1", meta: { lang: "en" }, kind: "feed", seen: true, count: 1, createdAt: new Date(5) });

    // Matched the second time: no insert, $setOnInsert ignored.
    const again = await c.updateOne({ user: "u1", "meta.lang": "en" }, { $inc: { count: 1 }, $setOnInsert: { createdAt: new Date(9) } }, { upsert: true });
    expect(again).toMatchObject({ matchedCount: 1, modifiedCount: 1, upsertedCount: 0 });
    expect(await c.findOne({ user: "u1" }, { projection: { _id: 0, count: 1, createdAt: 1 } })).toEqual({ count: 2, createdAt: new Date(5) });

    // An _id in the query becomes the document's _id; so does one from $setOnInsert.
    await c.updateOne({ _id: "fixed" as any }, { $set: { v: 1 } }, { upsert: true });
    expect(await c.findOne({ _id: "fixed" as any })).toEqual({ _id: "fixed", v: 1 });
    const viaInsert = await c.updateOne({ key: "k" }, { $setOnInsert: { _id: "chosen" }, $set: { v: 2 } }, { upsert: true });
    expect(viaInsert.upsertedId).toBe("chosen");
    expect(await c.findOne({ key: "k" })).toEqual({ _id: "chosen", key: "k", v: 2 });
    // Setting _id to the value it has is allowed.
    expect((await c.updateOne({ _id: "fixed" as any }, { $set: { _id: "fixed" as any, v: 3 } })).modifiedCount).toBe(1);

    // An upsert that would break a unique index is refused like an insert. (Building it here over the
    // documents above, which all lack `slug`, would fail: missing counts as null.)
    expect(await codeOf(c.createIndex({ slug: 1 }, { unique: true }))).toBe(11000);
    const u = db.collection("ups-unique");
    await u.createIndex({ slug: 1 }, { unique: true });
    await u.insertOne({ slug: "taken" });
    expect(await codeOf(u.updateOne({ other: 1 }, { $set: { slug: "taken" } }, { upsert: true }))).toBe(11000);
    expect(await codeOf(u.findOneAndUpdate({ other: 2 }, { $set: { slug: "taken" } }, { upsert: true }))).toBe(11000);
    expect(await u.countDocuments()).toBe(1);
  });

  test("replaceOne keeps the _id; replaceOne upsert takes the query's _id", async () => {
    const c = db.collection("rep");
    await c.insertOne({ _id: "r1", a: 1, b: 2 } as any);
    const r = await c.replaceOne({ _id: "r1" } as any, { c: 3 });
    expect(r).toMatchObject({ matchedCount: 1, modifiedCount: 1 });
    expect(await c.findOne({ _id: "r1" } as any)).toEqual({ _id: "r1", c: 3 });
    await c.replaceOne({ _id: "r2" } as any, { d: 4 }, { upsert: true });
    expect(await c.findOne({ _id: "r2" } as any)).toEqual({ _id: "r2", d: 4 });
    // bulkWrite of replaceOne upserts (what the store's saveMany sends).
    const bulk = await c.bulkWrite(
      [
        { replaceOne: { filter: { _id: "r1" }, replacement: { _id: "r1", e: 5 }, upsert: true } },
        { replaceOne: { filter: { _id: "r3" }, replacement: { _id: "r3", f: 6 }, upsert: true } },
      ] as any[],
      { ordered: true },
    );
    expect(bulk.matchedCount).toBe(1);
    expect(bulk.upsertedCount).toBe(1);
    expect(await c.find({}, { sort: { _id: 1 } }).toArray()).toEqual([
      { _id: "r1", e: 5 },
      { _id: "r2", d: 4 },
      { _id: "r3", f: 6 },
    ]);
  });

  test("deleteOne / deleteMany", async () => {
    const c = db.collection("del");
    await c.insertMany([{ k: 1 }, { k: 1 }, { k: 2 }, { k: 3 }]);
    expect((await c.deleteOne({ k: 1 })).deletedCount).toBe(1);
    expect((await c.deleteMany({ k: { $in: [1, 2] } })).deletedCount).toBe(2);
    expect((await c.deleteMany({ k: 42 })).deletedCount).toBe(0);
    expect(await c.find({}, { projection: { _id: 0 } }).toArray()).toEqual([{ k: 3 }]);
  });

  test("findOneAndUpdate / findOneAndDelete", async () => {
    const c = db.collection("fam");
    const doc = await c.findOneAndUpdate({ _id: "counter" as any }, { $inc: { n: 1 } }, { upsert: true, returnDocument: "after" });
    expect(doc).toEqual({ _id: "counter", n: 1 });
    const next = await c.findOneAndUpdate({ _id: "counter" as any }, { $inc: { n: 1 } }, { upsert: true, returnDocument: "after" });
    expect(next).toEqual({ _id: "counter", n: 2 });
    const before = await c.findOneAndUpdate({ _id: "counter" as any }, { $inc: { n: 1 } }, { returnDocument: "before" });
    expect(before).toEqual({ _id: "counter", n: 2 });
    expect(await c.findOneAndUpdate({ _id: "missing" as any }, { $set: { a: 1 } })).toBeNull();

    const meta = await c.findOneAndUpdate({ _id: "other" as any }, { $set: { a: 1 } }, { upsert: true, returnDocument: "after", includeResultMetadata: true });
    expect(meta.value).toEqual({ _id: "other", a: 1 });
    expect(meta.lastErrorObject).toEqual({ n: 1, updatedExisting: false, upserted: "other" });

    await c.insertMany([
      { q: 1, rank: 3 },
      { q: 1, rank: 1 },
      { q: 1, rank: 2 },
    ]);
    const first = await c.findOneAndUpdate(
      { q: 1 },
      { $set: { taken: true } },
      { sort: { rank: 1 }, returnDocument: "after", projection: { _id: 0, rank: 1, taken: 1 } },
    );
    expect(first).toEqual({ rank: 1, taken: true });
    const removed = await c.findOneAndDelete({ q: 1 }, { sort: { rank: -1 } });
    expect(removed?.rank).toBe(3);
    expect(await c.countDocuments({ q: 1 })).toBe(2);
  });
});

describe("mongo-wire: reads", () => {
  const hosts = [
    { _id: 1, name: "Alpha", n: 5, pub: new Date("2024-01-01T00:00:00Z"), tags: ["tech", "news"], hosts: [{ name: "Ann" }, { name: "Bob" }] },
    { _id: 2, name: "beta", n: 1, pub: new Date("2024-03-01T00:00:00Z"), tags: ["news"], hosts: [{ name: "Cid" }], lang: "en" },
    { _id: 3, name: "Gamma", n: 3, pub: new Date("2023-06-01T00:00:00Z"), tags: [], hosts: [], lang: null },
    { _id: 4, name: "delta", n: 9, pub: new Date("2024-02-01T00:00:00Z"), tags: ["tech"], hosts: [{ name: "Bob" }], lang: "de" },
    { _id: 5, name: "Epsilon", pub: new Date("2022-01-01T00:00:00Z"), tags: ["misc"] },
  ];
  beforeAll(async () => {
    await db.collection("pods").insertMany(hosts as any[]);
  });
  const ids = async (filter: object, opts: object = {}) =>
    (
      await db
        .collection("pods")
        .find(filter, { sort: { _id: 1 }, ...opts })
        .toArray()
    ).map((d) => d._id);

  test("find with filter, sort, skip, limit, projection", async () => {
    const c = db.collection("pods");
    expect(await ids({ n: { $gt: 2 } })).toEqual([1, 3, 4]);
    expect((await c.find({}).sort({ n: -1 }).toArray()).map((d) => d._id)).toEqual([4, 1, 3, 2, 5]);
    // Missing sorts as null: first ascending.
    expect((await c.find({}).sort({ n: 1 }).toArray()).map((d) => d._id)).toEqual([5, 2, 3, 1, 4]);
    expect((await c.find({}).sort({ pub: -1 }).skip(1).limit(2).toArray()).map((d) => d._id)).toEqual([4, 1]);
    expect(await c.find({ _id: 2 } as any, { projection: { name: 1 } }).toArray()).toEqual([{ _id: 2, name: "beta" }]);
    expect(await c.find({ _id: 2 } as any, { projection: { _id: 0, name: 1, "hosts.name": 1 } }).toArray()).toEqual([
      { name: "beta", hosts: [{ name: "Cid" }] },
    ]);
    expect(await c.find({ _id: 3 } as any, { projection: { hosts: 0, tags: 0, pub: 0 } }).toArray()).toEqual([{ _id: 3, name: "Gamma", n: 3, lang: null }]);
    expect(await c.findOne({}, { sort: { name: 1 } })).toMatchObject({ _id: 1 }); // "Alpha" < "Epsilon" < "Gamma" < "beta"
    // Compound sort.
    expect((await c.find({}).sort({ tags: 1, _id: -1 }).toArray()).length).toBe(5);
  });

  test("query operators: $regex, $in/$nin/$exists/$or/$and/$ne/$gt/$lte, dotted paths into arrays, Dates", async () => {
    expect(await ids({ name: /^[a-e]/ })).toEqual([2, 4]);
    expect(await ids({ name: /^[a-e]/i })).toEqual([1, 2, 4, 5]);
    expect(await ids({ name: { $regex: "ta$", $options: "i" } })).toEqual([2, 4]);
    expect(await ids({ name: { $regex: "^G" } })).toEqual([3]);
    expect(await ids({ tags: { $in: ["misc", "tech"] } })).toEqual([1, 4, 5]);
    expect(await ids({ tags: { $nin: ["news"] } })).toEqual([3, 4, 5]);
    expect(await ids({ tags: "news" })).toEqual([1, 2]);
    expect(await ids({ lang: { $exists: true } })).toEqual([2, 3, 4]);
    expect(await ids({ lang: null })).toEqual([1, 3, 5]);
    expect(await ids({ lang: { $ne: "en" } })).toEqual([1, 3, 4, 5]);
    expect(await ids({ $or: [{ n: { $lte: 1 } }, { lang: "de" }] })).toEqual([2, 4]);
    expect(await ids({ $and: [{ n: { $gt: 1 } }, { n: { $lte: 5 } }] })).toEqual([1, 3]);
    expect(await ids({ "hosts.name": "Bob" })).toEqual([1, 4]);
    expect(await ids({ "hosts.name": { $in: ["Cid", "Ann"] } })).toEqual([1, 2]);
    expect(await ids({ hosts: { $size: 0 } })).toEqual([3]);
    expect(await ids({ hosts: { $elemMatch: { name: "Ann" } } })).toEqual([1]);
    expect(await ids({ pub: { $gte: new Date("2024-01-01T00:00:00Z"), $lt: new Date("2024-03-01T00:00:00Z") } })).toEqual([1, 4]);
    const doc = await db.collection("pods").findOne({ _id: 2 } as any);
    expect(doc?.pub).toBeInstanceOf(Date);
    expect(doc?.pub.toISOString()).toBe("2024-03-01T00:00:00.000Z");
  });

  test("countDocuments, estimatedDocumentCount, distinct, aggregate", async () => {
    const c = db.collection("pods");
    expect(await c.countDocuments()).toBe(5);
    expect(await c.countDocuments({ tags: "tech" })).toBe(2);
    expect(await c.countDocuments({}, { skip: 1, limit: 3 })).toBe(3);
    expect(await c.countDocuments({ name: "nope" })).toBe(0);
    expect(await c.estimatedDocumentCount()).toBe(5);
    expect(await db.collection("absent").countDocuments()).toBe(0);
    expect(await db.collection("absent").estimatedDocumentCount()).toBe(0);
    expect((await c.distinct("tags")).sort()).toEqual(["misc", "news", "tech"]);
    expect((await c.distinct("hosts.name", { n: { $gt: 1 } })).sort()).toEqual(["Ann", "Bob"]);
    const byTag = await c.aggregate([{ $unwind: "$tags" }, { $group: { _id: "$tags", count: { $sum: 1 } } }, { $sort: { count: -1, _id: 1 } }]).toArray();
    expect(byTag).toEqual([
      { _id: "news", count: 2 },
      { _id: "tech", count: 2 },
      { _id: "misc", count: 1 },
    ]);
  });

  test("a cursor over 5,000 documents in batches of 100 (find + getMore)", async () => {
    const c = db.collection("many");
    await c.insertMany(Array.from({ length: 5000 }, (_, i) => ({ i, pad: "x".repeat(50) })));
    expect(await c.estimatedDocumentCount()).toBe(5000);
    started.length = 0;
    let n = 0;
    let last = -1;
    for await (const doc of c.find({ i: { $gte: 0 } }, { batchSize: 100, sort: { i: 1 } })) {
      expect(doc.i).toBe(last + 1);
      last = doc.i;
      n++;
    }
    expect(n).toBe(5000);
    const names = started.map((e) => e.commandName);
    expect(names.filter((x) => x === "find")).toHaveLength(1);
    expect(names.filter((x) => x === "getMore")).toHaveLength(49);
    expect(names).not.toContain("killCursors"); // exhausted: the last getMore answered cursor id 0

    // A cursor abandoned half-way is killed by the driver.
    started.length = 0;
    const cursor = c.find({}, { batchSize: 100 });
    await cursor.next();
    await cursor.close();
    expect(started.map((e) => e.commandName)).toEqual(["find", "killCursors"]);

    // The default first batch (101) and an unbounded getMore.
    started.length = 0;
    expect(await c.find({}).toArray()).toHaveLength(5000);
    expect(started.map((e) => e.commandName)).toEqual(["find", "getMore"]);
  });
});

describe("mongo-wire: namespaces, indexes and instrumentation", () => {
  test("two collections in one db, listIndexes, dropIndex, databases() and the query log", async () => {
    const w = await startMongoWire();
    const c = new MongoClient(w.uri("library"));
    try {
      const d = c.db();
      await d.collection("episodes").insertOne({ podcast: "p1", guid: "g1" });
      await d.collection("podcasts").insertOne({ _id: "p1", title: "P" } as any);
      await d.collection("episodes").createIndex({ podcast: 1, guid: 1 }, { unique: true });
      await d.collection("episodes").createIndex({ expiresAt: 1 }, { expireAfterSeconds: 3600 });
      await d.collection("episodes").createIndex({ guid: 1 }, { partialFilterExpression: { guid: { $exists: true } } });

      expect(w.databases()).toEqual(["library"]);
      expect(w.collections("library")).toEqual(["episodes", "podcasts"]);
      expect((await d.listCollections({}, { nameOnly: true }).toArray()).map((x) => x.name).sort()).toEqual(["episodes", "podcasts"]);
      const listed = await d.collection("episodes").listIndexes().toArray();
      expect(listed).toEqual([
        { v: 2, key: { _id: 1 }, name: "_id_" },
        { v: 2, key: { podcast: 1, guid: 1 }, name: "podcast_1_guid_1", unique: true },
        { v: 2, key: { expiresAt: 1 }, name: "expiresAt_1", expireAfterSeconds: 3600 },
        { v: 2, key: { guid: 1 }, name: "guid_1", partialFilterExpression: { guid: { $exists: true } } },
      ]);
      expect(w.indexes("library", "episodes")).toEqual([
        { key: { _id: 1 }, name: "_id_" },
        { key: { podcast: 1, guid: 1 }, name: "podcast_1_guid_1", unique: true },
        { key: { expiresAt: 1 }, name: "expiresAt_1", expireAfterSeconds: 3600 },
        { key: { guid: 1 }, name: "guid_1", partialFilterExpression: { guid: { $exists: true } } },
      ]);
      expect(await d.collection("episodes").indexExists("podcast_1_guid_1")).toBe(true);
      await d.collection("episodes").dropIndex("podcast_1_guid_1");
      expect(w.indexes("library", "episodes").map((i) => i.name)).toEqual(["_id_", "expiresAt_1", "guid_1"]);
      expect(await codeOf(d.collection("episodes").dropIndex("nope"))).toBe(27);
      expect(await codeOf(d.collection("absent").listIndexes().toArray())).toBe(26);

      expect(w.docs("library", "podcasts")).toEqual([{ _id: "p1", title: "P" }]);
      const copy = w.docs("library", "podcasts");
      copy[0].title = "changed";
      expect(w.docs("library", "podcasts")[0].title).toBe("P");

      w.clearQueries();
      await d.collection("episodes").find({ podcast: "p1" }).sort({ guid: -1 }).toArray();
      await d.collection("episodes").countDocuments({ podcast: "p1" });
      await d.collection("podcasts").updateOne({ _id: "p1" } as any, { $set: { title: "Q" } });
      await d.collection("podcasts").deleteMany({ title: "none" });
      await d.collection("podcasts").findOneAndUpdate({ _id: "p1" } as any, { $set: { x: 1 } });
      await d.collection("podcasts").distinct("title", { x: 1 });
      await d.collection("podcasts").estimatedDocumentCount();
      expect(w.queries()).toEqual([
        { db: "library", coll: "episodes", op: "find", filter: { podcast: "p1" }, sort: { guid: -1 } },
        {
          db: "library",
          coll: "episodes",
          op: "aggregate",
          filter: { podcast: "p1" },
          pipeline: [{ $match: { podcast: "p1" } }, { $group: { _id: 1, n: { $sum: 1 } } }],
        },
        { db: "library", coll: "podcasts", op: "update", filter: { _id: "p1" } },
        { db: "library", coll: "podcasts", op: "delete", filter: { title: "none" } },
        { db: "library", coll: "podcasts", op: "findAndModify", filter: { _id: "p1" } },
        { db: "library", coll: "podcasts", op: "distinct", filter: { x: 1 } },
        { db: "library", coll: "podcasts", op: "count", filter: {} },
      ]);
      w.clearQueries();
      expect(w.queries()).toEqual([]);

      // Dropping collections and databases.
      await d.collection("podcasts").drop();
      expect(w.collections("library")).toEqual(["episodes"]);
      await d.dropDatabase();
      expect(w.databases()).toEqual([]);
    } finally {
      await c.close();
      await w.close();
    }
    expect(w.openConnections()).toBe(0);
  });
});

describe("mongo-wire: the wire itself", () => {
  /** An OP_MSG carrying `body`, as bytes. */
  const opMsg = (requestId: number, body: object): Buffer => {
    const bson = BSON.serialize(body);
    const header = Buffer.alloc(21);
    header.writeInt32LE(21 + bson.length, 0);
    header.writeInt32LE(requestId, 4);
    header.writeInt32LE(0, 8);
    header.writeInt32LE(2013, 12);
    header.writeUInt32LE(0, 16);
    header[20] = 0;
    return Buffer.concat([header, bson]);
  };

  /** Reads `count` OP_MSG answers from a raw socket. */
  const readAnswers = (sock: net.Socket, count: number) =>
    new Promise<{ responseTo: number; body: any }[]>((resolve, reject) => {
      let buf = Buffer.alloc(0);
      const out: { responseTo: number; body: any }[] = [];
      sock.on("error", reject);
      sock.on("data", (chunk) => {
        buf = Buffer.concat([buf, chunk]);
        while (buf.length >= 4 && buf.length >= buf.readInt32LE(0)) {
          const len = buf.readInt32LE(0);
          const msg = buf.subarray(0, len);
          buf = buf.subarray(len);
          expect(msg.readInt32LE(12)).toBe(2013);
          out.push({ responseTo: msg.readInt32LE(8), body: BSON.deserialize(msg.subarray(21)) });
          if (out.length === count) resolve(out);
        }
      });
    });

  test("partial and concatenated TCP chunks", async () => {
    const sock = net.connect(wire.port, "127.0.0.1");
    await new Promise((r) => sock.once("connect", r));
    const answers = readAnswers(sock, 3);
    const a = opMsg(101, { ping: 1, $db: "admin" });
    const b = opMsg(102, { hello: 1, $db: "admin" });
    const c = opMsg(103, { count: "pods", query: { tags: "tech" }, $db: "podcasts" });
    const all = Buffer.concat([a, b, c]);
    // Byte by byte for the first message (and 3 bytes of the second), then the rest in one write.
    const cut = a.length + 3;
    for (let i = 0; i < cut; i++) {
      sock.write(all.subarray(i, i + 1));
      if (i % 7 === 0) await new Promise((r) => setTimeout(r, 1));
    }
    sock.write(all.subarray(cut));
    const got = await answers;
    sock.destroy();
    expect(got.map((x) => x.responseTo)).toEqual([101, 102, 103]);
    expect(got[0].body).toEqual({ ok: 1 });
    expect(got[1].body).toMatchObject({ ok: 1, isWritablePrimary: true, helloOk: true, maxWireVersion: 21 });
    expect(got[2].body).toEqual({ n: 2, ok: 1 });
  });

  test("delayMs delays every answer", async () => {
    const slow = await startMongoWire({ delayMs: 60 });
    const c = new MongoClient(slow.uri());
    try {
      await c.connect();
      const t0 = Date.now();
      await c.db().command({ ping: 1 });
      expect(Date.now() - t0).toBeGreaterThanOrEqual(55);
    } finally {
      await c.close();
      await slow.close();
    }
  });

  test("a client closes cleanly: all its sockets end", async () => {
    const w = await startMongoWire();
    const c = new MongoClient(w.uri());
    await c.db().collection("a").insertOne({ x: 1 });
    expect(w.connections()).toBeGreaterThanOrEqual(2); // the monitor's and the pool's
    await c.close();
    const end = Date.now() + 2000;
    while (w.openConnections() > 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
    expect(w.openConnections()).toBe(0);
    await w.close();
  });

  test("close() ends every socket, even with clients still connected", async () => {
    const w = await startMongoWire();
    const c = new MongoClient(w.uri(), { serverSelectionTimeoutMS: 500 });
    await c.db().command({ ping: 1 });
    expect(w.openConnections()).toBeGreaterThan(0);
    await w.close();
    expect(w.openConnections()).toBe(0);
    await expect(c.db().command({ ping: 1 })).rejects.toThrow();
    await c.close();
  });
});
