/**
 * The local service's file side: the one path guard every route goes through, audio listings, cover
 * detection and tags (music-metadata). Nothing here reads a path that the guard did not resolve.
 */
import fs from "fs";
import path from "path";
import { parseFile, selectCover } from "music-metadata";
import { config } from "../../shared/config";
import { BadRequestError, NotFoundError } from "../../shared/errors";

export const AUDIO = /\.(mp3|m4a|m4b|aac|ogg|oga|opus|flac|wav|mp4|m4v|webm)$/i;

const AUDIO_TYPES: Record<string, string> = {
  mp3: "audio/mpeg",
  m4a: "audio/mp4",
  m4b: "audio/mp4",
  aac: "audio/aac",
  ogg: "audio/ogg",
  oga: "audio/ogg",
  opus: "audio/ogg",
  flac: "audio/flac",
  wav: "audio/wav",
  mp4: "video/mp4",
  m4v: "video/x-m4v",
  webm: "audio/webm",
};

export function audioType(name: string): string {
  return AUDIO_TYPES[path.extname(name).slice(1).toLowerCase()] ?? "application/octet-stream";
}

/** Cover files a folder may hold, best first (matched without regard to case). */
const COVER_NAMES = ["cover", "folder", "front", "album", "artwork", "poster"];
const IMAGE_EXTENSIONS = ["jpg", "jpeg", "png", "webp", "gif"];

export interface Resolved {
  /** Real path of LOCAL_MEDIA_DIR. */
  root: string;
  /** Real path of the file or folder, inside root. */
  full: string;
  /** Its path relative to root ("" for root itself). */
  rel: string;
}

/**
 * The real path of `rel` under the media folder: 400 for anything that could leave it (absolute and
 * drive paths, `..`, NUL, a symbolic link, a resolved path outside the root) or for the wrong kind,
 * 404 when missing.
 */
export async function insideMediaDir(rel: string, kind: "dir" | "file"): Promise<Resolved> {
  if (path.isAbsolute(rel) || /^[a-z]:/i.test(rel) || rel.includes("\0") || rel.split(/[\\/]+/).includes(".."))
    throw new BadRequestError("The path must be relative to the local media folder, without ..");
  let root: string;
  try {
    root = await fs.promises.realpath(config.localMediaDir);
  } catch {
    throw new NotFoundError("The local media folder does not exist");
  }
  const wanted = path.join(root, rel);
  const st = await fs.promises.lstat(wanted).catch(() => null);
  if (!st) throw new NotFoundError(kind === "dir" ? "No such folder" : "No such file");
  if (st.isSymbolicLink()) throw new BadRequestError("Symbolic links are not followed");
  // A link higher up the path could still lead elsewhere: the resolved path must stay under the root.
  const full = await fs.promises.realpath(wanted);
  if (full !== root && !full.startsWith(root + path.sep)) throw new BadRequestError("The path leaves the local media folder");
  if (kind === "dir" && !st.isDirectory()) throw new BadRequestError("Not a folder");
  if (kind === "file" && !(st.isFile() && AUDIO.test(full))) throw new BadRequestError("Not an audio file");
  return { root, full, rel: path.relative(root, full) };
}

export interface AudioFile {
  /** Relative to the podcast's folder, "/"-separated. */
  name: string;
  size: number;
  mtimeMs: number;
}

/** Subfolder levels read below a podcast folder (an audiobook's CD1/CD2, a book's Part 1/Disc 2). */
export const MAX_DEPTH = 3;

/** Path order as people number things: "Disc 2" before "Disc 10". */
export function byPath(a: string, b: string): number {
  return a.localeCompare(b, undefined, { numeric: true });
}

/**
 * The audio files of a folder and of its subfolders down to MAX_DEPTH levels, named by their path
 * relative to it ("CD1/01.mp3") and ordered by that path. Links (files or folders) and hidden entries
 * are left out: a link could lead out of the media folder.
 */
