/**
 * Downloads: the `downloads` collection (which user keeps which episode, in which file under
 * DOWNLOAD_DIR) and `download_settings` (the admin's toggle), and the media routes.
 *
 * Download requests become jobs in the tasks service (house rule 6, docs/architecture.md); the workers service runs
 * them and reports a finished file with record_download. A file is shared by every user who
 * downloaded the episode, so deleting one user's download removes the file only when nobody else
 * keeps it. Media answers stream the downloaded file, else proxy the enclosure, with HTTP Range.
 * `download_deletions` remembers for DELETION_DAYS when a user deleted a download, so that a sync can
 * report it to a gPodder server (a `delete` episode action) and weigh it against the server's actions.
 */
import fs from "fs";
import path from "path";
import type { Context, ServiceSchema } from "moleculer";
import { config } from "../shared/config";
import { DbMixin } from "../shared/db.mixin";
import { userRemovedEvent } from "../shared/user-data";
import { BadRequestError, ForbiddenError, NotFoundError, ServiceUnavailableError } from "../shared/errors";
import { fetchStream, OutboundHttpError, Rights, rightsOf } from "../shared/http";
import { fileAnswer, mediaAnswer, unsatisfiable } from "../shared/range";
import {
  CreateTaskParams,
  CreateTasksResult,
  JOB_DOWNLOAD_EPISODE,
  JOB_DOWNLOAD_PODCAST,
  JOB_DOWNLOAD_PODCAST_BEFORE,
  countActive,
  tasksCreate,
} from "../shared/contracts/tasks";
import type {
  DownloadedCountParams,
  DownloadedIdsParams,
  DownloadEpisodePayload,
  DownloadPodcastPayload,
  RecordDownloadParams,
  StoredFile,
} from "../shared/contracts/downloads";
import type { EpisodeMediaItem } from "../shared/contracts/episodes";
import { episodeItems, episodesCreated, podcastEpisodes } from "../shared/contracts/episodes";
import type { EpisodesCreatedEvent } from "../shared/contracts/episodes";
import { autoDownloadUsers, subscriberFilters, subscriptionsRemoved } from "../shared/contracts/podcasts";
import { listItemSubject, passesFilter } from "../shared/episode-filter";
import type { Caller } from "../shared/contracts/call";
import type { Ctx, Query } from "../shared/service-types";
import { type DeletionDoc, type DownloadDoc, type DownloadsThis, keyOf, type ListQuery, type MediaMeta } from "./downloads.parts/this";
import { isLocalFeed, localFileAnswer, localPathOf } from "../shared/contracts/local";
import { AutoDeleteScheduler } from "./downloads.parts/auto-delete";
import { unlinkDownload } from "./downloads.parts/retention";
import { metadataSettingsActions, metadataSettingsMethods } from "./downloads.parts/metadata-settings.actions";
import { syncActions } from "./downloads.parts/sync.actions";
import {
  DownloadStartedAnswer,
  DownloadedItem,
  DownloadStatusText,
  DownloadSummaryAnswer,
  DownloadedEpisodesAnswer,
  DownloadsPageAnswer,
  DownloadsToggleAnswer,
  MediaAnswer,
  UserDownloadStatusAnswer,
} from "../shared/contracts/downloads";
import { BulkAnswer } from "../shared/contracts/episodes";
import { DetailAnswer } from "../shared/contracts/answers";

type EpisodeParams = { episode_id: number; user_id: number; is_vidsite?: boolean };
type BulkParams = { episode_ids: number[]; user_id: number; is_vidsite?: boolean };
/** A podcast's downloads per podcast (podcast_download_summary). */
type SummaryRow = DownloadSummaryAnswer["podcasts"][number];

