/**
 * The region "Player" in real headless Chromium: an episode (a WAV served on loopback, streamed through the
 * server) plays from where the server has it, writes its position back (every 15 s while playing, at pause,
 * seek and when the page is left), resumes there after a reload, follows the speed select, the keys, the
 * chapters and the Media Session; at the end the episode is marked played, leaves the queue, and the next
 * queued one starts.
 */
import type { Page } from "playwright-core";
import { api } from "../helpers/client";
import { createAdmin } from "../helpers/accounts";
import { wavBytes } from "../helpers/audio";
import { startLoopback, type Loopback } from "../helpers/loopback";
import { mediaRoute } from "../helpers/media";
import { startServer, type TestServer } from "../helpers/server";
import { until } from "../helpers/wait";
import { axeViolations, screenshot, startBrowser, type WatchedPage, type WebBrowser, type WebSession } from "../helpers/web";

let server: TestServer;
let loop: Loopback;
let web: WebBrowser;
let session: WebSession;
const ep: Record<string, number> = {};

const EPISODES = [
  { key: "long", title: "Long talk", seconds: 60, chapters: true },
  { key: "short", title: "Short news", seconds: 40, chapters: false },
  { key: "next", title: "Next up", seconds: 30, chapters: false },
  // A video's enclosure (its bytes are the same WAV: a <video> plays sound too).
  { key: "video", title: "Video clip", seconds: 20, chapters: false, type: "video/webm" },
];

function feed(url: string): string {
  const items = EPISODES.map(
    (e, i) =>
      `<item><title>${e.title}</title><guid>${e.key}</guid><pubDate>${new Date(Date.UTC(2024, 0, 10 - i)).toUTCString()}</pubDate>` +
      `<itunes:duration>${e.seconds}</itunes:duration><enclosure url="${url}/${e.key}.wav" length="${8000 * e.seconds}" type="${e.type ?? "audio/wav"}"/>` +
      (e.chapters ? `<podcast:chapters url="${url}/${e.key}-chapters.json" type="application/json+chapters"/>` : "") +
      `</item>`,
  ).join("\n");
  return `<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd" xmlns:podcast="https://podcastindex.org/namespace/1.0"><channel><title>Player Show</title><link>https://example.test/</link><description>test feed</description>\n${items}\n</channel></rss>`;
}

const get = (path: string, query: Record<string, unknown> = {}) => api(server.url).get(path).query(query).set("Api-Key", session.key);
const post = (path: string, body: object) => api(server.url).post(path).set("Api-Key", session.key).send(body);
const meta = async (episode_id: number) => (await post("/api/data/get_episode_metadata", { episode_id, user_id: session.user_id })).body.episode;
const queueIds = async () => (await get("/api/data/get_queued_episodes", { user_id: session.user_id })).body.data.map((e: any) => e.episodeid);

beforeAll(async () => {
  loop = await startLoopback();
  for (const e of EPISODES) loop.route(`/${e.key}.wav`, mediaRoute(wavBytes({ title: e.title }, e.seconds), "audio/wav"));
  loop.route("/long-chapters.json", {
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({
      version: "1.2.0",
      chapters: [
        { startTime: 0, title: "Welcome" },
        { startTime: 20, title: "The main part" },
        { startTime: 45, title: "Goodbye" },
      ],
    }),
  });
  loop.route("/feed.xml", { headers: { "Content-Type": "application/rss+xml" }, body: feed(loop.url) });
  server = await startServer();
  web = await startBrowser();
  const key = await createAdmin(server.url);
  const user_id = (await api(server.url).get("/api/data/get_user").set("Api-Key", key)).body.retrieved_id;
  session = { key, user_id, username: "root", is_admin: true };
  const added = await post("/api/data/add_podcast", { podcast_values: { pod_feed_url: `${loop.url}/feed.xml`, pod_title: "Player Show", user_id } });
  expect(added.status).toBe(200);
  const eps = await get("/api/data/podcast_episodes", { user_id, podcast_id: added.body.podcast_id });
  for (const e of eps.body.episodes) ep[EPISODES.find((x) => x.title === e.episodetitle)!.key] = e.episodeid;
});
afterAll(async () => {
  await web?.close();
  await server?.stop();
  await loop?.close();
});

const player = (page: Page) => page.getByRole("region", { name: "Player" });
const audio = (page: Page) => player(page).locator("audio");
const currentTime = (page: Page) => audio(page).evaluate((a: HTMLAudioElement) => a.currentTime);
const paused = (page: Page) => audio(page).evaluate((a: HTMLAudioElement) => a.paused);
async function waitPage(page: Page, check: () => Promise<boolean>, timeout = 15_000) {
  await until(check, timeout, 100);
}

