/**
 * The account pages end to end in Chromium, driven by labels and roles: the first admin made through the
 * form on a new server, sign-out (the key is revoked), sign-in (a wrong password refused in words; with MFA
 * the "Two-factor code" step), Settings (MFA on and off, API keys, theme, "Phones and apps" with app
 * passwords, synced devices and a test notification), self-service accounts, password reset by mail through a
 * loopback SMTP server, and OIDC through a loopback OpenID provider.
 */
import http from "http";
import Provider from "oidc-provider";
import type { AddressInfo } from "net";
import type { Page } from "playwright-core";
import { api, basic } from "../helpers/client";
import { Loopback, startLoopback } from "../helpers/loopback";
import { startServer, TestServer } from "../helpers/server";
import { totp, otherCode } from "../helpers/totp";
import { axeViolations, DESKTOP, screenshot, startBrowser, WatchedPage, WebBrowser } from "../helpers/web";
import { config } from "../../shared/config";
import { startSmtpPeer, type SmtpPeer } from "../helpers/smtp";

let server: TestServer;
let web: WebBrowser;
let smtp: SmtpPeer;
let hooks: Loopback;
let idp: http.Server;
let issuer = "";
const allowHttpBefore = config.oidcAllowHttp;
let adminKey = "";
let adminId = 0;
/** The person's tab, signed in through the forms (no injected session, so reloads keep what the page did). */
let root: WatchedPage;

const ADMIN = { username: "root", password: "root password 1", email: "root@example.org", fullname: "Root Admin" };
const OIDC_CLIENT = { client_id: "podcasts-web", client_secret: "correct-horse-battery-staple" };

