/**
 * The list pages in real headless Chromium, checked against what the server has: the queue (reordered with
 * the keyboard and by dragging, an episode removed), saved episodes, the history (paged, searchable), the
 * smart playlists, and downloads (a task's progress arriving over the tasks WebSocket, a download deleted).
 */
import type { Page } from "playwright-core";
import { config } from "../../shared/config";
import { api } from "../helpers/client";
import { createAdmin } from "../helpers/accounts";
import { wavBytes } from "../helpers/audio";
import { startLoopback, type Loopback } from "../helpers/loopback";
import { mediaRoute } from "../helpers/media";
import { rssFeed } from "../helpers/podcasts";
import { startServer, tempDir, type TestServer } from "../helpers/server";
import { until } from "../helpers/wait";
import { axeViolations, DESKTOP, screenshot, startBrowser, type WatchedPage, type WebBrowser, type WebSession } from "../helpers/web";

let server: TestServer;
let loop: Loopback;
let web: WebBrowser;
let session: WebSession;
const ep: Record<string, number> = {};
const TITLES = Array.from({ length: 28 }, (_, i) => `Episode ${String(i + 1).padStart(2, "0")}`);
const SLOW = "Slow download";

const get = (path: string, query: Record<string, unknown> = {}) => api(server.url).get(path).query(query).set("Api-Key", session.key);
const post = (path: string, body: object) => api(server.url).post(path).set("Api-Key", session.key).send(body);
const queueTitles = async () => (await get("/api/data/get_queued_episodes", { user_id: session.user_id })).body.data.map((e: any) => e.episodetitle);
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

beforeAll(async () => {
  Object.assign(config, { refreshInterval: 0, downloadDir: tempDir("podcast-web-dl-"), workerPollMs: 100 });
  loop = await startLoopback();
  const short = mediaRoute(wavBytes({ title: "short" }, 1), "audio/wav");
  const items = TITLES.map((title, i) => ({
    title,
    guid: `g${i}`,
    url: `${loop.url}/e${i}.wav`,
    date: new Date(Date.UTC(2024, 0, 1 + i)).toISOString(),
    duration: 600,
  }));
  for (let i = 0; i < TITLES.length; i++) loop.route(`/e${i}.wav`, short);
  // 480 KB in 64 KB pieces 600 ms apart: a few seconds of download, so that progress shows on the way.
  loop.route("/slow.wav", mediaRoute(wavBytes({ title: SLOW }, 60), "audio/wav", 600));
  items.push({ title: SLOW, guid: "slow", url: `${loop.url}/slow.wav`, date: "2023-06-01T00:00:00Z", duration: 60 });
  loop.route("/feed.xml", { headers: { "Content-Type": "application/rss+xml" }, body: rssFeed("List Show", items) });
  server = await startServer();
  web = await startBrowser();
  const key = await createAdmin(server.url);
  const user_id = (await api(server.url).get("/api/data/get_user").set("Api-Key", key)).body.retrieved_id;
  session = { key, user_id, username: "root", is_admin: true };
  const added = await post("/api/data/add_podcast", { podcast_values: { pod_feed_url: `${loop.url}/feed.xml`, pod_title: "List Show", user_id } });
  expect(added.status).toBe(200);
  const eps = await get("/api/data/podcast_episodes", { user_id, podcast_id: added.body.podcast_id, limit: 100 });
  for (const e of eps.body.episodes) ep[e.episodetitle] = e.episodeid;
  expect(Object.keys(ep)).toHaveLength(TITLES.length + 1);
});
afterAll(async () => {
  await web?.close();
  await server?.stop();
  await loop?.close();
});

async function opened(path: string, viewport?: { width: number; height: number }): Promise<WatchedPage & { page: Page }> {
  const w = await web.open(server.url, { session, viewport });
  await w.page.goto(server.url + path);
  return w;
}

async function checked(w: WatchedPage, shot?: string) {
  expect(await axeViolations(w.page)).toEqual([]);
  if (shot) await screenshot(w.page, shot);
  expect(w.problems).toEqual([]);
}

