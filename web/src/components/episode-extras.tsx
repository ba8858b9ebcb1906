/**
 * An episode's chapters (fetch_podcasting_2_data: from the feed's podcast:chapters) and transcript
 * (episode_transcript), each shown only when the feed has one. Selecting a chapter plays from its start.
 */
import { useState } from "preact/hooks";
import { api, imageUrl, ok } from "../api";
import { me } from "../session";
import { duration, ErrorNote, useLoad } from "../ui";
import { playEpisode, type EpisodeRow } from "./episode-item";

export function Chapters({ episode }: { episode: EpisodeRow }) {
  const user_id = me().user_id;
  const p20 = useLoad(
    () => ok(api.GET("/api/data/fetch_podcasting_2_data", { params: { query: { episode_id: episode.episodeid, user_id } } })),
    [episode.episodeid, user_id],
  );
  const chapters = (p20.data?.chapters ?? []).filter((c) => c.toc !== false);
  if (p20.error) return <ErrorNote error={`The chapters could not be loaded: ${p20.error}`} />;
  if (!chapters.length) return p20.data?.chapters_error ? <p class="muted">The chapters could not be read: {p20.data.chapters_error}</p> : null;
  return (
    <section aria-labelledby="chapters-h">
      <h2 id="chapters-h">Chapters</h2>
      <ol class="chapters">
        {chapters.map((c, i) => (
          <li key={i}>
            <button type="button" class="link chapter" onClick={() => playEpisode(episode, c.start_time)}>
              <span class="chapter-time">{duration(c.start_time)}</span> <span>{c.title || `Chapter ${i + 1}`}</span>
            </button>
            {c.img && <img class="chapter-art" src={imageUrl(c.img)} alt="" loading="lazy" width={40} height={40} />}
          </li>
        ))}
      </ol>
    </section>
  );
}

interface Segment {
  start: number;
  end: number | null;
  text: string;
}

const SEGMENTS_STEP = 200;

/** A stored segment is any JSON: one without its text and start is skipped. */
function isSegment(s: unknown): s is Segment {
  const o = s as { text?: unknown; start?: unknown } | null | undefined;
  return typeof o?.text === "string" && typeof o?.start === "number";
}

function parseSegments(raw: string | null): Segment[] {
  if (!raw) return [];
  try {
    const list: unknown = JSON.parse(raw);
    return Array.isArray(list) ? list.filter(isSegment) : [];
  } catch {
    return [];
  }
}

export function Transcript({ episodeId }: { episodeId: number }) {
  const user_id = me().user_id;
  const t = useLoad(() => ok(api.GET("/api/data/episode_transcript", { params: { query: { episode_id: episodeId, user_id } } })), [episodeId, user_id]);
  const [shown, setShown] = useState(SEGMENTS_STEP);
  const tr = t.data?.transcript;
  if (t.error) return <ErrorNote error={`The transcript could not be loaded: ${t.error}`} />;
  if (!tr) return null;
  const segments = parseSegments(tr.segments);
  return (
    <section aria-labelledby="transcript-h">
      <h2 id="transcript-h">Transcript</h2>
      {tr.status === "failed" && <p class="muted">The transcript could not be read{tr.error ? `: ${tr.error}` : "."}</p>}
      {segments.length > 0 ? (
        <>
          <ol class="transcript">
            {segments.slice(0, shown).map((s, i) => (
              <li key={i}>
                <span class="muted chapter-time">{duration(s.start)}</span> {s.text}
              </li>
            ))}
          </ol>
          {segments.length > shown && (
            <button type="button" class="secondary" onClick={() => setShown((n) => n + SEGMENTS_STEP)}>
              Show more of the transcript
            </button>
          )}
        </>
      ) : (
        tr.full_text && <p class="notes plain">{tr.full_text}</p>
      )}
    </section>
  );
}
