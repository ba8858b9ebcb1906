import fs from "fs";
import os from "os";
import path from "path";

// NeDB as moleculer-db loads it, and its own rewrite, taken before shared/nedb-compaction replaces it
// (nothing imported above loads the db mixin, which imports it).
const fromDb = { paths: [path.dirname(require.resolve("moleculer-db"))] };
/* eslint-disable @typescript-eslint/no-require-imports -- modules found at run time, and an order that hoisted imports would not keep */
const Datastore = require(require.resolve("@seald-io/nedb", fromDb));
const Persistence = require(require.resolve("@seald-io/nedb/lib/persistence", fromDb));
const stockRewrite = Persistence.prototype.persistCachedDatabaseAsync;
require("../../shared/nedb-compaction");
/* eslint-enable @typescript-eslint/no-require-imports */

/** A collection bigger than one write chunk (1 MB), with dates, nested values, non-ASCII text, deletes and an index. */
async function fill(file: string): Promise<any> {
  const db = new Datastore({ filename: file });
  await db.loadDatabaseAsync();
  await db.ensureIndexAsync({ fieldName: "podcast_id" });
  const docs = Array.from({ length: 3000 }, (_, i) => ({
    _id: i + 1,
    podcast_id: i % 7,
    title: `Épisode ${i} — ünïcode`,
    description: "x".repeat(800),
    pub_date: new Date(1_700_000_000_000 + i * 1000),
    p20: { tags: [i, "a"] },
    season: null,
  }));
  await db.insertAsync(docs);
  await db.removeAsync({ _id: { $in: [5, 6, 7] } }, { multi: true });
  await db.updateAsync({ _id: 8 }, { $set: { title: "changed" } });
  return db;
}

describe("NeDB's rewrite of a collection file (load and compaction), a chunk at a time", () => {
  test("writes the very file NeDB's own rewrite writes, and it loads back the same", async () => {
    expect(Persistence.prototype.persistCachedDatabaseAsync).not.toBe(stockRewrite); // ours is the one NeDB runs
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "nedb-compaction-"));
    const ours = await fill(path.join(dir, "ours.db"));
    await ours.compactDatafileAsync();
    const stock = await fill(path.join(dir, "stock.db"));
    await stockRewrite.call(stock.persistence);

    const written = fs.readFileSync(path.join(dir, "ours.db"), "utf8");
    expect(written.length).toBeGreaterThan(2 << 20);
    expect(written).toBe(fs.readFileSync(path.join(dir, "stock.db"), "utf8"));
    expect(fs.readdirSync(dir).filter((f) => f.endsWith("~"))).toEqual([]);

    const reloaded = new Datastore({ filename: path.join(dir, "ours.db") });
    await reloaded.loadDatabaseAsync();
    expect(Object.keys(reloaded.indexes).sort()).toEqual(["_id", "podcast_id"]);
    const byId = (a: any, b: any) => a._id - b._id;
    expect((await reloaded.findAsync({})).sort(byId)).toEqual((await ours.findAsync({})).sort(byId));
    expect(await reloaded.countAsync({})).toBe(2997);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
