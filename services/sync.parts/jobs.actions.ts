/**
 * Syncs as durable jobs (house rule 6, docs/architecture.md): a request or the scheduler creates a `sync` task, a worker
 * runs it through run_job, which syncs under the user's lease. A request waits up to SYNC_WAIT_MS to
 * answer with the figures (as clients of this API expect), else with the task_id alone.
 */
import type { ServiceActionsSchema, ServiceMethods } from "moleculer";
import { config } from "../../shared/config";
import { CreateTaskParams, CreateTasksResult, JOB_SYNC, TaskRecord, tasksCreate } from "../../shared/contracts/tasks";
import type { RunSyncJobParams, SyncJobPayload, SyncRunAnswer } from "../../shared/contracts/sync";
import type { Caller } from "../../shared/contracts/call";
import type { Ctx } from "../../shared/service-types";
import { failureOf, SyncSettingsDoc, SyncSummary } from "./model";
import type { SyncThis } from "./this";

const id = { type: "number", integer: true, positive: true, convert: true };

export const jobActions: ServiceActionsSchema = {
  /** Runs a sync job (called by the workers): 409 while another sync of the user holds the lease, so the job is retried. */
  run_job: {
    visibility: "public",
    params: {
      user_id: id,
      force: "boolean",
      subscriptions_only: { type: "boolean", optional: true },
      type: { type: "enum", values: ["gpodder", "nextcloud"], optional: true },
    },
    async handler(this: SyncThis, ctx: Ctx<RunSyncJobParams>): Promise<SyncSummary & { message: string }> {
      const { user_id, ...opts } = ctx.params;
      const summary: SyncSummary = await this.syncUser(ctx, user_id, opts);
      return { message: "Sync complete", ...summary };
    },
  },
};

export const jobMethods: ServiceMethods = {
  syncJob(this: SyncThis, user_id: number, opts: SyncJobPayload): CreateTaskParams {
    const mode = opts.force ? "force" : opts.subscriptions_only ? "subscriptions" : "full";
    return { task_type: JOB_SYNC, user_id, payload: { ...opts }, dedupe_key: `sync:${user_id}:${mode}` };
  },
  /** A sync asked for over the API: the task, and its figures (or its failure as an error) when it ends in time. */
  async queueSync(this: SyncThis, ctx: Caller, user_id: number, opts: SyncJobPayload): Promise<SyncRunAnswer> {
    await this.settingsOf(user_id, opts.type); // 404 before any task exists
    const res: CreateTasksResult = await tasksCreate(ctx, { tasks: [this.syncJob(user_id, opts)] });
    const task_id = (res.created[0] ?? res.existing[0]).id;
    const done: TaskRecord | null = await this.waitForTask(ctx, task_id, config.syncWaitMs);
    if (done?.status === "SUCCESS") {
      // The task's result without its own message (the answer's message is this one).
      const { message: _message, ...summary } = done.result as SyncSummary & { message: string };
      return { success: true, detail: "Sync complete", message: "Sync complete", task_id, ...summary };
    }
    if (done) {
      const s: SyncSettingsDoc | null = await this.adapter.findOne({ _id: user_id });
      throw failureOf(s?.last_error_code, done.message);
    }
    return { success: true, detail: "The sync continues in the background", message: "The sync continues in the background", task_id };
  },
  /**
   * One round of the scheduler: a sync task for every enabled account not synced for SYNC_INTERVAL.
   * scheduled_at is a compare-and-set, so one replica queues a user once per interval, even when the last sync failed.
   */
  async syncDue(this: SyncThis): Promise<void> {
    const now = new Date();
    const due = new Date(now.getTime() - config.syncInterval * 60_000);
    const accounts: SyncSettingsDoc[] = await this.adapter.find({ query: { enabled: true } });
    const jobs: CreateTaskParams[] = [];
    for (const s of accounts) {
      if (s.last_sync && new Date(s.last_sync) > due) continue;
      const mine = await this.adapter.updateMany(
        { _id: s._id, $or: [{ scheduled_at: { $lt: due } }, { scheduled_at: { $exists: false } }] },
        { $set: { scheduled_at: now } },
      );
      if (mine > 0) jobs.push(this.syncJob(s.user_id, { force: false }));
    }
    if (jobs.length) await tasksCreate(this.broker, { tasks: jobs });
  },
};
