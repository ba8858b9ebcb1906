/** Shapes of the downloads service, shared with the workers service that runs download jobs. */
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

/** downloads.downloaded_ids params; the result is the ids of these episodes the user has downloaded (list items' `downloaded`). */
export interface DownloadedIdsParams {
  user_id: number;
  episode_ids: number[];
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
