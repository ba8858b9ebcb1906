/**
 * The wire protocol: message framing on a socket, decoding OP_MSG (with document sequences) and OP_QUERY
 * (only the driver's initial handshake uses it), and encoding answers as OP_MSG or OP_REPLY.
 */
import net from "net";
import { BSON } from "mongodb";
import type { Doc } from "./types";
import { DESERIALIZE, isPlainObject } from "./values";

const OP_REPLY = 1;
const OP_QUERY = 2004;
const OP_MSG = 2013;
const MSG_CHECKSUM_PRESENT = 1;
const MSG_MORE_TO_COME = 2;
export const MAX_BSON_OBJECT_SIZE = 16 * 1024 * 1024;
export const MAX_MESSAGE_SIZE = 48_000_000;
export const MAX_WRITE_BATCH_SIZE = 100_000;
export const MAX_WIRE_VERSION = 21; // MongoDB 7.0

/** A decoded request: an OP_MSG command (its document sequences merged into the body) or an OP_QUERY. */
export type Request =
  | { opCode: "msg"; requestId: number; body: Doc; db: string; moreToCome: boolean }
  | { opCode: "query"; requestId: number; fullName: string; query: Doc; db: string };

/**
 * Splits the bytes of `socket` into whole messages for `onMessage`. A message of an impossible length, or one
 * `onMessage` cannot parse (it throws), destroys the socket: a real server closes the connection too.
 */
export function readMessages(socket: net.Socket, onMessage: (message: Buffer) => void): void {
  let chunks: Buffer[] = [];
  let buffered = 0;
  socket.on("data", (chunk: Buffer) => {
    chunks.push(chunk);
    buffered += chunk.length;
    while (buffered >= 4) {
      if (chunks[0].length < 4) chunks = [Buffer.concat(chunks)];
      const length = chunks[0].readInt32LE(0);
      if (length < 16 || length > MAX_MESSAGE_SIZE) {
        socket.destroy();
        return;
      }
      if (buffered < length) return;
      const all = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
      const message = all.subarray(0, length);
      const rest = all.subarray(length);
      chunks = rest.length ? [rest] : [];
      buffered = rest.length;
      try {
        onMessage(message);
      } catch {
        socket.destroy(); // an unparseable message: a real server closes the connection too
        return;
      }
    }
  });
}

/** Decodes one whole message; throws on anything but a well-formed OP_MSG or OP_QUERY. */
export function parseMessage(msg: Buffer): Request {
  const requestId = msg.readInt32LE(4);
  const opCode = msg.readInt32LE(12);
  if (opCode === OP_MSG) {
    const flags = msg.readUInt32LE(16);
    const end = msg.length - (flags & MSG_CHECKSUM_PRESENT ? 4 : 0);
    let pos = 20;
    let body: Doc | null = null;
    const sequences: [string, Doc[]][] = [];
    while (pos < end) {
      const kind = msg[pos++];
      const size = msg.readInt32LE(pos);
      if (kind === 0) {
        body = BSON.deserialize(msg.subarray(pos, pos + size), DESERIALIZE);
        pos += size;
      } else if (kind === 1) {
        const sectionEnd = pos + size;
        let p = pos + 4;
        const zero = msg.indexOf(0, p);
        const identifier = msg.toString("utf8", p, zero);
        p = zero + 1;
        const docs: Doc[] = [];
        while (p < sectionEnd) {
          const docSize = msg.readInt32LE(p);
          docs.push(BSON.deserialize(msg.subarray(p, p + docSize), DESERIALIZE));
          p += docSize;
        }
        sequences.push([identifier, docs]);
        pos = sectionEnd;
      } else {
        throw new Error(`unknown OP_MSG section kind ${kind}`);
      }
    }
    if (!body) throw new Error("OP_MSG without a body section");
    for (const [identifier, docs] of sequences) body[identifier] = [...(Array.isArray(body[identifier]) ? body[identifier] : []), ...docs];
    const db = typeof body.$db === "string" ? body.$db : "";
    return { opCode: "msg", requestId, body, db, moreToCome: (flags & MSG_MORE_TO_COME) !== 0 };
  }
  if (opCode === OP_QUERY) {
    let pos = 20;
    const zero = msg.indexOf(0, pos);
    const fullName = msg.toString("utf8", pos, zero);
    pos = zero + 1 + 8; // numberToSkip, numberToReturn
    const size = msg.readInt32LE(pos);
    let query: Doc = BSON.deserialize(msg.subarray(pos, pos + size), DESERIALIZE);
    if (isPlainObject(query.$query)) query = query.$query;
    const db = fullName.slice(0, fullName.indexOf("."));
    return { opCode: "query", requestId, fullName, query, db };
  }
  throw new Error(`unsupported opCode ${opCode}`);
}

function serializeAnswer(answer: Doc): Uint8Array {
  try {
    const bson = BSON.serialize(answer);
    if (bson.length > MAX_BSON_OBJECT_SIZE + 16 * 1024) throw new Error("BSONObj size is too large");
    return bson;
  } catch (err) {
    return BSON.serialize({ ok: 0, errmsg: (err as Error).message, code: 10334, codeName: "BSONObjectTooLarge" });
  }
}

/** An answer as a message: the standard header, the opcode's own `extra` header bytes (`fill`), the BSON body. */
function encode(opCode: number, extra: number, requestId: number, responseTo: number, answer: Doc, fill: (header: Buffer) => void): Buffer {
  const bson = serializeAnswer(answer);
  const header = Buffer.alloc(16 + extra);
  header.writeInt32LE(header.length + bson.length, 0);
  header.writeInt32LE(requestId, 4);
  header.writeInt32LE(responseTo, 8);
  header.writeInt32LE(opCode, 12);
  fill(header);
  return Buffer.concat([header, bson]);
}

export function encodeOpMsg(requestId: number, responseTo: number, answer: Doc): Buffer {
  return encode(OP_MSG, 5, requestId, responseTo, answer, (header) => {
    header.writeUInt32LE(0, 16); // flagBits
    header[20] = 0; // section kind 0
  });
}

export function encodeOpReply(requestId: number, responseTo: number, answer: Doc): Buffer {
  return encode(OP_REPLY, 20, requestId, responseTo, answer, (header) => {
    header.writeInt32LE(0, 16); // responseFlags
    header.writeBigInt64LE(0n, 20); // cursorID
    header.writeInt32LE(0, 28); // startingFrom
    header.writeInt32LE(1, 32); // numberReturned
  });
}
