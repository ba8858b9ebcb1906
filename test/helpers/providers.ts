/**
 * Loopback peers of the search service's providers, serving the recorded responses of
 * test/fixtures/providers, and the config that points the search service at them.
 */
import crypto from "crypto";
import fs from "fs";
import path from "path";
import type http from "http";
import { config } from "../../shared/config";
import { Loopback, startLoopback } from "./loopback";

const FIXTURES = path.join(__dirname, "..", "fixtures", "providers");
export const FAKE_YTDLP = path.join(__dirname, "..", "fixtures", "bin", "yt-dlp");
export const TEST_KEY = "TESTKEY123";
export const TEST_SECRET = "test-secret-$ecret";

export function fixture(name: string): string {
  return fs.readFileSync(path.join(FIXTURES, name), "utf8");
}

function send(res: http.ServerResponse, status: number, body: string) {
  res.writeHead(status, { "Content-Type": "application/json" });
  res.end(body);
}

/** Terms that make a provider misbehave, as a real one can. */
function misbehave(term: string, res: http.ServerResponse): boolean {
  if (term.includes("ratelimit")) send(res, 429, '{"status":"false","description":"Too many requests"}');
  else if (term.includes("down")) send(res, 502, "<html>Bad gateway</html>");
  else if (term.includes("broken")) send(res, 200, "{not json");
  else if (term.includes("forbidden")) send(res, 403, '{"error":"forbidden"}');
  else if (term.includes("hang"))
    return true; // never answers
  else return false;
  return true;
}

/** True when the request carries the documented signature of TEST_KEY / TEST_SECRET, made in the last 5 minutes. */
export function validSignature(headers: http.IncomingHttpHeaders): boolean {
  const date = String(headers["x-auth-date"] ?? "");
  const expected = crypto
    .createHash("sha1")
    .update(TEST_KEY + TEST_SECRET + date)
    .digest("hex");
  return headers["x-auth-key"] === TEST_KEY && headers.authorization === expected && /^\d+$/.test(date) && Math.abs(Date.now() / 1000 - Number(date)) < 300;
}

/** One peer serving both HTTP providers: the directory under /api/1.0, the store at /search. */
export async function startProviders(): Promise<Loopback> {
  return startLoopback((req, res) => {
    const url = new URL(req.url ?? "/", "http://peer");
    const term = url.searchParams.get("q") ?? url.searchParams.get("term") ?? url.searchParams.get("id") ?? "";
    if (url.pathname.startsWith("/api/1.0/")) {
      if (!validSignature(req.headers)) return send(res, 401, '{"status":"false","description":"Authorization header is invalid"}');
      if (misbehave(term, res)) return;
      if (url.pathname === "/api/1.0/search/byterm") return send(res, 200, fixture("podcastindex_search_byterm_q-batman-university.json"));
      if (url.pathname === "/api/1.0/search/byperson") return send(res, 200, fixture("podcastindex_search_byperson_q-adam-curry.json"));
      if (url.pathname === "/api/1.0/podcasts/byfeedid")
        return send(res, 200, fixture(term === "75075" ? "podcastindex_podcasts_byfeedid_id-75075.json" : "podcastindex_podcasts_byfeedid_unknown-id.json"));
    }
    if (url.pathname === "/search") {
      if (misbehave(term, res)) return;
      return send(res, 200, fixture("itunes_search_term-batman-university.json"));
    }
    send(res, 404, '{"status":"false"}');
  });
}

/** Points the search service at the peer and the fake extraction tool, with test credentials. */
export function useProviders(peer: Loopback) {
  config.directoryApiUrl = `${peer.url}/api/1.0`;
  config.storeApiUrl = peer.url;
  config.ytdlpPath = FAKE_YTDLP;
  config.apiKey = TEST_KEY;
  config.apiSecret = TEST_SECRET;
}
