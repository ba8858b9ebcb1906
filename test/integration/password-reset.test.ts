/**
 * Mail settings and password reset by mail, black-box through the gateway, against a real SMTP server
 * (smtp-server) on loopback that receives the mails; the reset code is read from the received mail.
 */
import { api, basic, expectErrorBody } from "../helpers/client";
import { startServer, TestServer, trustLoopbackProxy } from "../helpers/server";
import { freezeClock } from "../helpers/clock";
import { startSmtpPeer, type SmtpPeer } from "../helpers/smtp";

interface ReceivedMail {
  to: string[];
  subject: string;
  body: string;
}

const SMTP_USER = "mailer";
const SMTP_PASSWORD = "smtp secret 42";

/** Headers and a text body of a received message; quoted-printable bodies are decoded. */
function parseMail(raw: string, to: string[]): ReceivedMail {
  const split = raw.indexOf("\r\n\r\n");
  const headers = raw.slice(0, split).replace(/\r\n[ \t]+/g, " ");
  let body = raw.slice(split + 4);
  if (/^content-transfer-encoding:\s*quoted-printable/im.test(headers)) {
    body = body.replace(/=\r\n/g, "").replace(/=([0-9A-F]{2})/g, (_m, hex) => String.fromCharCode(parseInt(hex, 16)));
  }
  const subject = /^subject:\s*(.*)$/im.exec(headers)?.[1] ?? "";
  return { to, subject, body };
}

