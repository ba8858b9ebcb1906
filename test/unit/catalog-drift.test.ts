/**
 * An episodes replica's catalogue never drifts from the store (services/episodes.parts/indexes.ts): a
 * broadcast it missed (sent while it loaded, or while NATS was away) is made good by the change mark, a
 * change during a slow load is in the loaded catalogue, and an older re-read that answers late is not
 * applied over a newer one (episodes and a user's states).
 */
import type { ServiceBroker } from "moleculer";
import { episodesAlone } from "../helpers/episodes-alone";
import EpisodesService from "../../services/episodes.service";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("episodes catalogue against missed broadcasts and late answers", () => {
  let broker: ServiceBroker;
  let svc: any;

  beforeEach(async () => ({ broker, svc } = await episodesAlone()));
  afterEach(() => broker.stop());

  const item = (guid: string, title: string) => ({
    guid,
    title,
    description: `About ${title}`,
    pub_date: new Date(Date.UTC(2026, 0, 1)).toISOString(),
    duration: 600,
    enclosure_url: `https://media.test/${guid}.mp3`,
    enclosure_type: "audio/mpeg",
    enclosure_length: 1000,
  });
  const sync = (podcast_id: number, episodes: object[]) => broker.call("episodes.sync_episodes", { podcast_id, episodes });
  /** What another replica does on a write: the document, then the next change mark; its broadcast is up to the test. */
  async function writeElsewhere(doc: { _id: number; podcast_id: number; guid: string; title: string }): Promise<number> {
    await svc.adapter.insert({ ...doc, pub_date: new Date(), duration: 60, enclosure_type: "audio/mpeg", created_at: new Date() });
    return (await svc.incrementDoc(svc.stores.counters, "episodes_catalog_mark", { seq: 1 })).seq;
  }
  /** The next store read by ids reads at once but answers only when the returned function is called (a slow reply). */
  function holdFirstRead(): () => void {
    const original = svc.findByIds.bind(svc);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let calls = 0;
    svc.findByIds = async (...args: unknown[]) => {
      const answer = await original(...args);
      if (++calls === 1) await held;
      return answer;
    };
    return release;
  }
  const fromReplica = (params: object) => (EpisodesService.events as any)["episodes.catalog_changed"].handler.call(svc, { params, nodeID: "another-node" });
  /** The load streams what the store held when it began, slowly (a long cursor at 1,000,000 episodes). */
  function slowLoad(pauseMs: number) {
    const original = svc.forEachDoc.bind(svc);
    svc.forEachDoc = async (store: unknown, fields: string[], each: (d: unknown) => void) => {
      const docs: unknown[] = [];
      await original(store, fields, (d: unknown) => docs.push(d));
      for (const d of docs) {
        await sleep(pauseMs);
        each(d);
      }
    };
  }

  test("a write whose broadcast never came is read in after two checks, or at once after a start or reconnect", async () => {
    await sync(1, [item("a", "A")]);
    await writeElsewhere({ _id: 9001, podcast_id: 1, guid: "z", title: "Written elsewhere" });
    // The first check may meet a broadcast on its way; the second reloads.
    await svc.reconcileCatalog(false);
    expect(svc.catalog.get(9001)).toBeUndefined();
    await svc.reconcileCatalog(false);
    expect(svc.catalog.get(9001)?.title).toBe("Written elsewhere");

    await writeElsewhere({ _id: 9002, podcast_id: 1, guid: "y", title: "Lost in a NATS drop" });
    await (EpisodesService.events as any)["$transporter.connected"].call(svc, { params: { wasReconnect: true } });
    expect(svc.catalog.get(9002)?.title).toBe("Lost in a NATS drop");
    // Nothing behind: a check reloads nothing.
    const loaded = svc.catalog;
    await svc.reconcileCatalog(true);
    expect(svc.catalog).toBe(loaded);
  });

  test("broadcasts received in any order keep the held mark; a gap is never taken as caught up", async () => {
    const m1 = await writeElsewhere({ _id: 9101, podcast_id: 2, guid: "p", title: "P" });
    const m2 = await writeElsewhere({ _id: 9102, podcast_id: 2, guid: "q", title: "Q" });
    const m3 = await writeElsewhere({ _id: 9103, podcast_id: 2, guid: "r", title: "R" });
    await fromReplica({ episode_ids: [9103], mark: m3 });
    await fromReplica({ episode_ids: [9101], mark: m1 });
    expect(svc.catalogMark).toBe(m1);
    await fromReplica({ episode_ids: [9102], mark: m2 });
    expect(svc.catalogMark).toBe(m3);
    expect(
      svc.catalog
        .podcast(2)
        .map((r: any) => r._id)
        .sort(),
    ).toEqual([9101, 9102, 9103]);
  });

  test("changes that land during a slow load are in the catalogue once it is loaded", async () => {
    await sync(
      1,
      Array.from({ length: 40 }, (_, i) => item(`e${i}`, `Episode ${i}`)),
    );
    slowLoad(5);
    const loading = svc.loadCatalog();
    await sleep(30);
    // A replica's write whose broadcast arrives during the load, and one whose broadcast is lost.
    const heard = await writeElsewhere({ _id: 9201, podcast_id: 3, guid: "h", title: "Heard" });
    await fromReplica({ episode_ids: [9201], mark: heard });
    await writeElsewhere({ _id: 9202, podcast_id: 3, guid: "l", title: "Lost" });
    // This node's own write during the load, and a title changed by another replica.
    await sync(1, [item("e0", "Episode 0, renamed")]);
    await loading;
    expect(svc.catalog.size).toBe(41);
    expect(svc.catalog.get(9201)?.title).toBe("Heard");
    const e0 = (await svc.adapter.findOne({ guid: "e0" }))._id;
    expect(svc.catalog.get(e0).title).toBe("Episode 0, renamed");
    // The lost one: the mark read before the load is behind the store's, so the check after the load reloads.
    await (EpisodesService.events as any)["$broker.started"].call(svc, {});
    expect(svc.catalog.get(9202)?.title).toBe("Lost");
    expect(svc.catalog.size).toBe(await svc.adapter.count({}));
  });

  test("an older re-read of an episode that answers after a newer one is not applied over it", async () => {
    await sync(1, [item("a", "Old title")]);
    const id = (await svc.adapter.findOne({ guid: "a" }))._id;
    const release = holdFirstRead();
    const late = svc.catalogChanged([id], false);
    await svc.adapter.updateMany({ _id: id }, { $set: { title: "New title" } });
    await svc.catalogChanged([id], false);
    release();
    await late;
    expect(svc.catalog.get(id).title).toBe("New title");
  });

  test("an older re-read of a user's states that answers after a newer one is not applied over it", async () => {
    await sync(1, [item("a", "A")]);
    const id = (await svc.adapter.findOne({ guid: "a" }))._id;
    const states = svc.stores.episode_states;
    await states.insert({ _id: `7:${id}`, user_id: 7, episode_id: id, podcast_id: 1, listen_duration: 10 });
    expect((await svc.userStates(7)).byEpisode.get(id).listen_duration).toBe(10);
    const release = holdFirstRead();
    await states.updateMany({ _id: `7:${id}` }, { $set: { listen_duration: 20 } });
    const late = svc.statesChanged(7, [id], false);
    await states.updateMany({ _id: `7:${id}` }, { $set: { listen_duration: 30 } });
    await svc.statesChanged(7, [id], false);
    release();
    await late;
    expect((await svc.userStates(7)).byEpisode.get(id).listen_duration).toBe(30);
  });
});
