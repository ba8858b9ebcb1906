/**
 * Overlapping feed syncs of one podcast (two feeds replicas, or two calls interleaving in one process):
 * the unique index on (podcast_id, guid) keeps each episode stored, and announced, once; and a data
 * directory of an older version that holds such duplicates is folded at start.
 */
import type { ServiceSchema } from "moleculer";
import { ServiceBroker } from "moleculer";
import brokerConfig from "../../moleculer.config";
import { config } from "../../shared/config";
import { DbMixin, isDuplicateKeyError } from "../../shared/db.mixin";
import { asUsers } from "../helpers/client";
import { Loopback, startLoopback } from "../helpers/loopback";
import { startMongoWire } from "../helpers/mongo-wire";
import { createUsers, rssFeed } from "../helpers/podcasts";
import { ALL_SERVICES, startServer, tempDir, TestServer } from "../helpers/server";

const created: { podcast_id: number; episode_ids: number[] }[] = [];
const Probe: ServiceSchema = {
  name: "probe",
  events: {
    "episodes.created"(ctx: any) {
      created.push(ctx.params);
    },
  },
};

/**
 * Holds calls of episodes.sync_episodes while armed until `armed` of them arrived, then lets them all go: two
 * refreshes whose fetches end apart reach the store at once, as on two replicas.
 */
const gate = { armed: 0, waiting: [] as (() => void)[] };
const SyncGate = {
  localAction(next: any, action: any) {
    if (action.name !== "episodes.sync_episodes") return next;
    return async (ctx: any) => {
      if (gate.armed) {
        await new Promise<void>((resolve) => {
          gate.waiting.push(resolve);
          if (gate.waiting.length >= gate.armed) for (const go of gate.waiting.splice(0)) go();
        });
      }
      return next(ctx);
    };
  },
};

const item = (podcast: string, n: number) => ({
  guid: `${podcast}-guid-${n}`,
  title: `${podcast} episode ${n}`,
  description: `About ${n}`,
  pub_date: new Date(Date.UTC(2024, 0, n)).toISOString(),
  duration: 600,
  enclosure_url: `https://media.test/${podcast}/${n}.mp3`,
  enclosure_type: "audio/mpeg",
  enclosure_length: 1000,
});

/** The stored episodes of a podcast, straight from the store. */
async function stored(server: TestServer, podcast_id: number): Promise<any[]> {
  return (server.broker.getLocalService("episodes") as any).adapter.find({ query: { podcast_id } });
}

function expectOnePerGuid(docs: any[], guids: string[]) {
  expect(docs.map((d) => d.guid).sort()).toEqual([...guids].sort());
}

function expectDisjoint(lists: number[][]) {
  const all = lists.flat();
  expect(new Set(all).size).toBe(all.length);
}

