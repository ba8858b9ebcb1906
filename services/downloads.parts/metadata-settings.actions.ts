/**
 * The admin's download metadata settings (shared/contracts/downloads.ts), kept in the downloads
 * service's settings store beside the downloads toggle; the workers read them through
 * metadata_settings when a download finishes.
 */
import type { ServiceActionsSchema } from "moleculer";
import { SuccessAnswer } from "../../shared/contracts/answers";
import { DOWNLOAD_METADATA_DEFAULTS, DownloadMetadataSettings } from "../../shared/contracts/downloads";
import type { Ctx } from "../../shared/service-types";
import type { DownloadsThis } from "./this";

/** Its own record of download_settings (the "server" one holds the downloads toggle). */
const SETTINGS_ID = "metadata";
const flag = { type: "boolean", convert: true };

export const metadataSettingsActions: ServiceActionsSchema = {
  /** GET /api/data/download_metadata_settings (admin) */
  get_download_metadata_settings: {
    idempotent: true,
    params: {},
    response: DownloadMetadataSettings,
    async handler(this: DownloadsThis): Promise<DownloadMetadataSettings> {
      return this.metadataSettings();
    },
  },
  /** POST /api/data/download_metadata_settings (admin): every field, as the web client sends them. */
  set_download_metadata_settings: {
    params: {
      folder_cover: flag,
      episode_cover: flag,
      metadata_sidecar: flag,
      metadata_subfolder: flag,
      metadata_format: { type: "enum", values: ["json", "xml", "ffmetadata", "both"] },
    },
    response: SuccessAnswer,
    async handler(this: DownloadsThis, ctx: Ctx<DownloadMetadataSettings>): Promise<SuccessAnswer> {
      const { folder_cover, episode_cover, metadata_sidecar, metadata_format, metadata_subfolder } = ctx.params;
      const metadata: DownloadMetadataSettings = { folder_cover, episode_cover, metadata_sidecar, metadata_format, metadata_subfolder };
      await this.upsert(this.stores.download_settings, SETTINGS_ID, { $set: { metadata } });
      this.logger.info("download metadata settings changed", { ...metadata, by: ctx.meta.user?.id });
      return { success: true };
    },
  },
  /** Internal: the settings in force (the workers' sidecars). */
  metadata_settings: {
    visibility: "public",
    async handler(this: DownloadsThis): Promise<DownloadMetadataSettings> {
      return this.metadataSettings();
    },
  },
};

export const metadataSettingsMethods = {
  async metadataSettings(this: DownloadsThis): Promise<DownloadMetadataSettings> {
    const doc = await this.stores.download_settings.findOne({ _id: SETTINGS_ID });
    return { ...DOWNLOAD_METADATA_DEFAULTS, ...doc?.metadata };
  },
};
