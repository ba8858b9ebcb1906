/**
 * The ID3v2 tag embedded in a downloaded MP3, as PinePods tags its downloads
 * (rust-api/src/services/download_metadata.rs): title, the podcast as artist and album, year and
 * date, genre "Podcast", the description as comment, the episode's URL, and the episode's cover (else
 * the podcast's) as front cover. PinePods always tags; here the admin's download metadata settings
 * decide, so that with them off a download stays byte for byte what the feed serves: the text frames
 * when metadata_sidecar, the cover when episode_cover. Other formats are left untouched.
 */
import fs from "fs";
import { pipeline } from "stream/promises";
import NodeID3 from "node-id3";
import type { DownloadMetadataSettings } from "../../shared/contracts/downloads";
import type { EpisodeMediaItem } from "../../shared/contracts/episodes";
import type { Cover } from "./sidecars";

/** Whether a download named `name` gets a tag under these settings. */
export function wantsTag(settings: DownloadMetadataSettings, name: string): boolean {
  return /\.mp3$/i.test(name) && (settings.metadata_sidecar || settings.episode_cover);
}

/** The tag's frames for the episode (the cover only when given). */
export function tagFor(settings: DownloadMetadataSettings, item: EpisodeMediaItem, cover: Cover | null): NodeID3.Tags {
  const tags: NodeID3.Tags = {};
  if (settings.metadata_sidecar) {
    const day = /^(\d{4})-(\d{2})-(\d{2})/.exec(item.episodepubdate ?? "");
    Object.assign(tags, {
      title: item.episodetitle,
      artist: item.podcastname,
      album: item.podcastname,
      genre: "Podcast",
      ...(day && { year: day[1], date: `${day[3]}${day[2]}` }),
      ...(item.episodedescription && { comment: { language: "eng", text: item.episodedescription } }),
      ...(item.episodeurl && { userDefinedText: [{ description: "EPISODE_URL", value: item.episodeurl }] }),
    });
  }
  if (cover) tags.image = { mime: cover.mime, type: { id: 3, name: "front cover" }, description: "Cover", imageBuffer: cover.body };
  return tags;
}

/** Bytes taken by an ID3v2 tag at the start of the file (0 without one): the new tag replaces it. */
async function id3v2Length(file: string): Promise<number> {
  const fd = await fs.promises.open(file, "r");
  try {
    const head = Buffer.alloc(10);
    const { bytesRead } = await fd.read(head, 0, 10, 0);
    if (bytesRead < 10 || head.toString("latin1", 0, 3) !== "ID3") return 0;
    const size = ((head[6] & 0x7f) << 21) | ((head[7] & 0x7f) << 14) | ((head[8] & 0x7f) << 7) | (head[9] & 0x7f);
    return 10 + size + (head[5] & 0x10 ? 10 : 0);
  } finally {
    await fd.close();
  }
}

/** Writes `target`: the tag, then the audio of `source` without its old tag, streamed (episodes can be large). Answers the size. */
export async function writeTagged(source: string, target: string, tags: NodeID3.Tags): Promise<number> {
  const skip = await id3v2Length(source);
  const out = fs.createWriteStream(target);
  out.write(NodeID3.create(tags));
  await pipeline(fs.createReadStream(source, { start: skip }), out);
  return (await fs.promises.stat(target)).size;
}
