/**
 * This server as a sync server for phones and desktop players: the gPodder API v2 and the Nextcloud
 * gpoddersync app's endpoints (README "Sync server for phones"). It owns what devices send, kept as sent:
 * `gpodder_users` (per user: the clock and how far uploads are applied), `gpodder_devices`,
 * `gpodder_feeds` (each feed URL's last change, add or remove, with when it was received) and
 * `gpodder_actions` (episode actions as sent, with when they were received). Every device of a user
 * follows one library: a device's change reaches the others and is applied here through the podcasts
 * and episodes services (gpodder.parts/library.ts); changes made here come back as changes of the
 * device SERVER_DEVICE.
 *
 * Concurrency: each user's writes run one after another in this process (a promise chain per user), and
 * a clock value is published (the user's `clock`) only after the records carrying it are stored, so a
 * reader's `since` never skips a record being written. Hence one instance (the sync group runs one).
 */
import type { Context, ServiceSchema } from "moleculer";
import { config } from "../shared/config";
import { DbMixin } from "../shared/db.mixin";
import { userRemovedEvent } from "../shared/user-data";
import { deviceActions, deviceMethods } from "./gpodder.parts/devices.actions";
import { episodeActions, episodeMethods } from "./gpodder.parts/episodes.actions";
import { libraryEvents, libraryMethods } from "./gpodder.parts/library";
import { subscriptionActions, subscriptionMethods } from "./gpodder.parts/subscriptions.actions";
import { rkeyRange, type UserDoc } from "./gpodder.parts/model";

const GpodderService: ServiceSchema = {
  name: "gpodder",
  mixins: [
    DbMixin({ name: "gpodder_users" }, [
      { name: "gpodder_devices", indexes: [{ fields: { user_id: 1 } }] },
      { name: "gpodder_feeds", indexes: [{ fields: { rkey: 1 } }, { fields: { user_id: 1 } }, { fields: { library: 1 } }] },
      // Read only by ranges of rkey (one user's, in the order received): one index keeps the inserts of a large upload cheap.
      { name: "gpodder_actions", indexes: [{ fields: { rkey: 1 } }] },
    ]),
  ],
  actions: { ...deviceActions, ...subscriptionActions, ...episodeActions },
  events: {
    ...libraryEvents,
    "user.removed": userRemovedEvent(
      { gpodder_devices: "user_id", gpodder_feeds: "user_id", gpodder_actions: (user_id) => rkeyRange(user_id, 0, Number.MAX_SAFE_INTEGER), adapter: "_id" },
      function (user_id, removeData) {
        return this.serial(user_id, removeData);
      },
    ),
  },
  created(this: any) {
    this.chains = new Map<number, Promise<unknown>>();
    this.applying = new Map<number, { rerun: boolean }>();
    this.seeds = new Map<number, Promise<void>>();
  },
  started(this: any) {
    // Feeds not applied yet (not fetchable at upload time) and uploads a restart interrupted are retried.
    if (config.gpodderRetrySeconds > 0) {
      this.retryTimer = setInterval(() => this.applyDue().catch((err: any) => this.logger.warn("sync server retry round failed", { reason: err?.message })), config.gpodderRetrySeconds * 1000);
      this.retryTimer.unref();
    }
  },
  async stopped(this: any) {
    clearInterval(this.retryTimer);
    await Promise.allSettled([...this.chains.values()]);
  },
  methods: {
    ...deviceMethods,
    ...subscriptionMethods,
    ...episodeMethods,
    ...libraryMethods,
    /** Runs fn after every earlier write of this user (in this process). */
    serial<T>(this: any, user_id: number, fn: () => Promise<T>): Promise<T> {
      const run = (this.chains.get(user_id) ?? Promise.resolve()).then(fn, fn);
      const tail = run.catch(() => undefined);
      this.chains.set(user_id, tail);
      tail.then(() => {
        if (this.chains.get(user_id) === tail) this.chains.delete(user_id);
      });
      return run;
    },
    async userDoc(this: any, user_id: number): Promise<UserDoc> {
      return { _id: user_id, clock: 0, applied_seq: 0, is_admin: false, ...(await this.adapter.findOne({ _id: user_id })) };
    },
    /** The user's clock now: every record received up to it is stored; `since` values come from it. */
    async clockOf(this: any, user_id: number): Promise<number> {
      return (await this.userDoc(user_id)).clock;
    },
    /**
     * One write of a user: it gets the next clock value (Unix seconds, or one more than the last value when
     * that is not behind), stores its records with it, then publishes it. Returns the value.
     */
    stamp(this: any, user_id: number, write: (seq: number) => Promise<void>): Promise<number> {
      return this.serial(user_id, async () => {
        const seq = Math.max(Math.floor(Date.now() / 1000), (await this.clockOf(user_id)) + 1);
        await write(seq);
        await this.upsert(this.adapter, user_id, { $set: { clock: seq } });
        return seq;
      });
    },
    /**
     * The caller of a sync route (the gateway's "sync" level sets ctx.meta.user); its rights are kept for
     * retries. On the user's first call the library is seeded (gpodder.parts/library.ts).
     */
    async caller(this: any, ctx: Context<any, any>): Promise<number> {
      const user = ctx.meta.user;
      const user_id: number = user.id;
      const known: UserDoc | null = await this.adapter.findOne({ _id: user_id });
      if (known?.is_admin !== !!user.isAdmin) await this.upsert(this.adapter, user_id, { $set: { is_admin: !!user.isAdmin } });
      if (!known) await this.seeding(user_id);
      return user_id;
    },
    /** The user's seeding, once (concurrent first calls wait for the same one). */
    seeding(this: any, user_id: number): Promise<void> {
      if (!this.seeds.has(user_id)) {
        const seed = this.seedLibrary(user_id).finally(() => this.seeds.delete(user_id));
        this.seeds.set(user_id, seed);
      }
      return this.seeds.get(user_id);
    },
  },
};

export default GpodderService;
