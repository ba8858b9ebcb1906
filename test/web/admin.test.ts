/**
 * The admin page in Chromium, driven like an admin: accounts (add, admin rights, edit, remove after a
 * confirmation), self-service registration, OIDC providers, mail settings with a test mail to an SMTP peer on
 * loopback, the server switches and a backup download; and what a user who is not an admin sees there.
 * Each change is checked in the page and then on the server through the API.
 */
import fs from "fs";
import type { Page } from "playwright-core";
import { config } from "../../shared/config";
import { api } from "../helpers/client";
import { addAccount, createAdmin, TestAccount } from "../helpers/accounts";
import { startServer, tempDir, TestServer } from "../helpers/server";
import { axeViolations, DESKTOP, screenshot, startBrowser, WebBrowser, WebSession } from "../helpers/web";
import { startSmtpPeer, type SmtpPeer } from "../helpers/smtp";

let server: TestServer;
let web: WebBrowser;
let smtp: SmtpPeer;
let adminKey = "";
let admin: WebSession;
let bob: TestAccount;
const backupDirBefore = config.backupDir;

const get = (path: string) => api(server.url).get(path).set("Api-Key", adminKey);
const visible = (page: Page, role: Parameters<Page["getByRole"]>[0], name: string) =>
  page.getByRole(role, { name, exact: true }).waitFor({ state: "visible", timeout: 10_000 });
const status = (page: Page, text: string) => page.getByRole("status").filter({ hasText: text }).waitFor({ timeout: 10_000 });

beforeAll(async () => {
  smtp = await startSmtpPeer({ user: "mailer", password: "smtp secret" });
  config.backupDir = tempDir("podcast-admin-backups-");

  server = await startServer();
  web = await startBrowser();
  adminKey = await createAdmin(server.url);
  const id = (await get("/api/data/get_user")).body.retrieved_id;
  admin = { key: adminKey, user_id: id, username: "root", is_admin: true };
  bob = await addAccount(server.url, adminKey, "bob");
});
afterAll(async () => {
  await web?.close();
  await server?.stop();
  await smtp?.close();
  config.backupDir = backupDirBefore;
});

test("users: an admin adds one through the form, gives and takes admin rights, changes the e-mail, removes after confirming", async () => {
  const { page, context, problems } = await web.open(server.url, { session: admin });
  await page.goto(server.url + "/admin");
  await visible(page, "heading", "Users");
  await visible(page, "heading", "bob");

  const add = page.getByRole("form", { name: "Add user" });
  await add.getByLabel("Username").fill("carol");
  await add.getByLabel("Full name").fill("Carol Example");
  await add.getByLabel("E-mail").fill("carol@example.org");
  await add.getByLabel("Password").fill("carol password");
  await add.getByRole("button", { name: "Add user" }).click();
  await status(page, "Added carol.");
  await visible(page, "heading", "carol");
  const carol = (await get("/api/data/get_user_info")).body.find((u: { username: string }) => u.username === "carol");
  expect(carol).toMatchObject({ fullname: "Carol Example", email: "carol@example.org", isadmin: 0 });

  // A refusal comes back in words: the name is taken.
  await add.getByLabel("Username").fill("bob");
  await add.getByLabel("Full name").fill("Another Bob");
  await add.getByLabel("E-mail").fill("bob2@example.org");
  await add.getByLabel("Password").fill("bob2 password");
  await add.getByRole("button", { name: "Add user" }).click();
  await add.getByRole("alert").filter({ hasText: "Username already exists" }).waitFor();

  const rights = page.getByRole("checkbox", { name: "Admin rights carol" });
  await rights.check();
  await status(page, "carol now has admin rights.");
  expect((await get(`/api/data/user_admin_check/${carol.userid}`)).body.is_admin).toBe(true);
  await rights.uncheck();
  await status(page, "carol no longer has admin rights.");
  expect((await get(`/api/data/user_admin_check/${carol.userid}`)).body.is_admin).toBe(false);
  // The admin's own account is not changed from here (no lock-out by a slip).
  expect(await page.getByRole("checkbox", { name: "Admin rights root" }).isDisabled()).toBe(true);
  expect(await page.getByRole("button", { name: "Remove root" }).count()).toBe(0);

  await page.getByRole("button", { name: "Edit carol" }).click();
  const edit = page.getByRole("form", { name: "Edit carol" });
  await edit.getByLabel("E-mail").fill("carol@example.net");
  await edit.getByRole("button", { name: "Save carol" }).click();
  await status(page, "Saved carol.");
  expect((await get(`/api/data/user_details_id/${carol.userid}`)).body.Email).toBe("carol@example.net");

  expect(await axeViolations(page)).toEqual([]);
  await screenshot(page, "admin-phone");

  await page.getByRole("button", { name: "Remove carol" }).click();
  await visible(page, "button", "Yes, remove carol");
  expect((await get("/api/data/get_user_info")).body.some((u: { username: string }) => u.username === "carol")).toBe(true);
  await page.getByRole("button", { name: "Yes, remove carol" }).click();
  await status(page, "Removed carol.");
  await page.getByRole("heading", { name: "carol", exact: true }).waitFor({ state: "detached" });
  expect((await get("/api/data/get_user_info")).body.some((u: { username: string }) => u.username === "carol")).toBe(false);

  expect(problems).toEqual([]);
  await context.close();
});

