/**
 * The gateway serves the built web app (web/, built into config.webDir) from the same origin as the API:
 * hashed files under /assets/ cached for a year, index.html for "/" and the app's pages (shared/web-pages.ts),
 * gzip when the browser takes it. Every answer carries a strict Content-Security-Policy: scripts, styles,
 * media and connections from this server only, no inline script, so the key the page holds reaches no other
 * origin. Anything else goes on to the API routes (and their JSON 404).
 */
import fs from "fs";
import path from "path";
import zlib from "zlib";
import type { IncomingMessage, ServerResponse } from "http";
import { config } from "./config";
import { WEB_PAGES } from "./web-pages";

export const WEB_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "media-src 'self' blob:",
  "connect-src 'self'",
  "font-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".json": "application/json",
  ".webmanifest": "application/manifest+json",
  ".woff2": "font/woff2",
  ".txt": "text/plain; charset=utf-8",
};
const PAGES = new Set<string>(WEB_PAGES);

interface WebFile {
  type: string;
  body: Buffer;
  gzip: Buffer | null;
  immutable: boolean;
}

/** Files read once on first use (the build does not change under a running server). */
const cache = new Map<string, WebFile>();

function load(rel: string): WebFile | null {
  const cached = cache.get(rel);
  if (cached) return cached;
  const file = path.join(config.webDir, rel);
  let found: WebFile | null = null;
  // rel is a normalised path below webDir (no "..": see fileFor)
  if (file.startsWith(config.webDir + path.sep) && fs.existsSync(file) && fs.statSync(file).isFile()) {
    const body = fs.readFileSync(file);
    const type = TYPES[path.extname(file)] ?? "application/octet-stream";
    const compressible = /text|javascript|json|svg/.test(type) && body.length > 1024;
    found = { type, body, gzip: compressible ? zlib.gzipSync(body, { level: 9 }) : null, immutable: rel.startsWith("assets/") };
  }
  // Only files found: a name that is not there is asked of the disk again (no cache for every name a client makes up).
  if (found) cache.set(rel, found);
  return found;
}

/** The first path segments of a route table's paths ("GET /api/data/x" -> "api"): the addresses the app never answers. */
export function firstSegments(table: Record<string, unknown>): Set<string> {
  return new Set(Object.keys(table).map((key) => key.split(" ")[1].split("/")[1]));
}

/** The file of a GET path (first: its first segment): a file of the build, or index.html for "/" and the app's pages; null: not the web app's. */
function fileFor(pathname: string, first: string): WebFile | null {
  if (pathname === "/" || PAGES.has(first)) return load("index.html");
  const rel = path.posix.normalize(decodeURIComponent(pathname)).replace(/^\/+/, "");
  if (rel.startsWith("..") || !/^(assets\/)?[\w.-]+$/.test(rel)) return null;
  return load(rel);
}

/**
 * moleculer-web `use` middleware: answers the web app's paths and passes everything else on. A browser's page
 * load (Sec-Fetch-Mode: navigate) of an address that is neither the app's nor under a first segment of the
 * API's (apiSegments) gets the app too, whose own "Page not found" says where to go; API clients keep the JSON 404.
 */
export function webAppMiddleware(apiSegments: Set<string>) {
  return function serveWebApp(req: IncomingMessage, res: ServerResponse, next: () => void): void {
    if (req.method !== "GET" && req.method !== "HEAD") return next();
    // moleculer-web runs global middlewares inside a route, with the route's path cut off req.url.
    const url = (req as IncomingMessage & { originalUrl?: string }).originalUrl ?? req.url ?? "/";
    const query = url.indexOf("?");
    const pathname = query < 0 ? url : url.slice(0, query);
    const first = pathname.split("/", 2)[1] ?? "";
    // The API's own paths (nearly every request) go on at once.
    if (apiSegments.has(first)) return next();
    let file: WebFile | null;
    try {
      file = fileFor(pathname, first);
    } catch {
      return next(); // a malformed escape: the API's JSON 400/404
    }
    if (file) return send(req, res, file);
    const app = req.headers["sec-fetch-mode"] === "navigate" ? load("index.html") : null;
    if (app) return send(req, res, app, 404);
    next();
  };
}

function send(req: IncomingMessage, res: ServerResponse, file: WebFile, status = 200): void {
  const gzip = file.gzip && /\bgzip\b/.test(String(req.headers["accept-encoding"] ?? ""));
  const body = gzip ? file.gzip! : file.body;
  res.writeHead(status, {
    "Content-Type": file.type,
    "Content-Length": body.length,
    "Cache-Control": file.immutable ? "public, max-age=31536000, immutable" : "no-cache",
    "Content-Security-Policy": WEB_CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    Vary: "Accept-Encoding",
    ...(gzip ? { "Content-Encoding": "gzip" } : {}),
  });
  res.end(req.method === "HEAD" ? undefined : body);
}
