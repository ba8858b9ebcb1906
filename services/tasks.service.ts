/**
 * Tasks: the durable job store (house rule 6, docs/architecture.md), the one owner of the `tasks` collection.
 *
 * A job is created PENDING. A worker claims it with a lease (compare-and-set on claim_seq, so two
 * workers never hold one job), moves it to RUNNING or DOWNLOADING and renews the lease with every
 * progress report. A job whose lease ran out (its worker died) is claimable again, so another worker
 * takes it over; finish is accepted only from the lease holder of an unfinished job, so a job ends
 * exactly once. Every change is broadcast as `tasks.changed`, which the gateways push to WebSockets.
 *
 * Deduplication holds across replicas: an unfinished job holds its dedupe_key in `open_key`, under a
 * unique index, and gives it back (null) in the write that ends it. Two creates of one key racing (two
 * replicas, or two calls in one process) insert one job; the other gets the open one, as when it was
 * found before. Jobs stored before open_key existed hold none: the read before the insert still sees them.
 */
import type { ServiceSchema } from "moleculer";
import { config } from "../shared/config";
import { DbMixin, isDuplicateKeyError } from "../shared/db.mixin";
import { userRemovedEvent } from "../shared/user-data";
import { ForbiddenError, NotFoundError } from "../shared/errors";
import type { Emitter } from "../shared/contracts/call";
import type { Ctx, DbThis, Query } from "../shared/service-types";
import type { Static } from "../shared/contracts/answers";
import {
  type ActiveJob,
  ClaimedTask,
  ClaimParams,
  CreateTaskParams,
  CreateTasksResult,
  FinishParams,
  ProgressParams,
  RetryParams,
  TaskRecord,
  TaskStatus,
  tasksAvailable,
  tasksChanged,
} from "../shared/contracts/tasks";
import { CleanupTasksAnswer, StartupTasksAnswer, TaskListAnswer } from "../shared/contracts/tasks";

interface TaskDoc {
  _id: number;
  task_type: string;
  user_id: number;
  status: TaskStatus;
  progress: number;
  message: string;
  result: unknown;
  payload: Record<string, unknown>;
  item_id: number | null;
  episode_title: string | null;
  podcast_name: string | null;
  dedupe_key: string | null;
  /** dedupe_key while the job is unfinished (PENDING, RUNNING, DOWNLOADING), else null (absent on jobs of older versions). */
  open_key?: string | null;
  attempts: number;
  /** Bumped by every claim: the compare-and-set that makes a claim atomic. */
  claim_seq: number;
  lease_owner: string | null;
  lease_until: Date | null;
  /** A PENDING job is not claimed before this (retry back-off). */
  run_after: Date;
  created_at: Date;
  updated_at: Date;
}

const ACTIVE: TaskStatus[] = ["PENDING", "RUNNING", "DOWNLOADING"];
const FINISHED: TaskStatus[] = ["SUCCESS", "FAILED"];
const HOUR_MS = 3_600_000;

const id = { type: "number", integer: true, positive: true, convert: true };
const taskId = { type: "string", max: 20 };
const worker = { type: "string", max: 200 };
const lease = { type: "string", max: 220 };

function toRecord(d: TaskDoc): TaskRecord {
  return {
    id: String(d._id),
    task_type: d.task_type,
    user_id: d.user_id,
    status: d.status,
    progress: d.progress,
    message: d.message,
    created_at: new Date(d.created_at).toISOString(),
    updated_at: new Date(d.updated_at).toISOString(),
    result: d.result ?? null,
    episode_title: d.episode_title,
    podcast_name: d.podcast_name,
    item_id: d.item_id,
  };
}

/** A task id from a path: digits only, else it names no task. */
function parseTaskId(raw: string): number {
  return /^\d{1,10}$/.test(raw) ? Number(raw) : -1;
}

