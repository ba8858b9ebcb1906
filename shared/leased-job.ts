/**
 * A scheduled job that runs on one replica at a time (the feeds refresh, the downloads auto-delete, the
 * scheduled backups): every replica beats, each beat takes or renews the job's lease (shared/lease.ts, so a
 * long pass keeps it to the end), and the holder starts a pass when one is due and none runs. A holder that
 * dies stops renewing and another replica takes over when the lease expires. A failed pass is logged
 * (unhandled, it would end the process) and, when its claim can be undone, due again at the next beat.
 * Stopping ends the beats, waits for the running pass and hands the lease over at once.
 */
import crypto from "crypto";
import type { Service, ServiceSchema } from "moleculer";
import { mixin } from "./service-types";
import { ensureLease, type LeaseStore, releaseLease, SCHEDULER_LEASE, takeLease } from "./lease";

/** The lease record: the lease's own fields, plus last_run_at when the job keeps its rhythm there. */
interface JobLeaseDoc {
  _id: string;
  holder: string | null;
  expires_at: Date;
  last_run_at?: Date | null;
}

export interface JobStore extends LeaseStore {
  findOne(query: object): Promise<object | null>;
}

/** What a claim answers: false, no pass is due; true, one starts; a function, one starts and this undoes its claim. */
export type PassClaim = boolean | (() => Promise<unknown>);

/** S: the `this` of the service that runs the job. */
export interface LeasedJobSpec<S extends Service = Service> {
  /** The lease record's _id. */
  leaseId: string;
  /** Names the job in logs. */
  name: string;
  /** The service's store of the lease record. */
  store(service: S): JobStore;
  /** Seconds a lease lasts unless renewed (read at each beat, as the other settings). */
  leaseSeconds(): number;
  /** Milliseconds between beats; 0: the job does not beat (off). */
  beatMs(): number;
  /** When the lease record is inserted (if missing): "start" (with last_run_at null), or before every beat ("beat": a restore may replace the store). */
  ensure: "start" | "beat";
  /** Beat once at start instead of a beat period later. */
  beatAtStart: boolean;
  /** When true, a beat does nothing (not even renew). */
  paused?(service: S): boolean;
  /** On the holder while no pass runs: whether one is due now, recorded as started when it is. */
  claim(service: S, job: LeasedJob<S>, now: Date): Promise<PassClaim>;
  /** One pass. */
  run(service: S, now: Date): Promise<unknown>;
}

export class LeasedJob<S extends Service = Service> {
  /** This replica's name in the lease: its node and a random part (two instances on a node differ). */
  readonly holder: string;
  /** The running pass; it never rejects. */
  pass: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly service: S,
    readonly spec: LeasedJobSpec<S>,
  ) {
    this.holder = `${service.broker.nodeID}:${crypto.randomBytes(4).toString("hex")}`;
  }

  get store(): JobStore {
    return this.spec.store(this.service);
  }

  /** Takes or renews the lease; true when this replica holds it. */
  async claimLease(): Promise<boolean> {
    if (this.spec.ensure === "beat") await ensureLease(this.store, this.spec.leaseId);
    return takeLease(this.store, this.spec.leaseId, this.holder, this.spec.leaseSeconds(), { renew: true });
  }

  /** One beat: take or renew the lease; the holder starts a pass when one is due. */
  async tick(): Promise<void> {
    if (this.spec.paused?.(this.service)) return;
    if (!(await this.claimLease()) || this.pass) return;
    const now = new Date();
    const claimed = await this.spec.claim(this.service, this, now);
    if (!claimed) return;
    this.pass = this.spec
      .run(this.service, now)
      .then(
        () => undefined,
        async (err: unknown) => {
          // Not run (say a peer not reachable yet, as while a cluster starts): with its claim undone the next beat tries again.
          this.service.logger.warn(`${this.spec.name} pass failed`, { error: (err as Error | null)?.message });
          if (typeof claimed === "function") await claimed().catch(() => undefined);
        },
      )
      .finally(() => {
        this.pass = null;
      });
  }

  async start(): Promise<void> {
    if (this.spec.ensure === "start") await ensureLease(this.store, this.spec.leaseId, { last_run_at: null });
    const ms = this.spec.beatMs();
    if (ms <= 0) return;
    const beat = () =>
      void this.tick().catch((err: unknown) => this.service.logger.warn(`${this.spec.name} tick failed`, { error: (err as Error | null)?.message }));
    this.timer = setInterval(beat, ms);
    this.timer.unref(); // the gateway keeps the process alive, not a scheduler
    if (this.spec.beatAtStart) beat();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.pass;
    // Hand the lease over at once instead of letting it expire.
    await releaseLease(this.store, this.spec.leaseId, this.holder).catch(() => undefined);
  }
}

/**
 * The service gets the job as this[key]. List it before the db mixin: moleculer starts the first-listed
 * mixin last (the stores are connected by then) and stops it first.
 */
export function LeasedJobMixin<S extends Service>(key: string, spec: LeasedJobSpec<S>): Partial<ServiceSchema> {
  type WithJob = S & Record<string, LeasedJob<S>>;
  return mixin<WithJob>({
    created(this: WithJob) {
      (this as Record<string, LeasedJob<S>>)[key] = new LeasedJob<S>(this, spec);
    },
    async started(this: WithJob) {
      await (this as Record<string, LeasedJob<S>>)[key].start();
    },
    async stopped(this: WithJob) {
      await (this as Record<string, LeasedJob<S>>)[key].stop();
    },
  });
}

/**
 * A claim for passes `due` after the start of the last one, which the lease record keeps in last_run_at (so
 * a new holder keeps the rhythm). firstWaits: the first holder ever only starts the rhythm. A failed pass
 * gets the previous last_run_at back while this replica holds the lease, so the next beat retries it.
 */
export function rhythmInLease<S extends Service>(due: (last: Date | null, now: Date) => boolean, firstWaits = false): LeasedJobSpec<S>["claim"] {
  return async (_service, job, now) => {
    const { leaseId } = job.spec;
    const lease = (await job.store.findOne({ _id: leaseId })) as JobLeaseDoc; // ensured before every claim
    const last = lease.last_run_at ? new Date(lease.last_run_at) : null;
    const record = (at: Date | null, query: object = {}) => job.store.updateMany({ _id: leaseId, ...query }, { $set: { last_run_at: at } });
    if (!last && firstWaits) {
      await record(now);
      return false;
    }
    if (!due(last, now)) return false;
    await record(now);
    return () => record(lease.last_run_at ?? null, { [SCHEDULER_LEASE.holder]: job.holder });
  };
}
