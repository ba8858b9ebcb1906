/**
 * An episode's page in Chromium: what it shows (podcast, date, duration, show notes, chapters, transcript),
 * its buttons changing the episode's state on the server (queue, save, played, download) and "Play", and
 * show notes of a hostile feed rendered without running or embedding anything.
 */
import type { Page } from "playwright-core";
import { config } from "../../shared/config";
import { api } from "../helpers/client";
import { createAdmin } from "../helpers/accounts";
import { mp3Bytes, pngBytes } from "../helpers/audio";
import { startLoopback, Loopback } from "../helpers/loopback";
import { mediaRoute } from "../helpers/media";
import { startServer, tempDir, TestServer } from "../helpers/server";
import { until } from "../helpers/wait";
import { axeViolations, DESKTOP, screenshot, startBrowser, WebBrowser, WebSession } from "../helpers/web";

const HOSTILE = [
  "<p>Before</p>",
  "<script>window.__pwned=1</script>",
  '<img src=x onerror="window.__pwned=2">',
  '<a href="javascript:window.__pwned=3">click</a>',
  '<iframe src="javascript:window.__pwned=4"></iframe>',
  '<p onclick="window.__pwned=5" style="position:fixed;inset:0" class="player">covering</p>',
  '<style>body{display:none}</style><form action="https://evil.test/"><input name="q"></form>',
  '<object data="https://evil.test/x.swf"></object><embed src="https://evil.test/y">',
  '<svg><script>window.__pwned=6</script></svg><a href="/settings">inside</a>',
  "<p>After</p>",
].join("");

const CHAPTERS = JSON.stringify({
  version: "1.2.0",
  chapters: [
    { startTime: 0, title: "Opening" },
    { startTime: 30, title: "The middle part" },
    { startTime: 60, title: "Closing words" },
  ],
});
const TRANSCRIPT = JSON.stringify({
  version: "1.0.0",
  segments: [
    { speaker: "Host", startTime: 0.5, endTime: 2, body: "Welcome to the show." },
    { startTime: 31, endTime: 33, body: "Now the middle." },
  ],
});

function feed(base: string): string {
  const item = (n: number, title: string, description: string, extra = "") =>
    `<item><title>${title}</title><guid>ep-${n}</guid><pubDate>${new Date(Date.UTC(2024, 4, n)).toUTCString()}</pubDate><itunes:duration>90</itunes:duration>` +
    `<description><![CDATA[${description}]]></description><enclosure url="${base}/media/${n}.mp3" length="1500000" type="audio/mpeg"/>${extra}</item>`;
  return `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd" xmlns:podcast="https://podcastindex.org/namespace/1.0"><channel>
<title>Night Talk</title><link>https://example.test/</link><description>Talk at night.</description><itunes:image href="${base}/art.png"/>
${item(1, "Chaptered", `<p>Notes with <a href="https://example.test/more">a link</a> and <strong>bold</strong> words.</p><p><img src="${base}/art.png" alt="A picture" width="100"></p>`, `<podcast:chapters url="${base}/chapters.json" type="application/json+chapters"/><podcast:transcript url="${base}/t.json" type="application/json" language="en"/>`)}
${item(2, "Hostile", HOSTILE)}
</channel></rss>`;
}

let server: TestServer;
let peer: Loopback;
let web: WebBrowser;
let key = "";
let session: WebSession;
const ep: Record<string, number> = {};
const get = (path: string, query: Record<string, unknown> = {}) => api(server.url).get(path).query(query).set("Api-Key", key);
const post = (path: string, body: object) => api(server.url).post(path).set("Api-Key", key).send(body);
const metadata = async (title: string) => (await post("/api/data/get_episode_metadata", { episode_id: ep[title], user_id: session.user_id })).body.episode;

beforeAll(async () => {
  Object.assign(config, { refreshInterval: 0, workerPollMs: 100, taskRetryBaseMs: 20, downloadDir: tempDir("podcast-web-dl-") });
  const audio = mp3Bytes({ title: "Chaptered" }, 90);
  peer = await startLoopback({
    "/art.png": { headers: { "Content-Type": "image/png" }, body: pngBytes([200, 120, 40]) },
    "/chapters.json": { headers: { "Content-Type": "application/json+chapters" }, body: CHAPTERS },
    "/t.json": { headers: { "Content-Type": "application/json" }, body: TRANSCRIPT },
    "/media/1.mp3": mediaRoute(audio),
    "/media/2.mp3": mediaRoute(audio),
  });
  peer.route("/feed.xml", { headers: { "Content-Type": "application/rss+xml" }, body: feed(peer.url) });
  server = await startServer();
  web = await startBrowser();
  key = await createAdmin(server.url);
  const me = (await get("/api/data/get_user")).body.retrieved_id;
  session = { key, user_id: me, username: "root", is_admin: true };
  const podcast_id = (await post("/api/data/add_podcast", { podcast_values: { pod_feed_url: `${peer.url}/feed.xml`, user_id: me } })).body.podcast_id;
  for (const e of (await get("/api/data/podcast_episodes", { user_id: me, podcast_id })).body.episodes) ep[e.episodetitle] = e.episodeid;
});
afterAll(async () => {
  await web?.close();
  await server?.stop();
  await peer?.close();
});

const main = (page: Page) => page.getByRole("main");

