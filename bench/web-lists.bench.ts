/**
 * The web app with a large library (issue 28: "a library of 1,000 subscriptions and a podcast with 10,000
 * episodes stay smooth (paged or virtualised lists, no page that asks the API for everything at once)").
 * The server as `npm start` runs it (bench/kit.ts: every service in one process of its own, the embedded store
 * under a temp DATA_DIR, the built app copied aside as WEB_DIR), a loopback feed server in this process (SUBS small feeds with artwork and one feed of
 * BIG items), one user subscribed to all of them, then Debian's Chromium (playwright-core) at phone size, signed in
 * as the web app signs in, opening Podcasts, the big podcast's page and Home, once to warm up and then RUNS times
 * each, each load in a new context (nothing cached). Prints per page the medians of: navigation to the list's first item in the DOM, DOM elements,
 * the API requests and the bytes of their answers, the images the page loaded through the image proxy, the long
 * tasks (PerformanceObserver "longtask": the longest and the total blocking time), then the same after one
 * "Show more" / "Load more" and, on the podcast page, after a search of its episodes. Not a test: it asserts nothing.
 *
 *   npm run build && node dist/bench/web-lists.bench.js [subscriptions=1000] [episodes of the big podcast=10000]
 *   env: BENCH_RUNS (loads per page, default 5; 0: the seeding only), BENCH_SEED=opml|add (how the library is subscribed: one import_opml
 *   job, the default, or add_podcast calls, BENCH_SEED_CONCURRENCY at a time, default 16), CHROMIUM_PATH (default /usr/bin/chromium)
 */
import fs from "fs";
import http from "http";
import os from "os";
import path from "path";
import { chromium, type Browser, type Page } from "playwright-core";
import { freePort, login, ROOT, server, stopAll, waitReady } from "./kit";
import { pngBytes } from "../test/helpers/audio";