beforeAll(async () => {
  jest.spyOn(console, "warn").mockImplementation(() => undefined); // oidc-provider's development-defaults notices
  jest.spyOn(console, "info").mockImplementation(() => undefined);
  config.oidcAllowHttp = true; // the loopback provider speaks http
  smtp = await startSmtpPeer();
  hooks = await startLoopback({ "/hook": { body: "{}", headers: { "Content-Type": "application/json" } } });
  server = await startServer();
  web = await startBrowser();

  idp = http.createServer();
  await new Promise<void>((resolve) => idp.listen(0, "127.0.0.1", resolve));
  issuer = `http://127.0.0.1:${(idp.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        ...OIDC_CLIENT,
        redirect_uris: [`${server.url}/api/auth/callback`],
        grant_types: ["authorization_code"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_post",
      },
    ],
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name", "preferred_username"] },
    findAccount: async (_ctx: unknown, id: string) => ({
      accountId: id,
      claims: async () => ({ sub: id, email: `${id}@example.org`, email_verified: true, name: `${id} from SSO`, preferred_username: id }),
    }),
    features: { devInteractions: { enabled: true } },
    pkce: { required: () => true },
    cookies: { keys: ["loopback-test-cookie-key"] },
  });
  idp.on("request", provider.callback());
});

afterAll(async () => {
  jest.restoreAllMocks();
  config.oidcAllowHttp = allowHttpBefore;
  await web?.close();
  await server?.stop();
  await hooks?.close();
  await smtp?.close();
  await new Promise((resolve) => (idp ? idp.close(resolve) : resolve(undefined)));
});

const storedSession = (page: Page) => page.evaluate(() => JSON.parse(localStorage.getItem("podcast-server.session") ?? "null"));
const status = (page: Page, text: string | RegExp) => page.getByRole("status").filter({ hasText: text }).waitFor({ timeout: 10_000 });
const alert = (page: Page, text: string | RegExp) => page.getByRole("alert").filter({ hasText: text }).waitFor({ timeout: 10_000 });
const button = (page: Page, name: string) => page.getByRole("button", { name, exact: true });

async function checkPage(w: WatchedPage) {
  expect(await axeViolations(w.page)).toEqual([]);
  expect(w.problems).toEqual([]);
}

async function signIn(page: Page, username: string, password: string) {
  await page.getByLabel("Username").fill(username);
  await page.getByLabel("Password").fill(password);
  await button(page, "Sign in").click();
}

test("a new server: the first admin made through the form, and signed in at once", async () => {
  root = await web.open(server.url);
  const { page } = root;
  await page.goto(server.url + "/");
  await page.waitForURL(/\/first-run$/);
  await page.getByRole("heading", { level: 1, name: "Create the first admin" }).waitFor();
  await page.getByRole("form", { name: "Create the first admin" }).waitFor();
  await checkPage(root);
  await page.getByLabel("Username").fill(ADMIN.username);
  await page.getByLabel("Password").fill(ADMIN.password);
  await page.getByLabel("E-mail").fill(ADMIN.email);
  await page.getByLabel("Full name").fill(ADMIN.fullname);
  await button(page, "Create admin").click();
  await page.waitForURL(server.url + "/");
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Admin" }).waitFor();
  expect(await storedSession(page)).toMatchObject({ username: "root", is_admin: true, user_id: expect.any(Number) });

  const key = await api(server.url).get("/api/data/get_key").set("Authorization", basic(ADMIN.username, ADMIN.password)).expect(200);
  adminKey = key.body.retrieved_key;
  adminId = key.body.user_id;
  expect((await api(server.url).get(`/api/data/user_admin_check/${adminId}`).set("Api-Key", adminKey)).body.is_admin).toBe(true);
  expect((await api(server.url).get("/api/data/self_service_status")).body.first_admin_created).toBe(true);
  expect(root.problems).toEqual([]);
});

test("sign-out revokes the key; a wrong password is refused in words; sign-in goes back to the page asked for", async () => {
  const { page } = root;
  const oldKey = (await storedSession(page)).key;
  await button(page, "Sign out").click();
  await page.waitForURL(/\/sign-in$/);
  expect(await storedSession(page)).toBeNull();
  expect((await api(server.url).get("/api/data/get_user").set("Api-Key", oldKey)).status).toBe(401);

  await page.goto(server.url + "/settings/theme");
  await page.waitForURL(/\/sign-in\?next=%2Fsettings%2Ftheme$/);
  await page.getByRole("heading", { level: 1, name: "Sign in" }).waitFor();
  await page.getByRole("link", { name: "Forgot password?" }).waitFor();
  expect(await page.getByRole("link", { name: "Create account" }).count()).toBe(0); // self-service is off
  await checkPage(root);
  await screenshot(page, "sign-in-phone");

  await signIn(page, "root", "not the password");
  await alert(page, /invalid username or password/i);
  expect(page.url()).toContain("/sign-in");
  await page.getByLabel("Password").fill(ADMIN.password);
  await button(page, "Sign in").click();
  await page.waitForURL(/\/settings\/theme$/);
  await page.getByRole("radiogroup", { name: "Theme" }).waitFor();
});

test("Settings: two-factor authentication on (QR code, secret, code), then signing in asks for the code; off again", async () => {
  const { page } = root;
  await page.goto(server.url + "/settings/two-factor");
  await page.getByText("Two-factor authentication is off").waitFor();
  await button(page, "Set up two-factor authentication").click();
  const qr = page.getByRole("img", { name: "QR code for your authenticator app" });
  await qr.waitFor();
  expect(await qr.getAttribute("src")).toMatch(/^data:image\/png;base64,/);
  const secret = (await page.locator("code.secret").textContent())!.trim();
  expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
  await checkPage(root);

  await page.getByLabel("Code from the app").fill(otherCode(totp(secret)));
  await button(page, "Turn on").click();
  await alert(page, /not right/);
  await page.getByLabel("Code from the app").fill(totp(secret));
  await button(page, "Turn on").click();
  await status(page, "Two-factor authentication is on.");
  expect((await api(server.url).get(`/api/data/check_mfa_enabled/${adminId}`).set("Api-Key", adminKey)).body.mfa_enabled).toBe(true);

  await button(page, "Sign out").click();
  await page.waitForURL(/\/sign-in$/);
  await signIn(page, "root", ADMIN.password);
  const code = page.getByLabel("Two-factor code");
  await code.waitFor();
  await checkPage(root);
  await code.fill(otherCode(totp(secret)));
  await button(page, "Verify").click();
  await alert(page, /not right/);
  await code.fill(totp(secret));
  await button(page, "Verify").click();
  await page.waitForURL(server.url + "/");
  expect(await storedSession(page)).toMatchObject({ username: "root", is_admin: true });

  await page.goto(server.url + "/settings/two-factor");
  await page.getByText("Two-factor authentication is on").waitFor();
  await button(page, "Turn off").click();
  await button(page, "Yes, turn it off").click();
  await status(page, "Two-factor authentication is off.");
  expect((await api(server.url).get(`/api/data/check_mfa_enabled/${adminId}`).set("Api-Key", adminKey)).body.mfa_enabled).toBe(false);
});

test("Settings: an API key made (shown once, it works) and deleted (it stops working)", async () => {
  const { page } = root;
  await page.goto(server.url + "/settings/keys");
  await page.getByRole("heading", { level: 2, name: "API keys" }).waitFor();
  await button(page, "Create API key").click();
  await status(page, "not shown again");
  const key = (await page.getByRole("status").locator("code.secret").textContent())!.trim();
  expect((await api(server.url).get("/api/data/get_user").set("Api-Key", key)).body.retrieved_id).toBe(adminId);
  const last4 = key.slice(-4);
  const del = page.getByRole("button", { name: `Delete key ending in ${last4}` });
  await del.waitFor();
  await checkPage(root);
  await del.click();
  await status(page, `Deleted the key ending in ${last4}`);
  expect(await del.count()).toBe(0);
  expect((await api(server.url).get("/api/data/get_user").set("Api-Key", key)).status).toBe(401);
  // The person's own sign-in is still there.
  await page.getByText("Sign-in of this browser").waitFor();
});

test("Settings: the theme changes at once and is kept by the server", async () => {
  const { page } = root;
  await page.goto(server.url + "/settings/theme");
  const group = page.getByRole("radiogroup", { name: "Theme" });
  const theme = () => page.evaluate(() => document.documentElement.dataset.theme ?? null);
  await group.getByRole("radio", { name: "Dark" }).check();
  expect(await theme()).toBe("dark");
  await status(page, "Theme saved.");
  expect((await api(server.url).get(`/api/data/get_theme/${adminId}`).set("Api-Key", adminKey)).body.theme).toBe("dark");
  await page.reload();
  await page.waitForFunction(() => document.documentElement.dataset.theme === "dark");
  await page.waitForFunction(() => document.querySelector<HTMLInputElement>('input[type="radio"][value="dark"]')?.checked === true);
  await group.getByRole("radio", { name: "Light" }).check();
  expect(await theme()).toBe("light");
  await status(page, "Theme saved.");
  await group.getByRole("radio", { name: "Auto" }).check();
  expect(await theme()).toBeNull();
  await status(page, "Theme saved.");
  expect((await api(server.url).get(`/api/data/get_theme/${adminId}`).set("Api-Key", adminKey)).body.theme).toBe("auto");
  await checkPage(root);
});

test("Settings: full name, e-mail and password saved", async () => {
  const { page } = root;
  await page.goto(server.url + "/settings/account");
  const fullname = page.getByLabel("Full name");
  await expect(fullname.inputValue({ timeout: 10_000 })).resolves.toBe(ADMIN.fullname);
  await fullname.fill("Root the Admin");
  await button(page, "Save full name").click();
  await status(page, "Full name saved.");
  await page.getByLabel("E-mail").fill("admin@example.org");
  await button(page, "Save e-mail").click();
  await status(page, "E-mail saved.");
  const info = await api(server.url).get(`/api/data/my_user_info/${adminId}`).set("Api-Key", adminKey);
  expect(info.body).toMatchObject({ fullname: "Root the Admin", email: "admin@example.org" });
  ADMIN.email = "admin@example.org";
  await page.getByLabel("Current password").fill("not needed by an admin");
  await page.getByLabel("New password").fill("another password 2");
  await button(page, "Change password").click();
  // Admins may set a password without the current one: the server accepts, and the new one works.
  await status(page, "Password changed.");
  ADMIN.password = "another password 2";
  expect((await api(server.url).get("/api/data/get_key").set("Authorization", basic("root", ADMIN.password))).status).toBe(200);
  await checkPage(root);
  await page.evaluate(() => window.scrollTo(0, 0));
  await screenshot(page, "settings-phone");
});

test('Settings: "Phones and apps" shows the address, makes an app password, lists synced devices, sends a test notification', async () => {
  const { page } = root;
  await page.goto(server.url + "/settings");
  await page.getByRole("navigation", { name: "Settings sections" }).getByRole("link", { name: "Phones and apps" }).click();
  await page.waitForURL(/\/settings\/phones$/);
  const section = page.getByRole("region", { name: "Phones and apps" });
  await section.getByRole("heading", { level: 2, name: "Phones and apps" }).waitFor();
  await section.getByText(server.url, { exact: true }).waitFor();
  await page.getByText("No phone or app has synced yet.").waitFor();

  await page.getByLabel("Name of the app").fill("Kasts on the laptop");
  await button(page, "Create app password").click();
  await status(page, "App password for Kasts on the laptop");
  const appPassword = (await page.getByRole("status").locator("code.secret").textContent())!.trim();
  // The app password opens the sync routes, as an app would use it.
  await api(server.url)
    .post("/api/2/devices/root/laptop.json")
    .set("Authorization", basic("root", appPassword))
    .send({ caption: "Kasts laptop", type: "laptop" })
    .expect(200);
  expect((await api(server.url).get("/api/data/get_user").set("Api-Key", appPassword)).status).toBe(403);
  await page.getByRole("button", { name: `Delete key ending in ${appPassword.slice(-4)}` }).waitFor();

  await page.getByLabel("Service").selectOption("http");
  await page.getByLabel("Webhook address").fill(`${hooks.url}/hook`);
  await button(page, "Save").click();
  await status(page, "Webhook settings saved.");
  await button(page, "Send a test notification").click();
  await status(page, "Test notification sent");
  expect(hooks.requests.filter((r) => r.url.startsWith("/hook"))).toHaveLength(1);

  await page.reload();
  await page.getByText("Kasts laptop").waitFor();
  await page.getByText("App password: Kasts on the laptop").waitFor();
  await checkPage(root);
  await page.setViewportSize(DESKTOP);
  await page.evaluate(() => window.scrollTo(0, 0));
  await screenshot(page, "settings-desktop");
});

test("self-service on: the sign-in page links to Create account, which makes the account and signs in", async () => {
  expect((await api(server.url).post("/api/data/enable_disable_self_service").set("Api-Key", adminKey).send({})).body.status).toBe(true);
  const w = await web.open(server.url);
  await w.page.goto(server.url + "/sign-in");
  await w.page.getByRole("link", { name: "Create account" }).click();
  await w.page.waitForURL(/\/create-account$/);
  await w.page.getByRole("heading", { level: 1, name: "Create account" }).waitFor();
  await checkPage(w);
  await w.page.getByLabel("Username").fill("nora");
  await w.page.getByLabel("Password").fill("nora password 1");
  await w.page.getByLabel("E-mail").fill("admin@example.org"); // the admin's
  await w.page.getByLabel("Full name").fill("Nora");
  await button(w.page, "Create account").click();
  await alert(w.page, /email/i);
  await w.page.getByLabel("E-mail").fill("nora@example.org");
  await button(w.page, "Create account").click();
  await w.page.waitForURL(server.url + "/");
  expect(await storedSession(w.page)).toMatchObject({ username: "nora", is_admin: false });
  expect(await w.page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Admin" }).count()).toBe(0);
  expect((await api(server.url).get("/api/data/get_key").set("Authorization", basic("nora", "nora password 1"))).status).toBe(200);
  // Someone who is not an admin proves the current password to change it.
  await w.page.goto(server.url + "/settings/account");
  await w.page.getByLabel("Current password").fill("wrong password");
  await w.page.getByLabel("New password").fill("nora password 2");
  await button(w.page, "Change password").click();
  await alert(w.page, "The current password is wrong");
  expect(w.problems).toEqual([]);
  await w.context.close();
});

test("forgot password: the code arrives by mail and sets a new password", async () => {
  await api(server.url)
    .post("/api/data/save_email_settings")
    .set("Api-Key", adminKey)
    .send({
      email_settings: {
        server_name: "127.0.0.1",
        server_port: smtp.port,
        from_email: "podcasts@example.org",
        send_mode: "SMTP",
        encryption: "none",
        auth_required: false,
        email_username: "",
        email_password: "",
      },
    })
    .expect(200);
  const w = await web.open(server.url);
  const { page } = w;
  await page.goto(server.url + "/sign-in");
  await page.getByRole("link", { name: "Forgot password?" }).click();
  await page.waitForURL(/\/forgot-password$/);
  const ask = page.getByRole("form", { name: "Get a reset code" });
  await ask.getByLabel("Username").fill("nora");
  await ask.getByLabel("E-mail").fill("nora@example.org");
  await button(page, "Send reset code").click();
  await status(page, "a reset code is on its way to nora@example.org");
  await checkPage(w);
  let mail: { raw: string } | undefined;
  for (let i = 0; i < 100 && !mail; i++) {
    mail = smtp.inbox.find((m) => m.to.includes("nora@example.org"));
    if (!mail) await new Promise((r) => setTimeout(r, 100));
  }
  // Quoted-printable soft line breaks joined, so that the code reads whole.
  const code = /Reset code: ([A-Z0-9]{5}-[A-Z0-9]{5})/.exec(mail!.raw.replace(/=\r\n/g, ""))![1];
  const reset = page.getByRole("form", { name: "Set a new password" });
  expect(await reset.getByLabel("E-mail of the account").inputValue()).toBe("nora@example.org");
  await reset.getByLabel("Reset code").fill("AAAAA-AAAAA");
  await reset.getByLabel("New password").fill("nora new password");
  await button(page, "Set new password").click();
  await alert(page, /code/i);
  await reset.getByLabel("Reset code").fill(code);
  await reset.getByLabel("New password").fill("nora new password");
  await button(page, "Set new password").click();
  await status(page, "Your password is changed.");
  expect((await api(server.url).get("/api/data/get_key").set("Authorization", basic("nora", "nora new password"))).status).toBe(200);
  expect(w.problems).toEqual([]);
  await w.context.close();
});

test("OIDC: the provider's button stores a state and goes to the provider; back at /oidc-done the person is signed in", async () => {
  await api(server.url)
    .post("/api/data/add_oidc_provider")
    .set("Api-Key", adminKey)
    .send({
      provider_name: "Test IdP",
      ...OIDC_CLIENT,
      authorization_url: `${issuer}/auth`,
      token_url: `${issuer}/token`,
      user_info_url: `${issuer}/me`,
      button_text: "Log in with Test IdP",
      scope: "openid email profile",
      button_color: "#224488",
      button_text_color: "#ffffff",
      icon_svg: '<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>',
    })
    .expect(200);
  const w = await web.open(server.url);
  const { page } = w;
  await page.goto(server.url + "/sign-in?next=%2Fsettings%2Fkeys");
  const go = button(page, "Log in with Test IdP");
  await go.waitFor();
  await checkPage(w);

  const authorize = page.waitForRequest((r) => r.url().startsWith(`${issuer}/auth?`));
  await go.click();
  const url = new URL((await authorize).url());
  const state = url.searchParams.get("state")!;
  expect(state).toMatch(/^[A-Za-z0-9_-]{32,}$/);
  expect(url.searchParams.get("client_id")).toBe(OIDC_CLIENT.client_id);
  expect(url.searchParams.get("code_challenge_method")).toBe("S256");
  // The server holds this state already: storing it again is a conflict.
  expect((await api(server.url).post("/api/auth/store_state").send({ state, client_id: OIDC_CLIENT.client_id })).status).toBe(409);

  // At the provider's (development) pages: log in, then consent.
  await page.locator('input[name="login"]').fill("olivia");
  await page.locator('input[name="password"]').fill("anything");
  await page.getByRole("button", { name: "Sign-in" }).click();
  await page.getByRole("button", { name: "Continue" }).click();
  await page.waitForURL(server.url + "/settings/keys");
  expect(page.url()).not.toContain("api_key");
  expect(await storedSession(page)).toMatchObject({ username: "olivia", is_admin: false, user_id: expect.any(Number) });
  await page.getByRole("heading", { level: 2, name: "API keys" }).waitFor();
  // The provider's own pages (their requests, their console) are not the app's problems.
  expect(w.problems.filter((p) => !p.includes(issuer) && !/fonts\.googleapis|net::ERR_/.test(p))).toEqual([]);
  await w.context.close();
});
