/** Shapes of the downloads service, shared with the workers service that runs download jobs. */
import { action } from "./call";
import { Binary, Nullable, PlainText, Type, type Static } from "./answers";
import { EpisodeListItem } from "./episodes";
import type { Rights } from "../http";

/** downloads.record_download params: a file a worker finished (path relative to DOWNLOAD_DIR). */
export interface RecordDownloadParams {
  user_id: number;
  episode_id: number;
  podcast_id: number;
  file: string;
  size: number;
  content_type: string;
  /** Queued because a sync server reported a download on another device: not reported back to it. */
  from_sync?: boolean;
}

/** downloads.stored_file result: a finished file of an episode (any user's), to reuse instead of fetching again. */
export interface StoredFile {
  file: string;
  size: number;
  content_type: string;
}

/** downloads.downloaded_ids params; the result is the ids of these episodes the user has downloaded (list items' `downloaded`), of all without episode_ids (the inbox). */
export interface DownloadedIdsParams {
  user_id: number;
  episode_ids?: number[];
}

/** downloads.downloaded_count and downloaded_bytes params; the results are how many episodes the user has downloaded (get_stats) and their bytes (get_extended_stats). */
export interface DownloadedCountParams {
  user_id: number;
}

/** Payloads of the download jobs (tasks of types JOB_DOWNLOAD_EPISODE and JOB_DOWNLOAD_PODCAST); rights: the requester's under the outbound URL policy. */
export interface DownloadEpisodePayload {
  episode_id: number;
  rights: Rights;
  from_sync?: boolean;
}
export interface DownloadPodcastPayload {
  podcast_id: number;
  episode_ids: number[];
  rights: Rights;
}

/** A download or a deletion of a user's downloaded file, as the sync service exchanges them with a gPodder server. */
export interface SyncDownloadAction {
  episode_id: number;
  action: "download" | "delete";
  /** When it happened (ISO, UTC). */
  at: string;
}

/** downloads.sync_actions result item: a local download or deletion since the last upload. */
export interface LocalDownloadAction extends SyncDownloadAction {
  podcast_id: number;
}

/** downloads.apply_sync_actions result: download jobs queued and local files deleted. */
export interface ApplyDownloadActionsResult {
  queued: number;
  deleted: number;
}

/**
 * The admin's download metadata settings (download_metadata_settings, as PinePods' web client names
 * them): what the workers write beside a downloaded episode. folder_cover: the podcast's cover as
 * folder.jpg in its folder; episode_cover: the episode's cover beside its file; metadata_sidecar: the
 * episode's metadata in metadata_format (json, xml, ffmetadata, or both = json and xml), in a
 * metadata/ subfolder when metadata_subfolder.
 */
export const DownloadMetadataSettings = Type.Object({
  folder_cover: Type.Boolean(),
  episode_cover: Type.Boolean(),
  metadata_sidecar: Type.Boolean(),
  metadata_format: Type.Union([Type.Literal("json"), Type.Literal("xml"), Type.Literal("ffmetadata"), Type.Literal("both")]),
  metadata_subfolder: Type.Boolean(),
});
export type DownloadMetadataSettings = Static<typeof DownloadMetadataSettings>;

/** Until an admin saves them: nothing written besides the file; json and xml, in a subfolder, once switched on. */
export const DOWNLOAD_METADATA_DEFAULTS: DownloadMetadataSettings = {
  folder_cover: false,
  episode_cover: false,
  metadata_sidecar: false,
  metadata_format: "both",
  metadata_subfolder: true,
};

/** The metadata formats written for metadata_format ("both": json and xml). */
export function sidecarFormats(format: DownloadMetadataSettings["metadata_format"]): ("json" | "xml" | "ffmetadata")[] {
  return format === "both" ? ["json", "xml"] : [format];
}

/**
 * Every file the workers may write beside a downloaded file (its path under DOWNLOAD_DIR), wherever the
 * settings of the time put them: the downloads service removes these with the file.
 */
export function sidecarPaths(file: string): string[] {
  const dir = file.includes("/") ? file.slice(0, file.lastIndexOf("/") + 1) : "";
  const base = file.slice(dir.length).replace(/\.[^.]+$/, "");
  const names = [...["json", "xml", "ffmetadata"].map((ext) => `${base}.${ext}`), ...IMAGE_EXTENSIONS.map((ext) => `${base}.cover.${ext}`)];
  return [...names.map((n) => dir + n), ...names.map((n) => `${dir}metadata/${n}`)];
}

/** Extensions of the cover images written (by the image's content type). */
export const IMAGE_EXTENSIONS = ["jpg", "png", "webp", "gif"];

