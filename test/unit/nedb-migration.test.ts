/**
 * The upgrade path: a data folder written by the NeDB store of earlier servers (files made here with NeDB
 * itself, the way those servers wrote them: appended inserts, updates and deletions, index lines) is
 * moved into the SQLite store at the first start, nothing lost, and never moved twice.
 */
import fs from "fs";
import path from "path";
import { ServiceBroker } from "moleculer";
import { config } from "../../shared/config";
import { DbMixin } from "../../shared/db.mixin";
import { tempDir } from "../helpers/server";

// eslint-disable-next-line @typescript-eslint/no-require-imports -- NeDB as moleculer-db resolves it, found at run time
const Datastore = require(require.resolve("@seald-io/nedb", { paths: [path.dirname(require.resolve("moleculer-db"))] }));

const when = new Date("2025-03-04T05:06:07.890Z");
const schema = {
  name: "things",
  mixins: [DbMixin({ name: "things", indexes: [{ fields: { name: 1 }, unique: true }, { fields: { owner: 1 } }] }, [{ name: "notes" }])],
};

/** The files an older server left: things.db, notes.db and counters.things.db, never compacted. */
async function writeNedbFolder(dir: string): Promise<void> {
  const things = new Datastore({ filename: path.join(dir, "things.db"), autoload: false });
  await things.loadDatabaseAsync();
  await things.ensureIndexAsync({ fieldName: "name", unique: true });
  await things.insertAsync([
    { _id: 1, name: "one", owner: 7, at: when, tags: ["a", "b"], nested: { list: [when, "x"] } },
    { _id: 2, name: "two", owner: 7, at: null },
    { _id: 3, name: "three", owner: 8 },
  ]);
  await things.updateAsync({ _id: 2 }, { $set: { name: "two, renamed" }, $inc: { plays: 2 } });
  await things.updateAsync({ _id: 2 }, { $push: { tags: "late" } });
  await things.removeAsync({ _id: 3 });
  const notes = new Datastore({ filename: path.join(dir, "notes.db"), autoload: false });
  await notes.loadDatabaseAsync();
  await notes.insertAsync({ _id: "7:1", text: "é ü 🎧", saved: true });
  const counters = new Datastore({ filename: path.join(dir, "counters.things.db"), autoload: false });
  await counters.loadDatabaseAsync();
  await counters.updateAsync({ _id: "things" }, { $inc: { seq: 3 } }, { upsert: true });
  // Appended lines stay as written: the move reads the files as NeDB's loader does.
  expect(fs.readFileSync(path.join(dir, "things.db"), "utf8").split("\n").filter(Boolean).length).toBeGreaterThan(4);
}

async function start(): Promise<{ broker: ServiceBroker; svc: any }> {
  const broker = new ServiceBroker({ logger: false });
  const svc: any = broker.createService(schema);
  await broker.start();
  return { broker, svc };
}

describe("moving NeDB files into the SQLite store", () => {
  test("every document, date, update and deletion of an older server's files is there after the first start, once", async () => {
    const dir = tempDir();
    await writeNedbFolder(dir);
    config.dataDir = dir;
    let { broker, svc } = await start();
    expect(await svc.adapter.find({ sort: ["_id"] })).toEqual([
      { _id: 1, name: "one", owner: 7, at: when, tags: ["a", "b"], nested: { list: [when, "x"] } },
      { _id: 2, name: "two, renamed", owner: 7, at: null, plays: 2, tags: ["late"] },
    ]);
    expect((await svc.adapter.findById(1)).at).toBeInstanceOf(Date);
    expect(await svc.stores.notes.findById("7:1")).toEqual({ _id: "7:1", text: "é ü 🎧", saved: true });
    expect(await svc.nextId("things")).toBe(4);
    // The unique index holds on the moved data, and queries on indexed fields find it.
    await expect(svc.insertUnique(svc.adapter, { _id: 5, name: "one" }, "taken")).rejects.toThrow("taken");
    expect((await svc.adapter.find({ query: { owner: 7 } })).map((d: any) => d._id).sort()).toEqual([1, 2]);
    for (const name of ["things", "notes", "counters.things"]) {
      expect(fs.existsSync(path.join(dir, `${name}.sqlite`))).toBe(true);
      expect(fs.existsSync(path.join(dir, `${name}.db`))).toBe(false);
      expect(fs.existsSync(path.join(dir, `${name}.db.moved`))).toBe(true);
    }
    await svc.adapter.updateMany({ _id: 1 }, { $set: { name: "one, after the move" } });
    await broker.stop();

    // The next start opens the SQLite files: a NeDB file put back is not moved over them again.
    fs.copyFileSync(path.join(dir, "things.db.moved"), path.join(dir, "things.db"));
    ({ broker, svc } = await start());
    expect((await svc.adapter.findById(1)).name).toBe("one, after the move");
    expect(await svc.nextId("things")).toBe(5);
    await broker.stop();
  });

  test("a move cut short (a .moving file left by a crash) starts again from the NeDB file", async () => {
    const dir = tempDir();
    await writeNedbFolder(dir);
    fs.writeFileSync(path.join(dir, "things.sqlite.moving"), "half a database");
    config.dataDir = dir;
    const { broker, svc } = await start();
    expect((await svc.adapter.find({})).length).toBe(2);
    expect(fs.existsSync(path.join(dir, "things.sqlite.moving"))).toBe(false);
    await broker.stop();
  });
});
