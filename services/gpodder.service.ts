/**
 * This server as a sync server for phones and desktop players: the gPodder API v2 and the Nextcloud
 * gpoddersync app's endpoints (docs/phone-sync.md "Sync server for phones"). It owns what devices send, kept as sent:
 * `gpodder_users` (per user: the clock and how far uploads are applied), `gpodder_devices`,
 * `gpodder_feeds` (each feed URL's last change, add or remove, with when it was received) and
 * `gpodder_actions` (episode actions as sent, with when they were received). Every device of a user
 * follows one library: a device's change reaches the others and is applied here through the podcasts
 * and episodes services (gpodder.parts/library.ts); changes made here come back as changes of the
 * device SERVER_DEVICE.
 *
 * Concurrency: several processes may serve the same user at once (a rolling update's two instances, or
 * a scaled sync group), all on one store. Every write of a user that takes a clock value runs under the
 * user's write lease (fields write_holder and write_until of the user's record, shared/lease.ts): take the
 * lease, take the next value from `issued` (one atomic $inc), store the records carrying it, then publish
 * it as `clock` and free the lease in one update that only applies while this write still holds the lease.
 * Readers answer up to `clock` only, so a reader's `since` never passes a record still being written. The
 * lease lasts settings.writeLeaseSeconds and is renewed while its write runs: a killed holder holds up the
 * user's writes that long at most. A write that lost its lease (it stalled past the expiry and another writer
 * took over, whose `clock` may be past this write's value) takes the lease again and moves its records to
 * a new value before publishing (a reader may then receive them twice, never miss them). In one process a
 * user's writes also queue one after another (a promise chain per user), so they do not poll the lease.
 */
import crypto from "crypto";
import type { ServiceSchema } from "moleculer";
import { config } from "../shared/config";
import { DbMixin, isDuplicateKeyError } from "../shared/db.mixin";
import { ServiceUnavailableError } from "../shared/errors";
import { ensureLease, LeaseFields, releaseLease, takeLease } from "../shared/lease";
import { userRemovedEvent } from "../shared/user-data";
import { deviceActions, deviceMethods } from "./gpodder.parts/devices.actions";
import { episodeActions, episodeMethods } from "./gpodder.parts/episodes.actions";
import { libraryEvents, libraryMethods } from "./gpodder.parts/library";
import { subscriptionActions, subscriptionMethods } from "./gpodder.parts/subscriptions.actions";
import { webActions, webMethods } from "./gpodder.parts/web.actions";
import { feedsOf, feedUser, rkey, rkeyRange, type UserDoc } from "./gpodder.parts/model";
import type { GpodderSettings, GpodderThis, UserRecord, WriteLease } from "./gpodder.parts/this";
import type { Ctx } from "../shared/service-types";

/** The write lease's fields on a user's record. */
const WRITE_LEASE: LeaseFields = { holder: "write_holder", until: "write_until" };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** How long other processes' calls wait for a user's first seeding at most (a process that died seeding frees it then). */
const SEED_MS = 120_000;

