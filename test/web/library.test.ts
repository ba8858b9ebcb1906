/**
 * The library pages in Chromium, driven like a person: Podcasts (add by feed URL, the grid with artwork
 * through the image proxy, OPML export and import), a podcast's page (paged and searchable episodes,
 * subscribe and unsubscribe, its settings), Home ("Continue" and new episodes) and Search (the directory
 * through the search service, and the person's own library). What the page did is checked on the server.
 */
import fs from "fs";
import type { Page } from "playwright-core";
import { config } from "../../shared/config";
import { api } from "../helpers/client";
import { createAdmin } from "../helpers/accounts";
import { pngBytes } from "../helpers/audio";
import { startLoopback, Loopback } from "../helpers/loopback";
import { fixture as providerFixture } from "../helpers/providers";
import { startServer, tempDir, TestServer } from "../helpers/server";
import { until } from "../helpers/wait";
import { axeViolations, DESKTOP, screenshot, startBrowser, WebBrowser, WebSession } from "../helpers/web";

const EPISODES = 120;

/** An RSS feed with channel artwork and items that carry descriptions (rssFeed() has neither). */
function showFeed(base: string, title: string, count: number, needle = -1): string {
  const items = Array.from({ length: count }, (_, i) => {
    const n = count - i;
    const name = n === needle ? "Needle in a haystack" : `${title} episode ${n}`;
    const date = new Date(Date.UTC(2024, 0, 1) + n * 86_400_000).toUTCString();
    return `<item><title>${name}</title><guid>${title}-${n}</guid><pubDate>${date}</pubDate><itunes:duration>${600 + n}</itunes:duration><description><![CDATA[<p>Notes of ${name}.</p>]]></description><enclosure url="${base}/media/${encodeURIComponent(title)}-${n}.mp3" length="1000" type="audio/mpeg"/></item>`;
  }).join("\n");
  return `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel><title>${title}</title><link>https://example.test/</link>
<description>${title} is a show about tests.</description><itunes:author>Test Author</itunes:author><itunes:image href="${base}/art.png"/>
${items}
</channel></rss>`;
}

/** The directory provider's recorded answer, pointing at a feed of the loopback peer. */
function directoryAnswer(base: string): string {
  const data = JSON.parse(providerFixture("podcastindex_search_byterm_q-batman-university.json"));
  data.feeds = data.feeds.map((f: any) => ({
    ...f,
    url: `${base}/directory.xml`,
    originalUrl: `${base}/directory.xml`,
    image: `${base}/art.png`,
    artwork: `${base}/art.png`,
  }));
  return JSON.stringify(data);
}

let server: TestServer;
let peer: Loopback;
let web: WebBrowser;
let key = "";
let session: WebSession;
let bigId = 0;
const userId = () => session.user_id;
const get = (path: string, query: Record<string, unknown> = {}) => api(server.url).get(path).query(query).set("Api-Key", key);
const post = (path: string, body: object) => api(server.url).post(path).set("Api-Key", key).send(body);
const feedUrls = async (): Promise<string[]> => (await get(`/api/data/return_pods/${userId()}`)).body.pods.map((p: any) => p.feed_url);

beforeAll(async () => {
  Object.assign(config, { refreshInterval: 0, workerPollMs: 100, taskRetryBaseMs: 20, downloadDir: tempDir("podcast-web-dl-") });
  peer = await startLoopback({ "/art.png": { headers: { "Content-Type": "image/png" }, body: pngBytes([40, 90, 200]) } });
  peer.route("/show.xml", { headers: { "Content-Type": "application/rss+xml" }, body: showFeed(peer.url, "Big Show", EPISODES, 7) });
  peer.route("/a.xml", { headers: { "Content-Type": "application/rss+xml" }, body: showFeed(peer.url, "Imported A", 2) });
  peer.route("/b.xml", { headers: { "Content-Type": "application/rss+xml" }, body: showFeed(peer.url, "Imported B", 2) });
  peer.route("/directory.xml", { headers: { "Content-Type": "application/rss+xml" }, body: showFeed(peer.url, "Batman University", 3) });
  peer.route("/api/1.0/search/byterm", { headers: { "Content-Type": "application/json" }, body: directoryAnswer(peer.url) });
  Object.assign(config, { directoryApiUrl: `${peer.url}/api/1.0`, apiKey: "TESTKEY", apiSecret: "TESTSECRET" });
  server = await startServer();
  web = await startBrowser();
  key = await createAdmin(server.url);
  const me = (await get("/api/data/get_user")).body.retrieved_id;
  session = { key, user_id: me, username: "root", is_admin: true };
});
afterAll(async () => {
  await web?.close();
  await server?.stop();
  await peer?.close();
});

