/**
 * The video provider of the search service: channel search and channel details through the
 * extraction tool (yt-dlp, path from config), run without a shell and with the provider deadline.
 */
import { execFile, type ExecFileException } from "child_process";
import type { LoggerInstance } from "moleculer";
import { config } from "../../shared/config";
import { InternalServerError, NotFoundError, ServiceUnavailableError } from "../../shared/errors";
import type { VidsiteChannel, VidsiteChannelDetails, VidsiteSearchResult, VidsiteVideo } from "../../shared/contracts/search";
import { vidsiteChannelUrl } from "../../shared/contracts/vidsite";

const MAX_CHANNELS = 25;
const MAX_VIDEOS = 15;
/** Videos asked for per search: several usually come from the same channel. */
const SEARCH_VIDEOS = 50;
const NOT_INSTALLED = "the external extraction tool is unavailable (tool not installed)";

type Failure = "search" | "fetch";

/** A thumbnail in the tool's JSON: the fields read here. */
interface ToolThumbnail {
  id?: string;
  url?: string;
  width?: number;
}

/** A video in the tool's JSON (a search hit, or an entry of a channel's list): the fields read here, each defensively. */
interface ToolEntry {
  id?: string;
  title?: string | null;
  description?: string | null;
  url?: string | null;
  duration?: number | null;
  timestamp?: number | null;
  release_timestamp?: number | null;
  upload_date?: string | null;
  channel?: string | null;
  uploader?: string | null;
  channel_id?: string | null;
  channel_url?: string | null;
  channel_thumbnails?: unknown;
  thumbnails?: unknown;
}

/** The tool's JSON (yt-dlp's --dump-single-json of a search or of a channel's videos): the fields read here. */
interface ToolJson extends ToolEntry {
  entries?: (ToolEntry | null)[];
}

function toolFailure(what: Failure, err: ExecFileException, stderr: string, logger?: LoggerInstance): Error {
  if (err?.code === "ENOENT" || err?.code === "EACCES") return new InternalServerError(NOT_INSTALLED);
  if (err?.killed) return new ServiceUnavailableError("video provider did not answer in time");
  if (/HTTP Error 429|Too Many Requests|rate.?limit/i.test(stderr)) return new ServiceUnavailableError("video provider rate limit reached");
  if (what === "fetch" && /does not exist|HTTP Error 404|not found|not available/i.test(stderr)) return new NotFoundError("Channel not found or has no videos");
  logger?.warn("extraction tool failed", { exit: err?.code, stderr: stderr.slice(0, 300) });
  return new InternalServerError(what === "search" ? "video channel search failed" : "video channel fetch failed");
}

let running = 0;
const waiting: (() => void)[] = [];

/** At most YTDLP_CONCURRENCY tool processes per replica (each is a heavy interpreter); the rest wait their turn. */
async function inSlot<T>(run: () => Promise<T>): Promise<T> {
  while (running >= config.ytdlpConcurrency) await new Promise<void>((resolve) => waiting.push(resolve));
  running++;
  try {
    return await run();
  } finally {
    running--;
    waiting.shift()?.();
  }
}

function runTool(what: Failure, target: string, extra: string[], logger?: LoggerInstance): Promise<ToolJson> {
  return inSlot(() => spawnTool(what, target, extra, logger));
}

function spawnTool(what: Failure, target: string, extra: string[], logger?: LoggerInstance): Promise<ToolJson> {
  const args = ["--ignore-config", "--flat-playlist", "--dump-single-json", "--no-warnings", ...extra, "--", target];
  return new Promise<ToolJson>((resolve, reject) => {
    execFile(
      config.ytdlpPath,
      args,
      { env: process.env, timeout: config.searchProviderTimeoutMs, killSignal: "SIGKILL", maxBuffer: 32 * 1024 * 1024, windowsHide: true },
      (err: ExecFileException | null, stdout: string, stderr: string) => {
        if (err) return reject(toolFailure(what, err, String(stderr ?? ""), logger));
        try {
          const data: unknown = JSON.parse(stdout);
          if (data && typeof data === "object") return resolve(data); // read as ToolJson: each field defensively
        } catch {
          /* reported below */
        }
        reject(new InternalServerError("Failed to parse response body"));
      },
    );
  });
}

