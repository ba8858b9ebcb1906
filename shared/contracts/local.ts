/**
 * Local podcasts (services/local.service.ts): a folder of audio files under LOCAL_MEDIA_DIR is a
 * podcast record (podcasts) whose feed URL is `local:` and the folder's path, and each file an episode
 * (episodes) whose enclosure URL is `local:` and the file's path. feeds reads such a "feed" through
 * local.local_feed, so refreshes (scheduled or refresh_local_podcast) work as for any other podcast;
 * downloads streams such an enclosure through local.media_info / local.media_stream.
 */
import { action } from "./call";

import { Nullable, Type, type Static } from "./answers";
import { ClientPodcast } from "./podcasts";
import type { Context } from "moleculer";
import { fileAnswer, MediaAnswerMeta } from "../range";

export const LOCAL_SCHEME = "local:";

/** `local:` + the path relative to LOCAL_MEDIA_DIR, each segment URL-encoded. */
export function localUrl(relPath: string): string {
  return (
    LOCAL_SCHEME +
    relPath
      .split(/[\\/]+/)
      .filter(Boolean)
      .map(encodeURIComponent)
      .join("/")
  );
}

/**
 * The relative path a `local:` URL names, or null for any other URL. The path is not trusted: the
 * local service checks it again against the media folder before reading anything.
 */
export function localPathOf(url: string | null | undefined): string | null {
  if (!url?.startsWith(LOCAL_SCHEME)) return null;
  try {
    return url.slice(LOCAL_SCHEME.length).split("/").map(decodeURIComponent).join("/");
  } catch {
    return null; // a malformed %-escape
  }
}

export function isLocalFeed(url: string | null | undefined): boolean {
  return localPathOf(url) !== null;
}

/** local.media_info result: what the stream route needs before it opens the file. */
export interface LocalMediaInfo {
  size: number;
  content_type: string;
}

/**
 * A media route's answer for a `local:` enclosure (Range, HEAD): only the local service reads
 * LOCAL_MEDIA_DIR, and it checks the path again before it opens anything.
 */
export async function localFileAnswer(ctx: Context<unknown, MediaAnswerMeta>, url: string, headers: Record<string, string | number>): Promise<unknown> {
  const file: LocalMediaInfo = await ctx.call("local.media_info", { url });
  return fileAnswer(ctx.meta, headers, file.size, file.content_type, (start, end) => ctx.call("local.media_stream", { url, start, end }));
}

/** podcasts.subscribe_local params. */
export interface SubscribeLocalParams {
  user_id: number;
  feed_url: string;
}

// --- Answers of the local service's routes ---
/** list_local_directories: the folder and its sub-folders; current_path and audio_count as the web client reads them. */
export const LocalDirectoriesAnswer = Type.Object({
  path: Type.String(),
  current_path: Type.String(),
  audio_files: Type.Integer(),
  directories: Type.Array(Type.Object({ name: Type.String(), path: Type.String(), audio_files: Type.Integer(), audio_count: Type.Integer() })),
});
export type LocalDirectoriesAnswer = Static<typeof LocalDirectoriesAnswer>;
/** add_local_podcast: the subscription, and (data) the podcast as the web client reads it. */
export const AddLocalPodcastAnswer = Type.Object({
  success: Type.Boolean(),
  message: Type.String(),
  podcast_id: Type.Integer(),
  first_episode_id: Type.Integer(),
  data: ClientPodcast,
});
export type AddLocalPodcastAnswer = Static<typeof AddLocalPodcastAnswer>;
export const LocalArtworkAnswer = Type.Object({ success: Type.Boolean(), message: Type.String(), artwork_url: Type.String() });
export type LocalArtworkAnswer = Static<typeof LocalArtworkAnswer>;
export const LocalCoverAnswer = Type.Object({
  path: Type.String(),
  cover_found: Type.Boolean(),
  source: Nullable(Type.String()),
  file: Nullable(Type.String()),
  content_type: Nullable(Type.String()),
});
export type LocalCoverAnswer = Static<typeof LocalCoverAnswer>;
/** refresh_local_podcast: the figures when the refresh ended in time, else (or on failure) the task only. */
export const RefreshLocalAnswer = Type.Object({
  success: Type.Boolean(),
  detail: Type.String(),
  task_id: Type.String(),
  new_episodes: Type.Optional(Type.Integer()),
  updated: Type.Optional(Type.Boolean()),
});
export type RefreshLocalAnswer = Static<typeof RefreshLocalAnswer>;

// --- Calls to the local service and its events (shared/contracts/call.ts) ---

/** A local folder read as a feed (the shape of feeds.fetch_feed). */
export const localFeed = action<{ url: string; content_hash?: string | null }, import("./feeds").FetchedFeed>("local.local_feed");
