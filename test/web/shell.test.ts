/**
 * The web app at the server's own address: served by the gateway with the API (no second server), under a
 * strict CSP, each page at its own URL; the shell's navigation landmark and Player region for a signed-in
 * person; nothing from another origin.
 */
import { api } from "../helpers/client";
import { createAdmin } from "../helpers/accounts";
import { startServer, TestServer } from "../helpers/server";
import { axeViolations, startBrowser, WebBrowser } from "../helpers/web";

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
  expect((await api(server.url).get("/nope")).status).toBe(404);
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
