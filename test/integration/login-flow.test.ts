/**
 * Nextcloud Login Flow v2 end to end, as AntennaPod runs it (NextcloudLoginFlow.java): start the flow
 * with an empty form POST, open the login page in a browser (real headless Chromium, with JavaScript
 * off: the page is a plain form), poll with "token=..." until access is granted, then sync with the app
 * password in HTTP Basic. Also the page without a browser (form token checks), MFA, login limits, expiry.
 */
import fs from "fs";
import os from "os";
import path from "path";
import type { Browser } from "playwright-core";
import { api, basic, expectErrorBody } from "../helpers/client";
import { launchChromium } from "../helpers/browser";
import { addAccount, createAdmin } from "../helpers/accounts";
import { startServer, TestServer, trustLoopbackProxy } from "../helpers/server";
import { freezeClock } from "../helpers/clock";
import { otherCode, totp } from "../helpers/totp";
import { config } from "../../shared/config";

const ANTENNAPOD_UA = "AntennaPod/3.7.0";
/** Where the phone-width screenshots go (look at them: the page must read well on a phone). */
const SCREENSHOT = path.join(os.tmpdir(), "login-flow-390.png");
const SCREENSHOT_ERROR = path.join(os.tmpdir(), "login-flow-390-error.png");

describe("Nextcloud Login Flow v2", () => {
  let server: TestServer;
  let browser: Browser;
  let adminKey = "";
  let untrust = () => {};
  const http = () => api(server.url);

  /** AntennaPod's two requests: an empty form POST to start, then "token=..." form POSTs to poll. */
  const startFlow = async () => {
    const res = await http().post("/index.php/login/v2").set("User-Agent", ANTENNAPOD_UA).type("form").send("");
    expect(res.status).toBe(200);
    return res.body as { poll: { token: string; endpoint: string }; login: string };
  };
  const poll = (flow: { poll: { token: string; endpoint: string } }) => api(flow.poll.endpoint).post("").type("form").send(`token=${flow.poll.token}`);

  const newUser = (name: string) => addAccount(server.url, adminKey, name);

  /** The page as a browser without JavaScript sees it: its form token and the cookie that must come back with it. */
  async function openPage(login: string) {
    const res = await api(login).get("");
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toBe("text/html; charset=utf-8");
    const csrf = /name="csrf" value="([^"]+)"/.exec(res.text)![1];
    const cookie = String(res.headers["set-cookie"][0]).split(";")[0];
    expect(res.headers["set-cookie"][0]).toMatch(/; HttpOnly; SameSite=Strict$/);
    return { csrf, cookie };
  }
  const submit = (login: string, form: Record<string, string>, cookie?: string, from?: string) => {
    const req = api(login).post("").type("form").send(form);
    if (cookie) req.set("Cookie", cookie);
    if (from) req.set("X-Forwarded-For", from);
    return req;
  };

  beforeAll(async () => {
    untrust = trustLoopbackProxy();
    browser = await launchChromium();
    server = await startServer();
    adminKey = await createAdmin(server.url);
  });
  afterAll(async () => {
    untrust();
    await browser?.close();
    await server?.stop();
  });
  afterEach(() => jest.useRealTimers());

  test("AntennaPod's flow in headless Chromium at phone width: wrong password, then access granted; the poll hands the app password once", async () => {
    const u = await newUser("ruth");
    const flow = await startFlow();
    expect(flow.poll.endpoint).toBe(`${server.url}/index.php/login/v2/poll`);
    expect(flow.login).toMatch(new RegExp(`^${server.url}/index.php/login/v2/flow/[A-Za-z0-9_-]{43}$`));
    expectErrorBody(await poll(flow), 404);

    const context = await browser.newContext({
      javaScriptEnabled: false,
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 2,
      isMobile: true,
      hasTouch: true,
    });
    try {
      const page = await context.newPage();
      const requests: string[] = [];
      page.on("request", (r) => requests.push(r.url()));
      const opened = await page.goto(flow.login);
      expect(opened!.status()).toBe(200);
      await expect(page.title()).resolves.toMatch(/^Connect an app/);
      expect(await page.textContent("main")).toContain(ANTENNAPOD_UA);

      // Phone width: nothing wider than the screen, inputs and the button big enough to tap.
      const box = async (selector: string) => (await page.locator(selector).boundingBox())!;
      for (const field of ["input[name=user]", "input[name=password]", "input[name=mfa_code]", "button"]) {
        const b = await box(field);
        expect(b.x).toBeGreaterThanOrEqual(0);
        expect(b.x + b.width).toBeLessThanOrEqual(390);
        expect(b.width).toBeGreaterThan(300);
        expect(b.height).toBeGreaterThanOrEqual(44);
      }
      await page.screenshot({ path: SCREENSHOT, fullPage: true });
      expect(fs.statSync(SCREENSHOT).size).toBeGreaterThan(5000);

      await page.fill("input[name=user]", "ruth");
      await page.fill("input[name=password]", "not the password");
      const [wrong] = await Promise.all([page.waitForNavigation(), page.click("button")]);
      expect(wrong!.status()).toBe(401);
      expect(await page.textContent("[role=alert]")).toBe("Wrong username or password.");
      expect(await page.inputValue("input[name=user]")).toBe("ruth");
      await page.screenshot({ path: SCREENSHOT_ERROR, fullPage: true });
      expectErrorBody(await poll(flow), 404);

      await page.fill("input[name=password]", u.password);
      const [granted] = await Promise.all([page.waitForNavigation(), page.click("button")]);
      expect(granted!.status()).toBe(200);
      expect(await page.textContent("h1")).toBe("Access granted");
      // Every request the page made went to this server: no external assets.
      expect(requests.every((r) => r.startsWith(server.url))).toBe(true);
    } finally {
      await context.close();
    }

    const done = await poll(flow);
    expect(done.status).toBe(200);
    expect(done.body).toEqual({ server: server.url, loginName: "ruth", appPassword: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
    expectErrorBody(await poll(flow), 404);

    // The app syncs with it (Basic on every call, as AntennaPod's Nextcloud sync does; the session cookie
    // alone works too), it opens no /api/data route, and it is listed under the app's name.
    const { loginName, appPassword } = done.body;
    const subscriptions = await http().get("/index.php/apps/gpoddersync/subscriptions").query({ since: 0 }).set("Authorization", basic(loginName, appPassword));
    expect(subscriptions.status).toBe(200);
    expect(subscriptions.body).toEqual({ add: [], remove: [], timestamp: expect.any(Number) });
    const cookie = String(subscriptions.headers["set-cookie"][0]).split(";")[0];
    expect((await http().get("/index.php/apps/gpoddersync/episode_action").query({ since: 0 }).set("Cookie", cookie)).status).toBe(200);
    expect((await http().post(`/api/2/auth/${loginName}/login.json`).set("Authorization", basic(loginName, appPassword))).status).toBe(200);
    expectErrorBody(await http().get("/api/data/verify_key").set("Api-Key", appPassword), 403);
    const info = await http().get(`/api/data/get_api_info/${u.id}`).set("Api-Key", u.key);
    expect(info.body.api_info).toContainEqual(expect.objectContaining({ kind: "app", name: ANTENNAPOD_UA, lastfourdigits: appPassword.slice(-4) }));
    // The page of a used flow is gone.
    expect((await api(flow.login).get("")).status).toBe(404);
  });

  test("without a browser: the form works with its token and cookie, and is refused without either", async () => {
    const u = await newUser("sven");
    const flow = await startFlow();
    const { csrf, cookie } = await openPage(flow.login);
    const form = { user: "sven", password: u.password };
    const noToken = await submit(flow.login, form, cookie);
    expect(noToken.status).toBe(403);
    expect(noToken.text).toContain("This form has expired or did not come from this page");
    // A refusal shows the form again with a new token: the old one (and its cookie) is spent.
    const fresh = /name="csrf" value="([^"]+)"/.exec(noToken.text)![1];
    const freshCookie = String(noToken.headers["set-cookie"][0]).split(";")[0];
    expect(fresh).not.toBe(csrf);
    expect((await submit(flow.login, { ...form, csrf: fresh })).status).toBe(403); // no cookie (another site's form)
    const again = await openPage(flow.login);
    expect((await submit(flow.login, { ...form, csrf: again.csrf }, freshCookie)).status).toBe(403); // cookie of another page
    expect((await submit(flow.login, { ...form, csrf: "forged" }, "login_flow_1=forged")).status).toBe(403);
    expectErrorBody(await poll(flow), 404);

    const latest = await openPage(flow.login);
    const ok = await submit(flow.login, { ...form, csrf: latest.csrf }, latest.cookie);
    expect(ok.status).toBe(200);
    expect(ok.text).toContain("Access granted");
    expect((await poll(flow)).body.loginName).toBe("sven");
  });

  test("MFA on: the page wants the code; a wrong code is refused, the current one grants access", async () => {
    const u = await newUser("tess");
    const gen = await http().get(`/api/data/generate_mfa_secret/${u.id}`).set("Api-Key", u.key);
    await http()
      .post("/api/data/verify_temp_mfa")
      .set("Api-Key", u.key)
      .send({ user_id: u.id, mfa_code: totp(gen.body.secret) });
    const flow = await startFlow();
    const { csrf, cookie } = await openPage(flow.login);
    const form = { csrf, user: "tess", password: u.password };
    const noCode = await submit(flow.login, form, cookie);
    expect(noCode.status).toBe(401);
    expect(noCode.text).toContain("enter the code from your authenticator app");
    const wrongCode = await submit(flow.login, { ...form, mfa_code: otherCode(totp(gen.body.secret)) }, cookie);
    expect(wrongCode.status).toBe(401);
    expect(wrongCode.text).toContain("Wrong two-factor code");
    const ok = await submit(flow.login, { ...form, mfa_code: totp(gen.body.secret, Date.now() + 30_000) }, cookie);
    expect(ok.status).toBe(200);
    const done = await poll(flow);
    expect(done.body.loginName).toBe("tess");
    // With MFA on, this app password is what opens the sync routes.
    const nextcloud = (password: string) => http().get("/index.php/apps/gpoddersync/subscriptions").set("Authorization", basic("tess", password));
    expect((await nextcloud(done.body.appPassword)).status).toBe(200);
    expectErrorBody(await nextcloud(u.password), 401);
  });

  test("wrong passwords on the page count with get_key's: past the limit a 429 page, even for the right one", async () => {
    const u = await newUser("ugo");
    const flow = await startFlow();
    const { csrf, cookie } = await openPage(flow.login);
    const from = "198.51.100.60";
    for (let i = 0; i < config.loginMaxFailures; i++)
      expect((await submit(flow.login, { csrf, user: "ugo", password: `guess ${i}` }, cookie, from)).status).toBe(401);
    const limited = await submit(flow.login, { csrf, user: "ugo", password: u.password }, cookie, from);
    expect(limited.status).toBe(429);
    expect(limited.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(limited.text).toContain("Too many failed sign-ins");
    expectErrorBody(await poll(flow), 404);
    expect((await submit(flow.login, { csrf, user: "ugo", password: u.password }, cookie, "203.0.113.60")).status).toBe(200);
  });

  test("flow starts count like failed logins of their address: past LOGIN_MAX_FAILURES a minute, 429", async () => {
    const start = (from: string) => http().post("/index.php/login/v2").set("X-Forwarded-For", from).type("form").send("");
    const from = "198.51.100.70";
    for (let i = 0; i < config.loginMaxFailures; i++) expect((await start(from)).status).toBe(200);
    expectErrorBody(await start(from), 429);
    expect((await start("203.0.113.70")).status).toBe(200);
  });

  test("a flow lasts 20 minutes: then the page and the poll answer 404; unknown tokens and flows too", async () => {
    const u = await newUser("vera");
    const flow = await startFlow();
    const { csrf, cookie } = await openPage(flow.login);
    freezeClock(Date.now() + 20 * 60_000 + 1000);
    expect((await api(flow.login).get("")).status).toBe(404);
    const late = await submit(flow.login, { csrf, user: "vera", password: u.password }, cookie);
    expect(late.status).toBe(404);
    expect(late.text).toContain("no longer valid");
    jest.useRealTimers();
    expectErrorBody(await poll({ poll: { ...flow.poll, token: "unknown" } }), 404);
    expect((await http().get("/index.php/login/v2/flow/unknown")).status).toBe(404);
    expectErrorBody(await http().post("/index.php/login/v2/poll").send({}), 400);
  });
});
