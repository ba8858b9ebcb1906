/**
 * MFA through the gateway, with TOTP codes from an independent RFC 6238 implementation (node:crypto, not
 * otplib): set-up, verification, the get_key -> verify_mfa_and_get_key login and its state table.
 */
import { api, basic, expectErrorBody } from "../helpers/client";
import { startServer, TestServer, trustLoopbackProxy } from "../helpers/server";
import { otherCode, totp } from "../helpers/totp";
import { freezeClock } from "../helpers/clock";

describe("MFA (TOTP) set-up and login", () => {
  let server: TestServer;
  const http = () => api(server.url);
  let adminKey = "";

  async function newUser(name: string) {
    const password = `${name} password`;
    const res = await http()
      .post("/api/data/add_user")
      .set("Api-Key", adminKey)
      .send({ fullname: name, username: name, email: `${name}@example.org`, hash_pw: password });
    expect(res.status).toBe(200);
    const login = await http().get("/api/data/get_key").set("Authorization", basic(name, password));
    return { id: res.body.user_id as number, key: login.body.retrieved_key as string, password };
  }

  /** generate_mfa_secret + verify_temp_mfa with a valid code: MFA on; returns the secret. */
  async function enableMfa(u: { id: number; key: string }): Promise<string> {
    const gen = await http().get(`/api/data/generate_mfa_secret/${u.id}`).set("Api-Key", u.key);
    expect(gen.status).toBe(200);
    const ok = await http()
      .post("/api/data/verify_temp_mfa")
      .set("Api-Key", u.key)
      .send({ user_id: u.id, mfa_code: totp(gen.body.secret) });
    expect(ok.body).toEqual({ verified: true });
    return gen.body.secret;
  }

  const startLogin = async (name: string, password: string) => {
    const res = await http().get("/api/data/get_key").set("Authorization", basic(name, password));
    expect(res.status).toBe(200);
    return res.body;
  };
  const finishLogin = (token: string, code: string) => http().post("/api/data/verify_mfa_and_get_key").send({ mfa_session_token: token, mfa_code: code });

  beforeAll(async () => {
    server = await startServer();
    await http().post("/api/data/create_first").send({ username: "root", password: "root password", email: "root@example.org", fullname: "Root" });
    adminKey = (await http().get("/api/data/get_key").set("Authorization", basic("root", "root password"))).body.retrieved_key;
  });
  afterAll(() => server?.stop());
  afterEach(() => jest.useRealTimers());

  test("the test's own TOTP matches RFC 6238's SHA-1 test vectors", () => {
    const secret = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"; // base32 of "12345678901234567890"
    expect(totp(secret, 59_000, 0, 8)).toBe("94287082");
    expect(totp(secret, 1111111109_000, 0, 8)).toBe("07081804");
    expect(totp(secret, 2000000000_000, 0, 8)).toBe("69279037");
  });

  test("set-up: secret and otpauth URI, MFA on only after a valid code, secret never shown again", async () => {
    const u = await newUser("mia");
    const other = await newUser("ned");
    expectErrorBody(await http().get(`/api/data/generate_mfa_secret/${other.id}`).set("Api-Key", u.key), 403);
    expectErrorBody(await http().post("/api/data/verify_temp_mfa").set("Api-Key", u.key).send({ user_id: u.id, mfa_code: "123456" }), 400);
    expect((await http().get(`/api/data/check_mfa_enabled/${u.id}`).set("Api-Key", u.key)).body).toEqual({ mfa_enabled: false });

    const gen = await http().get(`/api/data/generate_mfa_secret/${u.id}`).set("Api-Key", u.key);
    expect(gen.status).toBe(200);
    const { secret, otpauth_uri } = gen.body;
    expect(secret).toMatch(/^[A-Z2-7]{16,}=*$/);
    const uri = new URL(otpauth_uri);
    expect(uri.protocol).toBe("otpauth:");
    expect(uri.host).toBe("totp");
    expect(decodeURIComponent(uri.pathname)).toBe("/podcast-server:mia");
    expect(uri.searchParams.get("secret")).toBe(secret);
    expect(uri.searchParams.get("issuer")).toBe("podcast-server");
    expect(uri.searchParams.get("algorithm") ?? "SHA1").toBe("SHA1");
    expect(uri.searchParams.get("digits") ?? "6").toBe("6");
    expect(uri.searchParams.get("period") ?? "30").toBe("30");

    // A wrong code (or junk) leaves MFA off, and login stays one step.
    for (const bad of [otherCode(totp(secret)), "12345", "abcdef", "1234567"]) {
      expect((await http().post("/api/data/verify_temp_mfa").set("Api-Key", u.key).send({ user_id: u.id, mfa_code: bad })).body).toEqual({ verified: false });
    }
    expect((await http().get(`/api/data/check_mfa_enabled/${u.id}`).set("Api-Key", u.key)).body).toEqual({ mfa_enabled: false });
    expect((await startLogin("mia", u.password)).status).toBe("success");
    expectErrorBody(
      await http()
        .post("/api/data/verify_temp_mfa")
        .set("Api-Key", u.key)
        .send({ user_id: other.id, mfa_code: totp(secret) }),
      403,
    );

    const ok = await http()
      .post("/api/data/verify_temp_mfa")
      .set("Api-Key", u.key)
      .send({ user_id: u.id, mfa_code: totp(secret) });
    expect(ok.body).toEqual({ verified: true });
    expect((await http().get(`/api/data/check_mfa_enabled/${u.id}`).set("Api-Key", u.key)).body).toEqual({ mfa_enabled: true });
    expectErrorBody(await http().get(`/api/data/check_mfa_enabled/${u.id}`).set("Api-Key", other.key), 403);

    for (const path of [
      `/api/data/my_user_info/${u.id}`,
      `/api/data/user_details_id/${u.id}`,
      `/api/data/check_mfa_enabled/${u.id}`,
      `/api/data/get_time_info?user_id=${u.id}`,
    ]) {
      const res = await http().get(path).set("Api-Key", u.key);
      expect(res.status).toBe(200);
      expect(JSON.stringify(res.body)).not.toContain(secret);
    }

    expect(
      (
        await http()
          .post("/api/data/verify_mfa")
          .set("Api-Key", u.key)
          .send({ user_id: u.id, mfa_code: totp(secret) })
      ).body,
    ).toEqual({ verified: true });
    expect(
      (
        await http()
          .post("/api/data/verify_mfa")
          .set("Api-Key", u.key)
          .send({ user_id: u.id, mfa_code: otherCode(totp(secret)) })
      ).body,
    ).toEqual({ verified: false });
    expectErrorBody(await http().post("/api/data/verify_mfa").set("Api-Key", u.key).send({ user_id: u.id }), 400);
    expectErrorBody(await http().post("/api/data/verify_mfa").set("Api-Key", other.key).send({ user_id: other.id, mfa_code: "123456" }), 400);
  });

  test("verify_mfa allows one 30-second step of clock skew, not two", async () => {
    const u = await newUser("olga");
    const secret = await enableMfa(u);
    const midStep = (Math.floor(Date.now() / 30_000) + 2) * 30_000 + 15_000;
    freezeClock(midStep);
    const check = async (steps: number) =>
      (
        await http()
          .post("/api/data/verify_mfa")
          .set("Api-Key", u.key)
          .send({ user_id: u.id, mfa_code: totp(secret, midStep, steps) })
      ).body.verified;
    expect(await check(-1)).toBe(true);
    expect(await check(0)).toBe(true);
    expect(await check(1)).toBe(true);
    expect(await check(2)).toBe(false);
    // A code works once (RFC 6238 5.2): the same or an older step is refused afterwards.
    expect(await check(1)).toBe(false);
    expect(await check(0)).toBe(false);
    expect(await check(-2)).toBe(false);
  });

  test("login: get_key answers mfa_required, verify_mfa_and_get_key follows the state table, tokens are single use", async () => {
    const u = await newUser("pete");
    const secret = await enableMfa(u);
    expectErrorBody(await http().get("/api/data/get_key").set("Authorization", basic("pete", "wrong password")), 401);

    const first = await startLogin("PETE", u.password);
    expect(first).toEqual({ status: "mfa_required", retrieved_key: null, mfa_required: true, user_id: u.id, mfa_session_token: expect.any(String) });
    const token: string = first.mfa_session_token;

    expectErrorBody(await http().post("/api/data/verify_mfa_and_get_key").send({ mfa_session_token: token }), 400);
    expectErrorBody(
      await http()
        .post("/api/data/verify_mfa_and_get_key")
        .send({ mfa_code: totp(secret) }),
      400,
    );
    expectErrorBody(await http().post("/api/data/verify_mfa_and_get_key").send({}), 400);

    const wrong = await finishLogin(token, otherCode(totp(secret)));
    expect(wrong.status).toBe(200);
    expect(wrong.body).toEqual({ status: "invalid_code", retrieved_key: null, verified: false });
    expect((await finishLogin("no-such-token", totp(secret))).body).toEqual({ status: "invalid_session", retrieved_key: null, verified: false });

    const ok = await finishLogin(token, totp(secret));
    expect(ok.body).toEqual({ status: "success", retrieved_key: expect.any(String), verified: true });
    expect((await http().get("/api/data/get_user").set("Api-Key", ok.body.retrieved_key)).body).toEqual({ status: "success", retrieved_id: u.id });

    // The token is consumed: the same (valid) code with it again gets no key.
    expect((await finishLogin(token, totp(secret))).body).toEqual({ status: "invalid_session", retrieved_key: null, verified: false });

    // Two logins give two independent tokens; a code works for one login only (a replay is refused).
    const a = (await startLogin("pete", u.password)).mfa_session_token;
    const b = (await startLogin("pete", u.password)).mfa_session_token;
    expect(a).not.toBe(b);
    const next = totp(secret, Date.now(), 1);
    expect((await finishLogin(b, next)).body.status).toBe("success");
    expect((await finishLogin(a, next)).body.status).toBe("invalid_code");
    freezeClock(Date.now() + 60_000);
    expect((await finishLogin(a, totp(secret))).body.status).toBe("success");
  });

  test("wrong codes use a token up after five, and count as failed logins", async () => {
    const u = await newUser("quin");
    const secret = await enableMfa(u);
    const token = (await startLogin("quin", u.password)).mfa_session_token;
    for (let i = 0; i < 5; i++) expect((await finishLogin(token, otherCode(totp(secret)))).body.status).toBe("invalid_code");
    expect((await finishLogin(token, totp(secret))).body).toEqual({ status: "invalid_session", retrieved_key: null, verified: false });
    // Wrong codes also count as failed logins: ten in a minute and get_key pauses this username.
    const second = (await startLogin("quin", u.password)).mfa_session_token;
    for (let i = 0; i < 5; i++) expect((await finishLogin(second, otherCode(totp(secret)))).body.status).toBe("invalid_code");
    expectErrorBody(await http().get("/api/data/get_key").set("Authorization", basic("quin", u.password)), 429);
  });

  test("wrong codes lock out the guesser's address only: the owner finishes an MFA login from another", async () => {
    const u = await newUser("sven");
    const secret = await enableMfa(u);
    const untrust = trustLoopbackProxy();
    try {
      const attacker = "198.51.100.7";
      const getKey = (from: string) => http().get("/api/data/get_key").set("Authorization", basic("sven", u.password)).set("X-Forwarded-For", from);
      // A guesser who has the password: two sessions of five wrong codes are its ten failures.
      for (let s = 0; s < 2; s++) {
        const token = (await getKey(attacker)).body.mfa_session_token;
        for (let i = 0; i < 5; i++)
          expect((await finishLogin(token, otherCode(totp(secret))).set("X-Forwarded-For", attacker)).body.status).toBe("invalid_code");
      }
      expectErrorBody(await getKey(attacker), 429);
      const ownerToken = (await getKey("203.0.113.5")).body.mfa_session_token;
      expectErrorBody(await finishLogin(ownerToken, otherCode(totp(secret))).set("X-Forwarded-For", attacker), 429);
      const ok = await finishLogin(ownerToken, totp(secret)).set("X-Forwarded-For", "203.0.113.5");
      expect(ok.body).toEqual({ status: "success", retrieved_key: expect.any(String), verified: true });
    } finally {
      untrust();
    }
  });

  test("session tokens last 5 minutes: at 4:59 one works, at 5:01 another answers session_expired", async () => {
    const u = await newUser("rita");
    const secret = await enableMfa(u);
    const t0 = Date.now();
    freezeClock(t0);
    const early = (await startLogin("rita", u.password)).mfa_session_token;
    const late = (await startLogin("rita", u.password)).mfa_session_token;

    jest.setSystemTime(t0 + 4 * 60_000 + 59_000);
    expect((await finishLogin(early, totp(secret))).body.status).toBe("success");

    jest.setSystemTime(t0 + 5 * 60_000 + 1_000);
    expect((await finishLogin(late, totp(secret))).body).toEqual({ status: "session_expired", retrieved_key: null, verified: false });
    expect((await finishLogin(late, totp(secret))).body.status).toBe("session_expired");
  });

  test("delete_mfa: own or (admin) anyone's; login is one step again", async () => {
    const u = await newUser("saul");
    const other = await newUser("tina");
    await enableMfa(u);
    const otherSecret = await enableMfa(other);
    expectErrorBody(await http().delete("/api/data/delete_mfa").set("Api-Key", u.key).send({ user_id: other.id }), 403);

    expect((await http().delete("/api/data/delete_mfa").set("Api-Key", u.key)).status).toBe(200);
    expect((await http().get(`/api/data/check_mfa_enabled/${u.id}`).set("Api-Key", u.key)).body).toEqual({ mfa_enabled: false });
    const login = await startLogin("saul", u.password);
    expect(login).toMatchObject({ status: "success", mfa_required: false, mfa_session_token: null });
    expect(login.retrieved_key).toEqual(expect.any(String));

    expect((await http().get(`/api/data/check_mfa_enabled/${other.id}`).set("Api-Key", other.key)).body).toEqual({ mfa_enabled: true });
    expect((await finishLogin((await startLogin("tina", other.password)).mfa_session_token, totp(otherSecret))).body.status).toBe("success");
    expect((await http().delete("/api/data/delete_mfa").set("Api-Key", adminKey).send({ user_id: other.id })).status).toBe(200);
    expect((await startLogin("tina", other.password)).status).toBe("success");
  });
});
