/**
 * The web app at the server's own address: served by the gateway with the API (no second server), under a
 * strict CSP, each page at its own URL; the shell's navigation landmark and Player region for a signed-in
 * person; nothing from another origin.
 */
import { api } from "../helpers/client";
import { createAdmin } from "../helpers/accounts";
import { startServer, TestServer } from "../helpers/server";
import { axeViolations, DESKTOP, PHONE, startBrowser, WebBrowser } from "../helpers/web";

let server: TestServer;
let web: WebBrowser;
let adminKey = "";

beforeAll(async () => {
  server = await startServer();
  web = await startBrowser();
});
afterAll(async () => {
  await web?.close();
  await server?.stop();
});

test("GET / and every page's address answer the app's HTML under a strict CSP; API paths keep their JSON", async () => {
  for (const path of ["/", "/podcasts", "/podcast/12", "/settings/keys", "/sign-in?next=%2Fqueue"]) {
    const res = await api(server.url).get(path);
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^text\/html/);
    expect(res.headers["content-security-policy"]).toContain("script-src 'self'");
    expect(res.headers["content-security-policy"]).not.toContain("unsafe-inline");
    expect(res.text).toContain('<div id="app">');
  }
  const missing = await api(server.url).get("/api/data/no_such_thing");
  expect(missing.status).toBe(404);
  expect(missing.body.error).toBeDefined();
  expect((await api(server.url).get("/nope")).body.error).toBe("not_found");
  // A browser's page load of an unknown address: the app (its "Page not found"), still a 404; not under the API's paths.
  const lost = await api(server.url).get("/nope/deeper").set("Sec-Fetch-Mode", "navigate");
  expect([lost.status, lost.headers["content-type"]]).toEqual([404, "text/html; charset=utf-8"]);
  expect((await api(server.url).get("/api/data/nope").set("Sec-Fetch-Mode", "navigate")).body.error).toBe("not_found");
  // An API path whose tail looks like a page (moleculer-web hands middlewares req.url without the route's "/api").
  expect((await api(server.url).get("/api/podcast/3")).body.error).toBe("not_found");
  expect((await api(server.url).get("/assets/..%2f..%2fpackage.json")).status).toBe(404);
  // The app's script, gzipped for a browser that takes it, cached for good (its name changes with its content).
  const html = (await api(server.url).get("/")).text;
  const script = html.match(/src="(\/assets\/[^"]+\.js)"/)![1];
  const js = await api(server.url).get(script).set("Accept-Encoding", "gzip");
  expect(js.status).toBe(200);
  expect(js.headers["content-encoding"]).toBe("gzip");
  expect(js.headers["cache-control"]).toContain("immutable");
});

test("a new server opens on the first admin's form; a signed-in person gets the navigation and the player", async () => {
  const first = await web.open(server.url);
  await first.page.goto(server.url + "/queue");
  await first.page.waitForURL(/\/first-run$/);
  await first.context.close();

  adminKey = await createAdmin(server.url);
  const me = (await api(server.url).get("/api/data/get_user").set("Api-Key", adminKey)).body.retrieved_id;
  const { page, context, problems } = await web.open(server.url, { session: { key: adminKey, user_id: me, username: "root", is_admin: true } });
  await page.goto(server.url + "/");
  const nav = page.getByRole("navigation", { name: "Main" });
  for (const name of ["Home", "Podcasts", "Queue", "Saved", "History", "Downloads", "Playlists", "Search", "Settings", "Admin"]) {
    await expectVisible(nav.getByRole("link", { name, exact: true }));
  }
  await expectVisible(page.getByRole("region", { name: "Player" }));
  await nav.getByRole("link", { name: "Queue", exact: true }).click();
  await page.waitForURL(/\/queue$/);
  await page.goBack();
  await page.waitForURL(server.url + "/");
  expect(await axeViolations(page)).toEqual([]);
  expect(problems).toEqual([]);
  await context.close();
});

test("an expired key goes to Sign in, and back to where the person was", async () => {
  const { page, context } = await web.open(server.url, { session: { key: "not-a-valid-key-000000000000", user_id: 1, username: "root", is_admin: true } });
  await page.goto(server.url + "/settings");
  await page.waitForURL(/\/sign-in\?next=%2Fsettings$/);
  await context.close();
});

async function expectVisible(locator: { isVisible(): Promise<boolean>; waitFor(o: object): Promise<void> }) {
  await locator.waitFor({ state: "visible", timeout: 10_000 });
}

test("every page, in the light theme on a phone and the dark one on a desktop: no serious axe violation, nothing from another origin", async () => {
  const me = (await api(server.url).get("/api/data/get_user").set("Api-Key", adminKey)).body.retrieved_id;
  const pages = [
    "/",
    "/podcasts",
    "/queue",
    "/saved",
    "/history",
    "/downloads",
    "/playlists",
    "/search",
    "/settings",
    "/settings/keys",
    "/settings/phones",
    "/admin",
    "/no-such-page",
  ];
  // Each theme once at each size: phone and light, desktop and dark (the other two pairs add time, not cases).
  for (const [viewport, colorScheme] of [
    [PHONE, "light"],
    [DESKTOP, "dark"],
  ] as const) {
    const { page, context, problems } = await web.open(server.url, { viewport, session: { key: adminKey, user_id: me, username: "root", is_admin: true } });
    await page.emulateMedia({ colorScheme });
    for (const path of pages) {
      await page.goto(server.url + path);
      await page
        .locator("h1")
        .first()
        .waitFor({ timeout: 10_000 })
        .catch(async (err) => {
          throw new Error(`${path}: no heading (${err.message.split("\n")[0]}); main holds: ${await page.locator("body").innerText()}`);
        });
      await page.waitForLoadState("networkidle");
      const violations = await axeViolations(page);
      expect({ path, colorScheme, width: viewport.width, violations }).toEqual({ path, colorScheme, width: viewport.width, violations: [] });
      // Nothing wider than the screen: the page scrolls down, never sideways.
      expect({ path, width: await page.evaluate(() => document.documentElement.scrollWidth) }).toEqual({ path, width: viewport.width });
    }
    expect(problems).toEqual([]);
    await context.close();
  }
  // Signed out: the sign-in page in both themes.
  for (const colorScheme of ["light", "dark"] as const) {
    const { page, context, problems } = await web.open(server.url);
    await page.emulateMedia({ colorScheme });
    await page.goto(server.url + "/sign-in");
    await page.getByLabel("Username").waitFor();
    expect(await axeViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  }
}, 120_000);
