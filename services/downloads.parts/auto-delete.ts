/**
 * The downloads service's scheduled auto-delete: a user's download of a completed episode goes once it
 * is older than the days its subscription says (podcast/set_auto_download_delete_days), else the
 * user's default (user/set_auto_download_delete_days); 0 keeps it. Local podcasts' files are never
 * downloads, so never touched.
 *
 * One replica runs it at a time: every replica beats every third of AUTO_DELETE_LEASE_SECONDS and tries
 * to take or renew the lease record in `download_leases` (shared/lease.ts); the holder runs a pass when
 * AUTO_DELETE_INTERVAL minutes passed since the last one (recorded in the lease, so a new holder keeps
 * the rhythm). A holder that dies stops renewing and another replica takes over when the lease expires;
 * a pass cut short is finished by the next one, as each pass works from what is stored.
 */
import crypto from "crypto";
import type { ServiceSchema } from "moleculer";
import { config } from "../../shared/config";
import { ensureLease, releaseLease, takeLease } from "../../shared/lease";
import type { EpisodeMediaItem } from "../../shared/contracts/episodes";
import type { AutoDeleteRule } from "../../shared/contracts/podcasts";

const LEASE_ID = "auto-delete-scheduler";
const DAY_MS = 86_400_000;

interface AutoDeleteLease {
  _id: string;
  holder: string | null;
  expires_at: Date;
  last_run_at: Date | null;
}

/** Mixed into the downloads service: its `downloads` adapter and removeDownloads are used as they are. */
export const AutoDeleteScheduler: Partial<ServiceSchema> = {
  methods: {
    /** One beat: take or renew the lease; the holder runs a pass when one is due. */
    async autoDeleteTick(this: any): Promise<void> {
      if (!(await takeLease(this.stores.download_leases, LEASE_ID, this.autoDeleteHolder, config.autoDeleteLeaseSeconds, { renew: true }))) return;
      const lease: AutoDeleteLease = await this.stores.download_leases.findOne({ _id: LEASE_ID });
      const now = Date.now();
      if (this.autoDeletePass || (lease.last_run_at && now - new Date(lease.last_run_at).getTime() < config.autoDeleteInterval * 60_000)) return;
      await this.stores.download_leases.updateMany({ _id: LEASE_ID }, { $set: { last_run_at: new Date(now) } });
      this.autoDeletePass = this.runAutoDelete()
        .catch(async (err: any) => {
          // Not run (a peer not reachable yet, as while a cluster starts): the next beat tries again. Unhandled, it would end the process.
          this.logger.warn("auto-delete pass failed", { error: err?.message });
          await this.stores.download_leases.updateMany({ _id: LEASE_ID, holder: this.autoDeleteHolder }, { $set: { last_run_at: lease.last_run_at } }).catch(() => undefined);
        })
        .finally(() => { this.autoDeletePass = null; });
    },
    /** One pass over every rule; answers how many downloads went. */
    async runAutoDelete(this: any): Promise<number> {
      const rules: AutoDeleteRule[] = await this.broker.call("podcasts.auto_delete_rules");
      const byUser = new Map<number, Map<number, number>>();
      for (const r of rules) byUser.set(r.user_id, (byUser.get(r.user_id) ?? new Map()).set(r.podcast_id, r.days));
      const now = Date.now();
      let removed = 0;
      for (const [user_id, days] of byUser) {
        const docs: { episode_id: number; podcast_id: number; downloaded_at: Date }[] = await this.adapter.find({ query: { user_id, podcast_id: { $in: [...days.keys()] } } });
        const old = docs.filter((d) => new Date(d.downloaded_at).getTime() < now - days.get(d.podcast_id)! * DAY_MS).map((d) => d.episode_id);
        if (!old.length) continue;
        const items: EpisodeMediaItem[] = await this.broker.call("episodes.episode_items", { user_id, episode_ids: old, include_unsubscribed: true });
        removed += await this.removeDownloads(user_id, items.filter((i) => i.completed).map((i) => i.episodeid));
      }
      this.logger.info("auto-delete pass done", { rules: rules.length, removed });
      return removed;
    },
  },
  created(this: any) {
    this.autoDeleteHolder = `${this.broker.nodeID}:${crypto.randomBytes(4).toString("hex")}`;
    this.autoDeletePass = null;
  },
  async started(this: any) {
    await ensureLease(this.stores.download_leases, LEASE_ID, { last_run_at: null });
    if (config.autoDeleteInterval > 0) {
      const beat = () => this.autoDeleteTick().catch((err: any) => this.logger.warn("auto-delete tick failed", { error: err?.message }));
      this.autoDeleteBeat = setInterval(beat, (config.autoDeleteLeaseSeconds * 1000) / 3);
      this.autoDeleteBeat.unref();
      beat();
    }
  },
  async stopped(this: any) {
    if (this.autoDeleteBeat) clearInterval(this.autoDeleteBeat);
    // Hand the lease over at once instead of letting it expire.
    await releaseLease(this.stores.download_leases, LEASE_ID, this.autoDeleteHolder).catch(() => undefined);
    await this.autoDeletePass?.catch(() => undefined);
  },
};
