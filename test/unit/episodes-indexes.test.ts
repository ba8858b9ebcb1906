/**
 * The episodes service's in-memory indexes (services/episodes.parts/catalog-index.ts, state-cache.ts)
 * must answer what the store answers: checked against store queries after inserts, updates and
 * deletes, and the catalogue index alone against a plain list under random changes.
 */
import type { ServiceBroker } from "moleculer";
import { episodesAlone } from "../helpers/episodes-alone";
import EpisodesService from "../../services/episodes.service";
import { CatalogIndex, type CatalogRow, toRow } from "../../services/episodes.parts/catalog-index";
import { StateCache } from "../../services/episodes.parts/state-cache";
import { escapeRegex } from "../../services/episodes.parts/model";

const DAY = 86_400_000;
const fields = (r: CatalogRow) => [r._id, r.podcast_id, r.title, r.pub_date?.toISOString() ?? null, r.duration, r.enclosure_type];
const newestFirst = (a: CatalogRow, b: CatalogRow) => b.pub - a.pub || b._id - a._id;

function random(seed: number) {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

describe("catalogue index", () => {
  test("matches a plain list of rows under random upserts, moves and removals", () => {
    const rnd = random(7);
    const index = new CatalogIndex();
    const model = new Map<number, CatalogRow>();
    for (let step = 0; step < 2000; step++) {
      const id = 1 + Math.floor(rnd() * 300);
      if (rnd() < 0.2) {
        const before = index.version;
        index.remove([id]);
        expect(index.version).toBe(model.delete(id) ? before + 1 : before);
        continue;
      }
      // Few distinct dates (ties by id), some without a date, and podcasts changing now and then.
      const pub = rnd() < 0.1 ? null : new Date(Date.UTC(2026, 0, 1) + Math.floor(rnd() * 20) * DAY);
      const row = toRow({ _id: id, podcast_id: 1 + Math.floor(rnd() * 5), title: `t${id}`, pub_date: pub, duration: 60, enclosure_type: null });
      index.upsert([row]);
      model.set(id, row);
      if (step % 100 === 0 || step === 1999) {
        expect(index.size).toBe(model.size);
        for (let p = 1; p <= 6; p++) {
          const expected = [...model.values()].filter((r) => r.podcast_id === p).sort(newestFirst);
          expect(index.podcast(p).map((r) => r._id)).toEqual(expected.map((r) => r._id));
          const after = Date.UTC(2026, 0, 10);
          expect(index.podcastSince(p, after).map((r) => r._id)).toEqual(expected.filter((r) => r.pub > after).map((r) => r._id));
          expect(index.podcastSince(p, null)).toEqual(index.podcast(p));
        }
      }
    }
  });
});

describe("catalogue search filter", () => {
  test("never rules out a podcast where a case-insensitive RegExp of the term matches, and rules out others", () => {
    const rnd = random(11);
    // Letters whose case rules differ (ß → SS, final sigma, dotted I, Kelvin sign, long s) among plain ones.
    const alphabet = "abcxyzABCXYZ ßſςσΣİıiKkKéÉ-:1".split("");
    const text = (n: number) => Array.from({ length: n }, () => alphabet[Math.floor(rnd() * alphabet.length)]).join("");
    const index = new CatalogIndex();
    // The rows keep no description: the service hands each one to the filter as it reads it from the store.
    const rows = Array.from({ length: 60 }, (_, i) =>
      Object.assign(toRow({ _id: i + 1, podcast_id: 1 + (i % 6), title: text(20), pub_date: null, duration: 0, enclosure_type: null }), {
        description: rnd() < 0.2 ? null : text(60),
      }),
    );
    index.upsert(rows.slice(0, 30));
    expect(index.mayContain(1, "abc")).toBe(true); // no filter yet: nothing is ruled out
    index.startGrams(); // from the titles it holds; descriptions and later rows are added to it
    for (const r of rows.slice(0, 30)) index.addText(r.podcast_id, r.description);
    index.upsert(rows.slice(30));
    for (const r of rows.slice(30)) index.addText(r.podcast_id, r.description);
    const flip = (s: string) =>
      s
        .split("")
        .map((c) => (rnd() < 0.5 ? c.toUpperCase() : c.toLowerCase()))
        .join("");
    let ruledOut = 0;
    for (let n = 0; n < 3000; n++) {
      const from = rows[Math.floor(rnd() * rows.length)];
      const source = rnd() < 0.5 || from.description === null ? from.title : from.description;
      const at = Math.floor(rnd() * (source.length - 5));
      // A piece of a stored text with its case changed, or random letters.
      const term = rnd() < 0.7 ? flip(source.slice(at, at + 3 + Math.floor(rnd() * 3))) : text(4);
      const re = new RegExp(escapeRegex(term), "i");
      for (let p = 1; p <= 6; p++) {
        const matches = rows.some((r) => r.podcast_id === p && (re.test(r.title) || (r.description !== null && re.test(r.description))));
        const may = index.mayContain(p, term);
        if (matches) expect(may).toBe(true);
        if (!may) ruledOut++;
      }
    }
    expect(ruledOut).toBeGreaterThan(0);
    expect(index.mayContain(99, "abc")).toBe(false); // a podcast without episodes
  });
});

describe("state cache", () => {
  test("keeps at most its number of states, whole users, the least recently read leaving first", async () => {
    const cache = new StateCache(5);
    const reads: number[] = [];
    const states = (user_id: number, n: number) => async () => {
      reads.push(user_id);
      return Array.from({ length: n }, (_, i) => ({
        _id: `${user_id}:${i + 1}`,
        user_id,
        episode_id: i + 1,
        podcast_id: 1,
        listen_duration: 0,
        completed: false,
        saved: false,
        last_listened_at: null,
      }));
    };
    await cache.get(1, states(1, 2));
    await cache.get(2, states(2, 2));
    await cache.get(1, states(1, 2)); // read again: 2 is now the least recently read
    await cache.get(3, states(3, 2));
    expect([cache.has(1), cache.has(2), cache.has(3)]).toEqual([true, false, true]);
    await cache.get(4, states(4, 9)); // more than the bound alone: kept, everyone else leaves
    expect([cache.has(1), cache.has(3), cache.has(4)]).toEqual([false, false, true]);
    expect(reads).toEqual([1, 2, 3, 4]);
  });
});

describe("episodes service indexes against its store", () => {
  let broker: ServiceBroker;
  let svc: any;

  beforeEach(async () => ({ broker, svc } = await episodesAlone()));
  afterEach(() => broker.stop());

  const item = (guid: string, title: string, daysAgo: number | null, duration = 600) => ({
    guid,
    title,
    description: `About ${title}`,
    pub_date: daysAgo === null ? null : new Date(Date.now() - daysAgo * DAY).toISOString(),
    duration,
    enclosure_url: `https://media.test/${guid}.mp3`,
    enclosure_type: "audio/mpeg",
    enclosure_length: 1000,
  });
  /** The broadcast of another episodes replica, as this node's handler receives it. */
  const fromReplica = (event: string, params: object) => (EpisodesService.events as any)[event].handler.call(svc, { params, nodeID: "another-node" });
  const sync = (podcast_id: number, episodes: object[]) => broker.call("episodes.sync_episodes", { podcast_id, episodes });

  async function expectCatalogMatchesStore() {
    const stored: any[] = await svc.adapter.find({ query: {} });
    expect(svc.catalog.size).toBe(stored.length);
    for (const podcast_id of [1, 2]) {
      const fromStore: CatalogRow[] = stored
        .filter((e) => e.podcast_id === podcast_id)
        .map(toRow)
        .sort(newestFirst);
      expect(svc.catalog.podcast(podcast_id).map(fields)).toEqual(fromStore.map(fields));
    }
  }

  test("the catalogue follows feed syncs (inserts, changed items), deletes, and is rebuilt on start", async () => {
    await sync(1, [item("a", "First", 3), item("b", "Second", 2), item("c", "Undated", null)]);
    await sync(2, [item("x", "Other", 1)]);
    await expectCatalogMatchesStore();
    // A refresh that changes a title, a date and a duration, and adds an episode.
    await sync(1, [item("a", "First, renamed", 3), item("b", "Second", 0.5, 1200), item("c", "Undated", null), item("d", "Fourth", 5)]);
    await expectCatalogMatchesStore();
    expect(svc.catalog.podcast(1)[0].title).toBe("Second");
    // A deleted document leaves the catalogue once it is reported.
    const [gone]: any[] = await svc.adapter.find({ query: { guid: "x" } });
    await svc.adapter.removeMany({ _id: gone._id });
    await svc.catalogChanged([gone._id]);
    await expectCatalogMatchesStore();
    // Another replica's change arrives as the broadcast event: read from the store here too.
    await svc.adapter.updateMany({ guid: "d" }, { $set: { title: "Written elsewhere" } });
    const [d]: any[] = await svc.adapter.find({ query: { guid: "d" } });
    await fromReplica("episodes.catalog_changed", { episode_ids: [d._id] });
    await expectCatalogMatchesStore();
    const rebuilt = new CatalogIndex();
    svc.catalog = rebuilt;
    await svc.loadCatalog();
    await expectCatalogMatchesStore();
    // A restore writes the stores directly, then announces it: the catalogue starts again from the store.
    await svc.adapter.removeMany({ podcast_id: 1 });
    await svc.adapter.insert({
      _id: 999,
      podcast_id: 2,
      title: "Restored",
      description: null,
      pub_date: new Date(),
      duration: 5,
      enclosure_type: null,
      guid: "r",
    });
    await broker.emit("backup.restored", {});
    await expectCatalogMatchesStore();
    expect(svc.catalog.podcast(1)).toEqual([]);
  });

  test("a user's cached states and history follow writes, concurrent loads and removals", async () => {
    await sync(
      1,
      [1, 2, 3, 4, 5, 6].map((n) => item(`p1-${n}`, `P1 ${n}`, n)),
    );
    await sync(
      2,
      [1, 2, 3].map((n) => item(`p2-${n}`, `P2 ${n}`, n)),
    );
    const ids: number[] = (await svc.adapter.find({ query: {}, sort: ["_id"] })).map((e: any) => e._id);
    const write = (user_id: number, episode_id: number, fields: object) => broker.call("episodes.update_state", { user_id, episode_id, ...fields });

    async function expectCacheMatchesStore(user_id: number) {
      const stored: any[] = await svc.stores.episode_states.find({ query: { user_id } });
      const cached = await svc.userStates(user_id);
      const byId = (list: any[]) => Object.fromEntries(list.map((s) => [s.episode_id, s]));
      expect(byId(cached.all())).toEqual(byId(stored));
      const history = stored.filter((s) => s.last_listened_at).sort((a, b) => b.last_listened_at - a.last_listened_at || b.episode_id - a.episode_id);
      expect(cached.history().map((s: any) => s.episode_id)).toEqual(history.map((s) => s.episode_id));
    }

    await expectCacheMatchesStore(1); // empty, and now cached
    for (const [n, episode_id] of ids.entries()) await write(1, episode_id, n % 2 ? { saved: true } : { listen_duration: 10 * n });
    await expectCacheMatchesStore(1);
    await write(1, ids[1], { listen_duration: 5, completed: true });
    await write(1, ids[0], { saved: true });
    await expectCacheMatchesStore(1);

    // A load in flight while the user's states are written must not keep the older answer.
    await svc.statesChanged(2, null);
    const loading = svc.userStates(2);
    await Promise.all([write(2, ids[2], { listen_duration: 30 }), loading]);
    await expectCacheMatchesStore(2);

    // Another replica's write arrives as the broadcast event.
    await svc.stores.episode_states.updateMany({ _id: `1:${ids[3]}` }, { $set: { saved: false } });
    await fromReplica("episodes.states_changed", { user_id: 1, episode_ids: [ids[3]] });
    await expectCacheMatchesStore(1);

    await broker.emit("subscriptions.removed", { user_id: 1, podcast_id: 1 });
    await expectCacheMatchesStore(1);
    expect((await svc.userStates(1)).all().every((s: any) => s.podcast_id === 2)).toBe(true);
    await broker.emit("user.removed", { user_id: 1 });
    await expectCacheMatchesStore(1);
    expect((await svc.userStates(1)).all()).toEqual([]);
  });
});
