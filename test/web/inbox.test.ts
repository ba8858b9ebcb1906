/**
 * The inbox and the episode filters in real headless Chromium at a phone's size, checked against the server:
 * the navigation's "Inbox" link with its count, the Inbox page (newest first; "Add to queue", "Dismiss" with the
 * keyboard, "Dismiss all" of a podcast), and the filters form on a podcast's page (an expression the server
 * refuses shown in words, filters saved, the episode list showing only what passes).
 */
import type { Page } from "playwright-core";
import { config } from "../../shared/config";
import { api } from "../helpers/client";
import { createAdmin } from "../helpers/accounts";
import { feedXml, type FeedItem } from "../helpers/inbox";
import { startLoopback, type Loopback } from "../helpers/loopback";
import { startServer, type TestServer } from "../helpers/server";
import { until } from "../helpers/wait";
import { axeViolations, DESKTOP, PHONE, screenshot, startBrowser, type WebBrowser, type WebSession } from "../helpers/web";

let server: TestServer;
let loop: Loopback;
let web: WebBrowser;
let session: WebSession;
let talk = 0;

const OLD: FeedItem[] = [{ title: "Old interview", minutes: -600, duration: 1200 }];
const get = (path: string, query: Record<string, unknown> = {}) => api(server.url).get(path).query(query).set("Api-Key", session.key);
const post = (path: string, body: object) => api(server.url).post(path).set("Api-Key", session.key).send(body);
const inboxTitles = async () => (await get("/api/data/inbox", { user_id: session.user_id })).body.episodes.map((e: any) => e.episodetitle);
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

beforeAll(async () => {
  config.refreshInterval = 0;
  loop = await startLoopback();
  const serve = (name: string, title: string, items: FeedItem[]) =>
    loop.route(`/${name}.xml`, { headers: { "Content-Type": "application/rss+xml" }, body: feedXml(loop, title, items) });
  serve("talk", "Talk Show", OLD);
  serve("music", "Music Hour", [{ title: "Old set", minutes: -600 }]);
  server = await startServer();
  web = await startBrowser();
  const key = await createAdmin(server.url);
  const user_id = (await api(server.url).get("/api/data/get_user").set("Api-Key", key)).body.retrieved_id;
  session = { key, user_id, username: "root", is_admin: true };
  const add = async (name: string) =>
    (await post("/api/data/add_podcast", { podcast_values: { pod_feed_url: `${loop.url}/${name}.xml`, user_id } })).body.podcast_id;
  talk = await add("talk");
  await add("music");
  // Published after the subscriptions: the inbox's.
  serve("talk", "Talk Show", [
    ...OLD,
    { title: "Interview with Ada", minutes: 3, duration: 3000, description: "<p>A long talk</p>" },
    { title: "Trailer", minutes: 2, duration: 60 },
  ]);
  serve("music", "Music Hour", [
    { title: "Old set", minutes: -600 },
    { title: "Set one", minutes: 4 },
    { title: "Set two", minutes: 1 },
  ]);
  expect((await get("/api/data/refresh_pods")).status).toBe(200);
  expect(await inboxTitles()).toEqual(["Set one", "Interview with Ada", "Trailer", "Set two"]);
});
afterAll(async () => {
  await web?.close();
  await server?.stop();
  await loop?.close();
});

async function checkLayout(page: Page, width: number) {
  expect(await axeViolations(page)).toEqual([]);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBe(width);
}

test("the Inbox: its count in the navigation, newest first, queued and dismissed with the keyboard, a podcast dismissed whole", async () => {
  const w = await web.open(server.url, { session });
  const { page } = w;
  await page.goto(server.url + "/");
  const nav = page.getByRole("navigation", { name: "Main" });
  await nav.getByRole("link", { name: "Inbox 4 new", exact: true }).click();
  await page.getByRole("heading", { level: 1, name: "Inbox" }).waitFor();
  const shown = () => page.locator("main ul.list > li h3").allTextContents();
  await until(async () => same(await shown(), ["Set one", "Interview with Ada", "Trailer", "Set two"]), 10_000);
  expect(await page.getByRole("link", { name: "Inbox 4 new" }).getAttribute("aria-current")).toBe("page");
  await checkLayout(page, PHONE.width);
  await screenshot(page, "inbox-phone");

  // The keyboard: focus "Dismiss Trailer", Enter.
  await page.getByRole("button", { name: "Dismiss Trailer" }).focus();
  await page.keyboard.press("Enter");
  await until(async () => same(await shown(), ["Set one", "Interview with Ada", "Set two"]), 5000);
  await nav.getByRole("link", { name: "Inbox 3 new", exact: true }).waitFor();
  expect(await inboxTitles()).toEqual(["Set one", "Interview with Ada", "Set two"]);

  await page.getByRole("button", { name: "Add to queue Interview with Ada" }).click();
  await until(async () => same(await shown(), ["Set one", "Set two"]), 5000);
  const queue = (await get("/api/data/get_queued_episodes", { user_id: session.user_id })).body.data.map((e: any) => e.episodetitle);
  expect(queue).toEqual(["Interview with Ada"]);
  await nav.getByRole("link", { name: "Inbox 2 new", exact: true }).waitFor();

  await page.getByRole("button", { name: "Dismiss all of Music Hour" }).click();
  await page.getByText("Nothing new.", { exact: false }).waitFor();
  await nav.getByRole("link", { name: "Inbox", exact: true }).waitFor();
  expect((await get("/api/data/inbox/count", { user_id: session.user_id })).body).toEqual({ count: 0 });
  await page.emulateMedia({ colorScheme: "dark" });
  await checkLayout(page, PHONE.width);
  expect(w.problems).toEqual([]);
  await w.context.close();
});

test("a podcast's episode filters: a refused expression in words, filters saved, the list showing only what passes", async () => {
  const w = await web.open(server.url, { session });
  const { page } = w;
  await page.goto(`${server.url}/podcast/${talk}`);
  const form = page.getByRole("region", { name: "Episode filters" });
  const include = form.getByLabel("Include episodes matching");
  await include.waitFor();
  await include.fill("/(a+/");
  await form.getByRole("button", { name: "Save filters" }).click();
  await form.getByRole("alert").getByText("not a supported regular expression", { exact: false }).waitFor();
  expect((await get("/api/data/podcast_filters", { user_id: session.user_id, podcast_id: talk })).body.include).toBe("");

  await include.fill("interview");
  await form.getByLabel("Shortest (minutes)").fill("10");
  await include.press("Enter"); // submits the form
  await form.getByText("Filters saved.").waitFor();
  expect((await get("/api/data/podcast_filters", { user_id: session.user_id, podcast_id: talk })).body).toEqual({
    podcast_id: talk,
    include: "interview",
    exclude: "",
    min_duration: 600,
    max_duration: null,
  });

  const episodes = page.getByRole("region", { name: "Episodes" });
  const titles = () => episodes.locator("ul.list > li h3").allTextContents();
  await until(async () => same(await titles(), ["Interview with Ada", "Trailer", "Old interview"]), 5000);
  await form.getByLabel("Only show matching episodes below").check();
  await until(async () => same(await titles(), ["Interview with Ada", "Old interview"]), 5000);
  await form.getByLabel("Only show matching episodes below").uncheck();
  await until(async () => (await titles()).length === 3, 5000);
  await checkLayout(page, PHONE.width);
  await page.setViewportSize(DESKTOP);
  await checkLayout(page, DESKTOP.width);
  await screenshot(page, "podcast-filters-desktop");
  expect(w.problems).toEqual([]);
  await w.context.close();
});
