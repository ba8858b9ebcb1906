/**
 * What the workers write beside a downloaded episode, as the admin's download metadata settings say
 * (shared/contracts/downloads.ts): the podcast's cover as folder.<ext> in its folder, the episode's
 * cover as "<file>.cover.<ext>" and its metadata as "<file>.json|xml|ffmetadata", those two in a
 * metadata/ subfolder when metadata_subfolder. Covers are fetched with the job's rights under the
 * outbound policy; one that cannot be fetched is logged and left out: the download itself stands.
 */
import fs from "fs";
import path from "path";
import { fetchUrl, Rights } from "../../shared/http";
import { type DownloadMetadataSettings, IMAGE_EXTENSIONS, sidecarFormats } from "../../shared/contracts/downloads";
import type { EpisodeMediaItem } from "../../shared/contracts/episodes";

/** A podcast folder's cover already there, in any of the image formats written. */
const FOLDER_COVER = new RegExp(`^folder\\.(${IMAGE_EXTENSIONS.join("|")})$`);

/** Largest cover image fetched. */
const MAX_COVER_BYTES = 10 * 1024 * 1024;

/** The episode's metadata as the sidecars carry it. */
function metadataOf(item: EpisodeMediaItem) {
  return {
    title: item.episodetitle,
    podcast: item.podcastname,
    pub_date: item.episodepubdate,
    description: item.episodedescription,
    duration: item.episodeduration,
    episode_url: item.episodeurl,
    website: item.podcast_website,
    podcast_index_id: item.podcast_index_id,
    artwork: item.episodeartwork || item.podcast_artwork,
    episode_id: item.episodeid,
    podcast_id: item.podcastid,
  };
}

const xmlEscape = (v: string) => v.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
/** ffmetadata escapes '=', ';', '#', '\' and newlines with a backslash. */
const ffEscape = (v: string) => v.replace(/([=;#\\\n])/g, "\\$1");

export function sidecarText(format: "json" | "xml" | "ffmetadata", item: EpisodeMediaItem): string {
  const meta = metadataOf(item);
  if (format === "json") return `${JSON.stringify(meta, null, 2)}\n`;
  if (format === "xml") {
    const fields = Object.entries(meta)
      .filter(([, v]) => v !== null && v !== undefined)
      .map(([k, v]) => `  <${k}>${xmlEscape(String(v))}</${k}>`);
    return `<?xml version="1.0" encoding="UTF-8"?>\n<episode>\n${fields.join("\n")}\n</episode>\n`;
  }
  const ff: [string, unknown][] = [
    ["title", meta.title],
    ["album", meta.podcast],
    ["artist", meta.podcast],
    ["date", meta.pub_date?.slice(0, 10)],
    ["comment", meta.description],
    ["genre", "Podcast"],
  ];
  return `;FFMETADATA1\n${ff
    .filter(([, v]) => v)
    .map(([k, v]) => `${k}=${ffEscape(String(v))}`)
    .join("\n")}\n`;
}

/** A cover image as fetched: its bytes, MIME type and file extension. */
export interface Cover {
  body: Buffer;
  mime: string;
  ext: string;
}
export type CoverFetcher = (url: string | null) => Promise<Cover | null>;

/**
 * Fetches the covers of one download, each URL once (the cover embedded in the file and the sidecar
 * share it), with the job's rights under the outbound policy; one that cannot be fetched or is no
 * image is logged and answers null.
 */
export function coverFetcher(rights: Rights, episode_id: number, logger: { warn: (msg: string, o: object) => void }): CoverFetcher {
  const fetched = new Map<string, Promise<Cover | null>>();
  const fetchCover = async (url: string): Promise<Cover | null> => {
    try {
      const res = await fetchUrl(url, { rights, maxBytes: MAX_COVER_BYTES });
      const ext = /image\/(jpeg|png|webp|gif)/i
        .exec(res.contentType ?? "")?.[1]
        .toLowerCase()
        .replace("jpeg", "jpg");
      if (!ext) throw new Error(`not an image (${res.contentType})`);
      return { body: res.body!, mime: `image/${ext.replace("jpg", "jpeg")}`, ext };
    } catch (err) {
      logger.warn("cover not fetched", { episode_id, reason: (err as Error | null)?.message });
      return null;
    }
  };
  return (url) => {
    if (!url) return Promise.resolve(null);
    if (!fetched.has(url)) fetched.set(url, fetchCover(url));
    return fetched.get(url)!;
  };
}

/** Writes the sidecars of a file just downloaded to dir/name. */
export async function writeSidecars(
  settings: DownloadMetadataSettings,
  item: EpisodeMediaItem,
  dir: string,
  name: string,
  covers: CoverFetcher,
): Promise<void> {
  const base = name.replace(/\.[^.]+$/, "");
  const sideDir = settings.metadata_subfolder ? path.join(dir, "metadata") : dir;
  if (settings.metadata_sidecar || settings.episode_cover) await fs.promises.mkdir(sideDir, { recursive: true });
  if (settings.metadata_sidecar) {
    for (const format of sidecarFormats(settings.metadata_format))
      await fs.promises.writeFile(path.join(sideDir, `${base}.${format}`), sidecarText(format, item));
  }
  const cover = async (url: string | null, target: (ext: string) => string) => {
    const got = await covers(url);
    if (got) await fs.promises.writeFile(target(got.ext), got.body);
  };
  if (settings.episode_cover) await cover(item.episodeartwork || item.podcast_artwork, (ext) => path.join(sideDir, `${base}.cover.${ext}`));
  if (settings.folder_cover) {
    const have = (await fs.promises.readdir(dir)).some((f) => FOLDER_COVER.test(f));
    if (!have) await cover(item.podcast_artwork, (ext) => path.join(dir, `folder.${ext}`));
  }
}
