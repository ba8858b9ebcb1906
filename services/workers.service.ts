/**
 * Workers: run the durable jobs of the tasks service (house rule 6, docs/architecture.md): downloads, refresh_pods, OPML imports, syncs
 * and the import of a new feed's older episodes (import_feed). Stateless, so any number of
 * replicas may run (also on the embedded store): each claims jobs with a lease, renews it while it
 * works and finishes the job; a replica that dies leaves its lease to expire and another takes the job
 * over. New jobs wake every replica (`tasks.available`); a poll catches anything missed.
 *
 * A download is written under DOWNLOAD_DIR (podcast folder / "<episode title> (<id>).<ext>") to a
 * hidden temporary name, renamed when complete and only then recorded with the downloads service, so
 * a killed download never leaves a file that counts (its cover and metadata files, as the admin's
 * download metadata settings ask, are written beside it first: workers.parts/sidecars.ts). Network failures are retried with back-off;
 * a 4xx, a non-media answer, a file over DOWNLOAD_MAX_BYTES or a full disk fail the job with the reason.
 */
import crypto from "crypto";
import fs from "fs";
import path from "path";
import { once } from "events";
import { Transform } from "stream";
import { pipeline } from "stream/promises";
import type { Service, ServiceBroker, ServiceRegistry, ServiceSchema } from "moleculer";
import { config } from "../shared/config";
import { fetchStream, OutboundHttpError } from "../shared/http";
import { extensionFor, isMediaType } from "../shared/range";
import {
  ClaimedTask,
  ImportFeedPayload,
  JOB_DOWNLOAD_EPISODE,
  JOB_DOWNLOAD_PODCAST,
  JOB_DOWNLOAD_PODCAST_BEFORE,
  JOB_IMPORT_FEED,
  JOB_IMPORT_OPML,
  JOB_REFRESH_PODS,
  JOB_SYNC,
} from "../shared/contracts/tasks";
import { tasksAvailable, tasksClaim, tasksFinish, tasksProgress, tasksRetry } from "../shared/contracts/tasks";
import type { ImportChunkResult, ImportOpmlPayload } from "../shared/contracts/opml";
import { importChunk } from "../shared/contracts/opml";
import type { RefreshResult, RefreshSummary } from "../shared/contracts/feeds";
import { refreshFeed, refreshMany } from "../shared/contracts/feeds";
import {
  DOWNLOAD_METADATA_DEFAULTS,
  type DownloadEpisodePayload,
  type DownloadMetadataSettings,
  type DownloadPodcastPayload,
  type StoredFile,
} from "../shared/contracts/downloads";
import { downloadedIds, downloadsMetadataSettings, recordDownload, storedFile } from "../shared/contracts/downloads";
import type { SyncJobPayload } from "../shared/contracts/sync";
import { runJob } from "../shared/contracts/sync";
import type { EpisodeMediaItem } from "../shared/contracts/episodes";
import { episodeItems } from "../shared/contracts/episodes";
import { coverFetcher, type CoverFetcher, writeSidecars } from "./workers.parts/sidecars";
import { tagFor, wantsTag, writeTagged } from "./workers.parts/id3";

/** A failure no retry can fix: the job fails with this message. */
class PermanentError extends Error {}
/** The job's lease went to another worker: stop without finishing it. */
class LeaseLostError extends Error {}

/** Reports progress (throttled) and renews the lease; `lost` once the job is no longer ours. */
interface Reporter {
  set(progress: number, message?: string): void;
  lost: boolean;
  stop(): void;
}

const MB = 1024 * 1024;
const JOB_TYPES = [JOB_DOWNLOAD_EPISODE, JOB_DOWNLOAD_PODCAST, JOB_DOWNLOAD_PODCAST_BEFORE, JOB_REFRESH_PODS, JOB_IMPORT_OPML, JOB_SYNC, JOB_IMPORT_FEED];
/** Podcasts per feeds.refresh_many call of a refresh job: progress is reported between chunks. */
const REFRESH_CHUNK = 50;
/** Feeds per opml.import_chunk call of an import job. */
const IMPORT_CHUNK = 10;