/** The page's own controls (the region "Player" has a "Play" and a "Playback speed" of its own). */
const main = (page: Page) => page.getByRole("main");

async function expectClean(page: Page, problems: string[]) {
  expect(await axeViolations(page)).toEqual([]);
  expect(problems).toEqual([]);
}

test("Podcasts: a feed added by its URL shows in the grid with its artwork through the image proxy", async () => {
  const { page, context, problems } = await web.open(server.url, { session });
  await page.goto(server.url + "/podcasts");
  await page.getByRole("heading", { level: 1, name: "Podcasts" }).waitFor();
  await page.getByText("No subscriptions yet").waitFor();
  await page.getByLabel("Feed URL").fill(`${peer.url}/show.xml`);
  await page.getByRole("button", { name: "Add podcast" }).click();
  await page.getByRole("link", { name: "Open the podcast" }).waitFor();
  const tile = main(page).getByRole("link", { name: /Big Show/ });
  await tile.waitFor();
  const img = tile.locator("img");
  expect(await img.getAttribute("src")).toBe(`/api/proxy/image?${new URLSearchParams({ url: `${peer.url}/art.png` })}`);
  await until(() => img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth > 0), 10_000);
  expect(await feedUrls()).toEqual([`${peer.url}/show.xml`]);
  bigId = (await get(`/api/data/return_pods/${userId()}`)).body.pods[0].podcast_id;
  expect(await tile.getAttribute("href")).toBe(`/podcast/${bigId}`);

  await screenshot(page, "podcasts-phone");

  // The same feed again: the server's words, not a blank page.
  await page.getByLabel("Feed URL").fill(`${peer.url}/show.xml`);
  await page.getByRole("button", { name: "Add podcast" }).click();
  await page
    .getByRole("alert")
    .filter({ hasText: /already subscribed/i })
    .waitFor();
  await expectClean(page, problems);
  await context.close();

  const desk = await web.open(server.url, { session, viewport: DESKTOP });
  await desk.page.goto(server.url + "/podcasts");
  await main(desk.page)
    .getByRole("link", { name: /Big Show/ })
    .waitFor();
  await screenshot(desk.page, "podcasts-desktop");
  expect(desk.problems).toEqual([]);
  await desk.context.close();
});

test("a podcast's page: artwork and description, episodes 50 at a time, searchable", async () => {
  // The feed's older episodes arrive through the import job that add_podcast started.
  await until(async () => (await get("/api/data/podcast_episodes", { user_id: userId(), podcast_id: bigId, limit: 1 })).body.total === EPISODES, 20_000, 100);
  const { page, context, problems } = await web.open(server.url, { session });
  await page.goto(`${server.url}/podcast/${bigId}`);
  await page.getByRole("heading", { level: 1, name: "Big Show" }).waitFor();
  expect(await page.getByRole("img", { name: "Artwork of Big Show" }).getAttribute("src")).toMatch(/^\/api\/proxy\/image\?/);
  await page.getByText("Big Show is a show about tests.").waitFor();
  const episodes = page.getByRole("region", { name: "Episodes" }).getByRole("listitem");
  await page.getByText(`Showing 50 of ${EPISODES} episodes`).waitFor();
  expect(await episodes.count()).toBe(50);
  expect(await episodes.first().getByRole("link").first().textContent()).toBe(`Big Show episode ${EPISODES}`);
  await screenshot(page, "podcast-phone");
  await page.getByRole("button", { name: "Load more" }).click();
  await page.getByText(`Showing 100 of ${EPISODES} episodes`).waitFor();
  expect(await episodes.count()).toBe(100);

  await page.getByLabel("Search episodes").fill("needle");
  await page.getByText("Showing 1 of 1 episodes").waitFor();
  await expect(episodes.getByRole("link", { name: "Needle in a haystack" }).count()).resolves.toBe(1);
  await page.getByLabel("Search episodes").fill("no such words");
  await page.getByText("No episode matches “no such words”.").waitFor();
  await page.getByLabel("Search episodes").fill("");
  await page.getByText(`Showing 50 of ${EPISODES} episodes`).waitFor();
  await expectClean(page, problems);
  await context.close();
});

