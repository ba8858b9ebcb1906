/**
 * The downloads service's `this` (shared/service-types.ts), declared once for the service file and its
 * parts: its documents, and the methods one part calls of another.
 */
import type { Context } from "moleculer";
import type { Caller } from "../../shared/contracts/call";
import type { DownloadedItem, DownloadMetadataSettings, RecordDownloadParams, StoredFile } from "../../shared/contracts/downloads";
import type { AutoDeleteRule } from "../../shared/contracts/podcasts";
import type { EpisodeMediaItem } from "../../shared/contracts/episodes";
import type { CreateTaskParams } from "../../shared/contracts/tasks";
import type { Rights } from "../../shared/http";
import type { MediaHold, MediaHolds } from "./retention";
import type { DbThis, Query, StoredDoc } from "../../shared/service-types";
import type { GatewayMeta } from "../../shared/types";

/** A user's download; `file` is the path under DOWNLOAD_DIR. */
export interface DownloadDoc extends RecordDownloadParams {
  /** "<user_id>:<episode_id>": one download per user and episode, written with one upsert. */
  _id: string;
  downloaded_at: Date;
  /** The retention pass decided to delete it, at this time (downloads.parts/retention.ts): a pass cut short is completed by the next. */
  deleting?: Date;
}

/** A user deleted a downloaded episode (kept DELETION_DAYS for sync). */
export interface DeletionDoc {
  user_id: number;
  episode_id: number;
  podcast_id: number;
  deleted_at: Date;
}

/** A record of download_settings: "server" holds the downloads toggle, "metadata" the download metadata settings. */
export interface SettingsDoc {
  _id: string;
  enabled?: boolean;
  metadata?: Partial<DownloadMetadataSettings>;
}

/** ctx.meta the gateway adds for media routes. */
/** The gateway's meta (which carries the media answer's fields). */
export type MediaMeta = GatewayMeta;

/** The paging and order of a listing (listQuery). */
export interface ListQuery {
  limit?: number;
  offset?: number;
  sort_order?: "asc" | "desc";
  filter?: string;
  search?: string;
}

export interface DownloadsMethods {
  /** downloads.parts/metadata-settings.actions.ts */
  metadataSettings(): Promise<DownloadMetadataSettings>;
  /** downloads.parts/retention.ts */
  runAutoDelete(): Promise<number>;
  completeDeletions(rules: AutoDeleteRule[]): Promise<number>;
  busyEpisodes(): Promise<Set<number>>;
  heldStoredFile(ctx: Context, episode_id: number): Promise<{ stored: StoredFile; hold: MediaHold } | null>;
  enabled(): Promise<boolean>;
  requireEnabled(): Promise<void>;
  itemsFor(ctx: Context<unknown, MediaMeta>, user_id: number, episode_ids: number[]): Promise<EpisodeMediaItem[]>;
  episodeJob(user_id: number, i: EpisodeMediaItem, rights: Rights, fromSync?: boolean): CreateTaskParams;
  downloadedIds(user_id: number, episode_ids: number[]): Promise<Set<number>>;
  downloadedItems(ctx: Caller, user_id: number, where: Query): Promise<DownloadedItem[]>;
  page<R>(rows: R[], key: (r: R) => number | string, p: ListQuery, defaultOrder: "asc" | "desc"): { rows: R[]; total: number };
  removeWhere(user_id: number, where: Query): Promise<void>;
  removeDownloads(user_id: number, episode_ids: number[], at?: Date): Promise<number>;
  serveMedia(ctx: Context<unknown, MediaMeta>, user_id: number, episode_id: number, asAttachment: boolean): Promise<unknown>;
}

export type DownloadsThis = DbThis<DownloadDoc, { download_settings: SettingsDoc; download_leases: StoredDoc; download_deletions: DeletionDoc }> &
  DownloadsMethods & { mediaHolds: MediaHolds };

/** A download's _id: one per user and episode. */
export const keyOf = (user_id: number, episode_id: number) => `${user_id}:${episode_id}`;