interface TasksMethods {
  updateOwned(raw: string, holder: string, set: Partial<TaskDoc>): Promise<TaskDoc | null>;
  openHolder(doc: TaskDoc, err: unknown): Promise<TaskDoc | null>;
  announce(ctx: Emitter, doc: TaskDoc): void;
  removeExpired(): Promise<number>;
}

type TasksThis = DbThis<TaskDoc> &
  TasksMethods & {
    /** The hourly removal of finished tasks past their retention. */
    cleanupTimer: NodeJS.Timeout;
  };

const TasksService: ServiceSchema<Record<string, never>, TasksThis> = {
  name: "tasks",
  mixins: [
    DbMixin({
      name: "tasks",
      indexes: [
        { fields: { user_id: 1 } },
        { fields: { status: 1 } },
        { fields: { dedupe_key: 1 } },
        // One unfinished job per dedupe_key, across replicas (finished jobs hold null, which MongoDB's filter and SQLite leave out).
        { fields: { open_key: 1 }, unique: true, partial: { open_key: { $type: "string" } } },
      ],
    }),
  ],
  actions: {
    /** GET /api/tasks/active: unfinished tasks, the caller's (an admin's: everyone's). */
    active: {
      idempotent: true,
      params: {},
      response: TaskListAnswer,
      async handler(this: TasksThis, ctx: Ctx): Promise<Static<typeof TaskListAnswer>> {
        const user = ctx.meta.user!;
        const query: Query = { status: { $in: ACTIVE } };
        if (!user.isAdmin) query.user_id = user.id;
        const docs: TaskDoc[] = await this.adapter.find({ query, sort: ["-_id"] });
        return docs.map(toRecord);
      },
    },
    /** GET /api/tasks/user/{user_id}: the user's tasks, newest first (also the WebSocket's `initial`). */
    user_tasks: {
      idempotent: true,
      params: { user_id: id, limit: { type: "number", integer: true, min: 1, max: 1000, convert: true, optional: true } },
      response: TaskListAnswer,
      async handler(this: TasksThis, ctx: Ctx<{ user_id: number; limit?: number }>): Promise<Static<typeof TaskListAnswer>> {
        const docs: TaskDoc[] = await this.adapter.find({ query: { user_id: ctx.params.user_id }, sort: ["-_id"], limit: ctx.params.limit ?? 200 });
        return docs.map(toRecord);
      },
    },
    /** GET /api/tasks/{task_id}: one task, for its owner or an admin. */
    task_status: {
      idempotent: true,
      params: { task_id: taskId },
      response: TaskRecord,
      async handler(this: TasksThis, ctx: Ctx<{ task_id: string }>): Promise<TaskRecord> {
        const doc: TaskDoc | null = await this.adapter.findOne({ _id: parseTaskId(ctx.params.task_id) });
        if (!doc) throw new NotFoundError("Task not found");
        const user = ctx.meta.user;
        if (user && !user.isAdmin && doc.user_id !== user.id) throw new ForbiddenError("This task belongs to another user");
        return toRecord(doc);
      },
    },
    /** GET /api/data/cleanup_tasks: removes finished tasks, the caller's (an admin's: everyone's). */
    cleanup_tasks: {
      idempotent: true,
      params: {},
      response: CleanupTasksAnswer,
      async handler(this: TasksThis, ctx: Ctx): Promise<CleanupTasksAnswer> {
        const user = ctx.meta.user!;
        const query: Query = { status: { $in: FINISHED } };
        if (!user.isAdmin) query.user_id = user.id;
        const removed: number = await this.adapter.removeMany(query);
        return { detail: `Removed ${removed} finished tasks`, removed };
      },
    },
    /**
     * POST /api/init/startup_tasks (admin): drops finished tasks past TASK_RETENTION_HOURS and wakes the
     * workers, which resume what is pending or was held by a worker that is gone (its lease expired).
     */
    startup_tasks: {
      params: {},
      response: StartupTasksAnswer,
      async handler(this: TasksThis, ctx: Ctx): Promise<StartupTasksAnswer> {
        const removed = await this.removeExpired();
        const pending: number = await this.adapter.count({ query: { status: { $in: ACTIVE } } });
        void tasksAvailable.broadcast(ctx, {});
        return { detail: "Startup tasks completed", removed_tasks: removed, unfinished_tasks: pending };
      },
    },

    // --- Internal actions (workers and the services that start jobs) ---

    /** Creates jobs (one call for many); those whose dedupe_key names an unfinished job are skipped. */
    create: {
      visibility: "public",
      params: { tasks: { type: "array", items: "object", max: 10_000 } },
      async handler(this: TasksThis, ctx: Ctx<{ tasks: CreateTaskParams[] }>): Promise<CreateTasksResult> {
        const wanted = ctx.params.tasks;
        const keys = wanted.map((t) => t.dedupe_key).filter((k): k is string => !!k);
        const busy = new Map<string, TaskDoc>();
        if (keys.length) {
          const open: TaskDoc[] = await this.adapter.find({ query: { dedupe_key: { $in: keys }, status: { $in: ACTIVE } } });
          for (const d of open) busy.set(d.dedupe_key!, d);
        }
        const now = new Date();
        const docs: TaskDoc[] = [];
        const existing: TaskDoc[] = [];
        for (const t of wanted) {
          const open = t.dedupe_key ? busy.get(t.dedupe_key) : undefined;
          if (open) {
            existing.push(open);
            continue;
          }
          docs.push({
            _id: await this.nextId("tasks"),
            task_type: t.task_type,
            user_id: t.user_id,
            status: "PENDING",
            progress: 0,
            message: "Waiting for a worker",
            result: null,
            payload: t.payload,
            item_id: t.item_id ?? null,
            episode_title: t.episode_title ?? null,
            podcast_name: t.podcast_name ?? null,
            dedupe_key: t.dedupe_key ?? null,
            open_key: t.dedupe_key ?? null,
            attempts: 0,
            claim_seq: 0,
            lease_owner: null,
            lease_until: null,
            run_after: now,
            created_at: now,
            updated_at: now,
          });
          if (t.dedupe_key) busy.set(t.dedupe_key, docs[docs.length - 1]);
        }
        // A job whose open_key an unfinished job holds (a create that raced this one) is not written: that job is answered.
        const { written, refused: open } = await this.insertEach(this.adapter, docs, (doc: TaskDoc, err: unknown) => this.openHolder(doc, err));
        existing.push(...open);
        if (written.length) {
          for (const d of written) this.announce(ctx, d);
          void tasksAvailable.broadcast(ctx, {});
        }
        return { created: written.map(toRecord), existing: existing.map(toRecord) };
      },
    },
    /** Hands the oldest claimable job of these types to a worker (PENDING and due, or its lease expired), or null. */
    claim: {
      visibility: "public",
      params: { worker, types: { type: "array", items: "string", min: 1 } },
      async handler(this: TasksThis, ctx: Ctx<ClaimParams>): Promise<ClaimedTask | null> {
        const now = new Date();
        const query = {
          task_type: { $in: ctx.params.types },
          $or: [
            { status: "PENDING", run_after: { $lte: now } },
            { status: { $in: ["RUNNING", "DOWNLOADING"] }, lease_until: { $lt: now } },
          ],
        };
        const candidates: TaskDoc[] = await this.adapter.find({ query, sort: ["run_after", "_id"], limit: 10 });
        for (const c of candidates) {
          // A token per claim, so that a run whose lease ran out is told so even when its own worker claims the job again.
          const token = `${ctx.params.worker}#${c.claim_seq + 1}`;
          const set: Partial<TaskDoc> = {
            status: c.task_type.startsWith("download") ? "DOWNLOADING" : "RUNNING",
            lease_owner: token,
            lease_until: new Date(now.getTime() + config.taskLeaseSeconds * 1000),
            updated_at: now,
          };
          if (c.status !== "PENDING") set.message = "Resumed: the worker that ran it stopped";
          const won = await this.adapter.updateMany({ _id: c._id, claim_seq: c.claim_seq }, { $set: set, $inc: { claim_seq: 1, attempts: 1 } });
          if (won !== 1) continue; // another worker was faster
          const doc: TaskDoc = { ...c, ...set, claim_seq: c.claim_seq + 1, attempts: c.attempts + 1 };
          this.logger.info("task claimed", { id: c._id, type: c.task_type, worker: ctx.params.worker, attempt: doc.attempts });
          this.announce(ctx, doc);
          return { ...toRecord(doc), payload: doc.payload, attempts: doc.attempts, lease: token };
        }
        return null;
      },
    },
    /** Progress of a running job; renews the lease. { owned: false } tells a worker its job went to another. */
    progress: {
      visibility: "public",
      params: { id: taskId, lease, progress: { type: "number", min: 0, max: 100, optional: true }, message: { type: "string", max: 2000, optional: true } },
      async handler(this: TasksThis, ctx: Ctx<ProgressParams>): Promise<{ owned: boolean }> {
        const p = ctx.params;
        const set: Partial<TaskDoc> = { lease_until: new Date(Date.now() + config.taskLeaseSeconds * 1000), updated_at: new Date() };
        if (p.progress !== undefined) set.progress = Math.round(p.progress);
        if (p.message !== undefined) set.message = p.message;
        const doc = await this.updateOwned(p.id, p.lease, set);
        if (doc && (p.progress !== undefined || p.message !== undefined)) this.announce(ctx, doc);
        return { owned: !!doc };
      },
    },
    /** Ends a job SUCCESS or FAILED; only its lease holder can, once. */
    finish: {
      visibility: "public",
      params: {
        id: taskId,
        lease,
        status: { type: "enum", values: FINISHED },
        message: { type: "string", max: 2000 },
        result: { type: "any", optional: true },
      },
      async handler(this: TasksThis, ctx: Ctx<FinishParams>): Promise<{ finished: boolean }> {
        const p = ctx.params;
        const set: Partial<TaskDoc> = {
          status: p.status,
          message: p.message,
          result: p.result ?? null,
          lease_owner: null,
          lease_until: null,
          open_key: null,
          updated_at: new Date(),
        };
        if (p.status === "SUCCESS") set.progress = 100;
        const doc = await this.updateOwned(p.id, p.lease, set);
        if (doc) {
          this.logger.info("task finished", { id: doc._id, type: doc.task_type, status: doc.status });
          this.announce(ctx, doc);
        }
        return { finished: !!doc };
      },
    },
    /** A run failed with a network error: PENDING again after a doubling back-off, or FAILED once attempts run out. */
    retry: {
      visibility: "public",
      params: { id: taskId, lease, message: { type: "string", max: 2000 } },
      async handler(this: TasksThis, ctx: Ctx<RetryParams>): Promise<{ retrying: boolean }> {
        const p = ctx.params;
        const current: TaskDoc | null = await this.adapter.findOne({ _id: parseTaskId(p.id) });
        if (!current) return { retrying: false };
        const now = Date.now();
        const exhausted = current.attempts >= config.taskMaxAttempts;
        const delay = config.taskRetryBaseMs * 2 ** Math.max(0, current.attempts - 1);
        const set: Partial<TaskDoc> = exhausted
          ? {
              status: "FAILED",
              message: `${p.message} (gave up after ${current.attempts} attempts)`,
              lease_owner: null,
              lease_until: null,
              open_key: null,
              updated_at: new Date(now),
            }
          : {
              status: "PENDING",
              message: `${p.message}; retrying in ${Math.ceil(delay / 1000)} s`,
              run_after: new Date(now + delay),
              lease_owner: null,
              lease_until: null,
              updated_at: new Date(now),
            };
        const doc = await this.updateOwned(p.id, p.lease, set);
        if (doc) this.announce(ctx, doc);
        return { retrying: !!doc && !exhausted };
      },
    },
    /** Unfinished jobs per user of some types (download_status' active_downloads). */
    count_active: {
      visibility: "public",
      params: { user_id: id, types: { type: "array", items: "string" } },
      async handler(this: TasksThis, ctx: Ctx<{ user_id: number; types: string[] }>): Promise<number> {
        return this.adapter.count({ query: { user_id: ctx.params.user_id, task_type: { $in: ctx.params.types }, status: { $in: ACTIVE } } });
      },
    },
    /** Unfinished jobs of some types, every user's, with their payloads (what the retention pass must not delete under a download). */
    active_jobs: {
      visibility: "public",
      params: { types: { type: "array", items: "string" } },
      async handler(this: TasksThis, ctx: Ctx<{ types: string[] }>): Promise<ActiveJob[]> {
        const docs: TaskDoc[] = await this.adapter.find({ query: { status: { $in: ACTIVE }, task_type: { $in: ctx.params.types } } });
        return docs.map((d) => ({ task_type: d.task_type, payload: d.payload }));
      },
    },
  },
  events: {
    /** The account is gone: so are its tasks (a running one fails to renew its lease and stops). */
    "user.removed": userRemovedEvent({ adapter: "user_id" }),
  },
  methods: {
    /** Applies `set` to an unfinished job still held under this lease token; the updated job, or null when it is not. */
    async updateOwned(this: TasksThis, raw: string, holder: string, set: Partial<TaskDoc>): Promise<TaskDoc | null> {
      const _id = parseTaskId(raw);
      const n: number = await this.adapter.updateMany({ _id, lease_owner: holder, status: { $in: ACTIVE } }, { $set: set });
      if (n !== 1) return null;
      return this.adapter.findOne({ _id });
    },
    /** The unfinished job holding the key of a job refused by the open_key index, or null once this one is written after all. */
    async openHolder(this: TasksThis, doc: TaskDoc, err: unknown): Promise<TaskDoc | null> {
      for (let attempt = 0; ; attempt++) {
        if (!doc.open_key) throw err;
        const holder: TaskDoc | null = await this.adapter.findOne({ open_key: doc.open_key });
        if (holder && ACTIVE.includes(holder.status)) return holder;
        // The holder finished without giving the key back (a replica of an older version ended it): it is free.
        if (holder) await this.adapter.updateMany({ _id: holder._id, open_key: doc.open_key, status: { $in: FINISHED } }, { $set: { open_key: null } });
        if (attempt >= 3) throw err;
        try {
          await this.adapter.insert(doc);
          return null;
        } catch (again) {
          if (!isDuplicateKeyError(again)) throw again;
          err = again;
        }
      }
    },
    /** Every gateway pushes the change to the owner's WebSockets. */
    announce(this: TasksThis, ctx: Emitter, doc: TaskDoc) {
      void tasksChanged.broadcast(ctx, toRecord(doc));
    },
    async removeExpired(this: TasksThis): Promise<number> {
      const before = new Date(Date.now() - config.taskRetentionHours * HOUR_MS);
      return this.adapter.removeMany({ status: { $in: FINISHED }, updated_at: { $lt: before } });
    },
  },
  started(this: TasksThis) {
    this.cleanupTimer = setInterval(
      () => void this.removeExpired().catch((err: Error) => this.logger.warn("task cleanup failed", { error: err?.message })),
      HOUR_MS,
    );
    this.cleanupTimer.unref();
    // Jobs left by a previous run (a restart) are due now: wake the workers.
    void tasksAvailable.broadcast(this.broker, {});
  },
  stopped(this: TasksThis) {
    clearInterval(this.cleanupTimer);
  },
};

export default TasksService;
