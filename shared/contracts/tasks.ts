/**
 * Shapes of the tasks service (house rule 6, docs/architecture.md): the task record clients see, and the internal
 * actions workers use to claim, renew, retry and finish a durable job.
 */
import { action, event } from "./call";
import { Nullable, Type, type Static } from "./answers";

export const TaskStatus = Type.Union([
  Type.Literal("PENDING"),
  Type.Literal("RUNNING"),
  Type.Literal("DOWNLOADING"),
  Type.Literal("SUCCESS"),
  Type.Literal("FAILED"),
]);
export type TaskStatus = Static<typeof TaskStatus>;

/** A task as the API shows it (spec "Task" record); progress 0-100. */
export const TaskRecord = Type.Object({
  id: Type.String(),
  task_type: Type.String(),
  user_id: Type.Integer(),
  status: TaskStatus,
  progress: Type.Number(),
  message: Type.String(),
  created_at: Type.String({ format: "date-time" }),
  updated_at: Type.String({ format: "date-time" }),
  /** What the job reported when it ended (counts, a file name...), null before. */
  result: Type.Unknown(),
  episode_title: Nullable(Type.String()),
  podcast_name: Nullable(Type.String()),
  /** The episode (or podcast) the task works on, when there is one. */
  item_id: Nullable(Type.Integer()),
});
export type TaskRecord = Static<typeof TaskRecord>;
export const TaskListAnswer = Type.Array(TaskRecord);
export const CleanupTasksAnswer = Type.Object({ detail: Type.String(), removed: Type.Integer() });
export type CleanupTasksAnswer = Static<typeof CleanupTasksAnswer>;
export const StartupTasksAnswer = Type.Object({ detail: Type.String(), removed_tasks: Type.Integer(), unfinished_tasks: Type.Integer() });
export type StartupTasksAnswer = Static<typeof StartupTasksAnswer>;

/** tasks.create params: one job; `dedupe_key` skips it while an unfinished job with the same key exists. */
export interface CreateTaskParams {
  task_type: string;
  user_id: number;
  payload: Record<string, unknown>;
  item_id?: number | null;
  episode_title?: string | null;
  podcast_name?: string | null;
  dedupe_key?: string | null;
}

/** tasks.create result: the jobs made, and the unfinished ones that a dedupe_key matched instead. */
export interface CreateTasksResult {
  created: TaskRecord[];
  existing: TaskRecord[];
}

/** A job handed to a worker by tasks.claim: the record plus what the worker needs to run it. */
export interface ClaimedTask extends TaskRecord {
  /** The payload the job was created with (CreateTaskParams): its job type's own shape (ImportFeedPayload...), read as such by the worker. */
  payload: object;
  /** Runs so far, this one included. */
  attempts: number;
  /** This claim's token: progress, retry and finish name it; a later claim (even by the same worker) voids it. */
  lease: string;
}

/** tasks.active_jobs result item: an unfinished job and the payload it was created with. */
export interface ActiveJob {
  task_type: string;
  payload: Record<string, unknown>;
}

/** tasks.claim params: the worker's name and the job types it runs. */
export interface ClaimParams {
  worker: string;
  types: string[];
}

/** tasks.progress params; answers { owned: false } once the job was claimed again (its lease ran out). */
export interface ProgressParams {
  id: string;
  lease: string;
  progress?: number;
  message?: string;
}

/** tasks.finish params: SUCCESS or FAILED, at most once per job. */
export interface FinishParams {
  id: string;
  lease: string;
  status: "SUCCESS" | "FAILED";
  message: string;
  result?: unknown;
}

/** tasks.retry params: back to PENDING after a back-off (a network error), or FAILED once attempts run out. */
export interface RetryParams {
  id: string;
  lease: string;
  message: string;
}

/** Broadcast events: a task changed (payload: the record), and new work to claim (no payload). */
export const TASK_CHANGED = "tasks.changed";
export const TASKS_AVAILABLE = "tasks.available";

/** Job types run by the workers service. */
export const JOB_DOWNLOAD_EPISODE = "download_episode";
/** A whole podcast's download: the task type both PinePods clients show as a bulk download. */
export const JOB_DOWNLOAD_PODCAST = "download_all_episodes";
/** The same job as servers stored it before it took the clients' name: still claimed, run and counted. */
export const JOB_DOWNLOAD_PODCAST_BEFORE = "download_podcast";
export const JOB_REFRESH_PODS = "refresh_pods";
export const JOB_IMPORT_OPML = "import_opml";
/** A sync of one user with their gPodder / Nextcloud account (payload: SyncJobPayload, shared/contracts/sync.ts). */
export const JOB_SYNC = "sync";
/** The older episodes of a feed just added (payload: ImportFeedPayload). */
export const JOB_IMPORT_FEED = "import_feed";

/** Payload of an import_feed job (the older episodes of a feed just added): the worker refetches the feed. */
export interface ImportFeedPayload {
  podcast_id: number;
}

// --- Calls to the tasks service and its events (shared/contracts/call.ts) ---

/** One task as its owner sees it (ctx.meta.user checks ownership; none: an internal caller). */
export const taskStatus = action<{ task_id: string }, TaskRecord>("tasks.task_status");
/** Creates tasks (a task whose dedupe_key is live already is not made again: it is in `existing`). */
export const tasksCreate = action<{ tasks: CreateTaskParams[] }, CreateTasksResult>("tasks.create");
/** A task changed (broadcast: every gateway pushes the record to its owner's WebSockets). */
export const tasksChanged = event<TaskRecord>(TASK_CHANGED);
/** New work to claim (broadcast: every workers replica wakes). */
export const tasksAvailable = event<Record<string, never>>(TASKS_AVAILABLE);
/** Hands the oldest claimable job of these types to the worker, or null. */
export const tasksClaim = action<ClaimParams, ClaimedTask | null>("tasks.claim");
/** Progress of a running job; renews its lease. */
export const tasksProgress = action<ProgressParams, { owned: boolean }>("tasks.progress");
/** Ends a job SUCCESS or FAILED (only its lease holder can, once). */
export const tasksFinish = action<FinishParams, { finished: boolean }>("tasks.finish");
/** A run failed with a network error: PENDING again after a back-off, or FAILED once attempts run out. */
export const tasksRetry = action<RetryParams, { retrying: boolean }>("tasks.retry");
/** Unfinished jobs of a user of these types. */
export const countActive = action<{ user_id: number; types: string[] }, number>("tasks.count_active");
/** Unfinished jobs of these types, every user's. */
export const activeJobs = action<{ types: string[] }, ActiveJob[]>("tasks.active_jobs");
/** A user's tasks, newest first (at most `limit`, 200 unless told). */
export const userTasks = action<{ user_id: number; limit?: number }, TaskRecord[]>("tasks.user_tasks");
