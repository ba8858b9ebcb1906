/**
 * The refresh scheduler with two feeds replicas on two brokers joined by Moleculer's in-process
 * transporter. With MongoDB both replicas share the feed_leases collection; here the second replica
 * is given the first one's lease store, which is that situation on the embedded store.
 */
import { ServiceBroker } from "moleculer";
import brokerConfig from "../../moleculer.config";
import { config } from "../../shared/config";
import EpisodesService from "../../services/episodes.service";
import FeedsService from "../../services/feeds.service";
import PodcastsService from "../../services/podcasts.service";
import { Loopback, startLoopback } from "../helpers/loopback";
import { fixture } from "../helpers/podcasts";
import { plainSchema } from "../helpers/schema";

describe("feed refresh scheduler over two replicas", () => {
  const calls: Record<string, number> = { a: 0, b: 0 };
  let loop: Loopback;
  let a: ServiceBroker;
  let b: ServiceBroker;
  let feedsA: any;
  let feedsB: any;

  function broker(nodeID: "a" | "b") {
    return new ServiceBroker({
      ...brokerConfig,
      nodeID,
      namespace: `sched-${process.pid}`,
      transporter: "Fake",
      logger: false,
      middlewares: [
        ...(brokerConfig.middlewares ?? []),
        {
          localAction(next: any, action: any) {
            if (action.name !== "feeds.refresh_feed") return next;
            return (ctx: any) => {
              calls[nodeID]++;
              return next(ctx);
            };
          },
        },
      ],
    });
  }

  beforeAll(async () => {
    config.dataDir = ":memory:";
    config.refreshInterval = 0; // ticks are driven by the test
    config.outboundAllowPrivate = "127.0.0.1/32"; // the feeds below are added without a caller: user rights
    loop = await startLoopback((req, res) => void res.end(fixture("all_things_chemical_4items.xml").replace("All Things Chemical", `Feed ${req.url}`)));
    a = broker("a");
    b = broker("b");
    a.createService(plainSchema(PodcastsService));
    a.createService(plainSchema(EpisodesService));
    feedsA = a.createService(plainSchema(FeedsService));
    feedsB = b.createService(plainSchema(FeedsService));
    await Promise.all([a.start(), b.start()]);
    await a.waitForServices(["podcasts", "episodes", "feeds"]);
    await b.waitForServices(["podcasts", "feeds"]);
    feedsB.adapter = feedsA.adapter; // one lease collection, as with MONGO_URI
    for (let i = 0; i < 20; i++) await a.call("podcasts.add_custom_podcast", { feed_url: `${loop.url}/feed-${i}.xml`, user_id: 1 });
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await loop?.close();
  });

  test("only one replica holds the lease, however often both tick", async () => {
    for (let i = 0; i < 5; i++)
      await Promise.all([feedsA.refreshJob.claimLease(), feedsB.refreshJob.claimLease(), feedsA.refreshJob.tick(), feedsB.refreshJob.tick()]);
    const results = await Promise.all([feedsA.refreshJob.claimLease(), feedsB.refreshJob.claimLease()]);
    expect(results.filter(Boolean)).toHaveLength(1);
    const lease = await feedsA.adapter.findOne({ _id: "feed-refresh-scheduler" });
    const holder = results[0] ? feedsA : feedsB;
    expect(lease.holder).toBe(holder.refreshJob.holder);
    expect(lease.last_run_at).not.toBeNull(); // the first holder started the rhythm without refreshing
    expect(calls.a + calls.b).toBe(0);
  });

  test("the holder refreshes when due and spreads the feeds over both replicas", async () => {
    const holder = (await feedsA.refreshJob.claimLease()) ? feedsA : feedsB;
    await holder.adapter.updateMany({ _id: "feed-refresh-scheduler" }, { $set: { last_run_at: new Date(0) } });
    config.refreshInterval = 30;
    const before = loop.requests.length;
    try {
      await holder.refreshJob.tick();
      expect(holder.refreshJob.pass).not.toBeNull();
      await holder.refreshJob.pass;
    } finally {
      config.refreshInterval = 0;
    }
    expect(calls.a + calls.b).toBe(20);
    expect(calls.a).toBeGreaterThan(0);
    expect(calls.b).toBeGreaterThan(0);
    expect(loop.requests.length - before).toBe(20);
    // Not due again right after a run.
    config.refreshInterval = 30;
    try {
      await holder.refreshJob.tick();
      expect(holder.refreshJob.pass).toBeNull();
    } finally {
      config.refreshInterval = 0;
    }
  });

  test("another replica takes over when the holder's lease expires or it stops", async () => {
    const holder = (await feedsA.refreshJob.claimLease()) ? feedsA : feedsB;
    const other = holder === feedsA ? feedsB : feedsA;
    expect(await other.refreshJob.claimLease()).toBe(false);
    await holder.adapter.updateMany({ _id: "feed-refresh-scheduler" }, { $set: { expires_at: new Date(Date.now() - 1000) } });
    expect(await other.refreshJob.claimLease()).toBe(true);
    expect(await holder.refreshJob.claimLease()).toBe(false);
  });
});
