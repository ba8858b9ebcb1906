/**
 * episode_transcript: an episode's transcript at the path and in the shape PinePods' web client reads
 * (its transcript panel): the feed's podcast:transcript of the richest format, fetched and read by
 * p20.remote (so cached like fetch_transcript's), its segments as a JSON text.
 */
import type { ServiceActionsSchema } from "moleculer";
import { rightsOf } from "../../shared/http";
import type { Ctx } from "../../shared/service-types";
import { episodeP20 } from "../../shared/contracts/episodes";
import { EpisodeTranscriptAnswer, remoteTranscript } from "../../shared/contracts/p20";
import type { FeedTranscript } from "../../shared/feed-parser/types";
import { detectFormat } from "./transcript";
import type { P20This } from "./this";

const id = { type: "number", integer: true, positive: true, convert: true };
/** Timed and with speakers first; plain text last. */
const PREFERENCE = ["json", "vtt", "srt", "html", "text"];

/** The transcript to show of those the feed names: the best format, the first of equals (feed order). */
function best(list: FeedTranscript[]): FeedTranscript | null {
  const rank = (t: FeedTranscript) => PREFERENCE.indexOf(detectFormat("", t.type, t.url));
  return [...list].sort((a, b) => rank(a) - rank(b))[0] ?? null;
}

export const episodeTranscriptActions: ServiceActionsSchema = {
  /** GET /api/data/episode_transcript?episode_id&user_id: transcript null without one; status failed when it cannot be fetched or read. */
  episode_transcript: {
    idempotent: true,
    params: { episode_id: id, user_id: id },
    response: EpisodeTranscriptAnswer,
    async handler(this: P20This, ctx: Ctx<{ episode_id: number; user_id: number }>): Promise<EpisodeTranscriptAnswer> {
      const ep = await episodeP20(ctx, ctx.params);
      const chosen = best(ep.p20?.transcripts ?? []);
      if (!chosen) return { transcript: null };
      const base = { source: "feed" as const, url: chosen.url, language: chosen.language, model: null };
      try {
        const res = await remoteTranscript(ctx, { url: chosen.url, kind: "transcript", rights: rightsOf(ctx.meta.user), hint: chosen.type });
        const segments = res.segments.map((s) => ({ start: s.start, end: s.end, text: s.speaker ? `${s.speaker}: ${s.text}` : s.text }));
        return {
          transcript: {
            ...base,
            format: res.format,
            status: "completed",
            full_text: res.segments.map((s) => s.text).join(" "),
            segments: JSON.stringify(segments),
            error: null,
          },
        };
      } catch (err) {
        return {
          transcript: {
            ...base,
            format: detectFormat("", chosen.type, chosen.url),
            status: "failed",
            full_text: null,
            segments: null,
            error: (err as Error | null)?.message ?? "The transcript could not be read",
          },
        };
      }
    },
  },
};
