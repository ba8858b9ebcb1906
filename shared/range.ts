/** HTTP Range requests (RFC 9110 section 14) for media answers: one byte range of a resource. */
import type { GatewayMeta } from "./types";

/** The byte range asked for; null = the whole resource; "unsatisfiable" = answer 416. */
export type ByteRange = { start: number; end: number } | null | "unsatisfiable";

/**
 * Parses a Range header against a resource of `size` bytes. A header that is absent, malformed,
 * not in bytes or asks for several ranges is ignored (the whole resource, 200), as the RFC allows.
 */
export function parseRange(header: string | undefined, size: number): ByteRange {
  if (!header) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === "" && m[2] === "")) return null;
  if (m[1] === "") {
    // A suffix: the last n bytes.
    const n = Number(m[2]);
    if (n === 0 || size === 0) return "unsatisfiable";
    return { start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === "" ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (m[2] !== "" && Number(m[2]) < start) return null;
  if (start >= size) return "unsatisfiable";
  return { start, end };
}

/** ctx.meta of a media answer: what the gateway passes in (Range, HEAD) and the response fields moleculer-web reads back. */
export type MediaAnswerMeta = Pick<GatewayMeta, "method" | "range" | "$statusCode" | "$responseType" | "$responseHeaders">;

type Headers = Record<string, string | number>;

/** A media answer: status, type and headers on ctx.meta; the body (a stream, or null for HEAD) is returned. */
export function mediaAnswer(meta: MediaAnswerMeta, status: number, contentType: string, headers: Headers, body: unknown): unknown {
  meta.$statusCode = status;
  // moleculer-web sets Content-Type from $responseType, and also from $responseHeaders once a type is set (a HEAD has no body to type).
  meta.$responseType = contentType;
  meta.$responseHeaders = { ...headers, "Content-Type": contentType };
  return body;
}

/** The 416 answer (with the resource's size when known), in the JSON error shape. */
export function unsatisfiable(meta: MediaAnswerMeta, headers: Headers, size: number | null) {
  const message = "Requested range not satisfiable";
  meta.$statusCode = 416;
  meta.$responseHeaders = { ...headers, ...(size !== null ? { "Content-Range": `bytes */${size}` } : {}) };
  return { error: "range_not_satisfiable", message, detail: message, status_code: 416 };
}

/** A file of `size` bytes with Range (206 / 416) and HEAD; open(start, end) gives its bytes (inclusive). */
export async function fileAnswer(
  meta: MediaAnswerMeta,
  headers: Headers,
  size: number,
  contentType: string,
  open: (start: number, end: number) => unknown,
): Promise<unknown> {
  const range = parseRange(meta.range, size);
  if (range === "unsatisfiable") return unsatisfiable(meta, headers, size);
  const { start, end } = range ?? { start: 0, end: size - 1 };
  if (range) Object.assign(headers, { "Content-Range": `bytes ${start}-${end}/${size}` });
  return mediaAnswer(
    meta,
    range ? 206 : 200,
    contentType,
    { ...headers, "Content-Length": Math.max(0, end - start + 1) },
    meta.method === "HEAD" || size === 0 ? null : await open(start, end),
  );
}

/** File extension for a media content type (a download's file name); unknown types keep the URL's or get .bin. */
const EXTENSIONS: Record<string, string> = {
  "audio/mpeg": "mp3",
  "audio/mp3": "mp3",
  "audio/mp4": "m4a",
  "audio/x-m4a": "m4a",
  "audio/m4a": "m4a",
  "audio/aac": "aac",
  "audio/ogg": "ogg",
  "application/ogg": "ogg",
  "audio/opus": "opus",
  "audio/wav": "wav",
  "audio/x-wav": "wav",
  "audio/flac": "flac",
  "audio/x-flac": "flac",
  "audio/webm": "webm",
  "video/mp4": "mp4",
  "video/x-m4v": "m4v",
  "video/webm": "webm",
  "video/quicktime": "mov",
};
const TYPES_BY_EXTENSION: Record<string, string> = {};
for (const [type, ext] of Object.entries(EXTENSIONS)) TYPES_BY_EXTENSION[ext] ??= type;

export function extensionFor(contentType: string | null, url: string | null): string {
  const type = (contentType ?? "").split(";")[0].trim().toLowerCase();
  if (EXTENSIONS[type]) return EXTENSIONS[type];
  const fromUrl = /\.([a-z0-9]{2,4})(?:[?#]|$)/i.exec(url ?? "")?.[1]?.toLowerCase();
  return fromUrl && TYPES_BY_EXTENSION[fromUrl] ? fromUrl : "bin";
}

/** Content types a download accepts as media; a missing one is accepted (many hosts send none). */
export function isMediaType(contentType: string | null): boolean {
  const type = (contentType ?? "").split(";")[0].trim().toLowerCase();
  return type === "" || /^(audio|video)\//.test(type) || ["application/octet-stream", "binary/octet-stream", "application/ogg"].includes(type);
}