test("a podcast's settings are saved on the server as they change", async () => {
  const { page, context, problems } = await web.open(server.url, { session });
  await page.goto(`${server.url}/podcast/${bigId}`);
  const settings = page.getByRole("region", { name: "Settings" });
  await settings.getByLabel("Skip intro (seconds)").waitFor();
  const saved = (what: string) =>
    settings
      .getByRole("status")
      .filter({ hasText: `${what} saved.` })
      .waitFor();

  await settings.getByLabel("Auto-download").check();
  await saved("Auto-download");
  await settings.getByLabel("Notifications").check();
  await saved("Notifications");
  await settings.getByLabel("Playback speed").selectOption("1.5");
  await saved("Playback speed");
  await settings.getByLabel("Skip intro (seconds)").fill("30");
  await settings.getByLabel("Skip intro (seconds)").press("Tab");
  await saved("Skip intro");
  await settings.getByLabel("Skip outro (seconds)").fill("15");
  await settings.getByLabel("Skip outro (seconds)").press("Tab");
  await saved("Skip outro");

  const body = { user_id: userId(), podcast_id: bigId };
  expect((await post("/api/data/get_auto_download_status", body)).body.auto_download).toBe(true);
  expect((await post("/api/data/podcast/notification_status", body)).body.enabled).toBe(true);
  expect((await post("/api/data/get_play_episode_details", body)).body).toMatchObject({
    playback_speed: 1.5,
    start_skip: 30,
    end_skip: 15,
    playback_speed_customized: true,
  });

  // A reload shows what the server has; "Default" clears the podcast's own speed.
  await page.reload();
  await until(() => settings.getByLabel("Auto-download").isEnabled(), 5_000);
  expect(await settings.getByLabel("Auto-download").isChecked()).toBe(true);
  expect(await settings.getByLabel("Notifications").isChecked()).toBe(true);
  await settings.getByLabel("Skip intro (seconds)").waitFor();
  expect(await settings.getByLabel("Skip intro (seconds)").inputValue()).toBe("30");
  expect(await settings.getByLabel("Playback speed").inputValue()).toBe("1.5");
  await settings.getByLabel("Playback speed").selectOption("");
  await saved("Playback speed");
  expect((await post("/api/data/get_play_episode_details", body)).body.playback_speed_customized).toBe(false);
  await settings.getByLabel("Skip intro (seconds)").fill("-4");
  await settings.getByLabel("Skip intro (seconds)").press("Tab");
  await settings.getByRole("alert").filter({ hasText: "whole seconds" }).waitFor();
  expect((await post("/api/data/get_play_episode_details", body)).body.start_skip).toBe(30);
  expect(problems).toEqual([]);
  await context.close();
});

test("Unsubscribe (after a confirmation) and Subscribe again", async () => {
  const { page, context, problems } = await web.open(server.url, { session });
  await page.goto(`${server.url}/podcast/${bigId}`);
  await page.getByRole("button", { name: "Unsubscribe" }).click();
  await page.getByRole("button", { name: "Cancel" }).click();
  expect(await feedUrls()).toContain(`${peer.url}/show.xml`);
  await page.getByRole("button", { name: "Unsubscribe" }).click();
  await page.getByRole("button", { name: "Confirm unsubscribe" }).click();
  const subscribe = page.getByRole("button", { name: "Subscribe", exact: true });
  await subscribe.waitFor();
  await until(async () => (await page.evaluate(() => document.activeElement?.textContent)) === "Subscribe", 5_000);
  expect(await feedUrls()).not.toContain(`${peer.url}/show.xml`);
  await expect(page.getByRole("region", { name: "Settings" }).count()).resolves.toBe(0);

  await subscribe.click();
  await page.getByRole("button", { name: "Unsubscribe" }).waitFor();
  expect(await feedUrls()).toContain(`${peer.url}/show.xml`);
  expect((await get(`/api/data/return_pods/${userId()}`)).body.pods.find((p: any) => p.feed_url === `${peer.url}/show.xml`).podcast_id).toBe(bigId);
  // A new subscription starts with the server's defaults, and the page shows those.
  const auto = page.getByRole("region", { name: "Settings" }).getByLabel("Auto-download");
  await until(() => auto.isEnabled(), 5_000);
  expect((await post("/api/data/get_auto_download_status", { user_id: userId(), podcast_id: bigId })).body.auto_download).toBe(false);
  expect(await auto.isChecked()).toBe(false);
  expect(problems).toEqual([]);
  await context.close();
});

