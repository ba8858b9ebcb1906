/** shared/leased-job.ts: a failed pass is logged, its claim undone, and the next beat runs it again. */
import type { Service } from "moleculer";
import { LeasedJob, rhythmInLease } from "../../shared/leased-job";
import { SqliteAdapter } from "../../shared/sqlite-store";

describe("LeasedJob", () => {
  test("a pass that fails is logged and due again at the next beat; one that succeeds records its start", async () => {
    const store = new SqliteAdapter(null, false);
    await store.connect();
    const warn = jest.fn();
    // What the job reads of its service: the node and the logger.
    const service = { broker: { nodeID: "n1" }, logger: { warn } } as unknown as Service;
    let fail = true;
    const runs: Date[] = [];
    const job = new LeasedJob(service, {
      leaseId: "job",
      name: "test job",
      store: () => store,
      leaseSeconds: () => 30,
      beatMs: () => 0,
      ensure: "start",
      beatAtStart: false,
      claim: rhythmInLease((last) => !last),
      run: async (_s, now) => {
        runs.push(now);
        if (fail) throw new Error("peer not reachable");
      },
    });
    await job.start();
    await job.tick();
    await job.pass;
    expect(warn).toHaveBeenCalledWith("test job pass failed", { error: "peer not reachable" });
    expect((await store.findOne({ _id: "job" }))!.last_run_at).toBeNull();
    fail = false;
    await job.tick();
    await job.pass;
    expect(runs).toHaveLength(2);
    expect((await store.findOne({ _id: "job" }))!.last_run_at).toEqual(runs[1]);
    // Recorded: not due again.
    await job.tick();
    expect(job.pass).toBeNull();
    await job.stop();
    expect((await store.findOne({ _id: "job" }))!.holder).toBeNull();
    await store.disconnect();
  });
});