function base(): string {
  return config.vidsiteUrl.replace(/\/$/, "");
}

/** The best thumbnail: the uncropped avatar when there is one, else the widest. */
function bestThumbnail(thumbnails: unknown): string {
  if (!Array.isArray(thumbnails) || thumbnails.length === 0) return "";
  const list = thumbnails as (ToolThumbnail | null)[];
  const avatar = list.find((t) => t?.id === "avatar_uncropped");
  if (avatar?.url) return avatar.url;
  const widest = list.filter((t): t is ToolThumbnail => !!t?.url).sort((a, b) => (b.width ?? 0) - (a.width ?? 0))[0];
  return widest?.url ?? "";
}

/** Seconds as the ISO 8601 duration form PT#M#S that clients parse. */
export function isoDuration(seconds: unknown): string {
  const s = typeof seconds === "number" && Number.isFinite(seconds) && seconds > 0 ? Math.round(seconds) : 0;
  return `PT${Math.floor(s / 60)}M${s % 60}S`;
}

function publishedAt(entry: ToolEntry): string | null {
  const ts = entry.timestamp ?? entry.release_timestamp;
  if (typeof ts === "number") return new Date(ts * 1000).toISOString();
  const day = /^(\d{4})(\d{2})(\d{2})$/.exec(String(entry.upload_date ?? ""));
  return day ? new Date(`${day[1]}-${day[2]}-${day[3]}T00:00:00Z`).toISOString() : null;
}

/** Channels of the videos matching the query, deduplicated by channel, at most 25. */
export async function searchChannels(query: string, logger?: LoggerInstance): Promise<VidsiteSearchResult> {
  const data = await runTool("search", `ytsearch${SEARCH_VIDEOS}:${query}`, [], logger);
  const results: VidsiteChannel[] = [];
  const seen = new Set<string>();
  for (const entry of Array.isArray(data.entries) ? data.entries : []) {
    const id = entry?.channel_id;
    if (!entry || typeof id !== "string" || !id || seen.has(id)) continue;
    seen.add(id);
    results.push({
      channelId: id,
      name: String(entry.channel ?? entry.uploader ?? ""),
      description: "", // a search hit is a video: the channel's own description is not part of it
      thumbnailUrl: bestThumbnail(entry.channel_thumbnails ?? entry.thumbnails),
      url: String(entry.channel_url ?? vidsiteChannelUrl(id)),
    });
    if (results.length >= MAX_CHANNELS) break;
  }
  return { results };
}

/** A channel with its 15 most recent videos; 404 when it does not exist or has none. */
export async function channelDetails(id: string, logger?: LoggerInstance): Promise<VidsiteChannelDetails> {
  const data = await runTool("fetch", `${vidsiteChannelUrl(id)}/videos`, ["--playlist-end", String(MAX_VIDEOS)], logger);
  const entries = (Array.isArray(data.entries) ? data.entries : []).filter((e): e is ToolEntry & { id: string } => typeof e?.id === "string");
  if (entries.length === 0) throw new NotFoundError("Channel not found or has no videos");
  const channelId = String(data.channel_id ?? data.id ?? id);
  const recentVideos: VidsiteVideo[] = entries.slice(0, MAX_VIDEOS).map((e) => ({
    id: e.id,
    title: String(e.title ?? ""),
    description: String(e.description ?? ""),
    url: typeof e.url === "string" && /^https?:/.test(e.url) ? e.url : `${base()}/watch?v=${e.id}`,
    thumbnail: bestThumbnail(e.thumbnails) || `https://i.ytimg.com/vi/${e.id}/hqdefault.jpg`,
    publishedAt: publishedAt(e),
    duration: isoDuration(e.duration),
  }));
  return {
    channelId,
    name: String(data.channel ?? data.uploader ?? data.title ?? ""),
    description: String(data.description ?? ""),
    thumbnailUrl: bestThumbnail(data.thumbnails),
    url: String(data.channel_url ?? vidsiteChannelUrl(channelId)),
    subscriberCount: null,
    videoCount: null,
    recentVideos,
  };
}