test("sign-in: self-service registration switches on and off; an OIDC provider is added and removed", async () => {
  const { page, context, problems } = await web.open(server.url, { session: admin });
  await page.goto(server.url + "/admin/sign-in");
  const box = page.getByRole("checkbox", { name: "Self-service registration" });
  await box.waitFor();
  await page.waitForFunction(() => !document.querySelector<HTMLInputElement>("input[type=checkbox]")?.disabled);
  const before = (await get("/api/data/admin_self_service_status")).body.status as boolean;
  expect(await box.isChecked()).toBe(before);
  await box.setChecked(!before);
  await status(page, `Self-service registration is ${before ? "off" : "on"}.`);
  expect((await get("/api/data/admin_self_service_status")).body.status).toBe(!before);
  await box.setChecked(before);
  await status(page, `Self-service registration is ${before ? "on" : "off"}.`);
  expect((await get("/api/data/self_service_status")).body.status).toBe(before);

  await page.getByRole("button", { name: "Add a provider" }).click();
  const form = page.getByRole("form", { name: "Add provider" });
  const fields: [string, string][] = [
    ["Provider name", "Example ID"],
    ["Client ID", "podcasts-web"],
    ["Client secret", "very secret"],
    ["Authorization URL", "https://127.0.0.1/authorize"],
    ["Token URL", "https://127.0.0.1/token"],
    ["User info URL", "https://127.0.0.1/userinfo"],
    ["Button text", "Sign in with Example ID"],
  ];
  for (const [label, value] of fields) await form.getByLabel(label, { exact: true }).fill(value);
  await form.getByRole("button", { name: "Add provider" }).click();
  await status(page, "Added Example ID.");
  await visible(page, "heading", "Example ID");
  const listed = (await get("/api/data/list_oidc_providers")).body.providers;
  expect(listed).toEqual([
    expect.objectContaining({ provider_name: "Example ID", client_id: "podcasts-web", scope: "openid email profile", button_text: "Sign in with Example ID" }),
  ]);

  expect(await axeViolations(page)).toEqual([]);
  await page.getByRole("button", { name: "Remove Example ID" }).click();
  await page.getByRole("button", { name: "Yes, remove Example ID" }).click();
  await status(page, "Removed Example ID.");
  expect((await get("/api/data/list_oidc_providers")).body.providers).toEqual([]);
  await page.getByText("No providers yet.").waitFor();

  expect(problems).toEqual([]);
  await context.close();
});

