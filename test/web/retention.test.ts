/**
 * The retention forms in Chromium, used from the keyboard by their labels: the person's default in Settings
 * (Downloads), a podcast's own on its page and "Use my default" clearing it. What the forms saved is read
 * back from the server, including through the older auto-delete route (delete_after_days is its days).
 */
import type { Page } from "playwright-core";
import { config } from "../../shared/config";
import { api } from "../helpers/client";
import { createAdmin } from "../helpers/accounts";
import { startLoopback, Loopback } from "../helpers/loopback";
import { rssFeed } from "../helpers/podcasts";
import { startServer, tempDir, TestServer } from "../helpers/server";
import { axeViolations, startBrowser, WebBrowser, WebSession } from "../helpers/web";

let server: TestServer;
let peer: Loopback;
let web: WebBrowser;
let session: WebSession;
let podcastId = 0;
const get = (path: string, query: Record<string, unknown> = {}) => api(server.url).get(path).query(query).set("Api-Key", session.key);
const retention = async (query: object = {}) => (await get("/api/data/retention", { user_id: session.user_id, ...query })).body;
const status = (page: Page, text: string) => page.getByRole("status").filter({ hasText: text }).waitFor({ timeout: 10_000 });

beforeAll(async () => {
  Object.assign(config, { refreshInterval: 0, autoDeleteInterval: 0, downloadDir: tempDir("retention-web-dl-") });
  peer = await startLoopback({});
  peer.route("/feed.xml", { body: rssFeed("Kept Show", [{ title: "one", guid: "one", url: `${peer.url}/one.mp3`, date: "2024-01-01T00:00:00Z" }]) });
  server = await startServer();
  web = await startBrowser();
  const key = await createAdmin(server.url);
  session = { key, user_id: (await api(server.url).get("/api/data/get_user").set("Api-Key", key)).body.retrieved_id, username: "root", is_admin: true };
  const added = await api(server.url)
    .post("/api/data/add_podcast")
    .set("Api-Key", key)
    .send({ podcast_values: { pod_feed_url: `${peer.url}/feed.xml`, user_id: session.user_id } });
  podcastId = added.body.podcast_id;
});
afterAll(async () => {
  await web?.close();
  await server?.stop();
  await peer?.close();
});

test("the default in Settings and a podcast's own on its page, saved and cleared from the keyboard", async () => {
  const { page, problems } = await web.open(server.url, { session });
  await page.goto(`${server.url}/settings/downloads`);
  await page.getByRole("heading", { name: "Downloads" }).waitFor();
  const keepLast = page.getByLabel("Keep the last (episodes, 0 = all)");
  await keepLast.waitFor();
  expect(await keepLast.inputValue()).toBe("0");
  expect(await page.getByLabel("Never delete saved episodes").isChecked()).toBe(true);
  await keepLast.focus();
  await page.keyboard.press("Control+A");
  await page.keyboard.type("3");
  await page.keyboard.press("Tab");
  await page.keyboard.press("Control+A");
  await page.keyboard.type("14");
  await page.keyboard.press("Enter");
  await status(page, "Download retention saved.");
  expect(await retention()).toMatchObject({ keep_last: 3, delete_after_days: 14, keep_saved: true });
  const days = await api(server.url).post("/api/data/get_auto_download_delete_days").set("Api-Key", session.key).send({ user_id: session.user_id });
  expect(days.body).toEqual({ days: 14, customized: false });
  expect(await axeViolations(page)).toEqual([]);

  await page.goto(`${server.url}/podcast/${podcastId}`);
  await page.getByRole("heading", { name: "Downloads kept" }).waitFor();
  await page.getByText("Your default applies").waitFor();
  const own = page.getByLabel("Keep the last (episodes, 0 = all)");
  expect(await own.inputValue()).toBe("3");
  await own.fill("5");
  await page.getByLabel("Never delete saved episodes").focus();
  await page.keyboard.press("Space");
  await page.getByRole("button", { name: "Save download retention" }).press("Enter");
  await status(page, "Download retention saved.");
  await page.getByText("This podcast has its own settings.").waitFor();
  expect(await retention({ podcast_id: podcastId })).toMatchObject({ keep_last: 5, delete_after_days: 14, keep_saved: false, customized: true });
  expect(await axeViolations(page)).toEqual([]);

  await page.getByRole("button", { name: "Use my default" }).press("Enter");
  await status(page, "This podcast follows your default again.");
  expect(await own.inputValue()).toBe("3");
  expect(await page.getByLabel("Never delete saved episodes").isChecked()).toBe(true);
  expect(await retention({ podcast_id: podcastId })).toMatchObject({ keep_last: 3, keep_saved: true, customized: false });
  expect(problems).toEqual([]);
});