const id = { type: "number", integer: true, positive: true, convert: true };
const optionalBool = { type: "boolean", convert: true, optional: true };
const bulk = {
  episode_ids: { type: "array", items: { type: "number", integer: true, positive: true, convert: true }, min: 1, max: 1000 },
  user_id: id,
  is_vidsite: optionalBool,
};
const listQuery = {
  limit: { type: "number", integer: true, min: 1, max: 1000, convert: true, optional: true },
  offset: { type: "number", integer: true, min: 0, convert: true, optional: true },
  sort_order: { type: "enum", values: ["asc", "desc"], optional: true },
  filter: { type: "string", max: 100, optional: true },
  search: { type: "string", max: 200, optional: true },
};
const DOWNLOAD_TYPES = [JOB_DOWNLOAD_EPISODE, JOB_DOWNLOAD_PODCAST, JOB_DOWNLOAD_PODCAST_BEFORE];
const SETTINGS_ID = "server";
const DELETION_DAYS = 30;

/** A Downloaded item (spec) from the episode and the download record; text fields are strings, as the clients parse them. */
function downloadedItem(e: EpisodeMediaItem, d: DownloadDoc): DownloadedItem {
  return {
    podcastid: e.podcastid,
    podcastname: e.podcastname,
    artworkurl: e.podcast_artwork ?? "",
    episodeid: e.episodeid,
    episodetitle: e.episodetitle,
    episodepubdate: e.episodepubdate,
    episodedescription: e.episodedescription,
    episodeartwork: e.episodeartwork,
    episodeurl: e.episodeurl,
    episodeduration: e.episodeduration,
    podcastindexid: e.podcast_index_id,
    websiteurl: e.podcast_website ?? "",
    downloadedlocation: path.join(config.downloadDir, d.file),
    listenduration: e.listenduration,
    completed: e.completed,
    is_vidsite: false,
    is_youtube: false,
    downloaded_size: d.size,
    downloaded_at: new Date(d.downloaded_at).toISOString(),
  };
}

/** "attachment; filename=..." with an ASCII fallback and the UTF-8 name (RFC 6266). */
function attachment(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, "_");
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

