/**
 * The sync server with several writers of one user at once, as when two or more processes run the sync
 * group on one MongoDB (a rolling update's overlap, or a scaled group). Two brokers cannot share the
 * embedded store, so the processes are played in this one: every call of the gpodder service's per-user
 * queue goes to one of several queues (one per "process", as each process has its own), and every store
 * call yields to the event loop a few times before and after it runs, as MongoDB's round trips do. Devices
 * upload episode actions and subscription changes at once over HTTP while a reader device follows with
 * `since`: it must end up with everything, each action once, and the clock values must be unique and never
 * go back. A writer that dies holding the user's write lease holds the user's writes up only until the
 * lease expires; a write that outlives its lease still reaches a reader that read past it.
 */
import { api, basic } from "../helpers/client";
import { createUsers } from "../helpers/podcasts";
import { startServer, TestServer } from "../helpers/server";
import { config } from "../../shared/config";
import { takeLease } from "../../shared/lease";
import { rkeyRange } from "../../services/gpodder.parts/model";

const PASSWORD = "a long password"; // createUsers' password
const FEEDS = "http://feeds.example.org";
const LEASE = { holder: "write_holder", until: "write_until" };

/** A small seeded generator: the same interleavings on every run. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const STORE_METHODS = [
  "find",
  "findOne",
  "findById",
  "findByIds",
  "count",
  "project",
  "insert",
  "insertMany",
  "updateMany",
  "updateById",
  "upsertOne",
  "increment",
  "removeMany",
];

/**
 * Every store call of the service waits 0-3 turns of the event loop before and after it runs, and one in
 * ten a few milliseconds more (a slow round trip: another writer overtakes this one). Returns the undo.
 */
function interleaveStores(svc: any, rand: () => number): () => void {
  const turns = async () => {
    for (let n = Math.floor(rand() * 4); n > 0; n--) await new Promise((r) => setImmediate(r));
    if (rand() < 0.1) await new Promise((r) => setTimeout(r, 2 + rand() * 15));
  };
  const undo: (() => void)[] = [];
  for (const store of [svc.adapter, ...Object.values(svc.stores)] as any[]) {
    for (const name of STORE_METHODS) {
      const original = store[name];
      if (typeof original !== "function") continue;
      const own = Object.prototype.hasOwnProperty.call(store, name);
      store[name] = async (...args: unknown[]) => {
        await turns();
        try {
          return await original.apply(store, args);
        } finally {
          await turns();
        }
      };
      undo.push(() => (own ? (store[name] = original) : delete store[name]));
    }
  }
  return () => undo.forEach((u) => u());
}

/** The service's per-user queue as `count` processes have it: each call joins the queue of the next process. Returns the undo. */
function simulateProcesses(svc: any, count: number): () => void {
  const queues = Array.from({ length: count }, () => new Map<number, Promise<unknown>>());
  const original = svc.serial;
  let next = 0;
  svc.serial = (user_id: number, fn: () => Promise<unknown>) => {
    const queue = queues[next++ % count];
    const run = (queue.get(user_id) ?? Promise.resolve()).then(fn, fn);
    queue.set(
      user_id,
      run.catch(() => undefined),
    );
    return run;
  };
  return () => {
    svc.serial = original;
  };
}

