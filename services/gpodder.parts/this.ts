/** The gpodder service's `this` (services/gpodder.service.ts and every part of it): the methods each part gives the others. */
import type { OwnSyncDevice, SubscriptionChangesAnswer, SyncDevicesAnswer } from "../../shared/contracts/gpodder";
import type { Ctx, DbThis, Query } from "../../shared/service-types";
import type { ActionDoc, DeviceDoc, FeedDoc, UserDoc } from "./model";

/** A user's record as stored: the clock fields come with the first write (userDoc fills them in). */
export type UserRecord = Pick<UserDoc, "_id"> & Partial<Omit<UserDoc, "_id">>;

/** An episode action before it is stored (its id, user and clock value are given then). */
export type NewAction = Omit<ActionDoc, "_id" | "user_id" | "seq" | "rkey">;

/** changeFeeds' feeds that moved: old URL -> new (in), and the old URLs a device sent that were replaced (out). */
export interface FeedMoves {
  from?: Map<string, string>;
  rewritten?: [string, string][];
}

/** A user's write lease as one write holds it. */
export interface WriteLease {
  /** Publishes `seq` as the user's clock and frees the lease, in one update; false (nothing done) when this write no longer holds the lease. */
  publish(seq: number): Promise<boolean>;
  /** Stops renewing and frees the lease unless publish did. */
  end(): Promise<void>;
}

export interface GpodderSettings {
  writeLeaseSeconds: number;
  writeLeaseWaitMs: number;
}

/** A run of applySoon (library.ts): whether to run once more, with every waiting feed or those uploads changed, and when it has ended. */
interface ApplyRun {
  rerun: boolean;
  feeds: boolean;
  ids: Set<string>;
  done: Promise<void>;
}

interface GpodderMethods {
  // gpodder.service.ts
  serial<T>(user_id: number, fn: () => Promise<T>): Promise<T>;
  userDoc(user_id: number): Promise<UserDoc>;
  clockOf(user_id: number): Promise<number>;
  stamp(user_id: number, write: (seq: number) => Promise<void>): Promise<number>;
  exclusive<T>(user_id: number, fn: () => Promise<T>, required?: boolean): Promise<T>;
  takeClock(user_id: number): Promise<number>;
  restamp(user_id: number, from: number, to: number): Promise<void>;
  writeLease(user_id: number, required: true): Promise<WriteLease>;
  writeLease(user_id: number, required: boolean): Promise<WriteLease | null>;
  caller(ctx: Ctx<unknown>): Promise<number>;
  insertUser(user_id: number, is_admin: boolean): Promise<boolean>;
  seeding(user_id: number): Promise<void>;
  // devices.actions.ts
  ensureDevices(user_id: number, device_ids: string[]): Promise<void>;
  saveDevice(user_id: number, device_id: string, set: Partial<Pick<DeviceDoc, "caption" | "type">>): Promise<void>;
  existingDevice(user_id: number, device_id: string): Promise<DeviceDoc | null>;
  syncStatus(user_id: number): Promise<SyncDevicesAnswer>;
  // subscriptions.actions.ts
  changesSince(user_id: number, since: number): Promise<SubscriptionChangesAnswer>;
  subscribedUrls(user_id: number): Promise<string[]>;
  changeFeeds(user_id: number, device: string, add: string[], remove: string[], fromDevice?: boolean, moves?: FeedMoves): Promise<number>;
  // episodes.actions.ts
  newestActions(user_id: number, episodeUrls: string[], until: number): Promise<Map<string, ActionDoc>>;
  storeActions(user_id: number, actions: NewAction[], applyHere?: boolean): Promise<number>;
  actionsSince(
    user_id: number,
    since: number,
    filter: { podcast?: string; device?: string },
    until?: number,
  ): Promise<{ actions: ActionDoc[]; timestamp: number }>;
  // library.ts
  seedLibrary(user_id: number): Promise<void>;
  applySoon(user_id: number, feeds?: boolean | string[]): Promise<void>;
  applyDue(): Promise<void>;
  applyFeeds(user_id: number, ids?: string[]): Promise<void>;
  applyFeedBatches(user: UserDoc, due: FeedDoc[]): Promise<void>;
  applyActions(user_id: number): Promise<void>;
  applyPlays(user_id: number, range: Query, only?: string[]): Promise<void>;
  // web.actions.ts
  ownDevices(user_id: number): Promise<OwnSyncDevice[]>;
}

export type GpodderThis = DbThis<UserRecord, { gpodder_devices: DeviceDoc; gpodder_feeds: FeedDoc; gpodder_actions: ActionDoc }> &
  GpodderMethods & {
    settings: GpodderSettings;
    /** Per user, the tail of the chain of their writes in this process (serial). */
    chains: Map<number, Promise<unknown>>;
    /** Per user, the run of applySoon under way. */
    applying: Map<number, ApplyRun>;
    /** Per user, their seeding under way in this process. */
    seeds: Map<number, Promise<void>>;
    /** Writes of this process that took a lease so far: each write's holder is leasePrefix and its number. */
    leaseTokens: number;
    leasePrefix: string;
    /** The retry round (GPODDER_RETRY_SECONDS on). */
    retryTimer?: NodeJS.Timeout;
  };
