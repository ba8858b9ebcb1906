/** The sync service's `this` (services/sync.service.ts and every part of it): the methods each part gives the others. */
import type { Caller } from "../../shared/contracts/call";
import type { CreateTaskParams } from "../../shared/contracts/tasks";
import type { PodsyncToggleAnswer, SyncDevice, SyncJobPayload, SyncRunAnswer, SyncStatisticsAnswer } from "../../shared/contracts/sync";
import type { SyncFeed } from "../../shared/contracts/podcasts";
import type { Rights } from "../../shared/http";
import type { TaskWaitThis } from "../../shared/task-wait.mixin";
import type { Ctx, DbThis } from "../../shared/service-types";
import type { EpisodeAction, GpodderAccount, GpodderClient } from "./gpodder";
import type { SyncSettingsDoc, SyncSummary, SyncType } from "./model";

/** A Context whatever its params: what the methods read of one is its meta (and they call through it). */
export type AnyCtx = Ctx<unknown>;

/** A login flow's poll (cloudsync.actions.ts): the user, the flow's token and where to poll, the server it logs into. */
export interface LoginPoll {
  user_id: number;
  token: string;
  poll_endpoint: string;
  cloudsync_url: string;
}

interface SyncMethods {
  // podsync.actions.ts
  devicesOf(ctx: Caller, user_id: number): Promise<SyncDevice[]>;
  syncAny(ctx: Caller, user_id: number, force: boolean): Promise<SyncRunAnswer>;
  verifyLogin(acc: GpodderAccount, flavor?: SyncType): Promise<void>;
  saveAccount(user_id: number, sync_type: SyncType, server_url: string, username: string, password: string, rights: Rights): Promise<void>;
  settingsOf(user_id: number, type?: SyncType): Promise<SyncSettingsDoc>;
  remote<T>(s: SyncSettingsDoc, call: (gp: GpodderClient) => Promise<T>): Promise<T>;
  remoteDevices(s: SyncSettingsDoc): Promise<SyncDevice[]>;
  statistics(s: SyncSettingsDoc): Promise<SyncStatisticsAnswer>;
  syncUser(ctx: Caller, user_id: number, opts: SyncJobPayload): Promise<SyncSummary>;
  // own-server.ts
  ownServerOn(ctx: Caller, user_id: number): Promise<boolean>;
  syncTarget(ctx: Caller, user_id: number): Promise<SyncSettingsDoc | null>;
  serverStatus(ctx: AnyCtx, s: SyncSettingsDoc | null, own: boolean): Omit<PodsyncToggleAnswer, "detail">;
  ownServerDevices(ctx: Caller, user_id: number): Promise<SyncDevice[]>;
  ownServerStatistics(ctx: AnyCtx, user_id: number): Promise<SyncStatisticsAnswer>;
  // cloudsync.actions.ts
  pollLogin(p: LoginPoll, rights: Rights): Promise<boolean>;
  stopPolling(user_id: number): void;
  // engine.ts
  client(s: SyncSettingsDoc): GpodderClient;
  runSync(ctx: Caller, s: SyncSettingsDoc, opts: SyncJobPayload): Promise<SyncSummary>;
  localFileActions(ctx: Caller, s: SyncSettingsDoc, feeds: SyncFeed[], since: { since?: Date }): Promise<EpisodeAction[]>;
  // jobs.actions.ts
  syncJob(user_id: number, opts: SyncJobPayload): CreateTaskParams;
  queueSync(ctx: Caller, user_id: number, opts: SyncJobPayload): Promise<SyncRunAnswer>;
  syncDue(): Promise<void>;
  // sync.service.ts
  claimLease(user_id: number): Promise<boolean>;
  releaseLease(user_id: number): Promise<void>;
}

export type SyncThis = DbThis<SyncSettingsDoc> &
  TaskWaitThis &
  SyncMethods & {
    /** Per user, the timer of a cloudsync login flow still being polled. */
    loginPolls: Map<number, NodeJS.Timeout>;
    /** The scheduler's round every minute (SYNC_INTERVAL on). */
    scheduler?: NodeJS.Timeout;
  };