test("Home: an episode in progress under Continue, and the newest episodes paged", async () => {
  const eps = (await get("/api/data/podcast_episodes", { user_id: userId(), podcast_id: bigId, limit: 3 })).body.episodes;
  const started = eps[1];
  expect(
    (await post("/api/data/record_podcast_history", { episode_id: started.episodeid, user_id: userId(), episode_pos: 120, is_vidsite: false })).status,
  ).toBe(200);
  const { page, context, problems } = await web.open(server.url, { session });
  await page.goto(server.url + "/");
  const cont = page.getByRole("region", { name: "Continue" });
  await cont.getByRole("link", { name: started.episodetitle }).waitFor();
  await cont.getByText(/left/).waitFor();
  const newest = page.getByRole("region", { name: "New episodes" });
  await newest.getByText(/^Showing 20 of \d+ episodes$/).waitFor();
  expect(await newest.getByRole("listitem").count()).toBe(20);
  await screenshot(page, "home-phone");
  await newest.getByRole("button", { name: "Load more" }).click();
  await newest.getByText(/^Showing 40 of/).waitFor();
  await expectClean(page, problems);

  // Its link opens the episode's page.
  await cont.getByRole("link", { name: started.episodetitle }).click();
  await page.waitForURL(`${server.url}/episode/${started.episodeid}`);
  await page.getByRole("heading", { level: 1, name: started.episodetitle }).waitFor();
  expect(problems).toEqual([]);
  await context.close();
});

test("OPML: Export OPML downloads the subscriptions; Import subscribes to the feeds of a file", async () => {
  const { page, context, problems } = await web.open(server.url, { session });
  await page.goto(server.url + "/podcasts");
  await main(page)
    .getByRole("link", { name: /Big Show/ })
    .waitFor();
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export OPML" }).click()]);
  expect(download.suggestedFilename()).toBe("podcasts.opml");
  const exported = fs.readFileSync(await download.path(), "utf8");
  expect(exported).toContain("<opml");
  expect(exported).toContain(`xmlUrl="${peer.url}/show.xml"`);

  const opml = `<?xml version="1.0"?><opml version="2.0"><head><title>Mine</title></head><body>
<outline text="Imported A" type="rss" xmlUrl="${peer.url}/a.xml"/><outline text="Imported B" type="rss" xmlUrl="${peer.url}/b.xml"/>
<outline text="Big Show" type="rss" xmlUrl="${peer.url}/show.xml"/></body></opml>`;
  await page.getByLabel("OPML file").setInputFiles({ name: "mine.opml", mimeType: "text/x-opml", buffer: Buffer.from(opml) });
  await page.getByRole("button", { name: "Import", exact: true }).click();
  await page.getByText("Import finished: 2 added, 1 already there.").waitFor({ timeout: 20_000 });
  expect((await feedUrls()).sort()).toEqual([`${peer.url}/a.xml`, `${peer.url}/b.xml`, `${peer.url}/show.xml`]);
  await main(page)
    .getByRole("link", { name: /Imported A/ })
    .waitFor();
  await main(page)
    .getByRole("link", { name: /Imported B/ })
    .waitFor();

  // No file chosen: said in words.
  await page.getByRole("button", { name: "Import", exact: true }).click();
  await page.getByRole("alert").filter({ hasText: "Choose an OPML file first." }).waitFor();
  await expectClean(page, problems);
  await context.close();
});

test("Search: directory results each with Subscribe; a search of my own library", async () => {
  const { page, context, problems } = await web.open(server.url, { session });
  await page.goto(server.url + "/search");
  await page.getByLabel("Search podcasts").fill("batman university");
  await page.getByRole("button", { name: "Search", exact: true }).click();
  const results = page.getByRole("region", { name: "Find new podcasts" }).getByRole("listitem");
  await results.first().getByRole("heading", { name: "Batman University" }).waitFor();
  expect(await results.first().locator("img").getAttribute("src")).toMatch(/^\/api\/proxy\/image\?/);
  await expectClean(page, problems);
  await results.first().getByRole("button", { name: "Subscribe" }).click();
  await results.first().getByRole("link", { name: "Subscribed: open" }).waitFor();
  expect(await feedUrls()).toContain(`${peer.url}/directory.xml`);
  const pod = (await get(`/api/data/return_pods/${userId()}`)).body.pods.find((p: any) => p.feed_url === `${peer.url}/directory.xml`);
  expect(pod.title).toBe("Batman University");

  const library = page.getByRole("region", { name: "My library" });
  await page.getByLabel("Search my library").fill("needle");
  await page.getByRole("button", { name: "Search library" }).click();
  await library.getByRole("link", { name: "Needle in a haystack" }).waitFor();
  await page.getByLabel("Search my library").fill("zzz nothing");
  await page.getByRole("button", { name: "Search library" }).click();
  await library.getByText("Nothing in your library matches “zzz nothing”.").waitFor();
  await expectClean(page, problems);
  await context.close();
});