test("an episode plays from the server's position, writes it back while playing, on leaving and at pause, and resumes there after a reload", async () => {
  for (const k of ["long", "short", "next"]) expect((await post("/api/data/queue_pod", { episode_id: ep[k], user_id: session.user_id })).status).toBe(200);
  // The server already has a place in the episode (another device): playing starts there.
  expect((await post("/api/data/record_listen_duration", { episode_id: ep.long, user_id: session.user_id, listen_duration: 5 })).status).toBe(200);
  const w: WatchedPage = await web.open(server.url, { session });
  const { page } = w;
  await page.goto(server.url + "/queue");
  await page.getByRole("button", { name: "Play Long talk" }).click();
  await expectText(player(page), "Long talk");
  await player(page).getByRole("button", { name: "Pause" }).waitFor({ timeout: 10_000 });
  expect(await currentTime(page)).toBeGreaterThanOrEqual(5);

  // Faster: the element follows the select.
  await player(page).getByLabel("Playback speed").selectOption("2");
  expect(await audio(page).evaluate((a: HTMLAudioElement) => a.playbackRate)).toBe(2);
  // ... and it is the person's default speed on the server from now on.
  await until(
    async () =>
      (await api(server.url).post("/api/data/get_playback_speed").set("Api-Key", session.key).send({ user_id: session.user_id })).body.playback_speed === 2,
    10_000,
    100,
  );
  // The system's media controls know the episode.
  expect(await page.evaluate(() => [navigator.mediaSession.metadata?.title, navigator.mediaSession.metadata?.artist])).toEqual(["Long talk", "Player Show"]);

  // Within 15 s of playing, the position reaches the server without a pause.
  await until(async () => (await meta(ep.long)).listenduration >= 15, 20_000, 250);
  expect(await paused(page)).toBe(false);

  // Leaving the page (a reload) sends where it was; the new page opens there, paused until asked.
  await page.waitForTimeout(1500);
  const before = await currentTime(page);
  await page.reload();
  await expectText(player(page), "Long talk");
  await player(page).getByRole("button", { name: "Play" }).waitFor();
  await until(async () => Math.abs((await meta(ep.long)).listenduration - before) <= 2, 10_000, 100);
  const stored = (await meta(ep.long)).listenduration;
  await waitPage(page, async () => Math.abs((await currentTime(page)) - stored) <= 1.5);
  expect(await paused(page)).toBe(true);
  // At the speed the person chose before the reload, now their default.
  expect(await audio(page).evaluate((a: HTMLAudioElement) => a.playbackRate)).toBe(2);

  // Space plays and pauses (focus on the page, not in a control); pausing sends the position.
  await page.getByRole("heading", { level: 1 }).focus();
  await page.keyboard.press("Space");
  await waitPage(page, async () => !(await paused(page)));
  await player(page).getByRole("button", { name: "Pause" }).waitFor();
  await page.waitForTimeout(1200);
  await page.keyboard.press("Space");
  await waitPage(page, () => paused(page));
  const at = await currentTime(page);
  expect(at).toBeGreaterThan(stored);
  await until(async () => Math.abs((await meta(ep.long)).listenduration - Math.floor(at)) <= 1, 10_000, 100);

  // The right arrow seeks ahead 10 s; the seek reaches the server too.
  await page.keyboard.press("ArrowRight");
  await waitPage(page, async () => Math.abs((await currentTime(page)) - (at + 10)) < 0.5);
  await until(async () => Math.abs((await meta(ep.long)).listenduration - Math.floor(at + 10)) <= 1, 10_000, 100);
  // "Skip back" goes 15 s back.
  await player(page).getByRole("button", { name: "Skip back" }).click();
  await waitPage(page, async () => Math.abs((await currentTime(page)) - (at - 5)) < 0.5);

  // Chapters from the feed's chapters file: choosing one goes there.
  const chapters = player(page).getByLabel("Chapters");
  await expect(chapters.locator("option").allTextContents()).resolves.toEqual(["0:00 Welcome", "0:20 The main part", "0:45 Goodbye"]);
  await chapters.selectOption({ label: "0:45 Goodbye" });
  await waitPage(page, async () => Math.abs((await currentTime(page)) - 45) < 0.5);
  // The slider seeks.
  await player(page).getByLabel("Position").fill("30");
  await waitPage(page, async () => Math.abs((await currentTime(page)) - 30) < 0.5);
  await until(async () => (await meta(ep.long)).listenduration === 30, 10_000, 100);

  expect(await axeViolations(page)).toEqual([]);
  await screenshot(page, "player-phone");
  expect(w.problems).toEqual([]);
  await w.context.close();
});

test("at the end the episode is marked played, leaves the queue, and the next queued one starts", async () => {
  expect(await queueIds()).toEqual([ep.long, ep.short, ep.next]);
  const w = await web.open(server.url, { session });
  const { page } = w;
  await page.goto(server.url + "/queue");
  await page.getByRole("button", { name: "Play Short news" }).click();
  await player(page).getByRole("button", { name: "Pause" }).waitFor({ timeout: 10_000 });
  await expectText(player(page), "Short news");
  await player(page).getByLabel("Position").fill("37");

  await until(async () => (await meta(ep.short)).completed === true, 15_000, 100);
  await until(async () => JSON.stringify(await queueIds()) === JSON.stringify([ep.long, ep.next]), 10_000, 100);
  // The queue page follows; the player goes on with the episode after it.
  await page.getByRole("button", { name: "Play Short news" }).waitFor({ state: "detached" });
  await expectText(player(page), "Next up");
  await player(page).getByRole("button", { name: "Pause" }).waitFor({ timeout: 10_000 });
  await waitPage(page, async () => (await currentTime(page)) > 0.5);
  expect(await audio(page).evaluate((a: HTMLAudioElement) => a.src)).toContain(`/api/data/stream/${ep.next}?`);

  // A video episode plays in a <video> in the player.
  expect((await post("/api/data/queue_pod", { episode_id: ep.video, user_id: session.user_id })).status).toBe(200);
  await page.goto(server.url + "/queue");
  await page.getByRole("button", { name: "Play Video clip" }).click();
  await expectText(player(page), "Video clip");
  await player(page).getByRole("button", { name: "Pause" }).waitFor({ timeout: 10_000 });
  expect(
    await player(page)
      .locator("video")
      .evaluate((v: HTMLVideoElement, id) => [v.paused, v.src.includes(`/api/data/stream/${id}?`)], ep.video),
  ).toEqual([false, true]);
  expect(await audio(page).count()).toBe(0);
  expect(await axeViolations(page)).toEqual([]);
  expect(w.problems).toEqual([]);
  await w.context.close();
});

async function expectText(locator: ReturnType<typeof player>, text: string) {
  await locator.getByText(text, { exact: true }).first().waitFor({ timeout: 10_000 });
}
