/**
 * The retention pass (docs/library.md "Retention of downloads"), which the auto-delete job runs under its lease
 * (auto-delete.ts). Per user and podcast, the rule podcasts.auto_delete_rules answers (the podcast's own
 * retention, else the user's default): downloads of completed episodes older than delete_after_days go,
 * downloads beyond the newest keep_last episodes (by publication date) go, and with keep_saved (the default)
 * a saved episode's download never goes.
 *
 * Crash safety: the pass first marks what it deletes (`deleting`, one durable write), then completes every
 * marked download: the file and its sidecars go unless another user's unmarked download keeps them, the
 * deletion is recorded for sync under an _id made of the download and its mark (written twice, it is one
 * record), and the record goes last, counted only by the removal that took it. A pass killed anywhere leaves
 * marked records that the next one completes: a file already gone is fine, nothing is recorded or counted
 * twice. Before completing, saved episodes are read again: one saved since its mark stays while its file is there.
 *
 * Never under a reader or a writer: a marked download whose episode a replica streams (each replica holds the
 * episodes it streams, MediaHolds, and answers open_media; the pass asks every downloads replica after marking)
 * or a download job works on (tasks.active_jobs) is unmarked and left to a later pass. A stream holds its
 * episode before it looks its file up, and the lookup skips marked downloads: either the pass sees the hold
 * or the stream does not open the file. A replica that does not answer fails the pass (retried at the next
 * beat). Limit: a download job created after the pass read the jobs that finishes the same file before its
 * unlink (milliseconds later) would lose that file.
 */
import fs from "fs";
import path from "path";
import { setTimeout as sleep } from "timers/promises";
import type { Context } from "moleculer";
import { config } from "../../shared/config";
import { mixin } from "../../shared/service-types";
import { type DownloadEpisodePayload, type DownloadPodcastPayload, openMedia, sidecarPaths, type StoredFile } from "../../shared/contracts/downloads";
import { type EpisodeMediaItem, episodeItems } from "../../shared/contracts/episodes";
import { type AutoDeleteRule, autoDeleteRules } from "../../shared/contracts/podcasts";
import { activeJobs, JOB_DOWNLOAD_EPISODE, JOB_DOWNLOAD_PODCAST, JOB_DOWNLOAD_PODCAST_BEFORE } from "../../shared/contracts/tasks";
import { type DownloadDoc, type DownloadsThis, keyOf } from "./this";

const DAY_MS = 86_400_000;
const DOWNLOAD_JOBS = [JOB_DOWNLOAD_EPISODE, JOB_DOWNLOAD_PODCAST, JOB_DOWNLOAD_PODCAST_BEFORE];

/** A stream's hold on an episode's downloaded file: freed when its read stream closes, or by done() when none opened. */
export class MediaHold {
  private freed = false;
  private streaming = false;

  constructor(private readonly release: () => void) {}

  /** The file's bytes start..end (inclusive); the hold lasts until the stream closes (read to the end, or the client gone). */
  stream(file: string, start: number, end: number): fs.ReadStream {
    this.streaming = true;
    const s = fs.createReadStream(path.join(config.downloadDir, file), { start, end });
    s.once("close", () => this.free());
    return s;
  }

  /** After the answer: frees the hold unless a stream took it over. */
  done(): void {
    if (!this.streaming) this.free();
  }

  private free(): void {
    if (this.freed) return;
    this.freed = true;
    this.release();
  }
}

/** The episodes whose downloaded file this replica streams: a count per episode. */
export class MediaHolds {
  private readonly counts = new Map<number, number>();

  hold(episode_id: number): MediaHold {
    this.counts.set(episode_id, (this.counts.get(episode_id) ?? 0) + 1);
    return new MediaHold(() => {
      const left = this.counts.get(episode_id)! - 1;
      if (left) this.counts.set(episode_id, left);
      else this.counts.delete(episode_id);
    });
  }

  held(): number[] {
    return [...this.counts.keys()];
  }
}

/** The file of a download and what the workers wrote beside it (download metadata settings); a missing one is fine. */
export async function unlinkDownload(file: string): Promise<void> {
  for (const f of [file, ...sidecarPaths(file)]) await fs.promises.rm(path.join(config.downloadDir, f), { force: true });
}

const published = (i: EpisodeMediaItem) => Date.parse(i.episodepubdate) || 0;

/** Of one user's downloads, those the rules (podcast_id -> rule) delete at `now`. */
export function dueForDeletion(docs: DownloadDoc[], items: EpisodeMediaItem[], rules: Map<number, AutoDeleteRule>, now: number): DownloadDoc[] {
  const byId = new Map(items.map((i) => [i.episodeid, i]));
  const byPodcast = new Map<number, DownloadDoc[]>();
  for (const d of docs) if (byId.has(d.episode_id)) byPodcast.set(d.podcast_id, [...(byPodcast.get(d.podcast_id) ?? []), d]);
  const due: DownloadDoc[] = [];
  for (const [podcast_id, mine] of byPodcast) {
    const rule = rules.get(podcast_id);
    if (!rule) continue;
    const newestFirst = [...mine].sort((a, b) => published(byId.get(b.episode_id)!) - published(byId.get(a.episode_id)!) || b.episode_id - a.episode_id);
    const beyond = new Set(rule.keep_last > 0 ? newestFirst.slice(rule.keep_last) : []);
    for (const d of mine) {
      const item = byId.get(d.episode_id)!;
      const old = rule.days > 0 && item.completed && new Date(d.downloaded_at).getTime() < now - rule.days * DAY_MS;
      if ((old || beyond.has(d)) && !(rule.keep_saved && item.saved)) due.push(d);
    }
  }
  return due;
}