test("an episode's page: facts, sanitized notes, chapters, transcript; each button changes the server's state", async () => {
  const { page, context, problems } = await web.open(server.url, { session });
  await page.goto(`${server.url}/episode/${ep.Chaptered}`);
  await page.getByRole("heading", { level: 1, name: "Chaptered" }).waitFor();
  await main(page).getByRole("link", { name: "Night Talk" }).waitFor();
  await main(page).getByText(/1:30/).first().waitFor();
  const notes = page.getByRole("region", { name: "Show notes" });
  const link = notes.getByRole("link", { name: "a link" });
  expect(await link.getAttribute("href")).toBe("https://example.test/more");
  expect(await link.getAttribute("rel")).toBe("noopener noreferrer");
  expect(await link.getAttribute("target")).toBe("_blank");
  const picture = notes.getByRole("img", { name: "A picture" });
  expect(await picture.getAttribute("src")).toBe(`/api/proxy/image?${new URLSearchParams({ url: `${peer.url}/art.png` })}`);
  await until(() => picture.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth > 0), 10_000);
  const chapters = page.getByRole("region", { name: "Chapters" });
  await chapters.getByRole("button", { name: "0:30 The middle part" }).waitFor();
  expect(await chapters.getByRole("listitem").count()).toBe(3);
  await page.getByRole("region", { name: "Transcript" }).getByText("Host: Welcome to the show.").waitFor();
  expect(await axeViolations(page)).toEqual([]);
  await screenshot(page, "episode-phone");

  const button = (name: string) => main(page).getByRole("button", { name, exact: true });
  await button("Add to queue").click();
  await button("Remove from queue").waitFor();
  expect((await get("/api/data/get_queued_episodes", { user_id: session.user_id })).body.data.map((e: any) => e.episodeid)).toEqual([ep.Chaptered]);
  await button("Save").click();
  await button("Unsave").waitFor();
  expect((await get(`/api/data/saved_episode_list/${session.user_id}`)).body.saved_episodes.map((e: any) => e.episodeid)).toEqual([ep.Chaptered]);
  await button("Mark as played").click();
  await button("Mark as unplayed").waitFor();
  expect((await metadata("Chaptered")).completed).toBe(true);
  await button("Download").click();
  await main(page).getByText("Downloading in the background.").waitFor();
  await until(
    async () =>
      (await get("/api/data/download_episode_list", { user_id: session.user_id })).body.downloaded_episodes.some((e: any) => e.episodeid === ep.Chaptered),
    20_000,
    100,
  );

  // After a reload the labels say what the server has; each toggles back.
  await page.reload();
  await button("Delete download").waitFor();
  for (const [now, next] of [
    ["Remove from queue", "Add to queue"],
    ["Unsave", "Save"],
    ["Mark as unplayed", "Mark as played"],
    ["Delete download", "Download"],
  ]) {
    await button(now).click();
    await button(next).waitFor();
  }
  const after = await metadata("Chaptered");
  expect(after).toMatchObject({ is_queued: false, is_saved: false, completed: false, is_downloaded: false });

  // Play, then a chapter: the player has the episode and moves to the chapter's start.
  const player = page.getByRole("region", { name: "Player" });
  await button("Play").click();
  await player.getByText("Chaptered").first().waitFor();
  await chapters.getByRole("button", { name: "0:30 The middle part" }).click();
  await until(() => page.evaluate(() => (document.querySelector("audio")?.currentTime ?? 0) >= 29), 10_000);
  expect(problems).toEqual([]);
  await context.close();

  const desk = await web.open(server.url, { session, viewport: DESKTOP });
  await desk.page.goto(`${server.url}/episode/${ep.Chaptered}`);
  await desk.page.getByRole("region", { name: "Transcript" }).waitFor();
  await screenshot(desk.page, "episode-desktop");
  expect(desk.problems).toEqual([]);
  await desk.context.close();
});

test("a hostile feed's show notes: nothing runs, nothing is embedded, harmless text stays", async () => {
  const { page, context, problems } = await web.open(server.url, { session });
  await page.goto(`${server.url}/episode/${ep.Hostile}`);
  const notes = page.getByRole("region", { name: "Show notes" });
  await notes.getByText("After").waitFor();
  await notes.getByText("Before").waitFor();
  await notes.getByText("click").click();
  await notes.getByText("covering").click();
  await page.waitForTimeout(300);
  expect(await page.evaluate(() => (window as any).__pwned)).toBeUndefined();
  expect(await page.locator("iframe, script:not([src]), object, embed, .notes form, .notes input, .notes svg, .notes style").count()).toBe(0);
  const inNotes = await page.locator(".notes").evaluate((el) => ({
    handlers: [...el.querySelectorAll("*")]
      .flatMap((n) => [...n.attributes].map((a) => a.name))
      .filter((a) => a.startsWith("on") || a === "style" || a === "class"),
    hrefs: [...el.querySelectorAll("[href]")].map((n) => n.getAttribute("href")),
    srcs: [...el.querySelectorAll("[src]")].map((n) => n.getAttribute("src")),
  }));
  expect(inNotes).toEqual({ handlers: [], hrefs: [], srcs: [] });
  // The page is still there and its URL unchanged.
  expect(page.url()).toBe(`${server.url}/episode/${ep.Hostile}`);
  await page.getByRole("heading", { level: 1, name: "Hostile" }).waitFor();
  expect(await axeViolations(page)).toEqual([]);
  expect(problems).toEqual([]);
  await context.close();
});
