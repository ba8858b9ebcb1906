/** Media for download and stream tests: audio-like bytes served from loopback with Range, and task waiting helpers. */
import crypto from "crypto";
import type http from "http";
import type { LoopbackHandler } from "./loopback";
import { api } from "./client";

/** Bytes that start like an MP3 (ID3 header) followed by random frames. */
export function audioBytes(size: number): Buffer {
  const bytes = crypto.randomBytes(size);
  Buffer.from("ID3\x04\x00\x00\x00\x00\x00\x00", "latin1").copy(bytes);
  return bytes;
}

/** Serves `body` with Content-Type `type`, honouring a single Range; `delayMs` slows each 64 KB chunk. */
export function mediaRoute(body: Buffer, type = "audio/mpeg", delayMs = 0): LoopbackHandler {
  return async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const m = /^bytes=(\d+)-(\d*)$/.exec(String(req.headers.range ?? ""));
    let start = 0;
    let end = body.length - 1;
    if (m) {
      start = Number(m[1]);
      end = m[2] ? Math.min(Number(m[2]), end) : end;
      if (start >= body.length) {
        res.writeHead(416, { "Content-Range": `bytes */${body.length}` });
        return void res.end();
      }
    }
    const headers: Record<string, string | number> = { "Content-Type": type, "Content-Length": end - start + 1, "Accept-Ranges": "bytes" };
    if (m) headers["Content-Range"] = `bytes ${start}-${end}/${body.length}`;
    res.writeHead(m ? 206 : 200, headers);
    if (req.method === "HEAD") return void res.end();
    for (let at = start; at <= end && !res.destroyed; at += 65536) {
      res.write(body.subarray(at, Math.min(at + 65536, end + 1)));
      if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
    }
    res.end();
  };
}

/** Polls GET /api/tasks/{id} until the task is finished; returns the record. */
export async function waitForTask(url: string, key: string, taskId: string, timeoutMs = 20_000): Promise<any> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const res = await api(url).get(`/api/tasks/${taskId}`).set("Api-Key", key);
    if (res.body.status === "SUCCESS" || res.body.status === "FAILED") return res.body;
    if (Date.now() > end) throw new Error(`task ${taskId} still ${res.body.status}: ${res.body.message}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