// eslint-disable-next-line no-control-regex -- control characters are among what it replaces
const UNSAFE_IN_NAMES = /[\u0000-\u001f<>:"/\\|?*]+/g;

/** A file or folder name a person can read, safe on every file system. */
function safeName(text: string, fallback: string): string {
  const clean = text
    .replace(UNSAFE_IN_NAMES, "_")
    .replace(/\s+/g, " ")
    .trim()
    .replace(/^[.\s]+|[.\s]+$/g, "");
  return clean.slice(0, 120) || fallback;
}

/** Whether a node runs the service (Moleculer 0.14's registry.hasService, which its typings leave out). */
const runs = (broker: ServiceBroker, name: string): boolean => (broker.registry as ServiceRegistry & { hasService(name: string): boolean }).hasService(name);

/** What the checks below read of an error of any origin: the broker's, a service's, Node's. */
type ErrorLike = { message?: string; code?: unknown; retryable?: boolean } | null | undefined;

function isTransient(thrown: unknown): boolean {
  if (thrown instanceof PermanentError) return false;
  if (thrown instanceof OutboundHttpError) {
    if (thrown.kind === "network" || thrown.kind === "timeout") return true;
    return thrown.kind === "http_status" && (thrown.status! >= 500 || thrown.status === 429 || thrown.status === 408);
  }
  const err = thrown as ErrorLike;
  // The broker's own "no endpoint" errors carry code 404 but are transient (a node stopping or killed mid-job).
  if (err?.retryable === true) return true;
  // A service answered a client error (a sync server's 401, an account gone): no retry fixes it. A 409 (busy) may clear.
  if (typeof err?.code === "number" && err.code >= 400 && err.code < 500) return [408, 409, 429].includes(err.code);
  return true; // the store or another service unavailable: worth another attempt (attempts are bounded)
}

function reason(thrown: unknown): string {
  const err = thrown as ErrorLike;
  if (err?.code === "ENOSPC") return "Disk full";
  if (thrown instanceof OutboundHttpError && thrown.kind === "too_large")
    return `The file is larger than the download limit (${config.downloadMaxBytes} bytes)`;
  return err?.message ?? String(thrown);
}

/** Payload of a refresh_pods job (feeds.service.ts refresh_pods). */
interface RefreshPodsPayload {
  podcast_ids: number[];
}

/** What a job reports when it ends: its message and its counts (tasks.finish's result). */
type JobResult = { message: string };
/** What a download answers: the file under DOWNLOAD_DIR and its size. */
type DownloadResult = JobResult & { file: string; size: number };

interface WorkersMethods {
  fill(): Promise<void>;
  run(job: ClaimedTask): Promise<void>;
  reporter(job: ClaimedTask): Reporter;
  refreshPods(job: ClaimedTask, reporter: Reporter): Promise<JobResult & RefreshSummary>;
  importFeed(job: ClaimedTask, reporter: Reporter): Promise<JobResult & { podcast_id: number; new_episodes?: number }>;
  importOpml(job: ClaimedTask, reporter: Reporter): Promise<JobResult & ImportChunkResult>;
  downloadPodcast(job: ClaimedTask, reporter: Reporter): Promise<JobResult & { downloaded: number; skipped: number; failed: string[] }>;
  downloadOne(job: ClaimedTask, episode_id: number, reporter: Reporter, onFraction: (f: number) => void): Promise<DownloadResult>;
  metadataSettings(): Promise<DownloadMetadataSettings>;
  tagFile(item: EpisodeMediaItem, settings: DownloadMetadataSettings, covers: CoverFetcher, temp: string, target: string): Promise<number | null>;
  sidecars(item: EpisodeMediaItem, dir: string, name: string, settings: DownloadMetadataSettings, covers: CoverFetcher): Promise<void>;
  save(
    res: { stream: NodeJS.ReadableStream; contentLength: number | null },
    temp: string,
    reporter: Reporter,
    onFraction: (f: number) => void,
  ): Promise<number>;
  checkFreeSpace(needed: number): Promise<void>;
}

type WorkersThis = Service &
  WorkersMethods & {
    /** This replica's name in the leases it holds. */
    workerId: string;
    /** Jobs this replica runs now. */
    running: number;
    stopping: boolean;
    /** A fill() is claiming jobs: another one waits for the next wake-up. */
    filling: boolean;
    pollTimer: NodeJS.Timeout;
  };

const WorkersService: ServiceSchema<Record<string, never>, WorkersThis> = {
  name: "workers",
  events: {
    [tasksAvailable.eventName](this: WorkersThis) {
      void this.fill();
    },
  },
  created(this: WorkersThis) {
    this.workerId = `${this.broker.nodeID}-${crypto.randomBytes(4).toString("hex")}`;
    this.running = 0;
    this.stopping = false;
  },
  started(this: WorkersThis) {
    this.pollTimer = setInterval(() => void this.fill(), config.workerPollMs);
    this.pollTimer.unref();
    setImmediate(() => void this.fill());
  },
  stopped(this: WorkersThis) {
    // Jobs still running keep their lease until it expires, then another replica resumes them.
    this.stopping = true;
    clearInterval(this.pollTimer);
  },
  methods: {
    /** Claims jobs until this replica runs WORKER_CONCURRENCY of them or none is due. */
    async fill(this: WorkersThis) {
      // Before the tasks service is up (at start) there is nothing to ask: the broker would warn at each poll.
      if (this.filling || this.stopping || !runs(this.broker, "tasks")) return;
      this.filling = true;
      try {
        while (this.running < config.workerConcurrency && !this.stopping) {
          const job: ClaimedTask | null = await tasksClaim(this.broker, { worker: this.workerId, types: JOB_TYPES });
          if (!job) break;
          this.running++;
          void this.run(job).finally(() => {
            this.running--;
            void this.fill();
          });
        }
      } catch (err) {
        this.logger.debug("cannot claim jobs now", { error: (err as ErrorLike)?.message });
      } finally {
        this.filling = false;
      }
    },
    async run(this: WorkersThis, job: ClaimedTask) {
      const reporter: Reporter = this.reporter(job);
      const base = { id: job.id, lease: job.lease };
      try {
        let result: JobResult;
        if (job.task_type === JOB_REFRESH_PODS) result = await this.refreshPods(job, reporter);
        else if (job.task_type === JOB_IMPORT_OPML) result = await this.importOpml(job, reporter);
        else if (job.task_type === JOB_IMPORT_FEED) result = await this.importFeed(job, reporter);
        else if (job.task_type === JOB_DOWNLOAD_PODCAST || job.task_type === JOB_DOWNLOAD_PODCAST_BEFORE) result = await this.downloadPodcast(job, reporter);
        // A sync holds the user's sync lease, which bounds how long it may run.
        else if (job.task_type === JOB_SYNC)
          result = await runJob(this.broker, { user_id: job.user_id, ...(job.payload as SyncJobPayload) }, { timeout: config.syncLeaseSeconds * 1000 });
        else result = await this.downloadOne(job, (job.payload as DownloadEpisodePayload).episode_id, reporter, (f: number) => reporter.set(f * 100));
        reporter.stop();
        await tasksFinish(this.broker, { ...base, status: "SUCCESS", message: result.message, result });
      } catch (err) {
        reporter.stop();
        if (err instanceof LeaseLostError || reporter.lost) return this.logger.warn("job taken over by another worker", { id: job.id });
        this.logger.warn("job failed", { id: job.id, type: job.task_type, error: reason(err), transient: isTransient(err) });
        if (isTransient(err)) await tasksRetry(this.broker, { ...base, message: reason(err) }).catch(() => undefined);
        else await tasksFinish(this.broker, { ...base, status: "FAILED", message: reason(err) }).catch(() => undefined);
      }
    },
    /** Progress reports and lease renewals, at most one call per interval. */
    reporter(this: WorkersThis, job: ClaimedTask): Reporter {
      let progress = job.progress;
      let message: string | undefined;
      let sent = -1;
      const r: Reporter = {
        lost: false,
        set: (p, m) => {
          progress = Math.min(99, Math.max(0, Math.floor(p)));
          if (m !== undefined) message = m;
        },
        stop: () => clearInterval(timer),
      };
      const every = Math.min(1000, (config.taskLeaseSeconds * 1000) / 3);
      const renew = async () => {
        const changed = progress !== sent || message !== undefined;
        const params = { id: job.id, lease: job.lease, ...(changed ? { progress, ...(message !== undefined ? { message } : {}) } : {}) };
        sent = progress;
        message = undefined;
        try {
          const { owned } = await tasksProgress(this.broker, params);
          if (!owned) r.lost = true;
        } catch (err) {
          this.logger.debug("lease renewal failed", { id: job.id, error: (err as ErrorLike)?.message });
        }
      };
      const timer = setInterval(() => void renew(), every);
      return r;
    },
    /** A refresh job: its podcasts in chunks spread over the feeds replicas; a retry refreshes them again (unchanged feeds cost one request). */
    async refreshPods(this: WorkersThis, job: ClaimedTask, reporter: Reporter) {
      const ids: number[] = (job.payload as RefreshPodsPayload).podcast_ids;
      const total: RefreshSummary = { refreshed: 0, updated: 0, unchanged: 0, failed: 0, new_episodes: 0 };
      for (let at = 0; at < ids.length; at += REFRESH_CHUNK) {
        const part: RefreshSummary = await refreshMany(this.broker, { podcast_ids: ids.slice(at, at + REFRESH_CHUNK) }, { timeout: config.httpTimeoutMs * 4 });
        for (const k of Object.keys(total) as (keyof RefreshSummary)[]) total[k] += part[k];
        reporter.set(((at + REFRESH_CHUNK) / ids.length) * 100, `Refreshed ${total.refreshed} of ${ids.length} podcasts`);
      }
      return { message: `Refreshed ${total.refreshed} podcasts`, ...total };
    },
    /**
     * An import job: feeds refetches the whole feed (the incomplete import recorded no validators, so it
     * is never "unchanged" before it is complete), stores every episode and records the content hash.
     */
    async importFeed(this: WorkersThis, job: ClaimedTask, reporter: Reporter) {
      const { podcast_id } = job.payload as ImportFeedPayload;
      reporter.set(10, "Importing the older episodes");
      const res: RefreshResult = await refreshFeed(this.broker, { podcast_id, announce: false }, { timeout: config.httpTimeoutMs * 4 });
      // A feed error is most likely passing (the feed parsed moments ago): retried with back-off, attempts bounded.
      if (res.status === "failed") throw new Error(`Could not fetch the feed: ${res.error}`);
      if (res.status === "gone") return { message: "The podcast was removed", podcast_id };
      return { message: `Imported ${res.new_episodes} more episodes`, podcast_id, new_episodes: res.new_episodes };
    },
    /** An OPML import: its feeds in chunks, subscribed with the rights of the user who asked. */
    async importOpml(this: WorkersThis, job: ClaimedTask, reporter: Reporter) {
      const { feeds, rejected, caller } = job.payload as ImportOpmlPayload;
      const total: ImportChunkResult = { imported: 0, skipped: 0, failed: [...rejected] };
      for (let at = 0; at < feeds.length; at += IMPORT_CHUNK) {
        if (reporter.lost) throw new LeaseLostError("lease lost");
        const params = { user_id: job.user_id, task_id: job.id, feeds: feeds.slice(at, at + IMPORT_CHUNK), offset: at, total: feeds.length };
        const part: ImportChunkResult = await importChunk(this.broker, params, { timeout: config.httpTimeoutMs * 4, meta: { user: caller } });
        total.imported += part.imported;
        total.skipped += part.skipped;
        total.failed.push(...part.failed);
        reporter.set(((at + IMPORT_CHUNK) / feeds.length) * 100, `Imported ${Math.min(at + IMPORT_CHUNK, feeds.length)} of ${feeds.length} feeds`);
      }
      return { message: `Imported ${total.imported} feeds, ${total.skipped} already subscribed, ${total.failed.length} failed`, ...total };
    },
    /** A podcast job: its episodes one after the other; those a retry finds downloaded are skipped. */
    async downloadPodcast(this: WorkersThis, job: ClaimedTask, reporter: Reporter) {
      const { episode_ids } = job.payload as DownloadPodcastPayload;
      const have = new Set<number>(await downloadedIds(this.broker, { user_id: job.user_id, episode_ids }));
      const failed: string[] = [];
      let done = 0;
      for (const [n, episode_id] of episode_ids.entries()) {
        if (have.has(episode_id)) continue;
        const share = (f: number) => reporter.set(((n + f) / episode_ids.length) * 100, `Downloading episode ${n + 1} of ${episode_ids.length}`);
        try {
          await this.downloadOne(job, episode_id, reporter, share);
          done++;
        } catch (err) {
          if (isTransient(err) || err instanceof LeaseLostError) throw err;
          failed.push(`${episode_id}: ${reason(err)}`);
        }
      }
      const message = `Downloaded ${done} episodes${failed.length ? `, ${failed.length} failed` : ""}`;
      return { message, downloaded: done, skipped: have.size, failed };
    },
    /** Downloads one episode for the job's user (or reuses another user's file) and records it. */
    async downloadOne(this: WorkersThis, job: ClaimedTask, episode_id: number, reporter: Reporter, onFraction: (f: number) => void): Promise<DownloadResult> {
      const user_id = job.user_id;
      // The job's rights: the requester's (a podcast job's payload carries them as an episode job's does).
      const { rights } = job.payload as DownloadEpisodePayload | DownloadPodcastPayload;
      const [item]: EpisodeMediaItem[] = await episodeItems(this.broker, { user_id, episode_ids: [episode_id], include_unsubscribed: true });
      if (!item) throw new PermanentError("The episode no longer exists");
      const record = (file: string, size: number, content_type: string) =>
        recordDownload(this.broker, {
          user_id,
          episode_id,
          podcast_id: item.podcastid,
          file,
          size,
          content_type,
          from_sync: !!(job.payload as DownloadEpisodePayload).from_sync,
        });
      const stored: StoredFile | null = await storedFile(this.broker, { episode_id });
      if (stored) {
        await record(stored.file, stored.size, stored.content_type);
        return { message: "Downloaded", file: stored.file, size: stored.size };
      }
      if (!item.episodeurl) throw new PermanentError("The episode has no media file");
      await this.checkFreeSpace(item.enclosure_length);
      const res = await fetchStream(item.episodeurl, { rights, maxBytes: config.downloadMaxBytes });
      const contentType = (res.contentType ?? item.enclosure_type ?? "application/octet-stream").split(";")[0].trim();
      if (!isMediaType(res.contentType)) {
        res.stream.destroy();
        throw new PermanentError(`Not an audio or video file (${res.contentType})`);
      }
      const folder = safeName(item.podcastname, `podcast ${item.podcastid}`);
      const name = `${safeName(item.episodetitle, "episode")} (${episode_id}).${extensionFor(res.contentType, item.episodeurl)}`;
      const dir = path.join(config.downloadDir, folder);
      // One temporary file per claim: a run whose lease ran out may still be writing its own.
      const temp = path.join(dir, `.${name}.${job.id}-${job.attempts}.part`);
      const tagged = path.join(dir, `.${name}.${job.id}-${job.attempts}.tagged.part`);
      try {
        if (res.contentLength !== null) await this.checkFreeSpace(res.contentLength);
        await fs.promises.mkdir(dir, { recursive: true });
        let size = await this.save(res, temp, reporter, onFraction);
        const settings = await this.metadataSettings();
        const covers = coverFetcher(rights, episode_id, this.logger);
        // Tagged into a second temporary file, so the rename below stays the only step that publishes it.
        const tagSize: number | null = wantsTag(settings, name) ? await this.tagFile(item, settings, covers, temp, tagged) : null;
        if (tagSize !== null) size = tagSize;
        await fs.promises.rename(tagSize !== null ? tagged : temp, path.join(dir, name));
        await this.sidecars(item, dir, name, settings, covers);
        // What earlier claims of this job left (a killed worker's partial file) goes too.
        for (const f of await fs.promises.readdir(dir))
          if (f.startsWith(`.${name}.${job.id}-`) && f.endsWith(".part")) await fs.promises.rm(path.join(dir, f), { force: true });
        await record(path.join(folder, name), size, contentType);
        return { message: "Downloaded", file: path.join(folder, name), size };
      } catch (err) {
        res.stream.destroy();
        await fs.promises.rm(temp, { force: true });
        await fs.promises.rm(tagged, { force: true });
        throw err;
      }
    },
    /** The admin's download metadata settings; when they cannot be read the download goes untouched. */
    async metadataSettings(this: WorkersThis): Promise<DownloadMetadataSettings> {
      try {
        return await downloadsMetadataSettings(this.broker, {});
      } catch (err) {
        this.logger.warn("download metadata settings not read", { reason: (err as ErrorLike)?.message });
        return DOWNLOAD_METADATA_DEFAULTS;
      }
    },
    /** Writes the MP3 at `temp` with its ID3 tag to `target` (workers.parts/id3.ts); null when that fails: logged, the download stands untagged. */
    async tagFile(
      this: WorkersThis,
      item: EpisodeMediaItem,
      settings: DownloadMetadataSettings,
      covers: CoverFetcher,
      temp: string,
      target: string,
    ): Promise<number | null> {
      try {
        const cover = settings.episode_cover ? await covers(item.episodeartwork || item.podcast_artwork) : null;
        return await writeTagged(temp, target, tagFor(settings, item, cover));
      } catch (err) {
        this.logger.warn("download not tagged", { episode_id: item.episodeid, reason: (err as ErrorLike)?.message });
        return null;
      }
    },
    /** The cover and metadata files the admin's settings ask for: a failure is logged, the download stands. */
    async sidecars(this: WorkersThis, item: EpisodeMediaItem, dir: string, name: string, settings: DownloadMetadataSettings, covers: CoverFetcher) {
      try {
        await writeSidecars(settings, item, dir, name, covers);
      } catch (err) {
        this.logger.warn("download metadata files not written", { episode_id: item.episodeid, reason: (err as ErrorLike)?.message });
      }
    },
    /** Writes the body to `temp`: the size bound, a stall timeout and the lease are checked as bytes arrive. */
    async save(
      this: WorkersThis,
      res: { stream: NodeJS.ReadableStream; contentLength: number | null },
      temp: string,
      reporter: Reporter,
      onFraction: (f: number) => void,
    ): Promise<number> {
      let bytes = 0;
      const meter = new Transform({
        transform(chunk: Buffer, _enc, done) {
          bytes += chunk.length;
          if (reporter.lost) return done(new LeaseLostError("lease lost"));
          if (bytes > config.downloadMaxBytes) return done(new OutboundHttpError("too_large", "", "too large"));
          if (res.contentLength) onFraction(bytes / res.contentLength);
          idle.refresh(); // set below, before any byte flows
          done(null, chunk);
        },
      });
      const idle = setTimeout(() => meter.destroy(new OutboundHttpError("timeout", "", "the download stalled")), config.httpTimeoutMs);
      // Opened before any byte flows, so that removing the temporary file after a failure cannot race its creation.
      const out = fs.createWriteStream(temp);
      try {
        await once(out, "open");
        await pipeline(res.stream, meter, out);
      } finally {
        clearTimeout(idle);
      }
      if (res.contentLength !== null && bytes !== res.contentLength) throw new OutboundHttpError("network", "", `got ${bytes} of ${res.contentLength} bytes`);
      return bytes;
    },
    /** Refuses a download that would leave less than DOWNLOAD_MIN_FREE_MB on the disk of DOWNLOAD_DIR. */
    async checkFreeSpace(this: WorkersThis, needed: number) {
      await fs.promises.mkdir(config.downloadDir, { recursive: true });
      const st = await fs.promises.statfs(config.downloadDir);
      const free = st.bavail * st.bsize;
      if (free - Math.max(0, needed || 0) < config.downloadMinFreeMb * MB)
        throw new PermanentError(`Not enough free disk space (${Math.floor(free / MB)} MB free)`);
    },
  },
};

export default WorkersService;
