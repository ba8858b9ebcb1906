/** The answers of the p20 service's routes (services/p20.service.ts). */
import { Nullable, Type, type Static } from "./answers";

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
