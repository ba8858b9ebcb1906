/**
 * What a browser loads first from the built web app: index.html's scripts, styles and module preloads (Vite
 * puts the entry and what it imports statically there); every page's own code comes later, on demand. Read by
 * bench/web.bench.ts and test/web/budget.test.ts (the budget: 150 KB gzipped for JS and CSS together).
 */
import fs from "fs";
import path from "path";
import zlib from "zlib";

export const FIRST_LOAD_BUDGET_GZ = 150 * 1024;

export interface WebFileSize {
  file: string;
  bytes: number;
  gzip: number;
}

function sizeOf(webDir: string, rel: string): WebFileSize {
  const body = fs.readFileSync(path.join(webDir, rel));
  return { file: rel, bytes: body.length, gzip: zlib.gzipSync(body, { level: 9 }).length };
}

/** The JS and CSS that index.html makes the browser load before the first page shows. */
export function firstLoad(webDir: string): WebFileSize[] {
  const html = fs.readFileSync(path.join(webDir, "index.html"), "utf8");
  const refs = [...html.matchAll(/<(?:script[^>]*\ssrc|link[^>]*\shref)="\/([^"]+\.(?:js|css))"/g)].map((m) => m[1]);
  return [...new Set(refs)].map((rel) => sizeOf(webDir, rel));
}

/** Every other JS and CSS file of the build: code loaded on demand. */
export function onDemand(webDir: string): WebFileSize[] {
  const first = new Set(firstLoad(webDir).map((f) => f.file));
  return fs
    .readdirSync(path.join(webDir, "assets"))
    .filter((f) => /\.(js|css)$/.test(f) && !first.has(`assets/${f}`))
    .map((f) => sizeOf(webDir, `assets/${f}`));
}
