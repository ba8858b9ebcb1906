/**
 * Podcasting 2.0 data of episodes and podcasts: what the feed parser stored (transcripts, people,
 * soundbites, value, location, funding, podroll, locked, guid ...) plus the documents the feed only
 * links to: chapters (JSON) and transcripts (SRT, WebVTT, JSON, HTML, read into one shape). Those are
 * fetched through the server's outbound client with the caller's rights (a user's URLs never reach
 * private addresses) and kept in the broker cacher, so a player opening an episode twice costs one fetch.
 */
import type { ServiceSchema } from "moleculer";
import { config } from "../shared/config";
import { BadRequestError } from "../shared/errors";
import { decodeBytes } from "../shared/feed-parser/text";
import { fetchUrl, OutboundHttpError, rightsOf } from "../shared/http";
import type { Ctx } from "../shared/service-types";
import type { FeedFunding, FeedTranscript, FeedValue, FeedValueRecipient } from "../shared/feed-parser/types";
import { episodeP20 } from "../shared/contracts/episodes";
import { podcastP20 } from "../shared/contracts/podcasts";
import { episodeTranscriptActions } from "./p20.parts/episode-transcript.actions";
import { detectFormat, parseTranscript } from "./p20.parts/transcript";
import type { P20This } from "./p20.parts/this";
import { P20EpisodeAnswer, P20PodcastAnswer, remoteChapters, remoteTranscript, TranscriptAnswer } from "../shared/contracts/p20";
import type { Chapter, P20RemoteParams, TranscriptFormat, TranscriptSegment } from "../shared/contracts/p20";

/** Largest chapters or transcript document fetched. */
const MAX_DOCUMENT_BYTES = 5 * 1024 * 1024;
const id = { type: "number", integer: true, positive: true, convert: true };

/**
 * The parser's objects as the answers' open records (Type.Record(String, Unknown) in shared/contracts/p20.ts): every
 * object is one, but TypeScript gives its interfaces no index signature.
 */
const records = <T extends object>(items: T[]): Record<string, unknown>[] => items as Record<string, unknown>[];
const recordOrNull = <T extends object>(item: T | null): Record<string, unknown> | null => item as Record<string, unknown> | null;
type AnswerRecipient = P20PodcastAnswer["value"][number]["recipients"][number];

function chaptersOf(body: string): Chapter[] {
  const doc: unknown = JSON.parse(body);
  const found: unknown = (doc as { chapters?: unknown } | null)?.chapters;
  // Whatever the document holds: each field is checked below.
  const list = (Array.isArray(found) ? found : []) as Record<string, unknown>[];
  return list
    .filter((c) => c && typeof c === "object" && Number.isFinite(Number(c.startTime)))
    .map((c) => ({
      start_time: Number(c.startTime),
      end_time: Number.isFinite(Number(c.endTime)) && c.endTime !== undefined ? Number(c.endTime) : null,
      title: typeof c.title === "string" ? c.title : "",
      img: typeof c.img === "string" ? c.img : null,
      url: typeof c.url === "string" ? c.url : null,
      toc: c.toc !== false,
    }))
    .sort((a, b) => a.start_time - b.start_time);
}

