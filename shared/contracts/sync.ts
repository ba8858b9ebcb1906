/** Shapes of the sync service: the payload of a sync job, which the workers hand to sync.run_job, and the answers of its routes. */
import { action } from "./call";
import { Nullable, Type, type Static } from "./answers";

/** What a sync job does: force starts from nothing (since=0); subscriptions_only skips episode actions; type: only with this kind of account. */
export interface SyncJobPayload {
  force: boolean;
  subscriptions_only?: boolean;
  type?: "gpodder" | "nextcloud";
}

/** sync.run_job params. */
export interface RunSyncJobParams extends SyncJobPayload {
  user_id: number;
}

// --- Answers of the sync service's routes (open in the documents but the statistics record: shaped as the web client reads them, with the neutral word podsync) ---

/** What one sync changed here and there. */
export const SyncSummary = Type.Object({
  subscriptions_added_here: Type.Integer(),
  subscriptions_removed_here: Type.Integer(),
  subscriptions_uploaded: Type.Integer(),
  subscriptions_removed_there: Type.Integer(),
  positions_applied: Type.Integer(),
  actions_received: Type.Integer(),
  actions_uploaded: Type.Integer(),
  downloads_queued: Type.Integer(),
  downloads_deleted: Type.Integer(),
  failed_feeds: Type.Array(Type.Object({ url: Type.String(), reason: Type.String() })),
});
export type SyncSummary = Static<typeof SyncSummary>;
/**
 * sync now, force, refresh: the figures when the job ended within SYNC_WAIT_MS, else the task_id only; with this
 * server's own sync server alone no task (what devices sent is applied at once) and failed_feeds. message: the
 * text PinePods' web client reads (its ApiResponse).
 */
export const SyncRunAnswer = Type.Composite([
  Type.Object({ success: Type.Boolean(), detail: Type.String(), message: Type.String(), task_id: Type.Optional(Type.String()) }),
  Type.Partial(SyncSummary),
]);
export type SyncRunAnswer = Static<typeof SyncRunAnswer>;
export const AddPodsyncAnswer = Type.Object({ detail: Type.String(), success: Type.Boolean(), status: Type.String() });
export type AddPodsyncAnswer = Static<typeof AddPodsyncAnswer>;
/** verify_podsync_auth: status ("success") and message as the web client reads them. */
export const VerifyPodsyncAnswer = Type.Object({ valid: Type.Boolean(), status: Type.String(), message: Type.String() });
export type VerifyPodsyncAnswer = Static<typeof VerifyPodsyncAnswer>;
export const CheckPodsyncAnswer = Type.Object({ data: Type.Boolean() });
export type CheckPodsyncAnswer = Static<typeof CheckPodsyncAnswer>;
/** get_podsync_settings: the account (never its password or token) and, as data, the address the web client shows. */
export const PodsyncSettingsAnswer = Type.Object({
  sync_type: Type.String(),
  enabled: Type.Boolean(),
  server_url: Nullable(Type.String()),
  username: Nullable(Type.String()),
  device_id: Nullable(Type.String()),
  last_sync: Nullable(Type.String()),
  data: Type.Object({ podsyncurl: Type.String(), podsynctoken: Type.String() }),
});
export type PodsyncSettingsAnswer = Static<typeof PodsyncSettingsAnswer>;
/**
 * The sync servers of a user in the words of PinePods' web client: sync_type None, "gpodder" (this server's own
 * sync server), "external" (a gPodder server elsewhere), "both" (the two), "nextcloud" (a cloudsync account alone);
 * enabled and podsync_enabled (its gpodder_enabled): this server's own is on for the user; external_url: the other
 * gPodder server; api_url: where devices reach this server's own.
 */
