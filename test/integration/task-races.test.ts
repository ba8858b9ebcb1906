/**
 * Job deduplication that holds when creates race (two tasks replicas, or calls interleaving in one
 * process): the store's unique index on open_key is the guard, not the read before the insert.
 */
import TasksService from "../../services/tasks.service";
import { config } from "../../shared/config";
import type { CreateTasksResult } from "../../shared/contracts/tasks";
import { plainSchema } from "../helpers/schema";
import { startServer, TestServer } from "../helpers/server";

/** A type no worker of the server claims: the test plays the worker. */
const TYPE = "race-test-job";

describe("tasks.create under concurrency", () => {
  let server: TestServer;
  let tasks: any;
  const create = (list: object[]) => server.broker.call<CreateTasksResult, object>("tasks.create", { tasks: list });
  const job = (dedupe_key: string | null, task_type = TYPE) => ({ task_type, user_id: 1, payload: {}, dedupe_key });
  const openOf = async (key: string) =>
    (await tasks.adapter.find({ query: { dedupe_key: key } })).filter((d: any) => ["PENDING", "RUNNING", "DOWNLOADING"].includes(d.status));

  beforeAll(async () => {
    server = await startServer({ services: [plainSchema(TasksService)] });
    tasks = server.broker.getLocalService("tasks");
  });
  afterAll(() => server?.stop());

  test("many concurrent creates with one dedupe key make one job; after it finishes a create makes a new one", async () => {
    const results = await Promise.all(Array.from({ length: 20 }, () => create([job("same-key")])));
    const created = results.flatMap((r) => r.created);
    expect(created).toHaveLength(1);
    const id = created[0].id;
    // Every other call got the open job back, as a skipped one.
    for (const r of results) expect([...r.created, ...r.existing].map((t) => t.id)).toEqual([id]);
    expect(await openOf("same-key")).toHaveLength(1);

    // Still open: another create is skipped.
    expect((await create([job("same-key")])).existing.map((t) => t.id)).toEqual([id]);

    // The job runs and finishes: the key is free again.
    const claimed: any = await server.broker.call("tasks.claim", { worker: "test-worker", types: [TYPE] });
    expect(claimed.id).toBe(id);
    expect((await create([job("same-key")])).existing.map((t) => t.id)).toEqual([id]); // running is unfinished too
    expect(await server.broker.call("tasks.finish", { id, lease: claimed.lease, status: "SUCCESS", message: "done" })).toEqual({ finished: true });
    const again = await Promise.all(Array.from({ length: 10 }, () => create([job("same-key")])));
    const next = again.flatMap((r) => r.created);
    expect(next).toHaveLength(1);
    expect(next[0].id).not.toBe(id);
    expect(await openOf("same-key")).toHaveLength(1);
  });

  test("batches that overlap: each key once, jobs without a key always made", async () => {
    const batch = () => create([job("batch-a"), job(null), job("batch-b"), job(null)]);
    const results = await Promise.all(Array.from({ length: 8 }, batch));
    const created = results.flatMap((r) => r.created);
    expect(created.filter((t) => t.task_type === TYPE)).toHaveLength(2 + 2 * 8);
    expect(await openOf("batch-a")).toHaveLength(1);
    expect(await openOf("batch-b")).toHaveLength(1);
    expect(new Set(created.map((t) => t.id)).size).toBe(created.length);
  });

  test("a job that fails for good releases its key; one that is retried keeps it", async () => {
    const before = config.taskMaxAttempts;
    config.taskMaxAttempts = 2;
    try {
      const type = `${TYPE}-retry`;
      const [first] = (await create([job("retry-key", type)])).created;
      let claimed: any = await server.broker.call("tasks.claim", { worker: "w", types: [type] });
      expect(claimed.id).toBe(first.id);
      expect(await server.broker.call("tasks.retry", { id: first.id, lease: claimed.lease, message: "network" })).toEqual({ retrying: true });
      expect((await create([job("retry-key", type)])).existing.map((t) => t.id)).toEqual([first.id]);
      // Due again at once.
      await tasks.adapter.updateMany({ _id: Number(first.id) }, { $set: { run_after: new Date(0) } });
      claimed = await server.broker.call("tasks.claim", { worker: "w", types: [type] });
      expect(claimed.id).toBe(first.id);
      expect(await server.broker.call("tasks.retry", { id: first.id, lease: claimed.lease, message: "network" })).toEqual({ retrying: false });
      const after = await Promise.all(Array.from({ length: 5 }, () => create([job("retry-key", type)])));
      expect(after.flatMap((r) => r.created)).toHaveLength(1);
    } finally {
      config.taskMaxAttempts = before;
    }
  });

  test("jobs stored by an older version: an open one without open_key still dedupes, a finished one still holding its key frees it", async () => {
    const now = new Date();
    const legacy = (_id: number, status: string, extra: object) => ({
      _id,
      task_type: TYPE,
      user_id: 1,
      status,
      progress: 0,
      message: "",
      result: null,
      payload: {},
      item_id: null,
      episode_title: null,
      podcast_name: null,
      attempts: 0,
      claim_seq: 0,
      lease_owner: null,
      lease_until: null,
      run_after: new Date(now.getTime() + 3_600_000),
      created_at: now,
      updated_at: now,
      ...extra,
    });
    await tasks.adapter.insert(legacy(900001, "PENDING", { dedupe_key: "legacy-open" }));
    await tasks.adapter.insert(legacy(900002, "SUCCESS", { dedupe_key: "legacy-stale", open_key: "legacy-stale" }));
    expect((await create([job("legacy-open")])).existing.map((t) => t.id)).toEqual(["900001"]);
    const results = await Promise.all(Array.from({ length: 5 }, () => create([job("legacy-stale")])));
    expect(results.flatMap((r) => r.created)).toHaveLength(1);
    expect(await openOf("legacy-stale")).toHaveLength(1);
  });
});
