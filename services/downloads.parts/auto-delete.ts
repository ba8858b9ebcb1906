/**
 * The downloads service's scheduled auto-delete: the retention pass (retention.ts: downloads of completed
 * episodes older than the days a podcast's retention or the user's default says, those beyond its newest
 * keep_last, never a saved one by default). Local podcasts' files are never downloads, so never touched.
 *
 * One replica runs it at a time: every replica beats every third of AUTO_DELETE_LEASE_SECONDS and tries
 * to take or renew the lease record in `download_leases` (shared/leased-job.ts); the holder runs a pass when
 * AUTO_DELETE_INTERVAL minutes passed since the last one (recorded in the lease, so a new holder keeps
 * the rhythm). A holder that dies stops renewing and another replica takes over when the lease expires;
 * a pass cut short is finished by the next one, as each pass works from what is stored.
 */
import type { ServiceBroker, ServiceRegistry, ServiceSchema } from "moleculer";
import { config } from "../../shared/config";
import { LeasedJobMixin, rhythmInLease } from "../../shared/leased-job";
import { RetentionPass } from "./retention";
import type { DownloadsThis } from "./this";

const dueByInterval = rhythmInLease<DownloadsThis>((last, now) => !last || now.getTime() - last.getTime() >= config.autoDeleteInterval * 60_000);

/** Whether a node runs the service (Moleculer 0.14's registry.hasService, which its typings leave out). */
const runs = (broker: ServiceBroker, name: string): boolean => (broker.registry as ServiceRegistry & { hasService(name: string): boolean }).hasService(name);

/** Mixed into the downloads service (listed before its db mixin), with the retention pass it runs. */
export const AutoDeleteScheduler: Partial<ServiceSchema> = {
  mixins: [
    LeasedJobMixin<DownloadsThis>("autoDeleteJob", {
      leaseId: "auto-delete-scheduler",
      name: "auto-delete",
      store: (service) => service.stores.download_leases,
      leaseSeconds: () => config.autoDeleteLeaseSeconds,
      beatMs: () => (config.autoDeleteInterval > 0 ? (config.autoDeleteLeaseSeconds * 1000) / 3 : 0),
      ensure: "start",
      beatAtStart: true,
      // Not due before the services a pass asks are up (the first beat comes at start): no failed pass to log then.
      claim: (service, job, now) =>
        ["podcasts", "episodes", "tasks"].every((name) => runs(service.broker, name)) ? dueByInterval(service, job, now) : Promise.resolve(false),
      run: (service) => service.runAutoDelete(),
    }),
    RetentionPass,
  ],
};