const GpodderService: ServiceSchema<GpodderSettings, GpodderThis> = {
  name: "gpodder",
  mixins: [
    DbMixin({ name: "gpodder_users" }, [
      { name: "gpodder_devices", indexes: [{ fields: { user_id: 1 } }] },
      // A user's feeds are a range of _id (feedsOf), read whole for what changed (a feed is one record however often it
      // changed), and the feeds waiting to be applied are marked on the user's record (feeds_due_at): no index beside
      // _id, so a first sync's 1,000 inserts write no other. The older ones go; before the library index goes, the users
      // whose feeds wait get their mark (found through it, once).
      {
        name: "gpodder_feeds",
        retired: [
          { field: "rkey" },
          { field: "user_id" },
          {
            field: "library",
            before: async (service, feeds) => {
              const waiting = await feeds.find({ query: { library: { $in: ["pending", "failed"] } } });
              const users = (service as GpodderThis).adapter;
              for (const _id of new Set(waiting.map((f) => feedUser(String(f._id)))))
                await users.updateMany({ _id }, { $set: { feeds_due_at: 0, feeds_mark: 0 } });
            },
          },
        ],
      },
      // Read only by ranges of rkey (one user's, in the order received): one index keeps the inserts of a large upload cheap.
      { name: "gpodder_actions", indexes: [{ fields: { rkey: 1 } }] },
    ]),
  ],
  settings: {
    /**
     * Seconds a user's write lease lasts unless renewed (a write renews it every third of that): how long a
     * killed writer (a pod gone mid-write) holds up the user's other writes at most.
     */
    writeLeaseSeconds: 10,
    /** Milliseconds a write waits for the lease before it answers 503 (under the gateway's request timeout). */
    writeLeaseWaitMs: 20_000,
  },
  actions: { ...deviceActions, ...subscriptionActions, ...episodeActions, ...webActions },
  events: {
    ...libraryEvents,
    "user.removed": userRemovedEvent(
      { gpodder_devices: "user_id", gpodder_feeds: feedsOf, gpodder_actions: (user_id) => rkeyRange(user_id, 0, Number.MAX_SAFE_INTEGER), adapter: "_id" },
      function (this: GpodderThis, user_id, removeData) {
        // After the user's write under way (whichever process runs it); removed even when the lease does not come.
        return this.exclusive(user_id, removeData, false);
      },
    ),
  },
  created(this: GpodderThis) {
    this.chains = new Map<number, Promise<unknown>>();
    this.applying = new Map();
    this.seeds = new Map<number, Promise<void>>();
    this.leaseTokens = 0;
    this.leasePrefix = `${this.broker.nodeID}:${crypto.randomBytes(4).toString("hex")}`;
  },
  started(this: GpodderThis) {
    // Feeds not applied yet (not fetchable at upload time) and uploads a restart interrupted are retried.
    if (config.gpodderRetrySeconds > 0) {
      this.retryTimer = setInterval(
        () => void this.applyDue().catch((err: Error) => this.logger.warn("sync server retry round failed", { reason: err?.message })),
        config.gpodderRetrySeconds * 1000,
      );
      this.retryTimer.unref();
    }
  },
  async stopped(this: GpodderThis) {
    clearInterval(this.retryTimer);
    await Promise.allSettled([...this.chains.values()]);
  },
  methods: {
    ...deviceMethods,
    ...subscriptionMethods,
    ...episodeMethods,
    ...libraryMethods,
    ...webMethods,
    /** Runs fn after every earlier write of this user (in this process). */
    serial<T>(this: GpodderThis, user_id: number, fn: () => Promise<T>): Promise<T> {
      const run = (this.chains.get(user_id) ?? Promise.resolve()).then(fn, fn);
      const tail = run.catch(() => undefined);
      this.chains.set(user_id, tail);
      // tail never rejects (caught above).
      void tail.then(() => {
        if (this.chains.get(user_id) === tail) this.chains.delete(user_id);
      });
      return run;
    },
    async userDoc(this: GpodderThis, user_id: number): Promise<UserDoc> {
      return { _id: user_id, clock: 0, issued: 0, applied_seq: 0, is_admin: false, ...(await this.adapter.findOne({ _id: user_id })) };
    },
    /** The user's clock now: every record received up to it is stored; `since` values come from it. */
    async clockOf(this: GpodderThis, user_id: number): Promise<number> {
      return (await this.userDoc(user_id)).clock;
    },
    /**
     * One write of a user: under the user's write lease it takes the next clock value (takeClock), stores
     * its records with it, then publishes it while still holding the lease. Returns the value published.
     */
    stamp(this: GpodderThis, user_id: number, write: (seq: number) => Promise<void>): Promise<number> {
      return this.serial(user_id, async () => {
        let lease: WriteLease = await this.writeLease(user_id, true);
        try {
          let seq: number = await this.takeClock(user_id);
          await write(seq);
          while (!(await lease.publish(seq))) {
            // Another writer took the lease meanwhile and may have published a later value: these records move past it.
            this.logger.warn("sync server write outlived its lease; its records get a new clock value", { user_id, seq });
            await lease.end();
            lease = await this.writeLease(user_id, true);
            const next: number = await this.takeClock(user_id);
            await this.restamp(user_id, seq, next);
            seq = next;
          }
          return seq;
        } finally {
          await lease.end();
        }
      });
    },
    /** Runs fn holding the user's write lease (a write that takes no clock value); required false: runs anyway when the lease does not come. */
    exclusive<T>(this: GpodderThis, user_id: number, fn: () => Promise<T>, required = true): Promise<T> {
      return this.serial(user_id, async () => {
        const lease: WriteLease | null = await this.writeLease(user_id, required);
        try {
          return await fn();
        } finally {
          await lease?.end();
        }
      });
    },
    /**
     * The next clock value of the user: Unix seconds, or more when writes came faster (never a value handed
     * out before, nor one at or below the published clock). `issued` is raised to the floor with $max and
     * then taken with one atomic $inc: two writers never get the same value, whatever they read before.
     */
    async takeClock(this: GpodderThis, user_id: number): Promise<number> {
      const doc: UserDoc = await this.userDoc(user_id);
      const floor = Math.max(Math.floor(Date.now() / 1000) - 1, doc.clock);
      if (doc.issued < floor) await this.upsert(this.adapter, user_id, { $max: { issued: floor } });
      // The store's $inc itself (incrementDoc takes string ids): the record answered has `issued`.
      const { issued } = await this.adapter.increment(user_id, { issued: 1 });
      return issued!;
    },
    /** Moves the records of one clock value to another (a write that lost its lease). */
    async restamp(this: GpodderThis, user_id: number, from: number, to: number): Promise<void> {
      await this.stores.gpodder_feeds.updateMany({ ...feedsOf(user_id), seq: from }, { $set: { seq: to } });
      await this.stores.gpodder_actions.updateMany({ rkey: rkey(user_id, from) }, { $set: { seq: to, rkey: rkey(user_id, to) } });
    },
    /**
     * Takes the user's write lease, waiting while another write holds it (at most writeLeaseWaitMs: then a
     * 503, or null when not required), and renews it until the write ends. Each write is its own holder.
     */
    async writeLease(this: GpodderThis, user_id: number, required: boolean): Promise<WriteLease | null> {
      const token = `${this.leasePrefix}:${++this.leaseTokens}`;
      const seconds: number = this.settings.writeLeaseSeconds;
      const deadline = Date.now() + this.settings.writeLeaseWaitMs;
      let fixed = false;
      for (let pause = 2; !(await takeLease(this.adapter, user_id, token, seconds, { renew: false, fields: WRITE_LEASE })); pause = Math.min(pause * 2, 100)) {
        if (!fixed) {
          fixed = true;
          // A record from before the lease (no write_until matches no expiry), or none yet: made takeable, then tried again.
          const old = await this.adapter.updateMany(
            { _id: user_id, [WRITE_LEASE.until]: { $exists: false } },
            { $set: { [WRITE_LEASE.holder]: null, [WRITE_LEASE.until]: new Date(0) } },
          );
          if (!old) await ensureLease(this.adapter, user_id, {}, WRITE_LEASE);
          continue;
        }
        if (Date.now() >= deadline) {
          if (!required) return null;
          throw new ServiceUnavailableError("Another write of this user's sync data is under way; try again");
        }
        await sleep(pause * (0.5 + Math.random()));
      }
      // Renewed only while still ours: a lease that another writer took, or that was freed, is never taken back here.
      let renewing: Promise<unknown> = Promise.resolve();
      const timer = setInterval(
        () => {
          renewing = this.adapter
            .updateMany({ _id: user_id, [WRITE_LEASE.holder]: token }, { $set: { [WRITE_LEASE.until]: new Date(Date.now() + seconds * 1000) } })
            .catch((err: Error) => this.logger.warn("renewing a sync write lease failed", { user_id, reason: err?.message }));
        },
        (seconds * 1000) / 3,
      );
      timer.unref();
      let done = false;
      const stop = async () => {
        clearInterval(timer);
        await renewing;
      };
      return {
        publish: async (seq: number) => {
          await stop();
          const held: number = await this.adapter.updateMany(
            { _id: user_id, [WRITE_LEASE.holder]: token },
            { $max: { clock: seq }, $set: { [WRITE_LEASE.holder]: null, [WRITE_LEASE.until]: new Date(0) } },
          );
          done = held > 0;
          return done;
        },
        end: async () => {
          await stop();
          if (done) return;
          done = true;
          await releaseLease(this.adapter, user_id, token, WRITE_LEASE).catch((err: Error) =>
            this.logger.warn("freeing a sync write lease failed; it expires", { user_id, reason: err?.message }),
          );
        },
      };
    },
    /**
     * The caller of a sync route (the gateway's "sync" level sets ctx.meta.user); its rights are kept for
     * retries. On the user's first call the library is seeded (gpodder.parts/library.ts).
     */
    async caller(this: GpodderThis, ctx: Ctx<unknown>): Promise<number> {
      const user = ctx.meta.user!;
      const user_id: number = user.id;
      const is_admin = !!user.isAdmin;
      let known: UserRecord | null = await this.adapter.findOne({ _id: user_id });
      if (!known) {
        // The call whose insert makes the record seeds (once, whichever process); a concurrent first call waits for it.
        if (await this.insertUser(user_id, is_admin)) return await this.seeding(user_id).then(() => user_id);
        known = await this.adapter.findOne({ _id: user_id });
      }
      // Seeding in another process: a device's change applied meanwhile would be read back as this server's own.
      while (known && known.seed_until && new Date(known.seed_until) > new Date()) {
        await (this.seeds.get(user_id) ?? sleep(50));
        known = await this.adapter.findOne({ _id: user_id });
      }
      if (known && known.is_admin !== is_admin) {
        await this.upsert(this.adapter, user_id, { $set: { is_admin } });
      }
      return user_id;
    },
    /** Inserts the user's record (its write lease free); false when it is there already (another call made it first). */
    async insertUser(this: GpodderThis, user_id: number, is_admin: boolean): Promise<boolean> {
      try {
        const seed_until = new Date(Date.now() + SEED_MS);
        await this.adapter.insert({ _id: user_id, is_admin, seed_until, [WRITE_LEASE.holder]: null, [WRITE_LEASE.until]: new Date(0) });
        return true;
      } catch (err) {
        if (isDuplicateKeyError(err)) return false;
        throw err;
      }
    },
    /** The user's seeding, once (concurrent first calls wait for the same one). */
    seeding(this: GpodderThis, user_id: number): Promise<void> {
      if (!this.seeds.has(user_id)) {
        const seed = this.seedLibrary(user_id).finally(async () => {
          this.seeds.delete(user_id);
          await this.upsert(this.adapter, user_id, { $set: { seed_until: null } }).catch((err: Error) =>
            this.logger.warn("marking a seeding done failed; it expires", { user_id, reason: err?.message }),
          );
        });
        this.seeds.set(user_id, seed);
      }
      return this.seeds.get(user_id)!;
    },
  },
};

export default GpodderService;