// --- Answers of the downloads service's routes ---

/** The documents' Downloaded item; text fields are strings ("" when none), as the clients parse them. */
export const DownloadedItem = Type.Composite([
  Type.Omit(EpisodeListItem, ["saved", "downloaded"]),
  Type.Object({
    artworkurl: Type.String(),
    podcastindexid: Nullable(Type.Integer()),
    websiteurl: Type.String(),
    downloadedlocation: Type.String(),
    downloaded_size: Type.Integer(),
    downloaded_at: Type.String({ format: "date-time" }),
  }),
]);
export type DownloadedItem = Static<typeof DownloadedItem>;
export const DownloadedEpisodesAnswer = Type.Object({ downloaded_episodes: Type.Array(DownloadedItem) });
export type DownloadedEpisodesAnswer = Static<typeof DownloadedEpisodesAnswer>;
export const DownloadsPageAnswer = Type.Object({ episodes: Type.Array(DownloadedItem), total: Type.Integer() });
export type DownloadsPageAnswer = Static<typeof DownloadsPageAnswer>;
/** podcast_download_summary: per podcast with downloads. */
export const DownloadSummaryAnswer = Type.Object({
  podcasts: Type.Array(
    Type.Object({
      podcastid: Type.Integer(),
      podcastname: Type.String(),
      artworkurl: Type.String(),
      episode_count: Type.Integer(),
      total_size: Type.Integer(),
      latest_download: Type.String({ format: "date-time" }),
    }),
  ),
});
export type DownloadSummaryAnswer = Static<typeof DownloadSummaryAnswer>;
/** download_podcast, download_all_podcast: the task (null when there was nothing to download). */
export const DownloadStartedAnswer = Type.Object({ detail: Type.String(), task_id: Nullable(Type.String()) });
export type DownloadStartedAnswer = Static<typeof DownloadStartedAnswer>;
export const UserDownloadStatusAnswer = Type.Object({
  total_downloaded: Type.Integer(),
  total_size_mb: Type.Number(),
  downloads_enabled: Type.Boolean(),
  active_downloads: Type.Integer(),
});
export type UserDownloadStatusAnswer = Static<typeof UserDownloadStatusAnswer>;
/** enable_disable_downloads: success is what the web client reads. */
export const DownloadsToggleAnswer = Type.Object({ success: Type.Boolean(), detail: Type.String(), downloads_enabled: Type.Boolean() });
export type DownloadsToggleAnswer = Static<typeof DownloadsToggleAnswer>;
export const DownloadStatusText = PlainText("true or false: downloads are enabled on this server");
export const MediaAnswer = Binary("application/octet-stream", "The episode's media, with its own Content-Type; Range requests answer 206");

// --- Calls to the downloads service and its events (shared/contracts/call.ts) ---

/** Applies download and delete actions a sync server sent (the newest per episode wins against what happened here). */
export const applySyncActions = action<{ user_id: number; actions: SyncDownloadAction[] }, ApplyDownloadActionsResult>("downloads.apply_sync_actions");
/** The user's downloads and deletions here (since `since`), as episode actions. */
export const syncActions = action<{ user_id: number; since?: Date }, LocalDownloadAction[]>("downloads.sync_actions");
/** The user's downloaded episodes (GET /api/data/download_episode_list). */
export const downloadEpisodeList = action<{ user_id: number }, DownloadedEpisodesAnswer>("downloads.download_episode_list");
/** Which of these episodes the user has downloaded. */
export const downloadedIds = action<DownloadedIdsParams, number[]>("downloads.downloaded_ids");
/** How many episodes the user has downloaded. */
export const downloadedCount = action<DownloadedCountParams, number>("downloads.downloaded_count");
/** The bytes of the user's downloaded files. */
export const downloadedBytes = action<DownloadedCountParams, number>("downloads.downloaded_bytes");
/** A worker finished a file: the user's download, written once however often a job is retried. */
export const recordDownload = action<RecordDownloadParams, { success: true }>("downloads.record_download");
/** The file some user already has of an episode, or null (a second user's download reuses it). */
export const storedFile = action<{ episode_id: number }, StoredFile | null>("downloads.stored_file");
/** The admin's download metadata settings in force. */
export const downloadsMetadataSettings = action<Record<string, never>, DownloadMetadataSettings>("downloads.metadata_settings");
/** The episodes whose downloaded file one downloads replica is streaming (call it with the replica's nodeID): the retention pass leaves them. */
export const openMedia = action<Record<string, never>, number[]>("downloads.open_media");