test("mail: settings saved and read back (the password never shown), and a test mail reaches the SMTP server", async () => {
  const { page, context, problems } = await web.open(server.url, { session: admin });
  await page.goto(server.url + "/admin/mail");
  const form = page.getByRole("form", { name: "Mail settings" });
  await form.getByLabel("SMTP host").fill("127.0.0.1");
  await form.getByLabel("Port", { exact: true }).fill(String(smtp.port));
  await form.getByLabel("Encryption").selectOption("none");
  await form.getByLabel("From address").fill("podcasts@example.org");
  await form.getByLabel("The SMTP server needs a sign-in").check();
  await form.getByLabel("SMTP user").fill("mailer");
  await form.getByLabel("SMTP password").fill("smtp secret");
  await form.getByRole("button", { name: "Save mail settings" }).click();
  await status(page, "Mail settings saved.");
  expect((await get("/api/data/get_email_settings")).body).toMatchObject({
    ServerName: "127.0.0.1",
    ServerPort: smtp.port,
    FromEmail: "podcasts@example.org",
    Encryption: "none",
    AuthRequired: 1,
    Username: "mailer",
    Password: "",
  });

  // Read back into the page: the password field stays empty, and the test mail signs in with the saved one.
  await page.reload();
  await form.getByLabel("SMTP host").waitFor();
  expect(await form.getByLabel("SMTP host").inputValue()).toBe("127.0.0.1");
  expect(await form.getByLabel("SMTP password").inputValue()).toBe("");
  const to = page.getByLabel("Send a test to");
  await page.waitForFunction(() => (document.querySelector<HTMLInputElement>("form[aria-label='Test mail'] input")?.value ?? "") !== "");
  expect(await to.inputValue()).toBe("root@example.org");
  await page.getByRole("button", { name: "Send test e-mail" }).click();
  await status(page, "a test mail went to root@example.org");
  expect(smtp.inbox.some((m) => m.to.includes("root@example.org") && /Subject: Test mail/i.test(m.raw))).toBe(true);

  expect(await axeViolations(page)).toEqual([]);
  expect(problems).toEqual([]);
  await context.close();
});

test("feeds and downloads: the RSS feed switch changes the server's state", async () => {
  const { page, context, problems } = await web.open(server.url, { session: admin });
  await page.goto(server.url + "/admin/server");
  const rss = page.getByRole("checkbox", { name: "RSS feeds" });
  await page.waitForFunction(() => !document.querySelector<HTMLInputElement>("input[type=checkbox]")?.disabled);
  const before = (await get("/api/data/rss_feed_status")).body as boolean;
  expect(await rss.isChecked()).toBe(before);
  await rss.setChecked(!before);
  await status(page, `RSS feeds are ${before ? "off" : "on"}.`);
  expect((await get("/api/data/rss_feed_status")).body).toBe(!before);
  await rss.setChecked(before);
  await status(page, `RSS feeds are ${before ? "on" : "off"}.`);
  expect(await page.getByRole("checkbox", { name: "Episode downloads" }).isChecked()).toBe((await get("/api/data/download_status")).text.trim() === "true");
  expect(await axeViolations(page)).toEqual([]);
  expect(problems).toEqual([]);
  await context.close();
});

test("backups: the admin's password downloads the whole server as a file; a wrong one is refused in words", async () => {
  const { page, context, problems } = await web.open(server.url, { session: admin, viewport: DESKTOP });
  await page.goto(server.url + "/admin/backups");
  const form = page.getByRole("form", { name: "Download a backup" });
  await form.getByLabel("Your password").fill("not my password");
  await form.getByRole("button", { name: "Download backup" }).click();
  await form.getByRole("alert").waitFor();

  await form.getByLabel("Your password").fill("root password");
  const [download] = await Promise.all([page.waitForEvent("download"), form.getByRole("button", { name: "Download backup" }).click()]);
  expect(download.suggestedFilename()).toMatch(/^podcast-server-backup_.*\.jsonl\.gz$/);
  const file = await download.path();
  expect(fs.statSync(file).size).toBeGreaterThan(100);
  await status(page, "Backup ready: podcast-server-backup_");
  await visible(page, "heading", "Restore from a file");
  await screenshot(page, "admin-desktop");
  expect(problems).toEqual([]);
  await context.close();
});

test("a user who is not an admin sees no Admin link, and /admin says Admins only", async () => {
  const { page, context, problems } = await web.open(server.url, { session: { key: bob.key, user_id: bob.id, username: "bob", is_admin: false } });
  await page.goto(server.url + "/admin");
  await visible(page, "heading", "Admins only");
  const nav = page.getByRole("navigation", { name: "Main" });
  await nav.getByRole("link", { name: "Settings", exact: true }).waitFor();
  expect(await nav.getByRole("link", { name: "Admin", exact: true }).count()).toBe(0);
  expect((await api(server.url).get("/api/data/get_user_info").set("Api-Key", bob.key)).status).toBe(403);
  expect(await axeViolations(page)).toEqual([]);
  expect(problems).toEqual([]);
  await context.close();
});
