/**
 * What a sync server exchanges with the downloads service: the user's downloads and deletions as actions
 * to upload, and the download and delete actions other devices made, applied here.
 */
import type { ServiceActionsSchema } from "moleculer";
import type { ApplyDownloadActionsResult, LocalDownloadAction, SyncDownloadAction } from "../../shared/contracts/downloads";
import type { EpisodeMediaItem } from "../../shared/contracts/episodes";
import { episodeItems } from "../../shared/contracts/episodes";
import { isLocalFeed } from "../../shared/contracts/local";
import { type CreateTasksResult, tasksCreate } from "../../shared/contracts/tasks";
import type { Ctx } from "../../shared/service-types";
import { type DeletionDoc, type DownloadDoc, type DownloadsThis, keyOf } from "./this";

const id = { type: "number", integer: true, positive: true, convert: true };

export const syncActions: ServiceActionsSchema = {
  /** The user's downloads and deletions after `since` (all kept ones without it): what a sync uploads. Downloads a sync asked for are not reported back. */
  sync_actions: {
    visibility: "public",
    params: { user_id: id, since: { type: "date", convert: true, optional: true } },
    async handler(this: DownloadsThis, ctx: Ctx<{ user_id: number; since?: Date }>): Promise<LocalDownloadAction[]> {
      const { user_id, since } = ctx.params;
      const downloads: DownloadDoc[] = await this.adapter.find({
        query: { user_id, from_sync: { $ne: true }, ...(since ? { downloaded_at: { $gt: since } } : {}) },
      });
      const deletions: DeletionDoc[] = await this.stores.download_deletions.find({ query: { user_id, ...(since ? { deleted_at: { $gt: since } } : {}) } });
      return [
        ...downloads.map((d) => ({
          episode_id: d.episode_id,
          podcast_id: d.podcast_id,
          action: "download" as const,
          at: new Date(d.downloaded_at).toISOString(),
        })),
        ...deletions.map((d) => ({
          episode_id: d.episode_id,
          podcast_id: d.podcast_id,
          action: "delete" as const,
          at: new Date(d.deleted_at).toISOString(),
        })),
      ];
    },
  },
  /**
   * Download and delete actions from a sync server (episodes of the user's podcasts): per episode the
   * newest action counts, and only when it is newer than what happened here. A delete removes the
   * downloaded file (never listening history); a download queues a job when downloads are enabled.
   */
  apply_sync_actions: {
    visibility: "public",
    params: { user_id: id, actions: { type: "array", items: "object", max: 100_000 } },
    async handler(this: DownloadsThis, ctx: Ctx<{ user_id: number; actions: SyncDownloadAction[] }>): Promise<ApplyDownloadActionsResult> {
      const { user_id } = ctx.params;
      const newest = new Map<number, SyncDownloadAction>();
      for (const a of ctx.params.actions) {
        const seen = newest.get(a.episode_id);
        if (!(seen && seen.at >= a.at)) newest.set(a.episode_id, a);
      }
      if (!newest.size) return { queued: 0, deleted: 0 };
      const docs: DownloadDoc[] = await this.adapter.find({ query: { _id: { $in: [...newest.keys()].map((e) => keyOf(user_id, e)) } } });
      const have = new Map(docs.map((d) => [d.episode_id, d]));
      let deleted = 0;
      for (const a of newest.values()) {
        const d = have.get(a.episode_id);
        // The deletion keeps the server's time, so that the next sync does not report it back as this server's.
        if (a.action === "delete" && d && new Date(d.downloaded_at) < new Date(a.at))
          deleted += await this.removeDownloads(user_id, [a.episode_id], new Date(a.at));
      }
      const wanted = [...newest.values()].filter((a) => a.action === "download" && !have.has(a.episode_id));
      if (!wanted.length || !(await this.enabled())) return { queued: 0, deleted };
      const gone: DeletionDoc[] = await this.stores.download_deletions.find({ query: { user_id, episode_id: { $in: wanted.map((a) => a.episode_id) } } });
      const deletedAt = new Map<number, string>();
      for (const g of gone) {
        const at = new Date(g.deleted_at).toISOString();
        if (!(deletedAt.get(g.episode_id)! >= at)) deletedAt.set(g.episode_id, at);
      }
      const todo = wanted.filter((a) => !(deletedAt.get(a.episode_id)! >= a.at)).map((a) => a.episode_id);
      if (!todo.length) return { queued: 0, deleted };
      const found: EpisodeMediaItem[] = await episodeItems(ctx, { user_id, episode_ids: todo });
      const items = found.filter((i) => !isLocalFeed(i.episodeurl));
      if (!items.length) return { queued: 0, deleted };
      const res: CreateTasksResult = await tasksCreate(ctx, { tasks: items.map((i) => this.episodeJob(user_id, i, "user", true)) });
      return { queued: res.created.length, deleted };
    },
  },
};
