/**
 * The index check that every test file run on the MongoDB path ends with (test/helpers/mongo-indexes.ts):
 * it must flag the query shapes issue 26 found at 1,000,000 episodes, and pass them once their index is there.
 * Then the indexes themselves, as the services create them on the driver against the wire double.
 */
import { unindexedQueries } from "../helpers/mongo-indexes";
import type { IndexInfo, MongoWire, QueryLogEntry } from "../helpers/mongo-wire";
import { startMongoWire } from "../helpers/mongo-wire";
import { startServer } from "../helpers/server";

function fakeWire(queries: QueryLogEntry[], indexes: Record<string, IndexInfo[]>): MongoWire {
  return {
    queries: () => queries,
    indexes: (_db: string, coll: string) => [{ key: { _id: 1 }, name: "_id_" }, ...(indexes[coll] ?? [])],
  } as unknown as MongoWire;
}
const q = (coll: string, filter: object, sort?: object): QueryLogEntry => ({ db: "d", coll, op: "find", filter, ...(sort ? { sort } : {}) });
const idx = (key: Record<string, number>, extra: Partial<IndexInfo> = {}): IndexInfo => ({
  key,
  name: Object.entries(key)
    .map(([k, v]) => `${k}_${v}`)
    .join("_"),
  ...extra,
});

describe("the index check", () => {
  const persons = q("episodes", { $or: [{ "p20.persons.name": /^(ann|bo)$/i }, { podcast_id: { $in: [1, 2] } }] });
  const removal = q("episode_states", { episode_id: { $in: [5, 6] } });
  const newest = q("episodes", { podcast_id: { $in: [1, 2] } }, { pub_date: -1, _id: -1 });

  test("flags a regex branch without a sparse index, states by episode without an index, a sort the index cannot give", () => {
    const before = { episodes: [idx({ podcast_id: 1 }), idx({ podcast_id: 1, pub_date: -1 })], episode_states: [idx({ user_id: 1 })] };
    expect(unindexedQueries(fakeWire([persons, removal, newest], before), "d").map((u) => u.coll)).toEqual(["episodes", "episode_states", "episodes"]);
  });

  test("passes them with the indexes the services now create", () => {
    const after = {
      episodes: [idx({ podcast_id: 1 }), idx({ podcast_id: 1, pub_date: -1, _id: -1 }), idx({ "p20.persons.name": 1 }, { sparse: true })],
      episode_states: [idx({ user_id: 1 }), idx({ episode_id: 1 })],
    };
    expect(unindexedQueries(fakeWire([persons, removal, newest], after), "d")).toEqual([]);
    // The same sort read backwards (oldest first after a date) comes off the same index.
    expect(unindexedQueries(fakeWire([q("episodes", { podcast_id: 3, pub_date: { $gt: new Date() } }, { pub_date: 1, _id: 1 })], after), "d")).toEqual([]);
  });
});

test("the services create every index the queries at size need, in MONGO_URI's database only", async () => {
  const wire = await startMongoWire();
  const server = await startServer({ mongoUri: wire.uri("podcasts") });
  try {
    const keys = (coll: string) => wire.indexes("podcasts", coll).map((i) => JSON.stringify(i.key));
    expect(keys("episodes")).toEqual(
      expect.arrayContaining(['{"podcast_id":1}', '{"podcast_id":1,"pub_date":-1,"_id":-1}', '{"podcast_id":1,"guid":1}', '{"p20.persons.name":1}']),
    );
    expect(keys("episode_states")).toEqual(expect.arrayContaining(['{"user_id":1}', '{"podcast_id":1}', '{"episode_id":1}']));
    expect(keys("tasks")).toEqual(expect.arrayContaining(['{"open_key":1}']));
    const guard = wire.indexes("podcasts", "episodes").find((i) => i.name === "podcast_id_1_guid_1")!;
    expect(guard).toMatchObject({ unique: true, partialFilterExpression: { guid: { $type: "string" } } });
    // Every collection of every service in the one database, through one client (its monitor and one pool):
    // a client per collection opened two sockets or more for each of them.
    expect(wire.databases()).toEqual(["podcasts"]);
    const collections = wire.collections("podcasts").length;
    expect(collections).toBeGreaterThan(30);
    expect(wire.connections()).toBeLessThan(collections);
  } finally {
    await server.stop();
    await wire.close();
  }
});