const ServerStatus = {
  enabled: Type.Boolean(),
  sync_type: Type.Union(["None", "gpodder", "external", "both", "nextcloud"].map((t) => Type.Literal(t))),
  podsync_enabled: Type.Boolean(),
  external_enabled: Type.Boolean(),
  external_url: Nullable(Type.String()),
  api_url: Nullable(Type.String()),
};
/** podsync/status: the servers, and the account's address and last sync. */
export const PodsyncStatusAnswer = Type.Object({
  ...ServerStatus,
  server_url: Nullable(Type.String()),
  last_sync: Nullable(Type.String()),
  last_status: Type.String(),
  last_error: Nullable(Type.String()),
  last_result: Nullable(SyncSummary),
});
export type PodsyncStatusAnswer = Static<typeof PodsyncStatusAnswer>;
/** podsync/toggle: this server's own sync server switched for the user, and the status as it is now. */
export const PodsyncToggleAnswer = Type.Object({ ...ServerStatus, detail: Type.String() });
export type PodsyncToggleAnswer = Static<typeof PodsyncToggleAnswer>;
/** remove_podcast_sync: success and message as the web client reads them. */
export const RemoveSyncAnswer = Type.Object({ success: Type.Boolean(), message: Type.String(), detail: Type.String() });
export type RemoveSyncAnswer = Static<typeof RemoveSyncAnswer>;
/** A device of the sync server the user syncs with (the web client's device: name, type, is_active; is_remote: not this server's own). */
export const SyncDevice = Type.Object({
  id: Type.String(),
  name: Type.String(),
  caption: Type.String(),
  type: Type.String(),
  subscriptions: Type.Integer(),
  is_default: Type.Boolean(),
  is_active: Type.Boolean(),
  is_remote: Type.Boolean(),
  last_sync: Nullable(Type.String()),
});
export type SyncDevice = Static<typeof SyncDevice>;
export const SyncDevicesAnswer = Type.Array(SyncDevice);
/** set_default: success and message as the web client reads them (its ApiResponse). */
export const SetDefaultDeviceAnswer = Type.Object({ success: Type.Boolean(), detail: Type.String(), message: Type.String(), device_id: Type.String() });
export type SetDefaultDeviceAnswer = Static<typeof SetDefaultDeviceAnswer>;
/** The documents' Sync statistics record; its items as the web client reads them (of this server's own sync server: api_endpoints_tested empty). */
export const SyncStatisticsAnswer = Type.Object({
  server_url: Type.String(),
  sync_type: Type.String(),
  sync_enabled: Type.Boolean(),
  server_devices: Type.Array(
    Type.Object({ id: Type.String(), caption: Type.String(), device_type: Type.String(), type: Type.String(), subscriptions: Type.Integer() }),
  ),
  total_devices: Type.Integer(),
  server_subscriptions: Type.Array(Type.Object({ url: Type.String(), title: Nullable(Type.String()), description: Nullable(Type.String()) })),
  total_subscriptions: Type.Integer(),
  recent_episode_actions: Type.Array(
    Type.Object({
      podcast: Type.String(),
      episode: Type.String(),
      action: Type.String(),
      timestamp: Type.String(),
      device: Type.Optional(Type.String()),
      position: Type.Optional(Type.Integer()),
      started: Type.Optional(Type.Integer()),
      total: Type.Optional(Type.Integer()),
    }),
  ),
  total_episode_actions: Type.Integer(),
  connection_status: Type.String(),
  last_sync_timestamp: Nullable(Type.String()),
  api_endpoints_tested: Type.Array(Type.Object({ endpoint: Type.String(), ok: Type.Boolean(), status: Type.String() })),
});
export type SyncStatisticsAnswer = Static<typeof SyncStatisticsAnswer>;
export const TestConnectionAnswer = Type.Object({ success: Type.Boolean(), message: Type.String(), server_url: Type.String(), total_devices: Type.Integer() });
export type TestConnectionAnswer = Static<typeof TestConnectionAnswer>;
/** initiate_cloudsync_login: the login flow (the web client reads login and poll.token/poll.endpoint). */
export const CloudsyncLoginAnswer = Type.Object({
  login_url: Type.String(),
  token: Type.String(),
  poll_endpoint: Type.String(),
  login: Type.String(),
  poll: Type.Object({ token: Type.String(), endpoint: Type.String() }),
});
export type CloudsyncLoginAnswer = Static<typeof CloudsyncLoginAnswer>;
export const AddCloudsyncAnswer = Type.Object({ detail: Type.String(), status: Type.Union([Type.Literal("connected"), Type.Literal("pending")]) });
export type AddCloudsyncAnswer = Static<typeof AddCloudsyncAnswer>;

// --- Calls to the sync service and its events (shared/contracts/call.ts) ---

/** The user's sync account settings as the web client shows them (never its password or token). */
export const getPodsyncSettings = action<{ user_id: number }, PodsyncSettingsAnswer>("sync.get_podsync_settings");
/** Runs a sync job of the user (workers: a JOB_SYNC task); answers what it changed. */
export const runJob = action<RunSyncJobParams, SyncSummary & { message: string }>("sync.run_job");
