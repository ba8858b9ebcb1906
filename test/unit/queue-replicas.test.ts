/**
 * Two queue replicas on one store (as over NATS on MongoDB): each serialises only its own requests, so
 * only the compare-and-set on the queue's version keeps concurrent changes from being lost.
 */
import { ServiceBroker, ServiceSchema } from "moleculer";
import { config } from "../../shared/config";
import QueueService from "../../services/queue.service";
import { plainSchema } from "../helpers/schema";

/** Every episode id is visible and belongs to podcast 1. */
const EpisodesStub: ServiceSchema = {
  name: "episodes",
  actions: {
    select_episodes(ctx: any) {
      const ids: number[] = ctx.params.selections[0].episode_ids;
      return [{ total: ids.length, episodes: ids.map((episodeid) => ({ episodeid, podcastid: 1 })) }];
    },
  },
};

describe("queue replicas sharing one store", () => {
  const brokers: ServiceBroker[] = [];
  afterAll(() => Promise.all(brokers.map((b) => b.stop())));

  test("20 concurrent changes split over two replicas: no duplicate, no gap, no lost item", async () => {
    config.dataDir = ":memory:";
    const replicas: any[] = [];
    for (let n = 0; n < 2; n++) {
      const broker = new ServiceBroker({ logger: false, nodeID: `replica-${n}` });
      broker.createService(EpisodesStub);
      replicas.push(broker.createService(plainSchema(QueueService)));
      await broker.start();
      brokers.push(broker);
    }
    // Both replicas use the first one's collection, as two nodes use one MongoDB collection.
    replicas[1].adapter = replicas[0].adapter;
    let lostRaces = 0;
    const update = replicas[0].adapter.updateMany.bind(replicas[0].adapter);
    replicas[0].adapter.updateMany = async (...args: unknown[]) => {
      const n = await update(...args);
      if (!n) lostRaces++;
      return n;
    };
    const call = (n: number, action: string, params: object) => brokers[n % 2].call(`queue.${action}`, { user_id: 7, ...params });
    for (let e = 1; e <= 10; e++) await call(e, "bulk_add", { episode_ids: [e] });
    await Promise.all([
      ...Array.from({ length: 15 }, (_, n) => call(n, "bulk_add", { episode_ids: [100 + n] })),
      ...[6, 7, 8, 9, 10].map((e) => call(e, "remove_queued_pod", { episode_id: e })),
    ]);
    const doc = await replicas[0].adapter.findOne({ _id: 7 });
    const ids: number[] = doc.items.map((i: any) => i.episode_id);
    expect(ids.slice(0, 5)).toEqual([1, 2, 3, 4, 5]);
    expect(ids.slice(5).sort((a, b) => a - b)).toEqual(Array.from({ length: 15 }, (_, n) => 100 + n));
    expect(lostRaces).toBeGreaterThan(0); // the replicas did race, and the retries repaired it
    expect(doc.version).toBe(30); // one write per change that changed something
  });
});
