/**
 * Server backups (admin): a full export of every service's collections as one streamed JSON-lines file
 * (shared/backup-format.ts), restores of such a file with every id kept, the files in BACKUP_DIR, and
 * scheduled backups into it.
 *
 * Each service exports and imports only its own collections (the db mixin's backup_* actions, rule 1);
 * this service strings them together (services/backups.parts/archive.ts). `backup_state` holds the
 * schedule (a cron expression, as clients of this API family send it) and the scheduler lease: every
 * replica ticks every BACKUP_SCHEDULER_MS, only the lease holder runs a due backup.
 */
import crypto from "crypto";
import fs from "fs";
import type { Readable } from "stream";
import type { ServiceSchema } from "moleculer";
import { Cron } from "croner";
import { config } from "../shared/config";
import { DbMixin } from "../shared/db.mixin";
import { releaseLease } from "../shared/lease";
import { LeasedJobMixin } from "../shared/leased-job";
import { BadRequestError, ConflictError, ForbiddenError } from "../shared/errors";
import type { Ctx, DbThis } from "../shared/service-types";
import type { UserAuthInfo } from "../shared/contracts/users";
import { getAuthInfo, usersVerifyPassword } from "../shared/contracts/users";
import { attemptSucceeded, beginAttempt } from "../shared/contracts/auth";
import {
  backupStream,
  existingBackup,
  fileStamp,
  listBackupFiles,
  pruneScheduled,
  removeStalePartials,
  restoreBackup,
  saveUpload,
  SCHEDULED_PREFIX,
  writeBackupFile,
} from "./backups.parts/archive";
import {
  BackupDownload,
  BackupFileAnswer,
  BackupFilesAnswer,
  RestoreAnswer,
  RestoreStatusAnswer,
  ScheduleBackupAnswer,
  ScheduledBackupAnswer,
} from "../shared/contracts/backups";
import { backupRestored, type RestoreResult } from "../shared/contracts/backups";

const SCHEDULE_ID = "schedule";
const LEASE_ID = "backup-scheduler";

interface ScheduleDoc {
  _id: typeof SCHEDULE_ID;
  cron_schedule: string;
  enabled: boolean;
  updated_at: Date;
  last_run_at: Date | null;
  last_file: string | null;
  last_error: string | null;
}

/** The params of an upload route: the file's stream, when a file came (else whatever body was sent). */
type Upload = Partial<Readable> | null;

interface BackupsMethods {
  replaceAll(ctx: Ctx<unknown>, name: string, restore: () => Promise<RestoreResult>): Promise<RestoreResult>;
  checkBackupPassword(ctx: Ctx<unknown>, password: string): Promise<void>;
  scheduleBase(doc: ScheduleDoc): Date;
  claimScheduled(now: Date): Promise<boolean>;
  runScheduled(at: Date): Promise<void>;
}

/** backup_state holds the schedule and the scheduler's lease record (shared/leased-job.ts). */
type BackupsThis = DbThis<ScheduleDoc> &
  BackupsMethods & {
    /** A restore runs on this replica now. */
    restoring: boolean;
  };

const userId = { type: "number", integer: true, positive: true, convert: true, optional: true };
const filename = { type: "string", min: 1, max: 300 };

/** The cron expression's next run after `from`, or null when it never runs again; 400 when it does not parse. */
function nextRun(cron: string, from: Date): Date | null {
  try {
    return new Cron(cron, { paused: true }).nextRun(from);
  } catch (err) {
    throw new BadRequestError(`Invalid cron schedule: ${(err as Error | null)?.message}`);
  }
}

function sameSecret(a: string, b: string): boolean {
  const ha = crypto.createHash("sha256").update(a).digest();
  const hb = crypto.createHash("sha256").update(b).digest();
  return crypto.timingSafeEqual(ha, hb);
}