const SUBS = Number(process.argv[2] ?? 1000);
const BIG = Number(process.argv[3] ?? 10_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const SEED = process.env.BENCH_SEED ?? "opml";
const SEED_CONCURRENCY = Number(process.env.BENCH_SEED_CONCURRENCY ?? 16);
const CHROMIUM_PATH = process.env.CHROMIUM_PATH || "/usr/bin/chromium";
const PHONE = { width: 390, height: 844 };
const SMALL_ITEMS = 3;
const DAY = 86_400_000;
/** Every 100th episode of the big feed has this word in its title: the search finds BIG / 100 of them. */
const SEARCH_WORD = "bonus";
/** A long task beyond this is a stall a person sees (a tap that does nothing for a fifth of a second), reported by page. */
const STALL_MS = 200;
/** DOM elements beyond this make a page heavy to lay out and style on a phone. */
const HEAVY_DOM = 3000;

// ---------------------------------------------------------------------------------------------------------
// The feeds

/** A 1x1 PNG of its own colour: each podcast's artwork is its own URL, so the image proxy fetches each. */
const png = (seed: number): Buffer => pngBytes([seed % 256, (seed * 7) % 256, (seed * 13) % 256]);

/** Texts as long as real feeds' (a channel's description ~800 characters, an episode's notes ~450 with some markup): list answers carry them. */
const ABOUT = "A weekly conversation about the things that make a household run: cooking, repairs, money and the people next door. ".repeat(7);
const NOTES =
  "<p>In this episode we talk about the week's news, answer listeners' questions and recommend a book.</p><ul><li>Chapter one</li><li>Chapter two</li></ul>".repeat(
    3,
  );

function rss(base: string, title: string, art: string, items: string[]): string {
  return (
    `<?xml version="1.0" encoding="UTF-8"?><rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel>` +
    `<title>${title}</title><link>${base}/</link><description>${title}: ${ABOUT}</description><itunes:author>Bench author</itunes:author>` +
    `<itunes:image href="${art}"/>${items.join("")}</channel></rss>`
  );
}

function item(base: string, feed: string, n: number, title: string, date: number): string {
  return (
    `<item><title>${title}</title><guid isPermaLink="false">${feed}-${n}</guid><description><![CDATA[<p>${title}.</p>${NOTES}]]></description>` +
    `<pubDate>${new Date(date).toUTCString()}</pubDate><itunes:duration>1800</itunes:duration>` +
    `<enclosure url="${base}/media/${feed}/${n}.mp3" length="1000" type="audio/mpeg"/></item>`
  );
}

/** SUBS small feeds (/feeds/show-<i>.xml, SMALL_ITEMS items), the big one (/feeds/big.xml) and the artwork (/art/<i>.png). */
async function feedServer(): Promise<{ base: string; close: () => void }> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const now = Date.UTC(2026, 0, 1);
  const bigItems = Array.from({ length: BIG }, (_, i) => {
    const n = BIG - i; // newest first, as feeds list them
    return item(base, "big", n, `Big show episode ${n}${n % 100 === 0 ? ` (${SEARCH_WORD})` : ""}`, now - i * DAY);
  });
  const big = rss(base, "Big show", `${base}/art/big.png`, bigItems);
  const srv = http.createServer((req, res) => {
    const url = req.url ?? "";
    let m: RegExpExecArray | null;
    if (url === "/feeds/big.xml") return res.writeHead(200, { "Content-Type": "application/rss+xml" }).end(big);
    if ((m = /^\/feeds\/show-(\d+)\.xml$/.exec(url)) && Number(m[1]) < SUBS) {
      const i = Number(m[1]);
      const items = Array.from({ length: SMALL_ITEMS }, (_, k) =>
        item(base, `show-${i}`, SMALL_ITEMS - k, `Show ${i} episode ${SMALL_ITEMS - k}`, now - (i % 90) * 3_600_000 - k * 7 * DAY),
      );
      return res.writeHead(200, { "Content-Type": "application/rss+xml" }).end(rss(base, `Show ${String(i).padStart(4, "0")}`, `${base}/art/${i}.png`, items));
    }
    if ((m = /^\/art\/(\d+|big)\.png$/.exec(url))) return res.writeHead(200, { "Content-Type": "image/png" }).end(png(m[1] === "big" ? 999_999 : Number(m[1])));
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => srv.listen(port, "127.0.0.1", () => r()));
  console.log(`feed server: ${SUBS} feeds of ${SMALL_ITEMS} items, one of ${BIG} items (${(Buffer.byteLength(big) / 1e6).toFixed(1)} MB)`);
  return { base, close: () => srv.close() };
}

// ---------------------------------------------------------------------------------------------------------
// The server and the library

/** An API call's answer (null when empty); T: what the caller reads of it. */
async function call<T = unknown>(base: string, key: string, method: string, p: string, body?: unknown): Promise<T> {
  const res = await fetch(`${base}${p}`, {
    method,
    headers: { "Api-Key": key, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${text.slice(0, 300)}`);
  return (text ? (JSON.parse(text) as unknown) : null) as T;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The big podcast first (its older episodes are imported by a job, meanwhile), then the SUBS small ones; waits for every episode. */
async function seed(base: string, key: string, user_id: number, feeds: string): Promise<number> {
  const t0 = performance.now();
  const { podcast_id: bigId } = await call<{ podcast_id: number }>(base, key, "POST", "/api/data/add_podcast", {
    podcast_values: { pod_feed_url: `${feeds}/feeds/big.xml`, user_id },
  });
  const urls = Array.from({ length: SUBS }, (_, i) => `${feeds}/feeds/show-${i}.xml`);
  if (SEED === "opml") {
    await call(base, key, "POST", "/api/data/import_opml", { user_id, podcasts: urls });
    for (;;) {
      await sleep(500);
      const p = await call<{ status: string; failed: unknown[] }>(base, key, "GET", `/api/data/import_progress/${user_id}`);
      if (!["PENDING", "RUNNING", "DOWNLOADING"].includes(p.status)) {
        if (p.failed.length) throw new Error(`import_opml: ${p.failed.length} failed, e.g. ${JSON.stringify(p.failed[0])}`);
        break;
      }
    }
  } else {
    let next = 0;
    await Promise.all(
      Array.from({ length: SEED_CONCURRENCY }, async () => {
        while (next < urls.length) await call(base, key, "POST", "/api/data/add_podcast", { podcast_values: { pod_feed_url: urls[next++], user_id } });
      }),
    );
  }
  const subscribed = performance.now();
  console.log(
    `  ${SUBS} small feeds subscribed (${SEED === "opml" ? "one import_opml job" : `add_podcast, ${SEED_CONCURRENCY} at a time`}): ${((subscribed - t0) / 1000).toFixed(1)} s`,
  );
  let total = 0;
  for (const end = Date.now() + 180_000; Date.now() < end; await sleep(500)) {
    total = (await call<{ total: number }>(base, key, "GET", `/api/data/podcast_episodes?user_id=${user_id}&podcast_id=${bigId}&limit=1`)).total;
    if (total >= BIG) break;
  }
  if (total < BIG) throw new Error(`the big podcast has ${total} episodes imported, not ${BIG}`);
  const pods = (await call<{ pods: unknown[] }>(base, key, "GET", `/api/data/return_pods/${user_id}`)).pods.length;
  if (pods !== SUBS + 1) throw new Error(`return_pods lists ${pods} podcasts, not ${SUBS + 1}`);
  console.log(
    `  big podcast's ${BIG} episodes imported: ${((performance.now() - t0) / 1000).toFixed(1)} s after the start (${((performance.now() - subscribed) / 1000).toFixed(1)} s after the last subscription)`,
  );
  // A few episodes in progress, so that Home's "Continue" has something to show.
  const some = (
    await call<{ episodes: { episodeid: number }[] }>(base, key, "GET", `/api/data/podcast_episodes?user_id=${user_id}&podcast_id=${bigId}&limit=8`)
  ).episodes;
  for (const e of some) await call(base, key, "POST", "/api/data/record_listen_duration", { user_id, episode_id: e.episodeid, listen_duration: 600 });
  console.log(`seeding took ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return bigId;
}

// ---------------------------------------------------------------------------------------------------------
// In the page (serialised by playwright: plain JavaScript, no closures over this file)

/** What the in-page code uses of an element (this program's lib has no DOM types). */
interface El {
  textContent: string; // null only for a document or a doctype, never for an element
  parentElement: El | null;
  closest(selector: string): El | null;
  querySelector(selector: string): El | null;
  querySelectorAll(selector: string): Iterable<El>;
  click(): void;
  /** A label's control, an input's value and events. */
  control?: El | null;
  value?: string;
  dispatchEvent(event: unknown): boolean;
}

/** What the in-page code uses of the browser's window, and the globals it shares there (__longtasks, __listItems, __firstItem). */
interface PageWindow {
  document: { body: El; querySelectorAll(selector: string): Iterable<El>; getElementsByTagName(name: string): { length: number } };
  performance: { now(): number };
  localStorage: { setItem(key: string, value: string): void };
  requestAnimationFrame(callback: () => void): number;
  PerformanceObserver: new (callback: (list: { getEntries(): { startTime: number; duration: number }[] }) => void) => {
    observe(options: { type: string; buffered: boolean }): void;
  };
  MutationObserver: new (callback: () => void) => { observe(target: unknown, options: Record<string, boolean>): void; disconnect(): void };
  InputEvent: new (type: string, init: Record<string, unknown>) => unknown;
  __longtasks: { start: number; duration: number }[] | null;
  __listItems: (heading: string) => El[];
  __firstItem: number | null;
}

/** Init script: long tasks into __longtasks; the time (performance.now(), from navigation start) the list under the heading first has an item. */
function pageInit(heading: string) {
  const w = globalThis as unknown as PageWindow;
  w.__longtasks = [];
  try {
    new w.PerformanceObserver((list) => {
      for (const e of list.getEntries()) w.__longtasks!.push({ start: e.startTime, duration: e.duration });
    }).observe({ type: "longtask", buffered: true });
  } catch {
    w.__longtasks = null; // not supported: reported as such
  }
  w.__listItems = (h: string) => {
    const h2 = [...w.document.querySelectorAll("h2")].find((x) => x.textContent.trim().startsWith(h));
    const section = h2 && (h2.closest("section") ?? h2.parentElement);
    return section ? [...section.querySelectorAll("ul > li, ol > li")] : [];
  };
  w.__firstItem = null;
  const obs = new w.MutationObserver(() => {
    if (w.__firstItem === null && w.__listItems(heading).length) {
      w.__firstItem = w.performance.now();
      obs.disconnect();
    }
  });
  obs.observe(w.document, { childList: true, subtree: true });
}

/** Clicks the button named `name` under the heading; ms until the list has more items and a frame has passed (null: none came in 30 s). */
function clickForMore(args: { heading: string; name: string }): Promise<number | null> {
  const w = globalThis as unknown as PageWindow;
  const before = w.__listItems(args.heading).length;
  const button = [...w.document.querySelectorAll("button")].find((b) => b.textContent.trim() === args.name);
  if (!button) return Promise.resolve(null);
  return new Promise((resolve) => {
    const t0 = w.performance.now();
    const done = () => w.requestAnimationFrame(() => setTimeout(() => resolve(w.performance.now() - t0), 0));
    const obs = new w.MutationObserver(() => {
      if (w.__listItems(args.heading).length > before) {
        obs.disconnect();
        done();
      }
    });
    obs.observe(w.document.body, { childList: true, subtree: true });
    setTimeout(() => {
      obs.disconnect();
      resolve(null);
    }, 30_000);
    button.click();
  });
}

/** Types `text` into the field labelled `label` (one input event, as a paste); ms until every item of the list contains it, a frame later. */
function searchFor(args: { heading: string; label: string; text: string }): Promise<number | null> {
  const w = globalThis as unknown as PageWindow;
  const label = [...w.document.querySelectorAll("label")].find((l) => l.textContent.trim().startsWith(args.label));
  const input = label?.control ?? label?.querySelector("input");
  if (!input) return Promise.resolve(null);
  const matches = () => {
    const items = w.__listItems(args.heading);
    return items.length > 0 && items.every((li) => li.textContent.toLowerCase().includes(args.text.toLowerCase()));
  };
  return new Promise((resolve) => {
    const t0 = w.performance.now();
    const obs = new w.MutationObserver(() => {
      if (matches()) {
        obs.disconnect();
        w.requestAnimationFrame(() => setTimeout(() => resolve(w.performance.now() - t0), 0));
      }
    });
    obs.observe(w.document.body, { childList: true, subtree: true, characterData: true });
    setTimeout(() => {
      obs.disconnect();
      resolve(null);
    }, 30_000);
    input.value = args.text;
    input.dispatchEvent(new w.InputEvent("input", { bubbles: true, data: args.text, inputType: "insertText" }));
  });
}

function pageState(heading: string): { dom: number; items: number; firstItem: number | null; longtasks: { start: number; duration: number }[] | null } {
  const w = globalThis as unknown as PageWindow;
  return { dom: w.document.getElementsByTagName("*").length, items: w.__listItems(heading).length, firstItem: w.__firstItem, longtasks: w.__longtasks };
}

// ---------------------------------------------------------------------------------------------------------
// Measuring

/** One API answer: its bytes, the longest list in it, and ms from the request's start to the answer's last byte. */
interface Answer {
  phase: string;
  what: string;
  bytes: number;
  largestArray: number;
  status: number;
  ms: number;
}
interface Phase {
  ms: number | null;
  dom: number;
  items: number;
  api: Answer[];
  images: { count: number; bytes: number };
  longest: number;
  tbt: number;
  tasks: number;
}
interface PageSpec {
  name: string;
  url: string;
  heading: string;
  more: string;
  search?: { label: string; text: string };
}

/** The longest array in a JSON answer (its top two levels): how many items a list answer carries. */
function largestArray(v: unknown, depth = 0): number {
  if (Array.isArray(v)) return v.length;
  if (!v || typeof v !== "object" || depth > 1) return 0;
  return Math.max(0, ...Object.values(v).map((x) => largestArray(x, depth + 1)));
}

/** An API address without the key-like and user parts that are the same everywhere. */
function shortUrl(u: string): string {
  const url = new URL(u);
  url.searchParams.delete("user_id");
  const q = url.searchParams.toString();
  return `${url.pathname}${q ? `?${q}` : ""}`;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor((s.length - 1) / 2)] : NaN;
};

function blocking(tasks: { start: number; duration: number }[]): { longest: number; tbt: number; tasks: number } {
  return { longest: Math.max(0, ...tasks.map((t) => t.duration)), tbt: tasks.reduce((s, t) => s + Math.max(0, t.duration - 50), 0), tasks: tasks.length };
}

async function measureOnce(browser: Browser, base: string, session: object, spec: PageSpec): Promise<Record<string, Phase>> {
  const context = await browser.newContext({ viewport: PHONE });
  try {
    await context.addInitScript(
      (value: string) => (globalThis as unknown as PageWindow).localStorage.setItem("podcast-server.session", value),
      JSON.stringify(session),
    );
    await context.addInitScript({ content: `(${pageInit.toString()})(${JSON.stringify(spec.heading)})` });
    const page: Page = await context.newPage();
    let phase = "load";
    const bodies: Promise<void>[] = [];
    const answers: Answer[] = [];
    const images: Record<string, { count: number; bytes: number }> = {};
    page.on("response", (res) => {
      const url = res.url();
      if (!url.startsWith(base)) return;
      const at = phase;
      const p = new URL(url).pathname;
      if (p.startsWith("/api/proxy/image")) {
        const tally = (images[at] ??= { count: 0, bytes: 0 });
        tally.count++;
        bodies.push(
          res.body().then(
            (b) => void (tally.bytes += b.length),
            () => undefined,
          ),
        );
      } else if (p.startsWith("/api/")) {
        bodies.push(
          res.body().then(
            (b) => {
              let largest = 0;
              try {
                largest = largestArray(JSON.parse(b.toString("utf8")));
              } catch {
                // not JSON
              }
              answers.push({
                phase: at,
                what: `${res.request().method()} ${shortUrl(url)}`,
                bytes: b.length,
                largestArray: largest,
                status: res.status(),
                ms: res.request().timing().responseEnd,
              });
            },
            () =>
              void answers.push({ phase: at, what: `${res.request().method()} ${shortUrl(url)}`, bytes: 0, largestArray: 0, status: res.status(), ms: NaN }),
          ),
        );
      }
    });
    const out: Record<string, Phase> = {};
    let seenTasks = 0;
    const settle = async (name: string, ms: number | null) => {
      await page.waitForLoadState("networkidle").catch(() => undefined);
      await Promise.all(bodies);
      const state = await page.evaluate(pageState, spec.heading);
      const tasks = state.longtasks ?? [];
      out[name] = {
        ms,
        dom: state.dom,
        items: state.items,
        api: answers.filter((a) => a.phase === name),
        images: images[name] ?? { count: 0, bytes: 0 },
        ...blocking(tasks.slice(seenTasks)),
      };
      seenTasks = tasks.length;
      if (state.longtasks === null) out[name].longest = NaN;
    };

    await page.goto(`${base}${spec.url}`, { waitUntil: "domcontentloaded" });
    await page.waitForFunction(() => (globalThis as unknown as PageWindow).__firstItem !== null, undefined, { timeout: 30_000 });
    await settle("load", (await page.evaluate(pageState, spec.heading)).firstItem);

    phase = "more";
    // networkidle waits for 500 ms without a request: the timer is in the page, from the click.
    await settle("more", await page.evaluate(clickForMore, { heading: spec.heading, name: spec.more }));

    if (spec.search) {
      phase = "search";
      await settle("search", await page.evaluate(searchFor, { heading: spec.heading, ...spec.search }));
    }
    return out;
  } finally {
    await context.close();
  }
}

const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
const msText = (n: number | null) => (n === null || Number.isNaN(n) ? "-" : `${Math.round(n)} ms`);

interface PageResult {
  spec: PageSpec;
  runs: Record<string, Phase>[];
}

function report(results: PageResult[]): string[] {
  const flags: string[] = [];
  const outliers: string[] = [];
  const rows: string[] = [];
  const PHASES: Record<string, string> = { load: "open", more: "Show/Load more", search: "search" };
  console.log("");
  for (const { spec, runs } of results) {
    console.log(`${spec.name} (${spec.url}), median of ${runs.length} loads in new contexts:`);
    for (const ph of Object.keys(runs[0])) {
      const all = runs.map((r) => r[ph]);
      const msList = all.map((p) => p.ms).filter((x): x is number => x !== null);
      const apiBytes = median(all.map((p) => p.api.reduce((s, a) => s + a.bytes, 0)));
      const m = {
        ms: msList.length ? median(msList) : null,
        dom: median(all.map((p) => p.dom)),
        items: median(all.map((p) => p.items)),
        apiCount: median(all.map((p) => p.api.length)),
        apiBytes,
        imgCount: median(all.map((p) => p.images.count)),
        imgBytes: median(all.map((p) => p.images.bytes)),
        longest: median(all.map((p) => p.longest)),
        maxLongest: Math.max(...all.map((p) => p.longest)),
        tbt: median(all.map((p) => p.tbt)),
      };
      const label =
        {
          load: "first list item in the DOM",
          more: `"${spec.more}" -> more items`,
          search: `"${spec.search?.label}" "${spec.search?.text}" -> results (300 ms debounce included)`,
        }[ph] ?? ph;
      const spread = msList.length > 1 ? ` (runs ${Math.round(Math.min(...msList))}-${Math.round(Math.max(...msList))} ms)` : "";
      console.log(`  ${label}: ${msText(m.ms)}${spread}${msList.length < all.length ? `, ${all.length - msList.length} runs timed out` : ""}`);
      console.log(
        `    DOM elements ${m.dom.toLocaleString("en")}, list items ${m.items.toLocaleString("en")}; API requests ${m.apiCount}, answers ${kb(m.apiBytes)}; images via the proxy ${m.imgCount} (${kb(m.imgBytes)})`,
      );
      console.log(`    long tasks: longest ${msText(m.longest)} (worst run ${msText(m.maxLongest)}), total blocking time ${msText(m.tbt)}`);
      // Each request of the phase, with the median of its answer time over the runs.
      for (const a of all[0].api) {
        const times = all.map((p) => p.api.find((x) => x.what === a.what)?.ms).filter((x): x is number => x !== undefined && x >= 0);
        console.log(
          `      ${a.status} ${a.what}: ${kb(a.bytes)}${a.largestArray ? `, ${a.largestArray.toLocaleString("en")} items in its longest list` : ""}, answered in ${msText(median(times))}`,
        );
      }
      rows.push(
        `| ${spec.name} | ${PHASES[ph]} | ${msText(m.ms)} | ${m.dom.toLocaleString("en")} | ${m.apiCount} / ${kb(m.apiBytes)} | ${m.imgCount} | ${msText(m.longest)} | ${msText(m.tbt)} |`,
      );
      // A page is flagged on the median run; one run's stall on a shared machine is listed apart.
      if (m.longest > STALL_MS)
        flags.push(`${spec.name}, ${PHASES[ph]}: longest task ${Math.round(m.longest)} ms (median of the runs), over the ${STALL_MS} ms stall threshold`);
      else if (m.maxLongest > STALL_MS)
        outliers.push(`${spec.name}, ${PHASES[ph]}: one run had a long task of ${Math.round(m.maxLongest)} ms (median longest ${Math.round(m.longest)} ms)`);
      if (m.dom > HEAVY_DOM) flags.push(`${spec.name}, ${PHASES[ph]}: ${m.dom.toLocaleString("en")} DOM elements`);
    }
    if (runs[0].more) {
      // What each further page adds: a list loaded to its end (clicked again and again) grows by this much per item.
      const per = median(runs.map((r) => (r.more.dom - r.load.dom) / Math.max(1, r.more.items - r.load.items)));
      console.log(`  each further item adds ~${per.toFixed(1)} DOM elements (the list is paged, not virtualised: shown items stay in the DOM)`);
    }
    console.log("");
  }
  const answers = results.flatMap(({ spec, runs }) => Object.values(runs[0]).flatMap((p) => p.api.map((a) => ({ ...a, page: spec.name }))));
  const largest = [...answers].sort((a, b) => b.bytes - a.bytes).slice(0, 5);
  console.log("Largest API answers (first run):");
  for (const a of largest) console.log(`  ${kb(a.bytes).padStart(10)}  ${a.what} (${a.page}, ${a.phase}; ${a.largestArray.toLocaleString("en")} items)`);
  // A list answer of the whole library (SUBS + the big podcast), or of 1,000 items and more, is a whole list (the pages' steps are 20-60).
  const whole = answers.filter((a) => a.largestArray >= 1000 || a.largestArray === SUBS + 1);
  console.log(
    whole.length
      ? `Whole lists asked for: ${[...new Set(whole.map((a) => `${a.what} on ${a.page} (${a.largestArray.toLocaleString("en")} items, ${kb(a.bytes)})`))].join("; ")}`
      : "No page asked the API for a whole list.",
  );
  console.log(
    flags.length
      ? `Not smooth:\n${flags.map((f) => `  ${f}`).join("\n")}`
      : `Smooth: no median longest task over ${STALL_MS} ms, no page over ${HEAVY_DOM.toLocaleString("en")} DOM elements.`,
  );
  if (outliers.length) console.log(`Single runs over ${STALL_MS} ms:\n${outliers.map((f) => `  ${f}`).join("\n")}`);
  console.log("\n| page | step | time | DOM elements | API requests / bytes | images | longest task | TBT |\n|---|---|---|---|---|---|---|---|");
  rows.forEach((r) => console.log(r));
  return flags;
}

/** An error's message (or the thing thrown), its first line. */
const firstLine = (err: unknown) => String((err as { message?: unknown } | null | undefined)?.message ?? err).split("\n")[0];

async function main() {
  const started = Date.now();
  if (!fs.existsSync(CHROMIUM_PATH)) throw new Error(`Chromium not found at ${CHROMIUM_PATH} (apt-get install chromium, or set CHROMIUM_PATH)`);
  console.log(
    `web app with a large library: ${SUBS} subscriptions + one podcast of ${BIG} episodes, ${RUNS} loads per page at ${PHONE.width}x${PHONE.height}; load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}, ${os.cpus().length} CPUs`,
  );
  const feeds = await feedServer();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "web-lists-bench-"));
  // The built app copied aside (WEB_DIR): a rebuild of dist/web during the run would take away the chunks a loaded page asks for.
  const built = path.join(ROOT, "dist", "web");
  if (!fs.existsSync(path.join(built, "index.html"))) throw new Error(`The web app is not built in ${built}: run npm run build`);
  const webDir = path.join(dataDir, "web");
  fs.cpSync(built, webDir, { recursive: true });
  const port = await freePort();
  server({
    PORT: String(port),
    HOST: "127.0.0.1",
    SEARCH_PORT: String(await freePort()),
    SEARCH_HOST: "127.0.0.1",
    DATA_DIR: dataDir,
    TRANSPORTER: "",
    DOWNLOAD_DIR: path.join(dataDir, "downloads"),
    BACKUP_DIR: path.join(dataDir, "backups"),
    LOCAL_MEDIA_DIR: path.join(dataDir, "media"),
    WEB_DIR: webDir,
    REFRESH_INTERVAL: "0",
    SYNC_INTERVAL: "0",
    AUTO_DELETE_INTERVAL: "0",
    OUTBOUND_ALLOW_PRIVATE: "127.0.0.1/32",
  });
  const base = `http://127.0.0.1:${port}`;
  let browser: Browser | null = null;
  try {
    await waitReady(base, 120_000);
    const key = await login(base);
    const { retrieved_id: user_id } = await call<{ retrieved_id: number }>(base, key, "GET", "/api/data/get_user");
    console.log("seeding the library:");
    const bigId = await seed(base, key, user_id, feeds.base);
    if (RUNS === 0) return; // the seeding only
    const session = { key, user_id, username: "bench", is_admin: true };
    browser = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"],
    });
    const specs: PageSpec[] = [
      { name: "Podcasts", url: "/podcasts", heading: "Subscriptions", more: "Show more" },
      {
        name: `Podcast (${BIG.toLocaleString("en")} episodes)`,
        url: `/podcast/${bigId}`,
        heading: "Episodes",
        more: "Load more",
        search: { label: "Search episodes", text: SEARCH_WORD },
      },
      { name: "Home", url: "/", heading: "New episodes", more: "Load more" },
    ];
    const results: PageResult[] = [];
    for (const spec of specs) {
      const runs: Record<string, Phase>[] = [];
      // One load first that is not counted: the server's caches and Chromium's code cache warm up.
      await measureOnce(browser, base, session, spec).catch((err: unknown) => console.log(`${spec.name}: the warm-up load failed: ${firstLine(err)}`));
      for (let r = 0; r < RUNS; r++) {
        // A run that fails (a page that never shows its list) is told and left out, not the end of the bench.
        try {
          runs.push(await measureOnce(browser, base, session, spec));
        } catch (err) {
          console.log(`${spec.name}: run ${r + 1} failed: ${firstLine(err)}`);
        }
      }
      if (runs.length) results.push({ spec, runs });
    }
    report(results);
    console.log(
      `\nwhole run ${((Date.now() - started) / 1000).toFixed(0)} s; load average now ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}`,
    );
  } finally {
    await browser?.close();
    feeds.close();
    await stopAll();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
