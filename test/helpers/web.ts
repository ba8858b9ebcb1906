/**
 * The web app end to end: the whole server (startServer, the built app in dist/web that `npm test` builds)
 * and real headless Chromium at a phone's size, driven like a person by labels and roles. What every
 * web suite checks on each page: no request to another origin, no CSP violation or uncaught error in the
 * console, and no serious or critical axe-core violation.
 */
import fs from "fs";
import path from "path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { launchChromium } from "./browser";
import { config } from "../../shared/config";

export const PHONE = { width: 390, height: 844 };
export const DESKTOP = { width: 1280, height: 800 };
const AXE_SOURCE = fs.readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
/** Where `npm run screenshots` (SCREENSHOTS=1) writes the README's pictures. */
const SCREENSHOT_DIR = path.join(__dirname, "..", "..", "docs", "screenshots");

export function assertWebBuilt(): void {
  if (!fs.existsSync(path.join(config.webDir, "index.html")))
    throw new Error(`The web app is not built in ${config.webDir}: run npm run build (npm test does)`);
}

export interface WebSession {
  key: string;
  user_id: number;
  username: string;
  is_admin: boolean;
}

export interface WebBrowser {
  browser: Browser;
  /** A new context (own storage) and page at phone size, watched for foreign requests and console errors. */
  open(baseUrl: string, opts?: { viewport?: { width: number; height: number }; session?: WebSession }): Promise<WatchedPage>;
  close(): Promise<void>;
}

export interface WatchedPage {
  page: Page;
  context: BrowserContext;
  /** Requests to any origin but the server's, console errors and page errors seen so far. */
  problems: string[];
}

export async function startBrowser(): Promise<WebBrowser> {
  assertWebBuilt();
  const browser = await launchChromium();
  return {
    browser,
    async open(baseUrl, opts = {}) {
      const context = await browser.newContext({ viewport: opts.viewport ?? PHONE });
      const page = await context.newPage();
      const origin = new URL(baseUrl).origin;
      const problems: string[] = [];
      page.on("request", (req) => {
        const url = req.url();
        if (!url.startsWith(origin) && !url.startsWith("data:") && !url.startsWith("blob:")) problems.push(`request to another origin: ${url}`);
      });
      page.on("console", (msg) => {
        // A refused request logs its status too (a 4xx the page shows in words is no fault of the page).
        if (msg.type() === "error" && !/Failed to load resource: the server responded with a status of 4\d\d/.test(msg.text()))
          problems.push(`console: ${msg.text()}`);
      });
      page.on("pageerror", (err) => problems.push(`page error: ${err.message}`));
      if (opts.session) {
        const s = opts.session;
        await context.addInitScript((value: string) => localStorage.setItem("podcast-server.session", value), JSON.stringify(s));
      }
      return { page, context, problems };
    },
    close: () => browser.close(),
  };
}

/** axe-core in the page (evaluated through the DevTools protocol, which the page's CSP does not govern): serious and critical violations. */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  const result: { id: string; impact: string; nodes: { target: string[] }[] }[] = await page.evaluate(async () => {
    const r = await (window as any).axe.run(document, { resultTypes: ["violations"] });
    return r.violations.map((v: any) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n: any) => ({ target: n.target })) }));
  });
  return result
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

/** With SCREENSHOTS=1 (`npm run screenshots`): the page as docs/screenshots/<name>.png, for the README. */
export async function screenshot(page: Page, name: string): Promise<void> {
  if (!process.env.SCREENSHOTS) return;
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`) });
}
