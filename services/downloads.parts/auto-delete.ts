/**
 * The downloads service's scheduled auto-delete: a user's download of a completed episode goes once it
 * is older than the days its subscription says (podcast/set_auto_download_delete_days), else the
 * user's default (user/set_auto_download_delete_days); 0 keeps it. Local podcasts' files are never
 * downloads, so never touched.
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
import type { EpisodeMediaItem } from "../../shared/contracts/episodes";
import { episodeItems } from "../../shared/contracts/episodes";
import type { AutoDeleteRule } from "../../shared/contracts/podcasts";
import { autoDeleteRules } from "../../shared/contracts/podcasts";
import type { DownloadDoc, DownloadsThis } from "./this";

const DAY_MS = 86_400_000;
const dueByInterval = rhythmInLease<DownloadsThis>((last, now) => !last || now.getTime() - last.getTime() >= config.autoDeleteInterval * 60_000);

/** Whether a node runs the service (Moleculer 0.14's registry.hasService, which its typings leave out). */
const runs = (broker: ServiceBroker, name: string): boolean => (broker.registry as ServiceRegistry & { hasService(name: string): boolean }).hasService(name);

/** Mixed into the downloads service (listed before its db mixin): its `downloads` adapter and removeDownloads are used as they are. */
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
        ["podcasts", "episodes"].every((name) => runs(service.broker, name)) ? dueByInterval(service, job, now) : Promise.resolve(false),
      run: (service) => service.runAutoDelete(),
    }),
  ],
  methods: {
    /** One pass over every rule; answers how many downloads went. */
    async runAutoDelete(this: DownloadsThis): Promise<number> {
      const rules: AutoDeleteRule[] = await autoDeleteRules(this.broker, {});
      const byUser = new Map<number, Map<number, number>>();
      for (const r of rules) byUser.set(r.user_id, (byUser.get(r.user_id) ?? new Map<number, number>()).set(r.podcast_id, r.days));
      const now = Date.now();
      let removed = 0;
      for (const [user_id, days] of byUser) {
        const docs: Pick<DownloadDoc, "episode_id" | "podcast_id" | "downloaded_at">[] = await this.adapter.find({
          query: { user_id, podcast_id: { $in: [...days.keys()] } },
        });
        const old = docs.filter((d) => new Date(d.downloaded_at).getTime() < now - days.get(d.podcast_id)! * DAY_MS).map((d) => d.episode_id);
        if (!old.length) continue;
        const items: EpisodeMediaItem[] = await episodeItems(this.broker, { user_id, episode_ids: old, include_unsubscribed: true });
        removed += await this.removeDownloads(
          user_id,
          items.filter((i) => i.completed).map((i) => i.episodeid),
        );
      }
      this.logger.info("auto-delete pass done", { rules: rules.length, removed });
      return removed;
    },
  },
};
