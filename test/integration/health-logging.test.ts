/**
 * Health reports the cache / coordination store in use, and request logs never carry secrets.
 */
import { api, basic } from "../helpers/client";
import { startServer, TestServer } from "../helpers/server";
import { freePort, startRedis } from "../helpers/processes";
import { until } from "../helpers/wait";
import { ResilientRedisCacher } from "../../shared/redis-cacher";

describe("health with the shared Redis cache (the cacher CACHER=redis://... deploys)", () => {
  const prefix = `test-${process.pid}`;
  const createAdmin = async (url: string) => {
    await api(url).post("/api/data/create_first").send({ username: "admin", password: "a long password", email: "a@example.org", fullname: "A" });
    return (await api(url).get("/api/data/get_key").set("Authorization", basic("admin", "a long password"))).body.retrieved_key as string;
  };

  test("an unreachable Redis makes /api/health answer 503 with redis false, and cached actions answer from their handlers", async () => {
    const port = await freePort(); // nothing listens there
    const server = await startServer({ broker: { cacher: new ResilientRedisCacher(`redis://127.0.0.1:${port}`, prefix, 300) } });
    try {
      const res = await api(server.url).get("/api/health");
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ status: "unhealthy", database: true, redis: false });
      // auth.resolve_key is cached: every request's key lookup misses the cache and is answered anyway, at once.
      const key = await createAdmin(server.url);
      const started = Date.now();
      expect((await api(server.url).get("/api/data/verify_key").set("Api-Key", key)).status).toBe(200);
      expect(Date.now() - started).toBeLessThan(1000);
    } finally {
      await server.stop().catch(() => undefined);
    }
  });

  test("Redis stopped and started again: requests keep answering, health says redis false, then true once the cacher has reconnected", async () => {
    let redis = await startRedis();
    const server = await startServer({ broker: { cacher: new ResilientRedisCacher(redis.url, prefix, 300) } });
    try {
      // The cacher connects in the background (no offline queue): healthy once it has.
      await until(async () => (await api(server.url).get("/api/health")).status === 200, 10_000);
      expect((await api(server.url).get("/api/health")).body).toMatchObject({ status: "healthy", database: true, redis: true });
      const key = await createAdmin(server.url);
      expect((await api(server.url).get("/api/data/verify_key").set("Api-Key", key)).status).toBe(200);
      const cached = async () => ((await (server.broker.cacher as { getCacheKeys?(): Promise<unknown[]> }).getCacheKeys?.()) ?? []).length;
      expect(await cached()).toBeGreaterThan(0);

      await redis.proc.stop();
      // New keys: their lookups are not in the gateway's own key cache, so each goes through the cacher.
      // Each at once: a cache that is away is a miss, not a wait for it.
      for (let i = 0; i < 3; i++) {
        const fresh = await createAdmin(server.url);
        const started = Date.now();
        expect((await api(server.url).get("/api/data/verify_key").set("Api-Key", fresh)).status).toBe(200);
        expect(Date.now() - started).toBeLessThan(500);
      }
      const down = await api(server.url).get("/api/health");
      expect(down.status).toBe(503);
      expect(down.body).toMatchObject({ status: "unhealthy", redis: false });

      redis = await startRedis(redis.port);
      await until(async () => (await api(server.url).get("/api/health")).status === 200, 10_000);
      // Filled again: a new key's lookup is written to the new Redis.
      const fresh = await createAdmin(server.url);
      expect((await api(server.url).get("/api/data/verify_key").set("Api-Key", fresh)).status).toBe(200);
      await until(async () => (await cached()) > 0, 5_000);
    } finally {
      await server.stop().catch(() => undefined);
      await redis.proc.stop();
    }
  });
});

describe("request logs", () => {
  let server: TestServer;
  const lines: string[] = [];
  beforeAll(async () => {
    server = await startServer({
      broker: {
        logger: {
          type: "Console",
          options: {
            level: "debug",
            formatter: (_type: string, args: any[]) => {
              lines.push(JSON.stringify(args));
              return [];
            },
          },
        },
      },
    });
  });
  afterAll(() => server.stop());

  test("never contain API keys, passwords or query strings", async () => {
    const password = "very-secret-password-1";
    await api(server.url).post("/api/data/create_first").send({ username: "logadmin", password, email: "l@example.org", fullname: "L" });
    const key = (await api(server.url).get("/api/data/get_key").set("Authorization", basic("logadmin", password))).body.retrieved_key;
    expect(key).toEqual(expect.any(String));
    await api(server.url)
      .get("/api/data/get_key")
      .set("Authorization", basic("logadmin", "wrong-" + password));
    await api(server.url).get(`/api/data/verify_key?api_key=${key}`).set("Api-Key", key);
    await api(server.url).post("/api/data/create_api_key").set("Api-Key", key).send({ user_id: 1, rssonly: false });
    // Routes that take the key in the query or body.
    await api(server.url).get(`/api/data/stream/1?api_key=${key}&user_id=1`);
    await api(server.url).post("/api/init/startup_tasks").send({ api_key: key });
    const all = lines.join("\n");
    expect(all).toContain("/api/data/stream/1");
    expect(all).toContain("/api/data/verify_key"); // the request was logged ...
    expect(all).not.toContain(key); // ... but not its key
    expect(all).not.toContain(password);
    expect(all).not.toContain(Buffer.from(`logadmin:${password}`).toString("base64"));
  });
});