const BackupsService: ServiceSchema<Record<string, never>, BackupsThis> = {
  name: "backups",
  mixins: [
    LeasedJobMixin<BackupsThis>("backupJob", {
      leaseId: LEASE_ID,
      name: "backup scheduler",
      store: (service) => service.adapter,
      leaseSeconds: () => config.backupLeaseSeconds,
      beatMs: () => config.backupSchedulerMs,
      // A restore may replace the lease record with none, or write it back at any moment: no beats while this replica restores.
      ensure: "beat",
      beatAtStart: false,
      paused: (service) => service.restoring,
      claim: (service, _job, now) => service.claimScheduled(now),
      // A failed backup records its error in the schedule (last_error) and waits for the next run.
      run: (service, now) => service.runScheduled(now),
    }),
    DbMixin({ name: "backup_state" }),
  ],
  actions: {
    /**
     * POST /api/data/backup_server: the whole server as a download. database_pass is BACKUP_PASSWORD or
     * the calling admin's own password (403 otherwise). `gzip: true` sends a .jsonl.gz file; without it a
     * client that accepts gzip gets the .jsonl file gzip-encoded on the wire (Content-Encoding).
     */
    backup_server: {
      params: { database_pass: { type: "string", min: 1, max: 1000 }, gzip: { type: "boolean", convert: true, optional: true } },
      response: BackupDownload,
      // The backup's bytes: BackupDownload documents them as a binary string.
      async handler(this: BackupsThis, ctx: Ctx<{ database_pass: string; gzip?: boolean }>): Promise<Readable> {
        await this.checkBackupPassword(ctx, ctx.params.database_pass);
        const fileGzip = !!ctx.params.gzip;
        const wireGzip = !fileGzip && /\bgzip\b/i.test(ctx.meta.acceptEncoding ?? "");
        const name = `podcast-server-backup_${fileStamp(new Date())}.jsonl${fileGzip ? ".gz" : ""}`;
        ctx.meta.$responseType = fileGzip ? "application/gzip" : "application/octet-stream";
        ctx.meta.$responseHeaders = {
          "Content-Disposition": `attachment; filename="${name}"`,
          "Cache-Control": "no-store",
          ...(wireGzip ? { "Content-Encoding": "gzip", Vary: "Accept-Encoding" } : {}),
        };
        this.logger.info("server backup started", { user_id: ctx.meta.user?.id, gzip: fileGzip || wireGzip });
        return backupStream(this.broker, fileGzip || wireGzip);
      },
    },
    /** POST /api/data/list_backup_files: the backup files in BACKUP_DIR, newest first. */
    list_backup_files: {
      params: { user_id: userId },
      response: BackupFilesAnswer,
      handler(this: BackupsThis): BackupFilesAnswer {
        return { backup_files: listBackupFiles() };
      },
    },
    /** POST /api/data/delete_backup_file: a file of BACKUP_DIR by its bare name (400 for anything path-like). */
    delete_backup_file: {
      params: { backup_filename: filename },
      response: BackupFileAnswer,
      handler(this: BackupsThis, ctx: Ctx<{ backup_filename: string }>): BackupFileAnswer {
        const file = existingBackup(ctx.params.backup_filename);
        fs.rmSync(file, { force: true });
        this.logger.info("backup file deleted", { user_id: ctx.meta.user?.id, file: ctx.params.backup_filename });
        return { detail: "Backup file deleted", backup_filename: ctx.params.backup_filename };
      },
    },
    /**
     * POST /api/data/restore_backup_file: replaces all data of the server with a backup file of BACKUP_DIR
     * (ids kept; the caller's key is gone unless the backup has it). The file is read through once
     * before anything is touched, so a cut or foreign file changes nothing (400).
     */
    restore_backup_file: {
      params: { user_id: userId, backup_filename: filename },
      response: RestoreAnswer,
      timeout: 0,
      async handler(this: BackupsThis, ctx: Ctx<{ backup_filename: string }>): Promise<RestoreAnswer> {
        const file = existingBackup(ctx.params.backup_filename);
        const result = await this.replaceAll(ctx, ctx.params.backup_filename, () => restoreBackup(this.broker, file, "replace"));
        return { detail: "Restore completed", backup_filename: ctx.params.backup_filename, ...result };
      },
    },
    /**
     * POST /api/data/restore_server: the same with an uploaded file (multipart/form-data, field
     * backup_file, plain or gzip), written into BACKUP_DIR for the time of the restore.
     */
    restore_server: {
      params: {},
      response: RestoreAnswer,
      timeout: 0,
      async handler(this: BackupsThis, ctx: Ctx<Readable>): Promise<RestoreAnswer> {
        const upload = ctx.params as Upload;
        if (ctx.meta.fieldname !== "backup_file" || typeof upload?.pipe !== "function") {
          upload?.resume?.();
          throw new BadRequestError("Send the backup file as the multipart/form-data field backup_file");
        }
        const name = ctx.meta.filename || "upload";
        const result = await this.replaceAll(ctx, name, async () => {
          const file = await saveUpload(ctx.params);
          try {
            return await restoreBackup(this.broker, file, "replace");
          } finally {
            fs.rmSync(file, { force: true });
          }
        });
        return { detail: "Restore completed", backup_filename: name, ...result };
      },
    },
    /**
     * GET /api/data/restore_status (no key: a restore replaces the accounts keys belong to): whether this
     * service is restoring now. One replica runs backups (shared/service-groups.ts), so its flag is the server's.
     */
    restore_status: {
      idempotent: true,
      params: {},
      response: RestoreStatusAnswer,
      handler(this: BackupsThis): RestoreStatusAnswer {
        return { restore_in_progress: !!this.restoring };
      },
    },
    /** The restore of `npm run restore -- FILE` (any path; not routed): into a server without accounts only. */
    restore_file: {
      visibility: "public",
      params: { file: { type: "string", min: 1 } },
      timeout: 0,
      async handler(this: BackupsThis, ctx: Ctx<{ file: string }>): Promise<RestoreResult> {
        return restoreBackup(this.broker, ctx.params.file, "empty");
      },
    },
    /** POST /api/data/schedule_backup: cron_schedule (5 fields, or 6 with seconds) and enabled. */
    schedule_backup: {
      params: { user_id: userId, cron_schedule: { type: "string", trim: true, min: 1, max: 200 }, enabled: { type: "boolean", convert: true } },
      response: ScheduleBackupAnswer,
      async handler(this: BackupsThis, ctx: Ctx<{ cron_schedule: string; enabled: boolean }>): Promise<ScheduleBackupAnswer> {
        const { cron_schedule, enabled } = ctx.params;
        const now = new Date();
        const next = nextRun(cron_schedule, now);
        if (enabled && !next) throw new BadRequestError("The cron schedule never runs");
        await this.upsert(this.adapter, SCHEDULE_ID, { $set: { cron_schedule, enabled, updated_at: now } });
        this.logger.info("backup schedule set", { user_id: ctx.meta.user?.id, cron_schedule, enabled });
        return { detail: "Backup schedule updated successfully", schedule: cron_schedule, enabled };
      },
    },
    /** POST /api/data/get_scheduled_backup: the schedule, its next run and what the last run wrote. */
    get_scheduled_backup: {
      params: { user_id: userId },
      response: ScheduledBackupAnswer,
      async handler(this: BackupsThis): Promise<ScheduledBackupAnswer> {
        const doc: ScheduleDoc | null = await this.adapter.findOne({ _id: SCHEDULE_ID });
        if (!doc) return { schedule: null, cron_schedule: null, enabled: false, next_run: null, last_run: null, last_file: null, last_error: null };
        const next = doc.enabled ? nextRun(doc.cron_schedule, this.scheduleBase(doc)) : null;
        return {
          schedule: doc.cron_schedule,
          cron_schedule: doc.cron_schedule,
          enabled: doc.enabled,
          next_run: next ? next.toISOString() : null,
          last_run: doc.last_run_at ? new Date(doc.last_run_at).toISOString() : null,
          last_file: doc.last_file,
          last_error: doc.last_error,
        };
      },
    },
  },
  events: {
    /** The restored lease names a holder of the server that wrote the backup: free it instead of waiting for it to expire. */
    async [backupRestored.eventName](this: BackupsThis) {
      await releaseLease(this.adapter, LEASE_ID, null);
    },
  },
  methods: {
    /** One restore at a time on this replica (a second one answers 409 instead of interleaving with it). */
    async replaceAll(this: BackupsThis, ctx: Ctx<unknown>, name: string, restore: () => Promise<RestoreResult>): Promise<RestoreResult> {
      if (this.restoring) {
        (ctx.params as Upload)?.resume?.();
        throw new ConflictError("A restore is already in progress");
      }
      this.restoring = true;
      try {
        this.logger.warn("restoring a backup over the server's data", { user_id: ctx.meta.user?.id, file: name });
        const result = await restore();
        this.logger.info("backup restored", { file: name, records: result.records });
        return result;
      } finally {
        this.restoring = false;
      }
    },
    /**
     * BACKUP_PASSWORD, or the calling admin's own password (checked by the users service). Wrong guesses
     * count as failed logins of the admin (auth's login limits, 429): a stolen key cannot guess freely.
     */
    async checkBackupPassword(this: BackupsThis, ctx: Ctx<unknown>, password: string): Promise<void> {
      const caller = ctx.meta.user!;
      const [info]: UserAuthInfo[] = await getAuthInfo(ctx, { user_ids: [caller.id] });
      const { attempt_id }: { attempt_id: string } = await beginAttempt(ctx, { username: info?.username ?? `user ${caller.id}` });
      const ok =
        (!!config.backupPassword && sameSecret(password, config.backupPassword)) ||
        (!!info && (await usersVerifyPassword(ctx, { username: info.username, password }))?.user_id === caller.id);
      if (!ok) {
        this.logger.warn("server backup refused: wrong database_pass", { user_id: caller.id });
        throw new ForbiddenError("Wrong backup password");
      }
      await attemptSucceeded(ctx, { attempt_id });
    },
    /** Runs are counted from the last run, or from when the schedule was set. */
    scheduleBase(this: BackupsThis, doc: ScheduleDoc): Date {
      return new Date(doc.last_run_at ?? doc.updated_at);
    },
    /** The scheduler's claim: a backup is due when the schedule is on and its next run has come (recorded as run). */
    async claimScheduled(this: BackupsThis, now: Date): Promise<boolean> {
      const doc: ScheduleDoc | null = await this.adapter.findOne({ _id: SCHEDULE_ID });
      if (!doc?.enabled) return false;
      const due = nextRun(doc.cron_schedule, this.scheduleBase(doc));
      if (!due || due > now) return false;
      await this.adapter.updateMany({ _id: SCHEDULE_ID }, { $set: { last_run_at: now } });
      return true;
    },
    async runScheduled(this: BackupsThis, at: Date): Promise<void> {
      const name = `${SCHEDULED_PREFIX}${fileStamp(at)}.jsonl.gz`;
      try {
        const written = await writeBackupFile(this.broker, name);
        const pruned = pruneScheduled(config.backupKeep);
        // Another replica's backup may still be running (its lease ran out): only files idle for a lease period go.
        const stale = removeStalePartials(config.backupLeaseSeconds * 1000);
        await this.adapter.updateMany({ _id: SCHEDULE_ID }, { $set: { last_file: name, last_error: null } });
        this.logger.info("scheduled backup written", { ...written, pruned: pruned.length, stale_partials: stale.length });
      } catch (err) {
        const message = (err as Error | null)?.message;
        await this.adapter.updateMany({ _id: SCHEDULE_ID }, { $set: { last_error: String(message ?? err) } }).catch(() => undefined);
        this.logger.error("scheduled backup failed", { file: name, error: message });
      }
    },
  },
  created(this: BackupsThis) {
    this.restoring = false;
  },
};

export default BackupsService;