test("the queue: in the server's order, reordered with the keyboard and by dragging, an episode removed", async () => {
  for (const t of TITLES.slice(0, 3)) expect((await post("/api/data/queue_pod", { episode_id: ep[t], user_id: session.user_id })).status).toBe(200);
  const w = await opened("/queue");
  const { page } = w;
  const shown = () => page.locator("main ol > li h2 a").allTextContents();
  await page.getByRole("button", { name: "Move down Episode 03" }).waitFor();
  expect(await shown()).toEqual(["Episode 01", "Episode 02", "Episode 03"]);

  // Keyboard: Enter on "Move down"; focus stays on the moved episode's button.
  await page.getByRole("button", { name: "Move down Episode 01" }).focus();
  await page.keyboard.press("Enter");
  await until(async () => same(await shown(), ["Episode 02", "Episode 01", "Episode 03"]), 5000);
  expect(await page.evaluate(() => document.activeElement?.textContent)).toContain("Move down Episode 01");
  await until(async () => same(await queueTitles(), ["Episode 02", "Episode 01", "Episode 03"]), 5000);
  await page.keyboard.press("Enter");
  await until(async () => same(await shown(), ["Episode 02", "Episode 03", "Episode 01"]), 5000);
  // At the end "Move down" is off: focus went to "Move up" of the same episode.
  expect(await page.evaluate(() => document.activeElement?.textContent)).toContain("Move up Episode 01");
  await until(async () => same(await queueTitles(), ["Episode 02", "Episode 03", "Episode 01"]), 5000);

  // Dragging (HTML5 drag and drop): the last one onto the first.
  await page.locator(`li[data-episode="${ep["Episode 01"]}"]`).dragTo(page.locator(`li[data-episode="${ep["Episode 02"]}"]`));
  await until(async () => same(await shown(), ["Episode 01", "Episode 02", "Episode 03"]), 5000);
  await until(async () => same(await queueTitles(), ["Episode 01", "Episode 02", "Episode 03"]), 5000);

  await page.getByRole("button", { name: "Remove from queue Episode 02" }).click();
  await until(async () => same(await shown(), ["Episode 01", "Episode 03"]), 5000);
  expect(await queueTitles()).toEqual(["Episode 01", "Episode 03"]);
  await checked(w, "queue-phone");
  await page.setViewportSize(DESKTOP);
  await screenshot(page, "queue-desktop");
  await w.context.close();
});

test("saved: what the server has saved, and one removed", async () => {
  for (const t of ["Episode 04", "Episode 05"])
    expect((await post("/api/data/save_episode", { episode_id: ep[t], user_id: session.user_id, is_vidsite: false })).status).toBe(200);
  const w = await opened("/saved");
  const { page } = w;
  await page.getByRole("button", { name: "Remove from saved Episode 04" }).waitFor();
  expect(await page.locator("main ul.list > li h3").allTextContents()).toEqual(["Episode 05", "Episode 04"]);
  await page.getByRole("button", { name: "Remove from saved Episode 04" }).click();
  await page.getByRole("button", { name: "Remove from saved Episode 04" }).waitFor({ state: "detached" });
  const saved = (await get(`/api/data/saved_episode_list/${session.user_id}`)).body;
  expect(saved.saved_episodes.map((e: any) => e.episodetitle)).toEqual(["Episode 05"]);
  await checked(w, "saved-phone");
  await w.context.close();
});

