/** Answers of the p20 service's routes. */
import { action } from "./call";
import { Nullable, Type, type Static } from "./answers";
import type { Rights } from "../http";

const P20Items = Type.Array(Type.Record(Type.String(), Type.Unknown()));
/** fetch_podcasting_2_data: an episode's Podcasting 2.0 data; chapters, transcripts and people also spelled as the web client reads them. */
export const P20EpisodeAnswer = Type.Object({
  episode_id: Type.Integer(),
  podcast_id: Type.Integer(),
  chapters: Type.Array(
    Type.Object({
      start_time: Type.Number(),
      startTime: Type.Integer(),
      end_time: Nullable(Type.Number()),
      title: Type.String(),
      img: Nullable(Type.String()),
      url: Nullable(Type.String()),
      toc: Type.Optional(Type.Boolean()),
    }),
  ),
  chapters_url: Nullable(Type.String()),
  chapters_error: Nullable(Type.String()),
  transcripts: Type.Array(
    Type.Object({ url: Type.String(), type: Type.String(), mime_type: Type.String(), language: Nullable(Type.String()), rel: Nullable(Type.String()) }),
  ),
  people: Type.Array(
    Type.Object({
      name: Type.String(),
      role: Nullable(Type.String()),
      group: Nullable(Type.String()),
      img: Nullable(Type.String()),
      href: Nullable(Type.String()),
    }),
  ),
  soundbites: P20Items,
  value: P20Items,
  location: P20Items,
  license: Nullable(Type.Record(Type.String(), Type.Unknown())),
  alternate_enclosures: P20Items,
  season: Nullable(Type.Record(Type.String(), Type.Unknown())),
  episode: Nullable(Type.Record(Type.String(), Type.Unknown())),
  images: P20Items,
  txt: P20Items,
});
export type P20EpisodeAnswer = Static<typeof P20EpisodeAnswer>;
/** fetch_podcasting_2_pod_data: a podcast's channel data; funding and value as the web client reads them (description, split as text). */
export const P20PodcastAnswer = Type.Object({
  podcast_id: Type.Integer(),
  guid: Nullable(Type.String()),
  medium: Nullable(Type.String()),
  locked: Nullable(Type.Boolean()),
  locked_owner: Nullable(Type.String()),
  funding: Type.Array(Type.Object({ url: Type.String(), text: Type.String(), description: Type.String() })),
  people: Type.Array(
    Type.Object({
      name: Type.String(),
      role: Nullable(Type.String()),
      group: Nullable(Type.String()),
      img: Nullable(Type.String()),
      href: Nullable(Type.String()),
    }),
  ),
  value: Type.Array(
    Type.Object({
      type: Type.String(),
      method: Type.String(),
      suggested: Nullable(Type.String()),
      recipients: Type.Array(
        Type.Object(
          { name: Type.String(), type: Type.String(), address: Type.String(), split: Type.String(), fee: Type.Boolean() },
          { additionalProperties: true },
        ),
      ),
    }),
  ),
  podroll: P20Items,
  location: P20Items,
  license: Nullable(Type.Record(Type.String(), Type.Unknown())),
  trailers: P20Items,
  images: P20Items,
  txt: P20Items,
  publisher: Nullable(Type.Record(Type.String(), Type.Unknown())),
  blocks: P20Items,
  podping: Nullable(Type.Boolean()),
  chat: Nullable(Type.Record(Type.String(), Type.Unknown())),
  live_items: P20Items,
  keywords: Type.Array(Type.String()),
});
export type P20PodcastAnswer = Static<typeof P20PodcastAnswer>;
export const TranscriptAnswer = Type.Object({
  success: Type.Boolean(),
  url: Type.String(),
  format: Type.String(),
  segments: Type.Array(Type.Object({ start: Type.Number(), end: Nullable(Type.Number()), speaker: Nullable(Type.String()), text: Type.String() })),
  text: Type.String(),
});
export type TranscriptAnswer = Static<typeof TranscriptAnswer>;

/** An episode's transcript as PinePods' web client reads it (episode_transcript). */
export const StoredTranscript = Type.Object({
  source: Type.Literal("feed", { description: "Where it comes from: the feed's podcast:transcript" }),
  url: Type.String(),
  format: Type.String({ description: "srt, vtt, json, html or text" }),
  language: Nullable(Type.String()),
  model: Type.Null({ description: "No speech model made it" }),
  status: Type.Union([Type.Literal("completed"), Type.Literal("failed")]),
  full_text: Nullable(Type.String()),
  segments: Nullable(Type.String({ description: "JSON text of [{start, end, text}] (seconds)" })),
  error: Nullable(Type.String()),
});
export type StoredTranscript = Static<typeof StoredTranscript>;

/** GET /api/data/episode_transcript: null when the feed names no transcript for the episode. */
export const EpisodeTranscriptAnswer = Type.Object({ transcript: Nullable(StoredTranscript) });
export type EpisodeTranscriptAnswer = Static<typeof EpisodeTranscriptAnswer>;

// --- Calls to the p20 service and its events (shared/contracts/call.ts) ---

/** A chapter of a Podcasting 2.0 chapters document, as p20.remote reads it. */
export interface Chapter {
  start_time: number;
  end_time: number | null;
  title: string;
  img: string | null;
  url: string | null;
  toc: boolean;
}

/** A transcript segment: start and end in seconds. */
export interface TranscriptSegment {
  start: number;
  end: number | null;
  speaker: string | null;
  text: string;
}

export type TranscriptFormat = "srt" | "vtt" | "json" | "html" | "text";

/** p20.remote params: the document at url, fetched with these rights (hint: the feed's declared type of a transcript). */
export interface P20RemoteParams<K extends "chapters" | "transcript"> {
  url: string;
  kind: K;
  rights: Rights;
  hint?: string;
}

/** A chapters document, fetched and read (cached per URL and rights). */
export const remoteChapters = action<P20RemoteParams<"chapters">, { chapters: Chapter[] }>("p20.remote");
/** A transcript, fetched and read into segments (cached per URL, rights and hint). */
export const remoteTranscript = action<P20RemoteParams<"transcript">, { format: TranscriptFormat; segments: TranscriptSegment[] }>("p20.remote");