describe("mail settings and password reset by mail", () => {
  let server: TestServer;
  let smtp: SmtpPeer;
  const inbox = () => smtp.inbox.map((m) => parseMail(m.raw, m.to));
  const http = () => api(server.url);
  let adminKey = "";
  let userKey = "";

  async function waitForMail(to: string, subject: RegExp): Promise<ReceivedMail> {
    for (let i = 0; i < 100; i++) {
      const found = inbox().find((m) => m.to.includes(to) && subject.test(m.subject));
      if (found) return found;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`no mail to ${to} with subject ${subject}`);
  }

  const settings = (over: Record<string, any> = {}) => ({
    server_name: "127.0.0.1",
    server_port: smtp.port,
    from_email: "podcasts@example.org",
    send_mode: "SMTP",
    encryption: "none",
    auth_required: true,
    email_username: SMTP_USER,
    email_password: SMTP_PASSWORD,
    ...over,
  });

  beforeAll(async () => {
    smtp = await startSmtpPeer({ user: SMTP_USER, password: SMTP_PASSWORD });

    server = await startServer();
    await http().post("/api/data/create_first").send({ username: "root", password: "root password", email: "root@example.org", fullname: "Root" });
    adminKey = (await http().get("/api/data/get_key").set("Authorization", basic("root", "root password"))).body.retrieved_key;
    await http()
      .post("/api/data/add_user")
      .set("Api-Key", adminKey)
      .send({ fullname: "Nora", username: "nora", email: "nora@example.org", hash_pw: "nora password" });
    userKey = (await http().get("/api/data/get_key").set("Authorization", basic("nora", "nora password"))).body.retrieved_key;
  });
  afterAll(async () => {
    jest.useRealTimers();
    await server?.stop();
    await smtp?.close();
  });

  test("email settings: admin only, validated, the password never returned, test mail sent through the loopback SMTP server", async () => {
    expectErrorBody(await http().get("/api/data/get_email_settings").set("Api-Key", userKey), 403);
    expectErrorBody(await http().post("/api/data/save_email_settings").set("Api-Key", userKey).send({ email_settings: settings() }), 403);
    expectErrorBody(await http().post("/api/data/send_test_email").set("Api-Key", userKey).send({ to_email: "x@example.org" }), 403);

    const empty = await http().get("/api/data/get_email_settings").set("Api-Key", adminKey);
    expect(empty.status).toBe(200);
    expect(empty.body).toMatchObject({ Emailsettingsid: expect.any(Number), ServerName: "", Password: "" });
    expectErrorBody(await http().post("/api/data/send_test_email").set("Api-Key", adminKey).send({ to_email: "x@example.org" }), 400);

    for (const bad of [
      { server_port: 70000 },
      { server_port: "port" },
      { from_email: "nobody" },
      { encryption: "rot13" },
      { send_mode: "pigeon" },
      { server_name: "" },
    ]) {
      expectErrorBody(
        await http()
          .post("/api/data/save_email_settings")
          .set("Api-Key", adminKey)
          .send({ email_settings: settings(bad) }),
        400,
      );
    }
    expectErrorBody(await http().post("/api/data/save_email_settings").set("Api-Key", adminKey).send(settings()), 400);

    const saved = await http().post("/api/data/save_email_settings").set("Api-Key", adminKey).send({ email_settings: settings() });
    expect(saved.status).toBe(200);
    const got = await http().get("/api/data/get_email_settings").set("Api-Key", adminKey);
    expect(got.body).toEqual({
      Emailsettingsid: expect.any(Number),
      ServerName: "127.0.0.1",
      ServerPort: smtp.port,
      FromEmail: "podcasts@example.org",
      SendMode: "SMTP",
      Encryption: "none",
      AuthRequired: 1,
      Username: SMTP_USER,
      Password: "",
    });
    expect(JSON.stringify(got.body)).not.toContain(SMTP_PASSWORD);

    // Saving the form again without the password keeps the stored one: the test mail still authenticates.
    expect(
      (
        await http()
          .post("/api/data/save_email_settings")
          .set("Api-Key", adminKey)
          .send({ email_settings: settings({ email_password: "" }) })
      ).status,
    ).toBe(200);
    const sent = await http()
      .post("/api/data/send_test_email")
      .set("Api-Key", adminKey)
      .send({ to_email: "admin-inbox@example.org", message: "Hello from the test" });
    expect(sent.status).toBe(200);
    expect(sent.body).toEqual({ email_status: expect.any(String) });
    const mail = await waitForMail("admin-inbox@example.org", /test/i);
    expect(mail.body).toContain("Hello from the test");

    // Settings given in the body are tried without being saved: a wrong password fails with the SMTP server's refusal.
    const refused = await http()
      .post("/api/data/send_test_email")
      .set("Api-Key", adminKey)
      .send({ ...settings({ email_password: "wrong" }), to_email: "admin-inbox@example.org" });
    expectErrorBody(refused, 400);
    expect(refused.body.message).not.toContain("wrong");
    expect((await http().post("/api/data/send_test_email").set("Api-Key", adminKey).send({ to_email: "admin-inbox@example.org" })).status).toBe(200);
  });

  test("reset: the mailed code changes the password once; unknown accounts get the same answer and no mail", async () => {
    const before = smtp.inbox.length;
    expectErrorBody(await http().post("/api/data/reset_password_create_code").send({ email: "nora@example.org" }), 400);
    expectErrorBody(await http().post("/api/data/reset_password_create_code").send({ username: "nora" }), 400);
    for (const probe of [
      { email: "nobody@example.org", username: "nobody" },
      { email: "nora@example.org", username: "root" },
    ]) {
      const res = await http().post("/api/data/reset_password_create_code").send(probe);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ code_created: true });
    }
    const asked = await http().post("/api/data/reset_password_create_code").send({ email: "Nora@Example.org", username: "NORA" });
    expect(asked.body).toEqual({ code_created: true });
    const mail = await waitForMail("nora@example.org", /reset/i);
    expect(smtp.inbox.length - before).toBe(1);
    const code = /Reset code: ([A-Z0-9]{5}-[A-Z0-9]{5})/.exec(mail.body)?.[1];
    expect(code).toBeDefined();

    const reset = (body: Record<string, any>) => http().post("/api/data/verify_and_reset_password").send(body);
    expectErrorBody(await reset({ reset_code: code, email: "nora@example.org" }), 400);
    expectErrorBody(await reset({ reset_code: code, email: "root@example.org", new_password: "hijacked password" }), 400);
    expectErrorBody(await reset({ reset_code: "AAAAA-AAAAA", email: "nora@example.org", new_password: "guessed password" }), 400);
    expectErrorBody(await reset({ reset_code: code, email: "nora@example.org", new_password: "short" }), 400);

    // Typed by a person: lower case and without the dash is the same code.
    const ok = await reset({ reset_code: code!.toLowerCase().replace("-", ""), email: "nora@example.org", new_password: "nora new password" });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ message: expect.any(String) });
    expectErrorBody(await http().get("/api/data/get_key").set("Authorization", basic("nora", "nora password")), 401);
    expect((await http().get("/api/data/get_key").set("Authorization", basic("nora", "nora new password"))).status).toBe(200);
    expect((await http().get("/api/data/get_key").set("Authorization", basic("root", "root password"))).status).toBe(200);

    expectErrorBody(await reset({ reset_code: code, email: "nora@example.org", new_password: "second use password" }), 400);
    expectErrorBody(await http().get("/api/data/get_key").set("Authorization", basic("nora", "second use password")), 401);
  });

  test("reset-code guesses lock out the guesser's address only; the mailed code still works from another", async () => {
    await http()
      .post("/api/data/add_user")
      .set("Api-Key", adminKey)
      .send({ fullname: "Pia", username: "pia", email: "pia@example.org", hash_pw: "pia password" });
    const untrust = trustLoopbackProxy();
    try {
      const reset = (code: string, from: string) =>
        http()
          .post("/api/data/verify_and_reset_password")
          .set("X-Forwarded-For", from)
          .send({ reset_code: code, email: "pia@example.org", new_password: "pia new password" });
      await http().post("/api/data/reset_password_create_code").set("X-Forwarded-For", "203.0.113.5").send({ email: "pia@example.org", username: "pia" });
      const code = /Reset code: ([A-Z0-9]{5}-[A-Z0-9]{5})/.exec((await waitForMail("pia@example.org", /reset/i)).body)![1];
      for (let i = 0; i < 10; i++) expectErrorBody(await reset(`AAAAA-AAAA${i}`, "198.51.100.7"), 400);
      expectErrorBody(await reset("AAAAA-AAAAZ", "198.51.100.7"), 429);
      expectErrorBody(await reset(code, "198.51.100.7"), 429);
      expect((await reset(code, "203.0.113.5")).status).toBe(200);
      expect((await http().get("/api/data/get_key").set("Authorization", basic("pia", "pia new password"))).status).toBe(200);
    } finally {
      untrust();
    }
  });

  test("a reset code expires after 15 minutes", async () => {
    await http()
      .post("/api/data/add_user")
      .set("Api-Key", adminKey)
      .send({ fullname: "Otto", username: "otto", email: "otto@example.org", hash_pw: "otto password" });
    const t0 = Date.now();
    freezeClock(t0);
    await http().post("/api/data/reset_password_create_code").send({ email: "otto@example.org", username: "otto" });
    const mail = await waitForMail("otto@example.org", /reset/i);
    const code = /Reset code: ([A-Z0-9]{5}-[A-Z0-9]{5})/.exec(mail.body)![1];
    jest.setSystemTime(t0 + 15 * 60_000 + 1_000);
    expectErrorBody(
      await http().post("/api/data/verify_and_reset_password").send({ reset_code: code, email: "otto@example.org", new_password: "too late password" }),
      400,
    );
    expect((await http().get("/api/data/get_key").set("Authorization", basic("otto", "otto password"))).status).toBe(200);
  });
});
