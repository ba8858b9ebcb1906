/** Answers of the backups service's routes. */
// eslint-disable-next-line @typescript-eslint/no-unused-vars -- the typed calls and events of this service are appended below
import { action, event } from "./call";
import { Binary, Nullable, Type, type Static } from "./answers";

export const BackupDownload = Binary("application/octet-stream", "The whole server as JSON lines (application/gzip when gzip-encoded for the client)");
export const BackupFilesAnswer = Type.Object({
  backup_files: Type.Array(Type.Object({ filename: Type.String(), size: Type.Integer(), modified: Type.Integer(), modified_at: Type.String({ format: "date-time" }) })),
});
export type BackupFilesAnswer = Static<typeof BackupFilesAnswer>;
export const BackupFileAnswer = Type.Object({ detail: Type.String(), backup_filename: Type.String() });
export type BackupFileAnswer = Static<typeof BackupFileAnswer>;
export const RestoreAnswer = Type.Object({ detail: Type.String(), backup_filename: Type.String(), records: Type.Integer(), services: Type.Record(Type.String(), Type.Integer()) });
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