describe("overlapping feed syncs of one podcast", () => {
  let server: TestServer;
  let feeds: Loopback;
  let u: Record<string, { id: number; key: string }>;
  const { post } = asUsers(() => ({ url: server.url, users: u }));

  beforeAll(async () => {
    config.refreshInterval = 0;
    feeds = await startLoopback({});
    server = await startServer({ services: [...ALL_SERVICES, Probe], broker: { middlewares: [...(brokerConfig.middlewares ?? []), SyncGate] } });
    u = await createUsers(server.url, ["alice"]);
  });
  afterAll(async () => {
    await server?.stop();
    await feeds?.close();
  });
  beforeEach(() => {
    created.length = 0;
  });

  test("two sync_episodes with the same items at once store each guid once; created_ids are disjoint and announced once", async () => {
    const podcast_id = 9001;
    const items = [1, 2, 3, 4, 5].map((n) => item("twin", n));
    const sync = () => server.broker.call<any, object>("episodes.sync_episodes", { podcast_id, episodes: items, announce: true });
    const [a, b] = await Promise.all([sync(), sync()]);
    const docs = await stored(server, podcast_id);
    expectOnePerGuid(
      docs,
      items.map((i) => i.guid),
    );
    expectDisjoint([a.created_ids, b.created_ids]);
    expect([...a.created_ids, ...b.created_ids].sort((x: number, y: number) => x - y)).toEqual(docs.map((d) => d._id).sort((x, y) => x - y));
    expect(a.total).toBe(5);
    expect(b.total).toBe(5);
    const announced = created.filter((e) => e.podcast_id === podcast_id).flatMap((e) => e.episode_ids);
    expect(announced.sort((x, y) => x - y)).toEqual(docs.map((d) => d._id).sort((x, y) => x - y));
    // The catalogue holds each episode once too.
    const episodes: any = server.broker.getLocalService("episodes");
    expect(episodes.catalog.podcast(podcast_id)).toHaveLength(5);
  });

  test("overlapping syncs with partly different items: the shared new ones are stored once, changed fields are kept", async () => {
    const podcast_id = 9002;
    const first = [1, 2].map((n) => item("mixed", n));
    await server.broker.call("episodes.sync_episodes", { podcast_id, episodes: first });
    const left = [...first, item("mixed", 3), item("mixed", 4)];
    // Episode 5 before the shared one: on MongoDB the ordered batch writes it, then stops at the collision.
    const right = [...first, item("mixed", 5), { ...item("mixed", 3), title: "mixed episode 3, renamed" }];
    const many = Array.from({ length: 4 }, (_, i) => (i % 2 ? right : left));
    const results: any[] = await Promise.all(many.map((episodes) => server.broker.call("episodes.sync_episodes", { podcast_id, episodes, announce: true })));
    const docs = await stored(server, podcast_id);
    expectOnePerGuid(docs, ["mixed-guid-1", "mixed-guid-2", "mixed-guid-3", "mixed-guid-4", "mixed-guid-5"]);
    expectDisjoint(results.map((r) => r.created_ids));
    expect(results.flatMap((r) => r.created_ids).length).toBe(3);
    expect(["mixed episode 3", "mixed episode 3, renamed"]).toContain(docs.find((d) => d.guid === "mixed-guid-3").title);
  });

  test("a re-guided episode and another sync's new episode of that guid at once: one episode, no error", async () => {
    // Changed episodes before the re-guided one delay its write past the other sync's insert, or not.
    for (const [podcast_id, before] of [
      [9003, 0],
      [9004, 8],
    ] as const) {
      const others = Array.from({ length: before }, (_, i) => item("busy", i + 1));
      await server.broker.call("episodes.sync_episodes", { podcast_id, episodes: [...others, item("old", 1)] });
      // The feed gave episode 1 a new guid (matched by its enclosure); another sync saw it with another enclosure and title.
      const reguided = [...others.map((o) => ({ ...o, title: `${o.title}, renamed` })), { ...item("old", 1), guid: "new-guid" }];
      const elsewhere = [{ ...item("other", 7), guid: "new-guid" }];
      await Promise.all([reguided, elsewhere].map((episodes) => server.broker.call("episodes.sync_episodes", { podcast_id, episodes })));
      const docs = await stored(server, podcast_id);
      expect(docs.filter((d) => d.guid === "new-guid")).toHaveLength(1);
      expect(docs).toHaveLength(before + 1 + docs.filter((d) => d.guid === "old-guid-1").length);
    }
  });

  test("a real feed refresh twice at once stores each new episode once", async () => {
    const entries = (n: number) =>
      Array.from({ length: n }, (_, i) => ({
        title: `Race ${i + 1}`,
        guid: `race-${i + 1}`,
        url: `${feeds.url}/media/race-${i + 1}.mp3`,
        date: `2024-02-${String(i + 1).padStart(2, "0")}T10:00:00Z`,
      }));
    let body = rssFeed("Race", entries(1));
    feeds.route("/race.xml", (_req, res) => void res.end(body));
    const add = await post("/api/data/add_podcast", "alice", {
      podcast_values: { pod_feed_url: `${feeds.url}/race.xml`, user_id: u.alice.id, pod_title: "Race" },
    });
    expect(add.status).toBe(200);
    const podcast_id: number = add.body.podcast_id;
    expect((await stored(server, podcast_id)).map((d) => d.guid)).toEqual(["race-1"]);
    created.length = 0;

    body = rssFeed("Race", entries(12));
    // Both refreshes fetch the feed, then sync it at once.
    gate.armed = 2;
    const refresh = () => server.broker.call<any, object>("feeds.refresh_feed", { podcast_id });
    const [a, b] = await Promise.all([refresh(), refresh()]).finally(() => (gate.armed = 0));
    expect([a.status, b.status]).toEqual(["updated", "updated"]);
    const docs = await stored(server, podcast_id);
    expectOnePerGuid(
      docs,
      entries(12).map((e) => e.guid),
    );
    expect(a.new_episodes + b.new_episodes).toBe(11);
    const announced = created.filter((e) => e.podcast_id === podcast_id).flatMap((e) => e.episode_ids);
    expect(announced).toHaveLength(11);
    expect(new Set(announced).size).toBe(11);
  });
});

