/**
 * Podcasting 2.0 transcripts in every format feeds use (SRT, WebVTT, the namespace's JSON and HTML)
 * read into one shape: segments with start and end in seconds, speaker and text.
 */
import { decodeEntities } from "../../shared/feed-parser/text";
import type { TranscriptFormat, TranscriptSegment } from "../../shared/contracts/p20";

/** "01:02:03,500", "02:03.5", "0:00" -> seconds; NaN when not a time. */
function seconds(t: string): number {
  const parts = t.trim().replace(",", ".").split(":");
  if (parts.length < 2 || parts.length > 3 || parts.some((p) => !/^\d+(\.\d+)?$/.test(p))) return NaN;
  return parts.reduce((acc, p) => acc * 60 + Number(p), 0);
}

/** The format from the feed's declared type, the answer's content type, the URL and, last, the text itself. */
export function detectFormat(body: string, ...hints: (string | null | undefined)[]): TranscriptFormat {
  const h = hints.filter(Boolean).join(" ").toLowerCase();
  if (/srt|subrip/.test(h)) return "srt";
  if (/vtt/.test(h)) return "vtt";
  if (/json/.test(h)) return "json";
  if (/html/.test(h)) return "html";
  const start = body.trimStart();
  if (start.startsWith("WEBVTT")) return "vtt";
  if (start.startsWith("{") || start.startsWith("[")) return "json";
  if (/-->/.test(body)) return "srt";
  if (/<(cite|time|p)\b/i.test(body)) return "html";
  return "text";
}

/** "Speaker: words" at the start of a cue (SRT has no speaker markup of its own). */
function speakerPrefix(text: string): { speaker: string | null; text: string } {
  const m = /^([A-Z][\w .'-]{0,40}):\s+(.*)$/s.exec(text);
  return m ? { speaker: m[1].trim(), text: m[2] } : { speaker: null, text };
}

/** SRT and WebVTT cues: a timing line "a --> b", then text lines up to a blank line. */
function cues(body: string, vtt: boolean): TranscriptSegment[] {
  const out: TranscriptSegment[] = [];
  for (const block of body.replace(/\r\n?/g, "\n").split(/\n{2,}/)) {
    const lines = block.split("\n");
    const at = lines.findIndex((l) => l.includes("-->"));
    if (at === -1) continue;
    const [a, b] = lines[at].split("-->");
    const start = seconds(a);
    const end = seconds(b.trim().split(/\s+/)[0] ?? "");
    if (Number.isNaN(start)) continue;
    let raw = lines
      .slice(at + 1)
      .join(" ")
      .trim();
    let speaker: string | null = null;
    const voice = vtt ? /<v(?:\.[\w.]+)?\s+([^>]+)>/.exec(raw) : null;
    if (voice) speaker = voice[1].trim();
    raw = decodeEntities(raw.replace(/<[^>]+>/g, ""))
      .replace(/\s+/g, " ")
      .trim();
    if (!speaker) ({ speaker, text: raw } = speakerPrefix(raw));
    if (raw) out.push({ start, end: Number.isNaN(end) ? null : end, speaker, text: raw });
  }
  return out;
}

/** The namespace's HTML: <cite>Speaker:</cite> <time>0:00</time> <p>text</p>, repeated. */
function html(body: string): TranscriptSegment[] {
  const out: TranscriptSegment[] = [];
  let speaker: string | null = null;
  let start = 0;
  for (const m of body.matchAll(/<(cite|time|p)\b[^>]*>([\s\S]*?)<\/\1>/gi)) {
    const text = decodeEntities(m[2].replace(/<[^>]+>/g, ""))
      .replace(/\s+/g, " ")
      .trim();
    const tag = m[1].toLowerCase();
    if (tag === "cite") speaker = text.replace(/:$/, "").trim() || null;
    else if (tag === "time") start = Number.isNaN(seconds(text)) ? start : seconds(text);
    else if (text) out.push({ start, end: null, speaker, text });
  }
  // An HTML segment ends where the next one starts.
  for (let i = 0; i < out.length - 1; i++) out[i].end = out[i + 1].start;
  return out;
}

function json(body: string): TranscriptSegment[] {
  const doc: unknown = JSON.parse(body);
  const list: unknown = Array.isArray(doc) ? doc : (doc as { segments?: unknown } | null)?.segments;
  // Whatever the document holds: each field is checked or converted below.
  const segments = (Array.isArray(list) ? list : []) as Record<string, unknown>[];
  return segments
    .filter((s) => s && typeof s === "object" && typeof (s.body ?? s.text) === "string")
    .map((s) => ({
      start: Number(s.startTime ?? s.start ?? 0) || 0,
      // As the document has it (the namespace's JSON says a number of seconds).
      end: (s.endTime ?? s.end ?? null) as number | null,
      speaker: typeof s.speaker === "string" ? s.speaker : null,
      text: String(s.body ?? s.text).trim(),
    }));
}

/** Reads a transcript; throws on a JSON transcript that is not JSON. */
export function parseTranscript(body: string, format: TranscriptFormat): TranscriptSegment[] {
  const clean = body.replace(/^\uFEFF/, "");
  switch (format) {
    case "srt":
      return cues(clean, false);
    case "vtt":
      return cues(clean, true);
    case "json":
      return json(clean);
    case "html":
      return html(clean);
    default:
      return clean.trim() ? [{ start: 0, end: null, speaker: null, text: clean.trim() }] : [];
  }
}