export async function audioFiles(full: string, sub = "", depth = 0): Promise<AudioFile[]> {
  const entries = await fs.promises.readdir(path.join(full, sub), { withFileTypes: true });
  const files: AudioFile[] = [];
  for (const e of entries) {
    if (e.name.startsWith(".")) continue;
    const name = sub ? `${sub}/${e.name}` : e.name;
    if (e.isDirectory() && depth < MAX_DEPTH) files.push(...(await audioFiles(full, name, depth + 1)));
    if (!e.isFile() || !AUDIO.test(e.name)) continue;
    const st = await fs.promises.stat(path.join(full, name));
    files.push({ name, size: st.size, mtimeMs: st.mtimeMs });
  }
  return files.sort((a, b) => byPath(a.name, b.name));
}

/** A cover image file of the folder (cover.jpg, folder.png ...; real files only), or null. */
export async function coverFile(full: string): Promise<{ name: string; mtimeMs: number } | null> {
  const entries = await fs.promises.readdir(full, { withFileTypes: true });
  const found = entries
    .filter((e) => e.isFile())
    .map((e) => ({ e, m: /^(.+)\.([a-z]+)$/i.exec(e.name) }))
    .filter(({ m }) => m && COVER_NAMES.includes(m[1].toLowerCase()) && IMAGE_EXTENSIONS.includes(m[2].toLowerCase()))
    .sort((a, b) => COVER_NAMES.indexOf(a.m![1].toLowerCase()) - COVER_NAMES.indexOf(b.m![1].toLowerCase()) || a.e.name.localeCompare(b.e.name));
  if (!found.length) return null;
  const st = await fs.promises.stat(path.join(full, found[0].e.name));
  return { name: found[0].e.name, mtimeMs: st.mtimeMs };
}

export interface Tags {
  title: string | null;
  artist: string | null;
  comment: string | null;
  track: number | null;
  /** ISO date of the date or year tag, or null. */
  date: string | null;
  /** Seconds, rounded. */
  duration: number;
  hasPicture: boolean;
}

/** A date or year tag as ISO; a bare year is its first of January. */
function tagDate(date: string | undefined, year: number | undefined): string | null {
  const raw = date ?? (year ? String(year) : undefined);
  if (!raw) return null;
  const t = /^\d{4}$/.test(raw) ? Date.UTC(Number(raw), 0, 1) : Date.parse(raw);
  return Number.isNaN(t) ? null : new Date(t).toISOString();
}

/** The tags of one file; a file the reader cannot parse has none (its name becomes the title). */
export async function readTags(file: string, log: (msg: string, data: object) => void): Promise<Tags> {
  try {
    const m = await parseFile(file);
    const c = m.common;
    return {
      title: c.title?.trim() || null,
      artist: c.artist ?? c.albumartist ?? null,
      comment: c.comment?.[0]?.text ?? c.description?.[0] ?? null,
      track: c.track?.no ?? null,
      date: tagDate(c.date, c.year),
      duration: Math.round(m.format.duration ?? 0),
      hasPicture: !!c.picture?.length,
    };
  } catch (err) {
    log("unreadable audio tags", { file: path.basename(file), error: (err as Error | null)?.message });
    return { title: null, artist: null, comment: null, track: null, date: null, duration: 0, hasPicture: false };
  }
}

/** The embedded cover of an audio file, or null. */
export async function embeddedPicture(file: string): Promise<{ type: string; data: Buffer } | null> {
  const m = await parseFile(file).catch(() => null);
  const pic = selectCover(m?.common.picture);
  return pic ? { type: pic.format.includes("/") ? pic.format : `image/${pic.format}`, data: Buffer.from(pic.data) } : null;
}

/** Image types an upload may have, told by their first bytes (not by what the client claims). */
export function imageTypeOf(b: Buffer): string | null {
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return "image/jpeg";
  if (b.length >= 8 && b.subarray(0, 8).equals(Buffer.from("89504e470d0a1a0a", "hex"))) return "image/png";
  if (b.length >= 6 && /^GIF8[79]a$/.test(b.subarray(0, 6).toString("latin1"))) return "image/gif";
  if (b.length >= 12 && b.subarray(0, 4).toString("latin1") === "RIFF" && b.subarray(8, 12).toString("latin1") === "WEBP") return "image/webp";
  return null;
}
