/** Answers of the backups service's routes. */
import { action, event } from "./call";
import { Binary, Nullable, Type, type Static } from "./answers";

export const BackupDownload = Binary("application/octet-stream", "The whole server as JSON lines (application/gzip when gzip-encoded for the client)");
export const BackupFilesAnswer = Type.Object({
  backup_files: Type.Array(
    Type.Object({ filename: Type.String(), size: Type.Integer(), modified: Type.Integer(), modified_at: Type.String({ format: "date-time" }) }),
  ),
});
export type BackupFilesAnswer = Static<typeof BackupFilesAnswer>;
export const BackupFileAnswer = Type.Object({ detail: Type.String(), backup_filename: Type.String() });
export type BackupFileAnswer = Static<typeof BackupFileAnswer>;
export const RestoreAnswer = Type.Object({
  detail: Type.String(),
  backup_filename: Type.String(),
  records: Type.Integer(),
  services: Type.Record(Type.String(), Type.Integer()),
});
export type RestoreAnswer = Static<typeof RestoreAnswer>;
/** GET /api/data/restore_status (not in the documents): as PinePods' web client polls it. */
export const RestoreStatusAnswer = Type.Object({ restore_in_progress: Type.Boolean() });
export type RestoreStatusAnswer = Static<typeof RestoreStatusAnswer>;
export const ScheduleBackupAnswer = Type.Object({ detail: Type.String(), schedule: Type.String(), enabled: Type.Boolean() });
export type ScheduleBackupAnswer = Static<typeof ScheduleBackupAnswer>;
export const ScheduledBackupAnswer = Type.Object({
  schedule: Nullable(Type.String()),
  cron_schedule: Nullable(Type.String()),
  enabled: Type.Boolean(),
  next_run: Nullable(Type.String()),
  last_run: Nullable(Type.String()),
  last_file: Nullable(Type.String()),
  last_error: Nullable(Type.String()),
});
export type ScheduledBackupAnswer = Static<typeof ScheduledBackupAnswer>;

// --- Calls to the backups service and its events (shared/contracts/call.ts) ---

/** What a restore wrote back: its records, in all and per service. */
export interface RestoreResult {
  records: number;
  services: Record<string, number>;
}

/** The restore of `npm run restore -- FILE` (any path): into a server without accounts only. */
export const restoreFile = action<{ file: string }, RestoreResult>("backups.restore_file");
/** A restore replaced the data under every service (broadcast). */
export const backupRestored = event<Record<string, never>>("backup.restored");

// The db mixin's backup_* actions (shared/db.mixin.ts), which every service with a store has: called by the service's name.

/** Every record of the service's collections as backup lines, streamed. */
export const backupExport = (caller: import("./call").Caller, service: string, opts?: import("moleculer").CallingOptions) =>
  caller.call<import("stream").Readable, Record<string, never>>(`${service}.backup_export`, {}, opts);
/** Backup lines of the service's records written back as they were (ids kept). */
export const backupImport = (caller: import("./call").Caller, service: string, params: { lines: string[] }, opts?: import("moleculer").CallingOptions) =>
  caller.call<{ records: number }, { lines: string[] }>(`${service}.backup_import`, params, opts);
/** Records per collection of the service. */
export const backupCounts = (caller: import("./call").Caller, service: string, opts?: import("moleculer").CallingOptions) =>
  caller.call<Record<string, number>, Record<string, never>>(`${service}.backup_counts`, {}, opts);
/** Removes every record of the service (a restore replaces all data). */
export const backupClear = (caller: import("./call").Caller, service: string, opts?: import("moleculer").CallingOptions) =>
  caller.call<{ ok: true }, Record<string, never>>(`${service}.backup_clear`, {}, opts);
