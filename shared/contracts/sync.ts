/** Shapes of the sync service: the payload of a sync job, which the workers hand to sync.run_job. */

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