describe("sync server: several writers of one user at once", () => {
  let server: TestServer;
  let gpodder: any;
  let alice: { id: number; key: string };
  let session = "";
  const sync = {
    get: (p: string) => api(server.url).get(p).set("Cookie", session),
    post: (p: string, body: unknown) =>
      api(server.url)
        .post(p)
        .set("Cookie", session)
        .send(body as object),
  };
  const episodesSince = async (since: number) => {
    const res = await sync.get(`/api/2/episodes/alice.json?since=${since}`);
    expect(res.status).toBe(200);
    return res.body as { actions: any[]; timestamp: number };
  };

  beforeAll(async () => {
    Object.assign(config, { refreshInterval: 0, syncInterval: 0, gpodderRetrySeconds: 0 });
    server = await startServer();
    alice = (await createUsers(server.url, ["alice"])).alice;
    const login = await api(server.url).post("/api/2/auth/alice/login.json").set("Authorization", basic("alice", PASSWORD));
    session = String(login.headers["set-cookie"][0]).split(";")[0];
    gpodder = server.broker.getLocalService("gpodder");
    // What devices send is not applied to the library here (that would fetch the made-up feeds): only the clock is under test.
    gpodder.applySoon = () => undefined;
  });
  afterAll(async () => {
    await server?.stop();
  });

  test("concurrent uploads from several devices through three processes: readers following `since` get every action once and every subscription change", async () => {
    const devices = ["phone-1", "phone-2", "tablet-1", "laptop-1", "car-1"];
    const readerNames = ["reader-1", "reader-2", "reader-3"];
    for (const d of [...devices, ...readerNames]) expect((await sync.post(`/api/2/devices/alice/${d}.json`, { caption: d, type: "mobile" })).status).toBe(200);
    // The first call seeds the (empty) library: done before the race.
    const first = await sync.get("/api/2/subscriptions/alice/reader-1.json?since=0");
    expect(first.status).toBe(200);
    const firstActions = await episodesSince(0);

    const undoStores = interleaveStores(gpodder, random(20240607));
    const undoProcesses = simulateProcesses(gpodder, 3);
    const uploaded: { key: string; upload: string }[] = [];
    const subscribed = new Set<string>();
    const removedFeeds = new Set<string>();
    const uploadTimestamps: number[] = [];
    let writing = true;

    // Each reader polls episode actions and subscription changes with the timestamps it was given, until the uploads are done and once more.
    const readers = readerNames.map((name) => ({
      name,
      seen: [] as string[],
      feeds: new Set<string>(first.body.add),
      timestamps: { actions: [firstActions.timestamp], feeds: [first.body.timestamp] },
      polls: 0,
    }));
    const poll = async (r: (typeof readers)[number]) => {
      r.polls++;
      const got = await episodesSince(r.timestamps.actions[r.timestamps.actions.length - 1]);
      for (const a of got.actions) r.seen.push(`${a.device}|${a.episode}|${a.action}`);
      r.timestamps.actions.push(got.timestamp);
      const subs = await sync.get(`/api/2/subscriptions/alice/${r.name}.json?since=${r.timestamps.feeds[r.timestamps.feeds.length - 1]}`);
      expect(subs.status).toBe(200);
      for (const url of subs.body.remove) r.feeds.delete(url);
      for (const url of subs.body.add) r.feeds.add(url);
      r.timestamps.feeds.push(subs.body.timestamp);
    };
    const reading = Promise.all(
      readers.map(async (r) => {
        while (writing) await poll(r);
        await poll(r);
      }),
    );

    const now = new Date().toISOString().slice(0, 19);
    const device = async (name: string, rounds: number) => {
      const mine: string[] = [];
      for (let r = 0; r < rounds; r++) {
        const upload = `${name}-${r}`;
        if (r % 2 === 0) {
          const actions = [0, 1, 2].map((k) => ({
            podcast: `${FEEDS}/${name}.xml`,
            episode: `${FEEDS}/media/${upload}-${k}.mp3`,
            device: name,
            timestamp: now,
            ...(k === 0 ? { action: "play", started: 0, position: 10 * r + k, total: 3000 } : { action: k === 1 ? "download" : "new" }),
          }));
          const res = await sync.post("/api/2/episodes/alice.json", actions);
          expect(res.status).toBe(200);
          uploadTimestamps.push(res.body.timestamp);
          for (const a of actions) uploaded.push({ key: `${name}|${a.episode}|${a.action}`, upload });
        } else {
          const add = [0, 1].map((k) => `${FEEDS}/${upload}-${k}.xml`);
          // Removes one of its own feeds added two rounds before.
          const remove = r >= 3 ? [mine.shift()!] : [];
          const res = await sync.post(`/api/2/subscriptions/alice/${name}.json`, { add, remove });
          expect(res.status).toBe(200);
          uploadTimestamps.push(res.body.timestamp);
          mine.push(...add);
          for (const url of add) subscribed.add(url);
          for (const url of remove) {
            subscribed.delete(url);
            removedFeeds.add(url);
          }
        }
      }
    };
    const nextcloud = async (rounds: number) => {
      for (let r = 0; r < rounds; r++) {
        const upload = `nextcloud-${r}`;
        const actions = [0, 1].map((k) => ({
          podcast: `${FEEDS}/nc.xml`,
          episode: `${FEEDS}/media/${upload}-${k}.mp3`,
          guid: `${upload}-${k}`,
          action: "PLAY",
          timestamp: now,
          started: 0,
          position: 60 + k,
          total: 3000,
        }));
        const res = await sync.post("/index.php/apps/gpoddersync/episode_action/create", actions);
        expect(res.status).toBe(200);
        uploadTimestamps.push(res.body.timestamp);
        for (const a of actions) uploaded.push({ key: `nextcloud|${a.episode}|play`, upload });
        const add = [`${FEEDS}/${upload}.xml`];
        const sub = await sync.post("/index.php/apps/gpoddersync/subscription_change/create", { add, remove: [] });
        expect(sub.status).toBe(200);
        uploadTimestamps.push(sub.body.timestamp);
        subscribed.add(add[0]);
      }
    };
    try {
      await Promise.all([...devices.map((d) => device(d, 12)), nextcloud(6)]);
    } finally {
      writing = false;
      await reading;
      undoProcesses();
      undoStores();
    }

    // Every upload got its own clock value.
    expect(new Set(uploadTimestamps).size).toBe(uploadTimestamps.length);
    const expectedActions = uploaded.map((u) => u.key).sort();
    const expectedFeeds = [...subscribed].sort();
    for (const r of readers) {
      expect(r.polls).toBeGreaterThan(2);
      // The values a reader is given never go back.
      for (const list of [r.timestamps.actions, r.timestamps.feeds]) for (let i = 1; i < list.length; i++) expect(list[i]).toBeGreaterThanOrEqual(list[i - 1]);
      // Everything uploaded reached the reader, each action once.
      expect({ reader: r.name, actions: [...r.seen].sort() }).toEqual({ reader: r.name, actions: expectedActions });
      expect({ reader: r.name, feeds: [...r.feeds].sort() }).toEqual({ reader: r.name, feeds: expectedFeeds });
      for (const url of removedFeeds) expect(r.feeds.has(url)).toBe(false);
    }
    expect((await sync.get("/subscriptions/alice.json")).body.map((p: any) => p.url).sort()).toEqual(expectedFeeds);
    // As stored: the actions of one upload share one clock value, no other upload's.
    const uploadOf = new Map(uploaded.map((u) => [u.key, u.upload]));
    const stored: any[] = await gpodder.stores.gpodder_actions.find({ query: rkeyRange(alice.id, 0, Number.MAX_SAFE_INTEGER) });
    const bySeq = new Map<number, Set<string>>();
    for (const a of stored) bySeq.set(a.seq, (bySeq.get(a.seq) ?? new Set()).add(uploadOf.get(`${a.device ?? "nextcloud"}|${a.episode}|${a.action}`) ?? "?"));
    for (const uploads of bySeq.values()) expect(uploads.size).toBe(1);
    expect(bySeq.size).toBe(new Set(uploaded.map((u) => u.upload)).size);
    // The lease is free again and the clock is where the last write put it.
    const doc = await gpodder.adapter.findOne({ _id: alice.id });
    expect(doc).toMatchObject({ write_holder: null, clock: Math.max(...uploadTimestamps) });
    expect(doc.issued).toBeGreaterThanOrEqual(doc.clock);
  });

  test("a user's record from before the write lease (no lease fields) gets one at its first write", async () => {
    await gpodder.adapter.updateMany({ _id: alice.id }, { $unset: { write_holder: true, write_until: true, issued: true } });
    const before = (await episodesSince(0)).timestamp;
    const up = await sync.post("/api/2/episodes/alice.json", [
      { podcast: `${FEEDS}/old.xml`, episode: `${FEEDS}/media/old-1.mp3`, device: "phone-1", action: "download" },
    ]);
    expect(up.status).toBe(200);
    expect(up.body.timestamp).toBeGreaterThan(before);
    expect((await episodesSince(before)).actions.map((a) => a.episode)).toEqual([`${FEEDS}/media/old-1.mp3`]);
    expect(await gpodder.adapter.findOne({ _id: alice.id })).toMatchObject({ write_holder: null, issued: up.body.timestamp, clock: up.body.timestamp });
  });

  test("a writer that died holding the lease holds the user's writes up only until it expires; a lease that does not come in time is a 503, not a wait without end", async () => {
    const expires = Date.now() + 1500;
    await gpodder.adapter.updateMany({ _id: alice.id }, { $set: { write_holder: "killed-pod", write_until: new Date(expires) } });
    const up = await sync.post("/api/2/episodes/alice.json", [
      { podcast: `${FEEDS}/dead.xml`, episode: `${FEEDS}/media/dead-1.mp3`, device: "phone-1", action: "download" },
    ]);
    expect(up.status).toBe(200);
    expect(Date.now()).toBeGreaterThanOrEqual(expires);
    expect((await episodesSince(up.body.timestamp - 1)).actions.map((a) => a.episode)).toEqual([`${FEEDS}/media/dead-1.mp3`]);

    const wait = gpodder.settings.writeLeaseWaitMs;
    gpodder.settings.writeLeaseWaitMs = 300;
    try {
      await gpodder.adapter.updateMany({ _id: alice.id }, { $set: { write_holder: "stuck-pod", write_until: new Date(Date.now() + 60_000) } });
      const started = Date.now();
      const refused = await sync.post("/api/2/episodes/alice.json", [
        { podcast: `${FEEDS}/dead.xml`, episode: `${FEEDS}/media/dead-2.mp3`, device: "phone-1", action: "download" },
      ]);
      expect(refused.status).toBe(503);
      expect(Date.now() - started).toBeLessThan(5_000);
      // Reads do not wait for the lease.
      expect((await episodesSince(up.body.timestamp)).actions).toEqual([]);
    } finally {
      gpodder.settings.writeLeaseWaitMs = wait;
      await gpodder.adapter.updateMany({ _id: alice.id }, { $set: { write_holder: null, write_until: new Date(0) } });
    }
  });

  test("a write that outlived its lease while another process wrote and published gets a new clock value: a reader that read past it still receives it", async () => {
    const start = (await episodesSince(0)).timestamp;
    const actions = gpodder.stores.gpodder_actions;
    let taken = 0;
    let readerAt = 0;
    // Just before this write stores its actions, its lease expires and another process takes it, writes and publishes.
    actions.insertMany = async (docs: unknown[]) => {
      delete actions.insertMany;
      await gpodder.adapter.updateMany({ _id: alice.id }, { $set: { write_until: new Date(Date.now() - 1) } });
      expect(await takeLease(gpodder.adapter, alice.id, "other-pod", 10, { renew: false, fields: LEASE })).toBe(true);
      taken = (await gpodder.incrementDoc(gpodder.adapter, alice.id, { issued: 1 })).issued;
      const published = await gpodder.adapter.updateMany(
        { _id: alice.id, write_holder: "other-pod" },
        { $max: { clock: taken }, $set: { write_holder: null, write_until: new Date(0) } },
      );
      expect(published).toBe(1);
      // A reader now reads up to the other process's value: this write's actions are not stored yet.
      const read = await episodesSince(start);
      expect(read).toEqual({ actions: [], timestamp: taken });
      readerAt = read.timestamp;
      return actions.insertMany(docs);
    };
    const up = await sync.post("/api/2/episodes/alice.json", [
      { podcast: `${FEEDS}/slow.xml`, episode: `${FEEDS}/media/slow-1.mp3`, device: "phone-2", action: "play", position: 5, started: 0, total: 100 },
    ]);
    expect(up.status).toBe(200);
    expect(readerAt).toBe(taken);
    expect(up.body.timestamp).toBeGreaterThan(taken);
    expect((await episodesSince(readerAt)).actions.map((a) => a.episode)).toEqual([`${FEEDS}/media/slow-1.mp3`]);
    expect((await gpodder.adapter.findOne({ _id: alice.id })).write_holder).toBeNull();
  });
});