function byUser<T extends { user_id: number }>(rows: T[]): Map<number, T[]> {
  const out = new Map<number, T[]>();
  for (const r of rows) out.set(r.user_id, [...(out.get(r.user_id) ?? []), r]);
  return out;
}

/** Mixed into the downloads service through the auto-delete job (auto-delete.ts). */
export const RetentionPass = mixin<DownloadsThis>({
  created(this: DownloadsThis) {
    this.mediaHolds = new MediaHolds();
  },
  actions: {
    /** The episodes this replica streams a downloaded file of (the pass calls every replica). */
    open_media: {
      visibility: "public",
      handler(this: DownloadsThis): number[] {
        return this.mediaHolds.held();
      },
    },
  },
  methods: {
    /** One pass: marks what the rules delete now, then completes every marked download. Answers how many records went. */
    async runAutoDelete(this: DownloadsThis): Promise<number> {
      const rules: AutoDeleteRule[] = await autoDeleteRules(this.broker, {});
      const now = new Date();
      let marked = 0;
      for (const [user_id, mine] of byUser(rules)) {
        const perPodcast = new Map(mine.map((r) => [r.podcast_id, r]));
        const docs: DownloadDoc[] = await this.adapter.find({ query: { user_id, podcast_id: { $in: [...perPodcast.keys()] } } });
        if (!docs.length) continue;
        const items = await episodeItems(this.broker, { user_id, episode_ids: docs.map((d) => d.episode_id), include_unsubscribed: true });
        const due = dueForDeletion(docs, items, perPodcast, now.getTime());
        if (due.length)
          marked += await this.adapter.updateMany({ _id: { $in: due.map((d) => d._id) }, deleting: { $exists: false } }, { $set: { deleting: now } });
      }
      const removed = await this.completeDeletions(rules);
      this.logger.info("retention pass done", { rules: rules.length, marked, removed });
      return removed;
    },
    /** Completes every marked download (this pass's and those a pass cut short left); answers how many records this call removed. */
    async completeDeletions(this: DownloadsThis, rules: AutoDeleteRule[]): Promise<number> {
      const marked: DownloadDoc[] = await this.adapter.find({ query: { deleting: { $exists: true } } });
      if (!marked.length) return 0;
      // A rule gone since the mark: saved ones are kept, as by default.
      const keepsSaved = new Map(rules.map((r) => [keyOf(r.user_id, r.podcast_id), r.keep_saved]));
      const spared = new Set<string>();
      for (const [user_id, docs] of byUser(marked)) {
        const items = await episodeItems(this.broker, { user_id, episode_ids: docs.map((d) => d.episode_id), include_unsubscribed: true });
        const saved = new Set(items.filter((i) => i.saved).map((i) => i.episodeid));
        for (const d of docs)
          if (saved.has(d.episode_id) && (keepsSaved.get(keyOf(d.user_id, d.podcast_id)) ?? true) && fs.existsSync(path.join(config.downloadDir, d.file)))
            spared.add(d._id);
      }
      const busy = await this.busyEpisodes();
      for (const d of marked) if (busy.has(d.episode_id)) spared.add(d._id);
      if (spared.size) await this.adapter.updateMany({ _id: { $in: [...spared] } }, { $unset: { deleting: true } });
      let removed = 0;
      for (const d of marked) {
        if (spared.has(d._id)) continue;
        const holders: DownloadDoc[] = await this.adapter.find({ query: { episode_id: d.episode_id } });
        if (!holders.some((h) => h.file === d.file && !h.deleting)) await unlinkDownload(d.file);
        const at = new Date(d.deleting!);
        await this.stores.download_deletions.upsertOne(`${d._id}@${at.getTime()}`, {
          $set: { user_id: d.user_id, episode_id: d.episode_id, podcast_id: d.podcast_id, deleted_at: at },
        });
        if (config.retentionStepDelayMs) await sleep(config.retentionStepDelayMs);
        removed += await this.adapter.removeMany({ _id: d._id, deleting: at });
      }
      this.logger.info("downloads deleted by retention", { count: removed, kept_busy_or_saved: spared.size });
      return removed;
    },
    /** Episodes streamed by some downloads replica, or that an unfinished download job works on. */
    async busyEpisodes(this: DownloadsThis): Promise<Set<number>> {
      // Moleculer's list has each instance's node; its typings say ServiceSchema.
      const replicas = this.broker.registry.getServiceList({ onlyAvailable: true }) as unknown as { name: string; nodeID: string }[];
      const nodes = new Set(replicas.filter((s) => s.name === this.name).map((s) => s.nodeID));
      const held = await Promise.all([...nodes].map((nodeID) => openMedia(this.broker, {}, { nodeID })));
      const busy = new Set(held.flat());
      for (const job of await activeJobs(this.broker, { types: DOWNLOAD_JOBS })) {
        const p = job.payload as Partial<DownloadEpisodePayload & DownloadPodcastPayload>;
        if (p.episode_id) busy.add(p.episode_id);
        for (const e of p.episode_ids ?? []) busy.add(e);
      }
      return busy;
    },
    /** The stored file of an episode to stream, held for the pass (before the lookup: see above), or null. */
    async heldStoredFile(this: DownloadsThis, ctx: Context, episode_id: number): Promise<{ stored: StoredFile; hold: MediaHold } | null> {
      const hold = this.mediaHolds.hold(episode_id);
      let stored: StoredFile | null = null;
      try {
        stored = await this.actions.stored_file({ episode_id }, { parentCtx: ctx });
      } finally {
        if (!stored) hold.done();
      }
      return stored ? { stored, hold } : null;
    },
  },
});