const P20Service: ServiceSchema<Record<string, never>, P20This> = {
  name: "p20",
  actions: {
    ...episodeTranscriptActions,
    /** GET /api/data/fetch_podcasting_2_data?episode_id&user_id: an episode's data, chapters fetched and read. */
    fetch_podcasting_2_data: {
      idempotent: true,
      params: { episode_id: id, user_id: id },
      response: P20EpisodeAnswer,
      async handler(this: P20This, ctx: Ctx<{ episode_id: number; user_id: number }>): Promise<P20EpisodeAnswer> {
        const ep = await episodeP20(ctx, ctx.params);
        const p = ep.p20 ?? {};
        let chapters: Chapter[] = [];
        let chapters_error: string | null = null;
        if (p.chapters?.url) {
          try {
            chapters = (await remoteChapters(ctx, { url: p.chapters.url, kind: "chapters", rights: rightsOf(ctx.meta.user) })).chapters;
          } catch (err) {
            chapters_error = (err as Error | null)?.message ?? "The chapters could not be fetched";
          }
        }
        return {
          // startTime and mime_type: the web client's spelling of start_time and type.
          episode_id: ep.episode_id,
          podcast_id: ep.podcast_id,
          chapters: chapters.map((c) => ({ ...c, startTime: Math.floor(c.start_time) })),
          chapters_url: p.chapters?.url ?? null,
          chapters_error,
          transcripts: (p.transcripts ?? []).map((t: FeedTranscript) => ({ ...t, mime_type: t.type })),
          people: p.persons ?? [],
          soundbites: records(p.soundbites ?? []),
          value: records(p.values ?? []),
          location: records(p.locations ?? []),
          license: recordOrNull(p.license ?? null),
          alternate_enclosures: records(p.alternate_enclosures ?? []),
          season: p.podcast_season ?? null,
          episode: p.podcast_episode ?? null,
          images: records(p.images ?? []),
          txt: records(p.txt ?? []),
        };
      },
    },
    /** GET /api/data/fetch_podcasting_2_pod_data?podcast_id&user_id: a podcast's channel data. */
    fetch_podcasting_2_pod_data: {
      idempotent: true,
      params: { podcast_id: id, user_id: id },
      response: P20PodcastAnswer,
      async handler(this: P20This, ctx: Ctx<{ podcast_id: number; user_id: number }>): Promise<P20PodcastAnswer> {
        const pod = await podcastP20(ctx, ctx.params);
        const p = pod.p20 ?? {};
        return {
          podcast_id: pod.podcast_id,
          guid: p.podcast_guid ?? null,
          medium: p.medium ?? null,
          locked: p.locked ?? null,
          locked_owner: p.locked_owner ?? null,
          // funding's description and a recipient's split as text: as the web client reads them. A recipient without a
          // name attribute (the namespace makes it optional) gets "", as the answer's schema has a string.
          funding: (p.funding ?? []).map((f: FeedFunding) => ({ ...f, description: f.text ?? "" })),
          people: p.persons ?? [],
          value: (p.values ?? []).map((v: FeedValue) => ({
            ...v,
            recipients: (v.recipients ?? []).map((r: FeedValueRecipient): AnswerRecipient => ({ ...r, name: r.name ?? "", split: String(r.split) })),
          })),
          podroll: records(p.podroll ?? []),
          location: records(p.locations ?? []),
          license: recordOrNull(p.license ?? null),
          trailers: records(p.trailers ?? []),
          images: records(p.images ?? []),
          txt: records(p.txt ?? []),
          publisher: recordOrNull(p.publisher ?? null),
          blocks: records(p.blocks ?? []),
          podping: p.podping ?? null,
          chat: recordOrNull(p.chat ?? null),
          live_items: records(p.live_items ?? []),
          keywords: p.keywords ?? [],
        };
      },
    },
    /** POST /api/data/fetch_transcript: url (and the feed's declared type, when known) -> segments. */
    fetch_transcript: {
      params: { url: { type: "url", max: 4000 }, type: { type: "string", max: 100, optional: true } },
      response: TranscriptAnswer,
      async handler(this: P20This, ctx: Ctx<{ url: string; type?: string }>): Promise<TranscriptAnswer> {
        const res = await remoteTranscript(ctx, { url: ctx.params.url, kind: "transcript", rights: rightsOf(ctx.meta.user), hint: ctx.params.type ?? "" });
        return { success: true, url: ctx.params.url, ...res, text: res.segments.map((s) => s.text).join(" ") };
      },
    },

    // --- Internal ---

    /** A chapters or transcript document, fetched and read; cached per URL, kind and rights. */
    remote: {
      visibility: "public",
      cache: { keys: ["url", "kind", "rights", "hint"], ttl: config.p20CacheTtl },
      params: {
        url: "string",
        kind: { type: "enum", values: ["chapters", "transcript"] },
        rights: { type: "enum", values: ["admin", "user"] },
        hint: { type: "string", optional: true },
      },
      async handler(
        this: P20This,
        ctx: Ctx<P20RemoteParams<"chapters" | "transcript">>,
      ): Promise<{ chapters: Chapter[] } | { format: TranscriptFormat; segments: TranscriptSegment[] }> {
        const { url, kind, rights, hint } = ctx.params;
        let body: string;
        let contentType: string | null;
        try {
          const res = await fetchUrl(url, { rights, maxBytes: MAX_DOCUMENT_BYTES });
          body = decodeBytes(res.body!, /charset=([\w-]+)/i.exec(res.contentType ?? "")?.[1]);
          contentType = res.contentType;
        } catch (err) {
          if (err instanceof OutboundHttpError) throw new BadRequestError(`The ${kind} could not be fetched: ${err.message}`);
          throw err;
        }
        try {
          if (kind === "chapters") return { chapters: chaptersOf(body) };
          const format = detectFormat(body, hint, contentType, url);
          return { format, segments: parseTranscript(body, format) };
        } catch {
          throw new BadRequestError(`The ${kind} document cannot be read`);
        }
      },
    },
  },
};

export default P20Service;
