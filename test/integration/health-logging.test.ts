/**
 * Health reports the cache / coordination store in use, and request logs never carry secrets.
 */
import { api, basic } from "../helpers/client";
import { startServer, TestServer } from "../helpers/server";
import { freePort, portOpen } from "../helpers/processes";

describe("health with a Redis cache", () => {
  test("an unreachable Redis makes /api/health answer 503 with redis false", async () => {
    const port = await freePort(); // nothing listens there
    const server = await startServer({
      broker: { cacher: { type: "Redis", options: { redis: { host: "127.0.0.1", port, maxRetriesPerRequest: 0, enableOfflineQueue: false, lazyConnect: true } } } },
    });
    try {
      const res = await api(server.url).get("/api/health");
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ status: "unhealthy", database: true, redis: false });
    } finally {
      // quit() would wait forever for a server that is not there.
      (server.broker.cacher as any).client.disconnect();
      await server.stop().catch(() => undefined);
    }
  });

  const redisUp = portOpen(6379);
  test("a reachable Redis (the machine's, when there is one) is reported healthy", async () => {
    if (!(await redisUp)) {
      console.warn("No Redis on 127.0.0.1:6379: the healthy-Redis check is skipped");
      return;
    }
    const server = await startServer({ broker: { cacher: { type: "Redis", options: { redis: "redis://127.0.0.1:6379", prefix: `test-${process.pid}` } } } });
    try {
      const res = await api(server.url).get("/api/health");
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: "healthy", database: true, redis: true });
    } finally {
      await server.stop();
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
          options: { level: "debug", formatter: (_type: string, args: any[]) => { lines.push(JSON.stringify(args)); return []; } },
        },
      } as any,
    });
  });
  afterAll(() => server.stop());

  test("never contain API keys, passwords or query strings", async () => {
    const password = "very-secret-password-1";
    await api(server.url).post("/api/data/create_first").send({ username: "logadmin", password, email: "l@example.org", fullname: "L" });
    const key = (await api(server.url).get("/api/data/get_key").set("Authorization", basic("logadmin", password))).body.retrieved_key;
    expect(key).toEqual(expect.any(String));
    await api(server.url).get("/api/data/get_key").set("Authorization", basic("logadmin", "wrong-" + password));
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
