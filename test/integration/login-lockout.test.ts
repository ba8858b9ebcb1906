/**
 * Failed logins are counted per username and client address, plus per address across usernames: a
 * guesser locks out its own address, never the account. The test's loopback peer is a trusted proxy,
 * so X-Forwarded-For plays the clients' addresses.
 */
import { api, basic, expectErrorBody } from "../helpers/client";
import { startServer, TestServer, trustLoopbackProxy } from "../helpers/server";
import { config } from "../../shared/config";

const ATTACKER = "198.51.100.7";
const OWNER = "203.0.113.5";

describe("login lockout per client address", () => {
  let server: TestServer;
  let adminKey = "";
  let untrust = () => {};
  const login = (username: string, password: string, from?: string) => {
    const req = api(server.url).get("/api/data/get_key").set("Authorization", basic(username, password));
    return from ? req.set("X-Forwarded-For", from) : req;
  };
  const addUser = (username: string) =>
    api(server.url)
      .post("/api/data/add_user")
      .set("Api-Key", adminKey)
      .send({ fullname: username, username, email: `${username}@example.org`, hash_pw: `${username} password` });

  beforeAll(async () => {
    untrust = trustLoopbackProxy();
    server = await startServer();
    await api(server.url).post("/api/data/create_first").send({ username: "root", password: "root password", email: "root@example.org", fullname: "Root" });
    adminKey = (await login("root", "root password")).body.retrieved_key;
  });
  afterAll(async () => {
    untrust();
    await server?.stop();
  });

  test("ten wrong passwords lock the guesser's address out of that account; the owner logs in from another", async () => {
    expect((await addUser("olga")).status).toBe(200);
    for (let i = 0; i < 10; i++) expectErrorBody(await login("olga", `guess ${i}`, ATTACKER), 401);
    expectErrorBody(await login("olga", "guess 10", ATTACKER), 429);
    // Even the right password from the locked address waits; a forged left-hand hop does not help.
    expectErrorBody(await login("olga", "olga password", ATTACKER), 429);
    expectErrorBody(await login("olga", "olga password", `${OWNER}, ${ATTACKER}`), 429);

    const owner = await login("olga", "olga password", OWNER);
    expect(owner.status).toBe(200);
    expect(owner.body.retrieved_key).toEqual(expect.any(String));
    // Other accounts from the guesser's address are not affected by this account's counter.
    expect((await login("root", "root password", ATTACKER)).status).toBe(200);
  });

  test("one address trying many usernames hits the per-address limit; the accounts stay open elsewhere", async () => {
    expect((await addUser("pete")).status).toBe(200);
    const from = "198.51.100.9";
    for (let i = 0; i < config.loginMaxFailuresPerAddress; i++) expectErrorBody(await login(`nobody${i}`, "guess", from), 401);
    expectErrorBody(await login("somebody", "guess", from), 429);
    expectErrorBody(await login("pete", "pete password", from), 429);
    expect((await login("pete", "pete password", OWNER)).status).toBe(200);
  });

  test("X-Forwarded-For from a peer that is not a trusted proxy is ignored", async () => {
    expect((await addUser("quentin")).status).toBe(200);
    const trusted = config.trustedProxies;
    config.trustedProxies = ["10.0.0.0/8"];
    try {
      // A different claimed address each time: all of them count against the real peer.
      for (let i = 0; i < 10; i++) expectErrorBody(await login("quentin", "guess", `192.0.2.${i + 1}`), 401);
      expectErrorBody(await login("quentin", "quentin password", "192.0.2.200"), 429);
    } finally {
      config.trustedProxies = trusted;
    }
    expect((await login("quentin", "quentin password", OWNER)).status).toBe(200);
  });

  test("a wrong TRUSTED_PROXIES entry is refused at start with its name", async () => {
    const trusted = config.trustedProxies;
    config.trustedProxies = ["10.0.0.0/33"];
    try {
      await expect(startServer()).rejects.toThrow(/TRUSTED_PROXIES: "10.0.0.0\/33"/);
    } finally {
      config.trustedProxies = trusted;
    }
  });
});
