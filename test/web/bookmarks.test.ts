/**
 * Bookmarks in real headless Chromium: "Add bookmark" in the player saves the position playing now with a
 * note; the episode's page lists it at once; its button in the player and "Play from" on the page seek there;
 * its note is edited and it is deleted from the page, by keyboard; no serious axe violation and nothing
 * wider than the screen, at phone size (light) and desktop size (dark).
 */
import type { Locator, Page } from "playwright-core";
import { api } from "../helpers/client";
import { createAdmin } from "../helpers/accounts";
import { wavBytes } from "../helpers/audio";
import { startLoopback, type Loopback } from "../helpers/loopback";
import { mediaRoute } from "../helpers/media";
import { startServer, type TestServer } from "../helpers/server";
import { until } from "../helpers/wait";
import { axeViolations, DESKTOP, startBrowser, type WebBrowser, type WebSession } from "../helpers/web";

let server: TestServer;
let loop: Loopback;
let web: WebBrowser;
let session: WebSession;
let episode_id: number;

const SECONDS = 60;

beforeAll(async () => {
  loop = await startLoopback();
  loop.route("/talk.wav", mediaRoute(wavBytes({ title: "Talk" }, SECONDS), "audio/wav"));
  loop.route("/feed.xml", {
    headers: { "Content-Type": "application/rss+xml" },
    body: `<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel><title>Bookmark Show</title><link>https://example.test/</link><description>test feed</description>
<item><title>Marked talk</title><guid>talk</guid><pubDate>${new Date(Date.UTC(2024, 0, 10)).toUTCString()}</pubDate><itunes:duration>${SECONDS}</itunes:duration><enclosure url="${loop.url}/talk.wav" length="${8000 * SECONDS}" type="audio/wav"/></item>
</channel></rss>`,
  });
  server = await startServer();
  web = await startBrowser();
  const key = await createAdmin(server.url);
  const user_id = (await api(server.url).get("/api/data/get_user").set("Api-Key", key)).body.retrieved_id;
  session = { key, user_id, username: "root", is_admin: true };
  const added = await api(server.url)
    .post("/api/data/add_podcast")
    .set("Api-Key", key)
    .send({ podcast_values: { pod_feed_url: `${loop.url}/feed.xml`, pod_title: "Bookmark Show", user_id } });
  expect(added.status).toBe(200);
  const eps = await api(server.url).get("/api/data/podcast_episodes").query({ user_id, podcast_id: added.body.podcast_id }).set("Api-Key", key);
  episode_id = eps.body.episodes[0].episodeid;
});
afterAll(async () => {
  await web?.close();
  await server?.stop();
  await loop?.close();
});

const bookmarks = async () =>
  (await api(server.url).get("/api/data/bookmarks").query({ user_id: session.user_id, episode_id }).set("Api-Key", session.key)).body.bookmarks as any[];
const player = (page: Page) => page.getByRole("region", { name: "Player" });
const currentTime = (page: Page) =>
  player(page)
    .locator("audio")
    .evaluate((a: HTMLAudioElement) => a.currentTime);
const near = (page: Page, at: number) => until(async () => Math.abs((await currentTime(page)) - at) < 0.75, 10_000, 100);
/** The player's and the page's m:ss of a position. */
const clock = (seconds: number) => `0:${String(Math.round(seconds)).padStart(2, "0")}`;

async function checkLayout(page: Page, width: number) {
  expect(await axeViolations(page)).toEqual([]);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBe(width);
}