test("history: the server's history a page at a time, and a search", async () => {
  for (const t of TITLES.slice(0, 27))
    expect((await post("/api/data/record_listen_duration", { episode_id: ep[t], user_id: session.user_id, listen_duration: 30 })).status).toBe(200);
  const server_history = (await get(`/api/data/user_history/${session.user_id}`, { limit: 25 })).body;
  expect(server_history.total).toBe(27);
  const w = await opened("/history");
  const { page } = w;
  const shown = () => page.locator("main ul.list > li h3").allTextContents();
  await page.getByText("Showing 25 of 27 episodes").waitFor();
  expect(await shown()).toEqual(server_history.data.map((e: any) => e.episodetitle));
  await page.getByRole("button", { name: "Load more" }).click();
  await page.getByText("Showing 27 of 27 episodes").waitFor();
  expect(await page.getByRole("button", { name: "Load more" }).count()).toBe(0);

  await page.getByLabel("Search history").fill("Episode 07");
  await until(async () => same(await shown(), ["Episode 07"]), 5000);
  expect(page.url()).toContain("/history?q=Episode%2007");
  await page.getByLabel("Search history").fill("nothing like this");
  await page.getByText("Nothing in your history matches “nothing like this”.").waitFor();
  await page.getByLabel("Search history").fill("");
  await page.getByText("Showing 25 of 27 episodes").waitFor();
  await checked(w, "history-phone");
  await w.context.close();
});

test("playlists: the server's smart playlists, and one's episodes", async () => {
  const lists = (await get("/api/data/get_playlists", { user_id: session.user_id })).body.playlists;
  const w = await opened("/playlists");
  const { page } = w;
  const names = page.locator("main ul.list > li h2 a");
  await names.first().waitFor();
  expect(await names.allTextContents()).toEqual(lists.map((p: any) => p.name));
  await checked(w);

  const listening = lists.find((p: any) => p.name === "Currently Listening");
  await page.getByRole("link", { name: "Currently Listening" }).click();
  await page.waitForURL(new RegExp(`/playlists/${listening.playlist_id}$`));
  await page.getByRole("heading", { level: 1, name: "Currently Listening" }).waitFor();
  const expected = (await get("/api/data/get_playlist_episodes", { user_id: session.user_id, playlist_id: listening.playlist_id, limit: 25 })).body;
  expect(expected.total).toBe(27);
  await page.getByText(`Showing 25 of ${expected.total} episodes`).waitFor();
  expect(await page.locator("main ul.list > li h3").allTextContents()).toEqual(expected.episodes.map((e: any) => e.episodetitle));
  await checked(w, "playlist-phone");
  await w.context.close();
});

test("downloads: a task's progress arrives over the WebSocket, the file is listed, and its download deleted", async () => {
  const w = await opened("/downloads");
  const { page } = w;
  await page.getByText("Progress shows here as it happens.").waitFor();
  await page.getByText("No episode is downloaded to this server.", { exact: false }).waitFor();

  const res = await post("/api/data/download_podcast", { episode_id: ep[SLOW], user_id: session.user_id });
  expect(res.status).toBe(200);
  const bar = page.getByRole("progressbar", { name: `Progress of ${SLOW}` });
  await bar.waitFor();
  // Part way: the page shows a value between start and end, which only the socket's updates bring.
  await until(
    async () => {
      const v = await bar.evaluate((p: HTMLProgressElement) => p.value).catch(() => 0);
      return v > 0 && v < 100;
    },
    15_000,
    50,
  );
  await page.getByText(/^Downloading: \d+%$/).waitFor();
  await page
    .getByRole("region", { name: "Tasks" })
    .getByText(/^Downloaded/)
    .waitFor({ timeout: 20_000 });
  expect(await bar.evaluate((p: HTMLProgressElement) => p.value)).toBe(100);

  // The downloaded file is listed (read again when the task finished).
  const remove = page.getByRole("button", { name: `Delete download ${SLOW}` });
  await remove.waitFor({ timeout: 10_000 });
  const files = (await get("/api/data/download_episode_list", { user_id: session.user_id })).body.downloaded_episodes;
  expect(files.map((e: any) => e.episodetitle)).toEqual([SLOW]);
  await checked(w, "downloads-phone");

  await remove.click();
  await remove.waitFor({ state: "detached" });
  expect((await get("/api/data/download_episode_list", { user_id: session.user_id })).body.downloaded_episodes).toEqual([]);
  expect(w.problems).toEqual([]);
  await w.context.close();
});
