/**
 * Sync with a gPodder v2 server ("podsync") or a Nextcloud gpoddersync app ("cloudsync"): one account
 * per user in `sync_accounts`, password sealed with SECRET_KEY and never returned or logged.
 * The local side is reached only through actions of podcasts (subscriptions by feed URL) and episodes
 * (play positions by enclosure URL) and downloads (download and delete actions). Every sync is a task
 * (sync.parts/jobs.actions.ts), asked for or queued every SYNC_INTERVAL minutes for each user with sync on; a
 * lease on the account record lets one replica sync a user at a time.
 */
import type { ServiceSchema } from "moleculer";
import { config } from "../shared/config";
import { DbMixin } from "../shared/db.mixin";
import { userRemovedEvent } from "../shared/user-data";
import { LeaseFields, releaseLease, takeLease } from "../shared/lease";
import { TaskWaitMixin } from "../shared/task-wait.mixin";
import { cloudsyncActions, cloudsyncMethods } from "./sync.parts/cloudsync.actions";
import { engineMethods } from "./sync.parts/engine";
import { jobActions, jobMethods } from "./sync.parts/jobs.actions";
import { ownServerMethods } from "./sync.parts/own-server";
import { podsyncActions, podsyncMethods } from "./sync.parts/podsync.actions";
import type { SyncThis } from "./sync.parts/this";

/** The lease fields of an account record (sync.parts/model.ts). */
const ACCOUNT_LEASE: LeaseFields = { holder: "lease_owner", until: "lease_until" };

const SyncService: ServiceSchema<Record<string, never>, SyncThis> = {
  name: "sync",
  mixins: [TaskWaitMixin, DbMixin({ name: "sync_accounts", indexes: [{ fields: { enabled: 1 } }] })],
  actions: {
    ...podsyncActions,
    ...cloudsyncActions,
    ...jobActions,
  },
  events: {
    "user.removed": userRemovedEvent({ adapter: "_id" }, function (this: SyncThis, user_id, removeData) {
      this.stopPolling(user_id);
      return removeData();
    }),
  },
  created(this: SyncThis) {
    this.loginPolls = new Map<number, NodeJS.Timeout>();
  },
  started(this: SyncThis) {
    if (config.syncInterval > 0) {
      this.scheduler = setInterval(
        () => void this.syncDue().catch((err: Error) => this.logger.warn("scheduled sync round failed", { reason: err?.message })),
        60_000,
      );
      this.scheduler.unref();
    }
  },
  stopped(this: SyncThis) {
    clearInterval(this.scheduler);
    for (const user_id of [...this.loginPolls.keys()]) this.stopPolling(user_id);
  },
  methods: {
    ...podsyncMethods,
    ...ownServerMethods,
    ...cloudsyncMethods,
    ...engineMethods,
    ...jobMethods,
    /** Takes the user's lease when it is free or expired; not renewable: a second sync of the user, even on this replica, waits for it (409, its job retried). */
    claimLease(this: SyncThis, user_id: number): Promise<boolean> {
      return takeLease(this.adapter, user_id, this.broker.nodeID, config.syncLeaseSeconds, { renew: false, fields: ACCOUNT_LEASE });
    },
    releaseLease(this: SyncThis, user_id: number): Promise<void> {
      return releaseLease(this.adapter, user_id, this.broker.nodeID, ACCOUNT_LEASE);
    },
  },
};

export default SyncService;