test("a bookmark added while playing is listed on the episode's page, seeks from both lists, and is edited and deleted there", async () => {
  const w = await web.open(server.url, { session });
  const { page } = w;
  await page.goto(`${server.url}/episode/${episode_id}`);
  const section: Locator = page.getByRole("region", { name: "Bookmarks" });
  await section.getByText("No bookmarks yet", { exact: false }).waitFor();
  await page.getByRole("button", { name: "Play", exact: true }).click();
  await player(page).getByRole("button", { name: "Pause" }).waitFor({ timeout: 10_000 });
  await player(page).getByLabel("Position").fill("20");
  await near(page, 20);

  // While it plays: the player's bookmarks open, a note, "Add bookmark".
  await player(page).getByText("Bookmarks", { exact: true }).click();
  await player(page).getByLabel("Bookmark note (optional)").fill("The best quote");
  await player(page).getByRole("button", { name: "Add bookmark" }).click();
  await player(page).getByRole("status").getByText("Bookmark added at", { exact: false }).waitFor();
  expect(await player(page).getByRole("button", { name: "Pause" }).count()).toBe(1); // still playing
  const [saved] = await bookmarks();
  expect(saved).toMatchObject({ note: "The best quote", episode_title: "Marked talk", podcast_name: "Bookmark Show" });
  expect(saved.position).toBeGreaterThanOrEqual(20);
  expect(saved.position).toBeLessThan(26);
  expect(await player(page).getByLabel("Bookmark note (optional)").inputValue()).toBe("");
  const at = clock(saved.position);

  // The episode's page shows it without a reload.
  await section.getByRole("button", { name: `Play from ${at}` }).waitFor();
  await section.getByText("The best quote", { exact: true }).waitFor();
  await checkLayout(page, 390);

  // The player's bookmark seeks there; so does "Play from" on the page.
  await player(page).getByLabel("Position").fill("50");
  await near(page, 50);
  await player(page)
    .getByRole("button", { name: `Go to ${at} The best quote` })
    .click();
  await near(page, saved.position);
  await player(page).getByLabel("Position").fill("45");
  await near(page, 45);
  await section.getByRole("button", { name: `Play from ${at}` }).click();
  await near(page, saved.position);

  // Its note, edited on the page.
  await section.getByRole("button", { name: `Edit note of the bookmark at ${at}` }).click();
  await section.getByLabel(`Note for ${at}`).fill("A better note");
  await section.getByRole("button", { name: "Save note" }).click();
  await section.getByText("A better note", { exact: true }).waitFor();
  expect((await bookmarks())[0].note).toBe("A better note");
  await player(page)
    .getByRole("button", { name: `Go to ${at} A better note` })
    .waitFor();

  // Deleted by keyboard: the focus lands on the section's heading, both lists empty.
  await section.getByRole("button", { name: `Delete the bookmark at ${at}` }).focus();
  await page.keyboard.press("Enter");
  await section.getByText("No bookmarks yet", { exact: false }).waitFor();
  expect(await bookmarks()).toEqual([]);
  expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Bookmarks");
  await player(page)
    .getByRole("button", { name: /^Go to/ })
    .waitFor({ state: "detached" });
  expect(w.problems).toEqual([]);
  await w.context.close();
});

test("at desktop size in the dark theme the player's bookmarks and the page's list pass axe and fit the screen", async () => {
  expect(
    (
      await api(server.url)
        .post("/api/data/bookmarks")
        .set("Api-Key", session.key)
        .send({ user_id: session.user_id, episode_id, position: 12, note: "Kept from the desktop" })
    ).status,
  ).toBe(200);
  const w = await web.open(server.url, { session, viewport: DESKTOP });
  const { page } = w;
  await page.emulateMedia({ colorScheme: "dark" });
  await page.goto(`${server.url}/episode/${episode_id}`);
  const section = page.getByRole("region", { name: "Bookmarks" });
  await section.getByRole("button", { name: "Play from 0:12" }).click();
  await player(page).getByRole("button", { name: "Pause" }).waitFor({ timeout: 10_000 });
  await near(page, 12);
  await player(page).getByText("Bookmarks", { exact: true }).click();
  await player(page).getByRole("button", { name: "Go to 0:12 Kept from the desktop" }).waitFor();
  await checkLayout(page, DESKTOP.width);
  expect(w.problems).toEqual([]);
  await w.context.close();
});