describe("a data directory that already holds duplicate episodes", () => {
  test("the episodes service starts, folds each (podcast_id, guid) into its lowest id and keeps the users' states", async () => {
    const dataDir = tempDir();
    config.dataDir = dataDir;
    // With TEST_STORE=mongo, on a database of a wire double of its own (the older version's collections are made there first).
    const wire = process.env.TEST_STORE === "mongo" ? await startMongoWire() : null;
    const mongoUri = wire ? wire.uri("older_version") : "";
    config.mongoUri = mongoUri;
    // The collections as an older version left them: no unique index, the same guid stored twice.
    const Old: ServiceSchema = {
      name: "episodes",
      mixins: [DbMixin({ name: "episodes", indexes: [{ fields: { podcast_id: 1 } }] }, [{ name: "episode_states" }, { name: "listen_counters" }])],
    };
    const old = new ServiceBroker({ logger: false });
    const svc: any = old.createService(Old);
    await old.start();
    const now = new Date();
    const ep = (_id: number, podcast_id: number, guid: string) => ({ _id, ...item("dup", _id), guid, podcast_id, pub_date: now, created_at: now, p20: {} });
    await svc.adapter.insertMany([ep(1, 1, "a"), ep(2, 1, "a"), ep(3, 1, "a"), ep(4, 1, "b"), ep(5, 2, "a"), ep(6, 2, "a")]);
    const state = (user_id: number, episode_id: number, podcast_id: number, extra: object = {}) => ({
      _id: `${user_id}:${episode_id}`,
      user_id,
      episode_id,
      podcast_id,
      listen_duration: 0,
      completed: false,
      saved: false,
      last_listened_at: null,
      ...extra,
    });
    await svc.stores.episode_states.insertMany([
      state(10, 1, 1, { listen_duration: 5 }), // kept as it is
      state(10, 2, 1, { listen_duration: 99 }), // dropped: user 10 has a state of episode 1
      state(11, 2, 1, { completed: true, last_listened_at: new Date("2024-01-01") }), // moves to 1
      state(11, 3, 1, { listen_duration: 7, last_listened_at: new Date("2024-02-01") }), // moves to 1 instead: listened to last
      state(12, 6, 2, { saved: true }), // moves to 5
      state(12, 4, 1, { saved: true }), // not a duplicate
    ]);
    await old.stop();

    const server = await startServer({ dataDir, mongoUri });
    try {
      const episodes: any = server.broker.getLocalService("episodes");
      const docs: any[] = await episodes.adapter.find({ query: {} });
      expect(docs.map((d) => [d._id, d.podcast_id, d.guid]).sort((x, y) => x[0] - y[0])).toEqual([
        [1, 1, "a"],
        [4, 1, "b"],
        [5, 2, "a"],
      ]);
      const states: any[] = await episodes.stores.episode_states.find({ query: {} });
      const byId = Object.fromEntries(states.map((s) => [s._id, s]));
      expect(Object.keys(byId).sort()).toEqual(["10:1", "11:1", "12:4", "12:5"]);
      expect(byId["10:1"].listen_duration).toBe(5);
      expect(byId["11:1"]).toMatchObject({ episode_id: 1, listen_duration: 7 });
      expect(byId["12:5"]).toMatchObject({ episode_id: 5, saved: true });
      expect(
        episodes.catalog
          .podcast(1)
          .map((r: any) => r._id)
          .sort(),
      ).toEqual([1, 4]);
      // The index guards from now on: a sync of the same guid matches episode 1.
      const res: any = await server.broker.call("episodes.sync_episodes", { podcast_id: 1, episodes: [{ ...item("dup", 1), guid: "a" }] });
      expect(res.created_ids).toEqual([]);
      const refused = await episodes.adapter.insert(ep(7, 1, "a")).then(
        () => null,
        (err: unknown) => err,
      );
      expect(isDuplicateKeyError(refused)).toBe(true);
    } finally {
      await server.stop();
      await wire?.close();
    }
  });
});
