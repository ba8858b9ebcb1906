/**
 * A local folder read as a feed (the shape feeds.fetch_feed answers), so that podcasts and episodes
 * store and refresh it like any other. Its content hash covers the folder record, the uploaded
 * artwork, the cover file and every audio file's name, size and modification time: an unchanged
 * folder costs a directory listing and no tag reads, no writes.
 */
import path from "path";
import { config } from "../../shared/config";
import { BadRequestError } from "../../shared/errors";
import { emptyEpisode, emptyFeed, ParsedEpisode } from "../../shared/feed-parser";
import { sha256Hex } from "../../shared/secrets";
import { localUrl } from "../../shared/contracts/local";
import type { FetchedFeed } from "../../shared/contracts/feeds";
import { AudioFile, audioFiles, audioType, byPath, coverFile, readTags, Resolved, Tags } from "./files";

/** A folder someone added as a podcast: what the feed's channel says (first adder's values). */
export interface FolderDoc {
  _id: number;
  /** Relative to LOCAL_MEDIA_DIR, unique. */
  path: string;
  title: string;
  description: string | null;
  author: string | null;
  explicit: boolean;
  created_at: Date;
}

/** An uploaded cover of a folder (add_local_podcast_artwork); _id is the folder's. */
export interface ArtworkDoc {
  _id: number;
  content_type: string;
  /** The image, base64 (the same in NeDB and MongoDB). */
  data: string;
  size: number;
  updated_at: Date;
}

/** Where the folder's cover is served (GET /api/data/local_artwork/{folder_id}); `file` = an episode's embedded picture. */
export function artworkUrl(folderId: number, file?: string): string {
  const base = `${config.apiUrl.replace(/\/$/, "")}/api/data/local_artwork/${folderId}`;
  return file ? `${base}?file=${encodeURIComponent(file)}` : base;
}

/**
 * Episode order: folder by folder (the folder's own files first, then its subfolders by path, as an
 * audiobook's CD1 before CD2), and within a folder by track number when every file has one, else by
 * date (tag, else the file's modification time), then by name. Lists order episodes by date, so dates
 * that would contradict this order (files copied at the same second, untagged tracks, a later CD's
 * older tags) are moved one minute after the previous episode's.
 */
function ordered<T extends AudioFile & { tags: Tags }>(items: T[]): (T & { time: number })[] {
  const dated = items.map((i) => ({
    ...i,
    folder: path.posix.dirname(i.name),
    time: i.tags.date ? Date.parse(i.tags.date) : Math.floor(i.mtimeMs / 1000) * 1000,
  }));
  const byTrack = dated.length > 0 && dated.every((i) => i.tags.track !== null);
  dated.sort((a, b) => byPath(a.folder, b.folder) || (byTrack ? a.tags.track! - b.tags.track! : a.time - b.time) || byPath(a.name, b.name));
  let previous = -Infinity;
  for (const i of dated) {
    if (i.time <= previous) i.time = previous + 60_000;
    previous = i.time;
  }
  return dated;
}

export async function folderFeed(
  folder: FolderDoc,
  dir: Resolved,
  artwork: ArtworkDoc | null,
  knownHash: string | null,
  log: (msg: string, data: object) => void,
): Promise<FetchedFeed> {
  const files = await audioFiles(dir.full);
  // An emptied folder is more likely an unmounted disk than a podcast whose every episode should go.
  if (!files.length) throw new BadRequestError("The folder has no audio files; its episodes are kept");
  const cover = await coverFile(dir.full);
  const { _id, title, description, author, explicit } = folder;
  const content_hash = sha256Hex(JSON.stringify({ _id, title, description, author, explicit, artwork: artwork?.updated_at ?? null, cover, files }));
  const base = { final_url: localUrl(dir.rel), etag: null, last_modified: null, content_hash };
  if (content_hash === knownHash) return { unchanged: true, ...base, feed: null };
  const items: (AudioFile & { tags: Tags })[] = [];
  for (const f of files) items.push({ ...f, tags: await readTags(path.join(dir.full, f.name), log) });
  const hasCover = !!artwork || !!cover || items.some((i) => i.tags.hasPicture);
  const feed = emptyFeed("rss", "2.0");
  Object.assign(feed, { title, description, author, explicit, image: hasCover ? artworkUrl(folder._id) : null });
  feed.episodes = ordered(items).map((i): ParsedEpisode => {
    const url = localUrl(path.join(dir.rel, i.name));
    return {
      ...emptyEpisode(explicit),
      guid: url,
      title: i.tags.title ?? path.parse(i.name).name,
      description: i.tags.comment,
      pub_date: new Date(i.time).toISOString(),
      enclosure_url: url,
      enclosure_type: audioType(i.name),
      enclosure_length: i.size,
      duration: i.tags.duration,
      image: i.tags.hasPicture ? artworkUrl(folder._id, i.name) : feed.image,
      author: i.tags.artist ?? author,
      episode: i.tags.track,
    };
  });
  feed.pub_date = feed.episodes.at(-1)?.pub_date ?? null;
  return { unchanged: false, ...base, feed };
}
