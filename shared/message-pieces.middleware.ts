/**
 * Every message between nodes stays well under NATS's default max_payload (1 MB), whatever a call
 * carries: a phone's first gPodder sync (100,000 episode actions, ~20 MB of JSON) is one call from the
 * gateway to the gpodder service, and its download with since=0 one answer back. Params or an answer
 * whose text (JSON; a Buffer's base64) is longer than PIECE_CHARS travel as a Moleculer stream of pieces
 * of that text, one packet each, marked in ctx.meta, and are put together again on the other side before
 * anything else sees them:
 *
 * - the caller's side (remoteAction) sends large params in pieces and joins an answer sent in pieces, so
 *   the gateway (and its test-time answer check) gets the value itself; a retry sends the params again;
 * - the called side (localAction) joins the params before the Validator, the Cacher and the action see
 *   them (moleculer.config.ts places this middleware outside those), and answers a caller on another node
 *   in pieces when the answer is large.
 *
 * Streams (uploads, media, backups) pass as they are: Moleculer sends those in pieces itself (transit
 * maxChunkSize). In one process (no transporter) no action is wrapped at all.
 */
import { Readable } from "stream";
import { StringDecoder } from "string_decoder";
import type { Context, Middleware, ServiceBroker } from "moleculer";

/**
 * Characters of text per packet, and the longest text sent as one. The JSON serializer writes a piece as a
 * JSON string, at most 3 bytes of UTF-8 per character (a quote or backslash takes 2), so a packet holds
 * at most 768 KB of it and leaves its envelope and ctx.meta room under 1 MB.
 */
export const PIECE_CHARS = 256 * 1024;

/** The ctx.meta marks of params and of an answer sent in pieces, holding the kind of their text. */
const PARAMS_MARK = "$paramPieces";
const ANSWER_MARK = "$answerPieces";
/** Set by Moleculer's transit on the meta of an object-mode stream: ours only, never the action's business. */
const OBJECT_MODE = "$streamObjectMode";
type Kind = "json" | "base64";
/** The marks in ctx.meta (beside whatever else the call carries). */
interface PiecesMeta {
  [PARAMS_MARK]?: Kind;
  [ANSWER_MARK]?: Kind;
  [OBJECT_MODE]?: boolean;
}
type PiecesContext = Context<unknown, PiecesMeta>;

const isStream = (value: unknown): value is Readable => {
  // Any value may come in: only these three fields are read (undefined on anything but a stream).
  const v = value as { readable?: unknown; on?: unknown; pipe?: unknown } | null | undefined;
  return v?.readable === true && typeof v.on === "function" && typeof v.pipe === "function";
};

/** The value as pieces of text when it is too large for one packet; null when it goes as it is. */
function toPieces(value: unknown): { kind: Kind; stream: Readable } | null {
  if (value === undefined || value === null || isStream(value)) return null;
  if (Buffer.isBuffer(value)) return value.length > (PIECE_CHARS / 4) * 3 ? pieces("base64", value.toString("base64")) : null;
  const text = JSON.stringify(value);
  return text !== undefined && text.length > PIECE_CHARS ? pieces("json", text) : null;
}

function pieces(kind: Kind, text: string): { kind: Kind; stream: Readable } {
  function* slices() {
    for (let i = 0; i < text.length; i += PIECE_CHARS) yield text.slice(i, i + PIECE_CHARS);
  }
  // An object-mode stream of strings: transit sends each string as it is (a Buffer would become an array of numbers).
  return { kind, stream: Readable.from(slices()) };
}

/** The value whose pieces the stream brings. A piece cut in a surrogate pair arrives as sent: the join restores it. */
async function fromPieces(stream: Readable, kind: Kind): Promise<unknown> {
  const decoder = new StringDecoder("utf8");
  const parts: string[] = [];
  // Strings as sent, or Buffers where the transport made them so.
  for await (const piece of stream as AsyncIterable<string | Buffer>) parts.push(typeof piece === "string" ? piece : decoder.write(piece));
  const text = parts.join("");
  return kind === "base64" ? Buffer.from(text, "base64") : JSON.parse(text);
}

function unmark(meta: PiecesMeta, mark: typeof PARAMS_MARK | typeof ANSWER_MARK) {
  delete meta[mark];
  delete meta[OBJECT_MODE];
}

/** Moleculer calls the hooks with the broker as `this`. */
export const MessagePiecesMiddleware = {
  name: "MessagePieces",
  localAction(this: ServiceBroker, next: (ctx: PiecesContext) => Promise<unknown>) {
    // Without a transporter every call is local: nothing to wrap.
    if (!this.transit) return next;
    const answer = (ctx: PiecesContext) =>
      next(ctx).then((value) => {
        const sent = toPieces(value);
        if (!sent) return value;
        ctx.meta[ANSWER_MARK] = sent.kind;
        return sent.stream;
      });
    // An arrow function: `this` stays the broker.
    const messagePieces = (ctx: PiecesContext) => {
      const kind = ctx.meta[PARAMS_MARK];
      if (kind && isStream(ctx.params)) {
        // Gone before the action runs: its own calls must not carry the mark on.
        unmark(ctx.meta, PARAMS_MARK);
        return fromPieces(ctx.params, kind).then((params) => {
          ctx.params = params;
          return answer(ctx);
        });
      }
      return ctx.nodeID === this.nodeID ? next(ctx) : answer(ctx);
    };
    return messagePieces;
  },
  remoteAction(next: (ctx: PiecesContext) => Promise<unknown>) {
    return function messagePieces(ctx: PiecesContext) {
      const params = ctx.params;
      const sent = toPieces(params);
      if (sent) {
        ctx.params = sent.stream;
        ctx.meta[PARAMS_MARK] = sent.kind;
      }
      // The params go back in place whatever happens: the Retry middleware (outside) calls again with them.
      const restore = () => {
        if (!sent) return;
        ctx.params = params;
        unmark(ctx.meta, PARAMS_MARK);
      };
      return next(ctx).then(
        (value) => {
          restore();
          const kind = ctx.meta[ANSWER_MARK];
          if (!kind || !isStream(value)) return value;
          // Every packet of the answer brings the mark again (transit merges each one's meta): unmarked once all are in.
          return fromPieces(value, kind).finally(() => unmark(ctx.meta, ANSWER_MARK));
        },
        (err) => {
          restore();
          throw err;
        },
      );
    };
  },
} as unknown as Middleware;