const DownloadsService: ServiceSchema<Record<string, never>, DownloadsThis> = {
  name: "downloads",
  mixins: [
    AutoDeleteScheduler,
    DbMixin({ name: "downloads", indexes: [{ fields: { user_id: 1 } }, { fields: { episode_id: 1 } }, { fields: { deleting: 1 }, sparse: true }] }, [
      { name: "download_settings" },
      { name: "download_leases" },
      { name: "download_deletions", indexes: [{ fields: { user_id: 1 } }, { fields: { deleted_at: 1 }, expireAfterSeconds: DELETION_DAYS * 86_400 }] },
    ]),
  ],
  actions: {
    ...metadataSettingsActions,
    ...syncActions,
    /** POST /api/data/download_podcast: one episode, as a background task. */
    download_podcast: {
      params: { episode_id: id, user_id: id, is_vidsite: optionalBool },
      response: DownloadStartedAnswer,
      async handler(this: DownloadsThis, ctx: Context<EpisodeParams, MediaMeta>): Promise<DownloadStartedAnswer> {
        await this.requireEnabled();
        const { user_id, episode_id } = ctx.params;
        const [item] = await this.itemsFor(ctx, user_id, [episode_id]);
        if (!item) throw new NotFoundError("Episode not found in your podcasts");
        if (isLocalFeed(item.episodeurl)) throw new BadRequestError("A local podcast's episode is already on the server: it plays through the stream route");
        if (await this.adapter.findOne({ _id: keyOf(user_id, episode_id) })) return { detail: "Episode already downloaded", task_id: null };
        const res: CreateTasksResult = await tasksCreate(ctx, { tasks: [this.episodeJob(user_id, item, rightsOf(ctx.meta.user))] });
        const [task] = [...res.created, ...res.existing];
        return { detail: res.created.length ? "Download started" : "Download already in progress", task_id: task.id };
      },
    },
    /** POST /api/data/download_all_podcast: every episode of a podcast not yet downloaded, as one task. */
    download_all_podcast: {
      params: { podcast_id: id, user_id: id, is_vidsite: optionalBool },
      response: DownloadStartedAnswer,
      async handler(this: DownloadsThis, ctx: Ctx<{ podcast_id: number; user_id: number; is_vidsite?: boolean }>): Promise<DownloadStartedAnswer> {
        await this.requireEnabled();
        const { user_id, podcast_id } = ctx.params;
        const { episodes } = await podcastEpisodes(ctx, { user_id, podcast_id });
        const have = await this.downloadedIds(
          user_id,
          episodes.map((e) => e.episodeid),
        );
        // Local podcasts' episodes are on the server already.
        const todo = episodes.filter((e) => !have.has(e.episodeid) && !isLocalFeed(e.episodeurl)).map((e) => e.episodeid);
        if (!todo.length) return { detail: "All episodes are already downloaded", task_id: null };
        const job: CreateTaskParams = {
          task_type: JOB_DOWNLOAD_PODCAST,
          user_id,
          item_id: podcast_id,
          podcast_name: episodes[0].podcastname,
          payload: { podcast_id, episode_ids: todo, rights: rightsOf(ctx.meta.user) } satisfies DownloadPodcastPayload,
          dedupe_key: `podcast:${user_id}:${podcast_id}`,
        };
        const res: CreateTasksResult = await tasksCreate(ctx, { tasks: [job] });
        const [task] = [...res.created, ...res.existing];
        return { detail: res.created.length ? `Downloading ${todo.length} episodes` : "Download already in progress", task_id: task.id };
      },
    },
    /** POST /api/data/bulk_download_episodes: one task per episode, downloaded ones skipped. */
    bulk_download_episodes: {
      params: bulk,
      response: BulkAnswer,
      async handler(this: DownloadsThis, ctx: Context<BulkParams, MediaMeta>): Promise<BulkAnswer> {
        await this.requireEnabled();
        const { user_id, episode_ids } = ctx.params;
        const items: EpisodeMediaItem[] = await this.itemsFor(ctx, user_id, episode_ids);
        const have = await this.downloadedIds(
          user_id,
          items.map((i) => i.episodeid),
        );
        const todo = items.filter((i) => !have.has(i.episodeid) && !isLocalFeed(i.episodeurl));
        if (todo.length) await tasksCreate(ctx, { tasks: todo.map((i) => this.episodeJob(user_id, i, rightsOf(ctx.meta.user))) });
        const failed = new Set(episode_ids).size - items.length;
        return { message: `Queued ${todo.length} downloads; ${have.size} already downloaded`, processed_count: items.length, failed_count: failed || null };
      },
    },
    /** POST /api/data/delete_episode: the file goes (unless another user keeps it); progress and metadata stay. */
    delete_episode: {
      params: { episode_id: id, user_id: id, is_vidsite: optionalBool },
      response: DetailAnswer,
      async handler(this: DownloadsThis, ctx: Ctx<EpisodeParams>): Promise<DetailAnswer> {
        const removed = await this.removeDownloads(ctx.params.user_id, [ctx.params.episode_id]);
        if (!removed) throw new NotFoundError("Episode is not downloaded");
        return { detail: "Downloaded episode deleted" };
      },
    },
    /** POST /api/data/bulk_delete_downloaded_episodes */
    bulk_delete_downloaded_episodes: {
      params: bulk,
      response: BulkAnswer,
      async handler(this: DownloadsThis, ctx: Ctx<BulkParams>): Promise<BulkAnswer> {
        const ids = Array.from(new Set<number>(ctx.params.episode_ids));
        const removed = await this.removeDownloads(ctx.params.user_id, ids);
        return { message: `Deleted ${removed} downloaded episodes`, processed_count: removed, failed_count: ids.length - removed || null };
      },
    },
    /** GET /api/data/download_episode_list?user_id: the user's downloaded episodes, newest download first. */
    download_episode_list: {
      idempotent: true,
      params: { user_id: id },
      response: DownloadedEpisodesAnswer,
      async handler(this: DownloadsThis, ctx: Ctx<{ user_id: number }>): Promise<DownloadedEpisodesAnswer> {
        return { downloaded_episodes: await this.downloadedItems(ctx, ctx.params.user_id, {}) };
      },
    },
    /** GET /api/data/podcast_download_summary/{user_id}: per podcast, how much the user downloaded. */
    podcast_download_summary: {
      idempotent: true,
      params: {
        user_id: id,
        ...listQuery,
        sort_by: { type: "enum", values: ["podcast_name", "episode_count", "total_size", "latest_download"], optional: true },
      },
      response: DownloadSummaryAnswer,
      async handler(
        this: DownloadsThis,
        ctx: Ctx<{ user_id: number; sort_by?: "podcast_name" | "episode_count" | "total_size" | "latest_download" } & ListQuery>,
      ): Promise<DownloadSummaryAnswer> {
        const p = ctx.params;
        const items = await this.downloadedItems(ctx, p.user_id, {});
        const byPodcast = new Map<number, SummaryRow>();
        for (const i of items) {
          // latest_download "": none yet (the first download sets it).
          const s = byPodcast.get(i.podcastid) ?? {
            podcastid: i.podcastid,
            podcastname: i.podcastname,
            artworkurl: i.artworkurl,
            episode_count: 0,
            total_size: 0,
            latest_download: "",
          };
          s.episode_count++;
          s.total_size += i.downloaded_size;
          const at = new Date(i.downloaded_at).toISOString();
          if (!s.latest_download || at > s.latest_download) s.latest_download = at;
          byPodcast.set(i.podcastid, s);
        }
        const needle = p.search?.toLowerCase();
        const rows = [...byPodcast.values()].filter((s) => !needle || s.podcastname.toLowerCase().includes(needle));
        const key = p.sort_by ?? "podcast_name";
        const field = key === "podcast_name" ? "podcastname" : key;
        const sortKey = (r: SummaryRow) => {
          const v = r[field];
          return typeof v === "string" ? v.toLowerCase() : v;
        };
        return { podcasts: this.page(rows, sortKey, p, key === "podcast_name" ? "asc" : "desc").rows };
      },
    },
    /** GET /api/data/podcast_downloads_paged/{user_id}/{podcast_id}: one podcast's downloaded episodes. */
    podcast_downloads_paged: {
      idempotent: true,
      params: {
        user_id: id,
        podcast_id: id,
        ...listQuery,
        sort_by: { type: "enum", values: ["pub_date", "title", "duration", "downloaded_at", "size"], optional: true },
      },
      response: DownloadsPageAnswer,
      async handler(
        this: DownloadsThis,
        ctx: Ctx<{ user_id: number; podcast_id: number; sort_by?: "pub_date" | "title" | "duration" | "downloaded_at" | "size" } & ListQuery>,
      ): Promise<DownloadsPageAnswer> {
        const p = ctx.params;
        const needle = p.search?.toLowerCase();
        const items = (await this.downloadedItems(ctx, p.user_id, { podcast_id: p.podcast_id })).filter(
          (i) => !needle || i.episodetitle.toLowerCase().includes(needle),
        );
        const fields: Record<string, (i: DownloadedItem) => number | string> = {
          pub_date: (i) => i.episodepubdate ?? "",
          title: (i) => i.episodetitle.toLowerCase(),
          duration: (i) => i.episodeduration,
          downloaded_at: (i) => new Date(i.downloaded_at).toISOString(),
          size: (i) => i.downloaded_size,
        };
        const { rows, total } = this.page(items, fields[p.sort_by ?? "pub_date"], p, "desc");
        return { episodes: rows, total };
      },
    },
    /** GET /api/data/download_status: are downloads enabled (text/plain true or false). */
    download_status: {
      idempotent: true,
      params: {},
      response: DownloadStatusText,
      async handler(this: DownloadsThis, ctx: Context<Record<string, never>, MediaMeta>): Promise<string> {
        ctx.meta.$responseType = "text/plain; charset=utf-8";
        return String(await this.enabled());
      },
    },
    /** GET /api/data/download_status/{user_id}: the user's download statistics. */
    user_download_status: {
      idempotent: true,
      params: { user_id: id },
      response: UserDownloadStatusAnswer,
      async handler(this: DownloadsThis, ctx: Ctx<{ user_id: number }>): Promise<UserDownloadStatusAnswer> {
        const docs: DownloadDoc[] = await this.adapter.find({ query: { user_id: ctx.params.user_id } });
        const bytes = docs.reduce((n, d) => n + d.size, 0);
        const active: number = await countActive(ctx, { user_id: ctx.params.user_id, types: DOWNLOAD_TYPES });
        return {
          total_downloaded: docs.length,
          total_size_mb: Math.round((bytes / 1048576) * 100) / 100,
          downloads_enabled: await this.enabled(),
          active_downloads: active,
        };
      },
    },
    /** POST /api/data/enable_disable_downloads (admin): toggles downloads for every user. */
    enable_disable_downloads: {
      params: {},
      response: DownloadsToggleAnswer,
      async handler(this: DownloadsThis): Promise<DownloadsToggleAnswer> {
        const next = !(await this.enabled());
        const store = this.stores.download_settings;
        if ((await store.updateMany({ _id: SETTINGS_ID }, { $set: { enabled: next } })) === 0) await store.insert({ _id: SETTINGS_ID, enabled: next });
        return { success: true, detail: `Downloads ${next ? "enabled" : "disabled"}`, downloads_enabled: next };
      },
    },
    /** GET|HEAD /api/data/stream/{episode_id}?api_key&user_id: the downloaded file, else the enclosure proxied. */
    stream: {
      idempotent: true,
      params: { episode_id: id, user_id: id, type: { type: "string", max: 20, optional: true } },
      response: MediaAnswer,
      // The media's bytes (a stream, or a file's range): MediaAnswer documents them as a binary string.
      async handler(this: DownloadsThis, ctx: Context<{ episode_id: number; user_id: number; type?: string }, MediaMeta>): Promise<unknown> {
        return this.serveMedia(ctx, ctx.params.user_id, ctx.params.episode_id, false);
      },
    },
    /** GET|HEAD /api/episodes/{episode_id}/download: the episode's media as an attachment. */
    download_media: {
      idempotent: true,
      params: { episode_id: id },
      response: MediaAnswer,
      async handler(this: DownloadsThis, ctx: Context<{ episode_id: number }, MediaMeta>): Promise<unknown> {
        return this.serveMedia(ctx, ctx.meta.user!.id, ctx.params.episode_id, true);
      },
    },

    // --- Internal actions ---

    /** A worker finished a file: the user's download, written once however often a job is retried. */
    record_download: {
      visibility: "public",
      params: {
        user_id: id,
        episode_id: id,
        podcast_id: id,
        file: { type: "string", max: 4000 },
        size: { type: "number", min: 0 },
        content_type: { type: "string", max: 200 },
        from_sync: { type: "boolean", optional: true },
      },
      async handler(this: DownloadsThis, ctx: Ctx<RecordDownloadParams>): Promise<{ success: true }> {
        const _id = keyOf(ctx.params.user_id, ctx.params.episode_id);
        const fields = { ...ctx.params, downloaded_at: new Date() };
        // A retried job may record again: the second write updates the first (or loses an insert race, harmlessly).
        if ((await this.adapter.updateMany({ _id }, { $set: fields })) === 0) await this.adapter.insert({ _id, ...fields }).catch(() => undefined);
        return { success: true };
      },
    },
    /** The file some user already has of an episode, or null (a second user's download reuses it); not one the retention pass is deleting. */
    stored_file: {
      visibility: "public",
      params: { episode_id: id },
      async handler(this: DownloadsThis, ctx: Ctx<{ episode_id: number }>): Promise<StoredFile | null> {
        const doc: DownloadDoc | null = await this.adapter.findOne({ episode_id: ctx.params.episode_id, deleting: { $exists: false } });
        return doc && fs.existsSync(path.join(config.downloadDir, doc.file)) ? { file: doc.file, size: doc.size, content_type: doc.content_type } : null;
      },
    },
    /** Which of these episodes the user has downloaded (the downloaded flag of other services' lists). */
    downloaded_ids: {
      visibility: "public",
      params: { user_id: id, episode_ids: { type: "array", items: "number", optional: true } },
      async handler(this: DownloadsThis, ctx: Ctx<DownloadedIdsParams>): Promise<number[]> {
        const { user_id, episode_ids } = ctx.params;
        if (!episode_ids) return (await this.findFields(this.adapter, { user_id }, ["episode_id"])).map((d: Pick<DownloadDoc, "episode_id">) => d.episode_id);
        return [...(await this.downloadedIds(user_id, episode_ids))];
      },
    },
    /** How many episodes the user has downloaded (get_stats' episodes_downloaded). */
    downloaded_count: {
      visibility: "public",
      params: { user_id: id },
      handler(this: DownloadsThis, ctx: Ctx<DownloadedCountParams>): Promise<number> {
        return this.adapter.count({ query: { user_id: ctx.params.user_id } });
      },
    },
    downloaded_bytes: {
      visibility: "public",
      params: { user_id: id },
      async handler(this: DownloadsThis, ctx: Ctx<DownloadedCountParams>): Promise<number> {
        // Only the sizes are read: the store's find has no projection.
        const docs: Pick<DownloadDoc, "size">[] = await this.findFields(this.adapter, { user_id: ctx.params.user_id }, ["size"]);
        return docs.reduce((sum, d) => sum + (d.size ?? 0), 0);
      },
    },
  },
  events: {
    /** New episodes of a podcast: downloaded for each subscriber with auto_download on. */
    async [episodesCreated.eventName](this: DownloadsThis, ctx: Ctx<EpisodesCreatedEvent>) {
      if (!(await this.enabled())) return;
      const users: number[] = await autoDownloadUsers(ctx, { podcast_id: ctx.params.podcast_id });
      if (!users.length) return;
      const items: EpisodeMediaItem[] = await episodeItems(ctx, { user_id: users[0], episode_ids: ctx.params.episode_ids, include_unsubscribed: true });
      // A local podcast's files are on the server already: a download job could only fail on the local: address.
      const remote = items.filter((i) => !isLocalFeed(i.episodeurl));
      // Each subscriber's episode filter of the podcast chooses among them.
      const filters = await subscriberFilters(ctx, { podcast_id: ctx.params.podcast_id, user_ids: users });
      const jobs = users.flatMap((u) => remote.filter((i) => passesFilter(filters[u], listItemSubject(i))).map((i) => this.episodeJob(u, i, "user")));
      if (jobs.length) await tasksCreate(ctx, { tasks: jobs });
      this.logger.info("auto-download queued", { podcast_id: ctx.params.podcast_id, jobs: jobs.length });
    },
    /** A user left a podcast: their downloads of it go (files another user keeps stay). */
    async [subscriptionsRemoved.eventName](this: DownloadsThis, ctx: Ctx<{ user_id: number; podcast_id: number }>) {
      await this.removeWhere(ctx.params.user_id, { podcast_id: ctx.params.podcast_id });
    },
    /** The account is gone: its downloads (and files no one else keeps) go, then the deletions that recorded. */
    "user.removed": userRemovedEvent<DownloadsThis>({ download_deletions: "user_id" }, async function (this: DownloadsThis, user_id, removeData) {
      await this.removeWhere(user_id, {});
      await removeData();
    }),
  },
  methods: {
    ...metadataSettingsMethods,
    async enabled(this: DownloadsThis): Promise<boolean> {
      const doc = await this.stores.download_settings.findOne({ _id: SETTINGS_ID });
      return doc ? !!doc.enabled : config.downloadsEnabledDefault;
    },
    async requireEnabled(this: DownloadsThis) {
      if (!(await this.enabled())) throw new ForbiddenError("Downloads are disabled on this server; an admin can enable them (enable_disable_downloads)");
    },
    /** The episodes of these ids the caller may read (an admin: any), batched. */
    itemsFor(this: DownloadsThis, ctx: Context<unknown, MediaMeta>, user_id: number, episode_ids: number[]): Promise<EpisodeMediaItem[]> {
      return episodeItems(ctx, { user_id, episode_ids, include_unsubscribed: !!ctx.meta.user?.isAdmin });
    },
    /** A download job of one episode; rights: the requester's (auto-download and sync: a user's). */
    episodeJob(this: DownloadsThis, user_id: number, i: EpisodeMediaItem, rights: Rights, fromSync = false): CreateTaskParams {
      return {
        task_type: JOB_DOWNLOAD_EPISODE,
        user_id,
        item_id: i.episodeid,
        episode_title: i.episodetitle,
        podcast_name: i.podcastname,
        payload: { episode_id: i.episodeid, rights, ...(fromSync ? { from_sync: true } : {}) } satisfies DownloadEpisodePayload,
        dedupe_key: `episode:${user_id}:${i.episodeid}`,
      };
    },
    async downloadedIds(this: DownloadsThis, user_id: number, episode_ids: number[]): Promise<Set<number>> {
      if (!episode_ids.length) return new Set();
      const docs: DownloadDoc[] = await this.adapter.find({ query: { _id: { $in: episode_ids.map((e) => keyOf(user_id, e)) } } });
      return new Set(docs.map((d) => d.episode_id));
    },
    /** Downloaded items of a user (newest download first), joined with their episodes in one call. */
    async downloadedItems(this: DownloadsThis, ctx: Caller, user_id: number, where: Query): Promise<DownloadedItem[]> {
      const docs: DownloadDoc[] = await this.adapter.find({ query: { user_id, ...where }, sort: ["-downloaded_at"] });
      if (!docs.length) return [];
      const items: EpisodeMediaItem[] = await episodeItems(ctx, { user_id, episode_ids: docs.map((d) => d.episode_id), include_unsubscribed: true });
      const byId = new Map(items.map((i) => [i.episodeid, i]));
      return docs.filter((d) => byId.has(d.episode_id)).map((d) => downloadedItem(byId.get(d.episode_id)!, d));
    },
    /** Sorts, pages and counts rows of a listing. */
    page<R>(this: DownloadsThis, rows: R[], key: (r: R) => number | string, p: ListQuery, defaultOrder: "asc" | "desc"): { rows: R[]; total: number } {
      const dir = (p.sort_order ?? defaultOrder) === "asc" ? 1 : -1;
      rows.sort((a, b) => (key(a) < key(b) ? -dir : key(a) > key(b) ? dir : 0));
      const offset = p.offset ?? 0;
      return { rows: rows.slice(offset, offset + (p.limit ?? rows.length)), total: rows.length };
    },
    async removeWhere(this: DownloadsThis, user_id: number, where: Query) {
      const docs: DownloadDoc[] = await this.adapter.find({ query: { user_id, ...where } });
      await this.removeDownloads(
        user_id,
        docs.map((d) => d.episode_id),
      );
    },
    /** Removes a user's downloads of these episodes (remembered at `at`); a file goes when no other user keeps it. Returns how many went. */
    async removeDownloads(this: DownloadsThis, user_id: number, episode_ids: number[], at: Date = new Date()): Promise<number> {
      const docs: DownloadDoc[] = await this.adapter.find({ query: { _id: { $in: episode_ids.map((e) => keyOf(user_id, e)) } } });
      if (!docs.length) return 0;
      await this.adapter.removeMany({ _id: { $in: docs.map((d) => d._id) } });
      await this.stores.download_deletions.insertMany(
        docs.map((d): DeletionDoc => ({ user_id, episode_id: d.episode_id, podcast_id: d.podcast_id, deleted_at: at })),
      );
      const kept: DownloadDoc[] = await this.adapter.find({ query: { episode_id: { $in: docs.map((d) => d.episode_id) } } });
      const inUse = new Set(kept.map((d) => d.file));
      for (const d of docs) if (!inUse.has(d.file)) await unlinkDownload(d.file);
      this.logger.info("downloads deleted", { user_id, count: docs.length });
      return docs.length;
    },
    /**
     * A media answer: the downloaded file (any user's copy of the episode), else the enclosure proxied,
     * with Range (206 / 416), HEAD, Content-Type and Content-Length.
     */
    async serveMedia(this: DownloadsThis, ctx: Context<unknown, MediaMeta>, user_id: number, episode_id: number, asAttachment: boolean): Promise<unknown> {
      const [item]: EpisodeMediaItem[] = await this.itemsFor(ctx, user_id, [episode_id]);
      // An RSS-only key (the user feed's enclosures) plays only the podcasts it is limited to.
      const limited = ctx.meta.user?.podcastIds;
      if (!item || (ctx.meta.user?.rssOnly && limited && !limited.includes(item.podcastid))) throw new NotFoundError("Episode not found in your podcasts");
      // Held until the stream closes: the retention pass deletes no file a replica streams (downloads.parts/retention.ts).
      const held = await this.heldStoredFile(ctx, episode_id);
      const stored = held?.stored;
      const head = ctx.meta.method === "HEAD";
      const headers: Record<string, string | number> = { "Accept-Ranges": "bytes", "Cache-Control": "private, max-age=0" };
      if (asAttachment)
        headers["Content-Disposition"] = attachment(
          `${item.episodetitle || "episode"}${path.extname(stored?.file ?? localPathOf(item.episodeurl) ?? "") || ".mp3"}`,
        );
      if (held)
        return fileAnswer(ctx.meta, headers, held.stored.size, held.stored.content_type, (start, end) =>
          held.hold.stream(held.stored.file, start, end),
        ).finally(() => held.hold.done());
      if (!item.episodeurl) throw new NotFoundError("Episode has no media file");
      if (isLocalFeed(item.episodeurl)) return localFileAnswer(ctx, item.episodeurl, headers);
      let upstream;
      try {
        upstream = await fetchStream(item.episodeurl, { rights: rightsOf(ctx.meta.user), range: ctx.meta.range, maxBytes: Number.MAX_SAFE_INTEGER });
      } catch (err) {
        if (!(err instanceof OutboundHttpError)) throw err;
        if (err.status === 416) return unsatisfiable(ctx.meta, headers, null);
        if (err.kind === "blocked_address") throw new ForbiddenError("The episode's media address is not allowed");
        if (err.kind === "http_status" && err.status! < 500) throw new NotFoundError("The episode's media is not available from its host");
        throw new ServiceUnavailableError("The episode's media host could not be reached");
      }
      if (upstream.contentRange) headers["Content-Range"] = upstream.contentRange;
      if (upstream.contentLength !== null) headers["Content-Length"] = upstream.contentLength;
      if (head) upstream.stream.destroy();
      return mediaAnswer(
        ctx.meta,
        upstream.status === 206 ? 206 : 200,
        upstream.contentType ?? item.enclosure_type ?? "application/octet-stream",
        headers,
        head ? null : upstream.stream,
      );
    },
  },
};

export default DownloadsService;
