/**
 * The search service black-box on its own gateway (issue 11): every index and search type against
 * loopback providers serving recorded responses, the request signing, caching, the counters across a
 * restart, CORS and every error status with its plain-text body.
 */
import fs from "fs";
import os from "os";
import path from "path";
import request from "supertest";
import { config } from "../../shared/config";
import { PROVIDER_USER_AGENT } from "../../shared/provider";
import SearchService from "../../services/search.service";
import SearchApiService from "../../services/search-api.service";
import type { Loopback } from "../helpers/loopback";
import { FAKE_YTDLP, startProviders, useProviders, TEST_KEY, TEST_SECRET } from "../helpers/providers";
import { plainSchema } from "../helpers/schema";
import { startServer, tempDir, TestServer } from "../helpers/server";

const services = [plainSchema(SearchService), plainSchema(SearchApiService)];

describe("search service (SEARCH_PORT gateway)", () => {
  let peer: Loopback;
  let server: TestServer;
  let dataDir: string;
  const toolLog = path.join(os.tmpdir(), `fake-ytdlp-${process.pid}.log`);
  const saved = { ...config };
  const get = (p: string) => request(server.searchUrl).get(p);
  const peerHits = (pathname: string) => peer.requests.filter((r) => r.url.startsWith(pathname)).length;
  const toolLines = () => (fs.existsSync(toolLog) ? fs.readFileSync(toolLog, "utf8").trim().split("\n").filter(Boolean) : []);
  const toolRuns = () => toolLines().filter((l) => l !== "exit").length;

  beforeAll(async () => {
    peer = await startProviders();
    useProviders(peer);
    process.env.FAKE_YTDLP_LOG = toolLog;
    dataDir = tempDir("search-test-");
    server = await startServer({ dataDir, services });
  });
  afterAll(async () => {
    await server?.stop();
    await peer?.close();
    Object.assign(config, saved);
    delete process.env.FAKE_YTDLP_LOG;
    fs.rmSync(toolLog, { force: true });
  });

  test("no query and no index: plain-text connection confirmation", async () => {
    const res = await get("/api/search");
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^text\/plain/);
    expect(res.text).toMatch(/success/i);
  });

  test("directory term search: signed request, the documented fields, storeId for the store's id", async () => {
    for (const index of ["directory", "podcastindex", undefined]) {
      const res = await get("/api/search").query({ query: "batman university", ...(index ? { index } : {}) });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: "true", count: 1, query: "batman university", description: expect.any(String) });
      const [feed] = res.body.feeds;
      expect(feed).toMatchObject({
        id: 75075,
        title: "Batman University",
        url: expect.any(String),
        storeId: 1441923632,
        lastUpdateTime: expect.any(Number),
        dead: 0,
      });
      expect(feed).not.toHaveProperty("itunesId");
    }
    const sent = peer.requests.find((r) => r.url.startsWith("/api/1.0/search/byterm"))!;
    expect(sent.url).toBe("/api/1.0/search/byterm?q=batman+university");
    expect(sent.headers["x-auth-key"]).toBe(TEST_KEY);
    expect(sent.headers["user-agent"]).toBe(PROVIDER_USER_AGENT);
    expect(JSON.stringify(sent.headers)).not.toContain(TEST_SECRET);
    // Both directory spellings and the default share one cache entry: one provider hit.
    expect(peerHits("/api/1.0/search/byterm")).toBe(1);
  });

  test("directory person search: the podcasts of the matching episodes, the episodes in items", async () => {
    const res = await get("/api/search").query({ query: "adam curry", index: "directory", search_type: "person" });
    expect(res.status).toBe(200);
    expect(res.body.feeds.map((f: any) => f.id)).toEqual([920666, 4311]);
    expect(res.body.count).toBe(2);
    expect(res.body.items).toHaveLength(3);
    expect(res.body.items[0]).toMatchObject({ feedId: 920666, feedStoreId: 269169796 });
    expect(peer.requests.some((r) => r.url === "/api/1.0/search/byperson?q=adam+curry")).toBe(true);
  });

  test("store search (store and itunes spellings), no signing headers sent", async () => {
    const res = await get("/api/search").query({ query: "batman", index: "itunes" });
    expect(res.status).toBe(200);
    expect(res.body.resultCount).toBe(1);
    expect(res.body.results[0]).toMatchObject({
      collectionId: 1441923632,
      feedUrl: expect.any(String),
      genreIds: expect.arrayContaining([expect.any(String)]),
      collectionPrice: 0,
    });
    await get("/api/search").query({ query: "batman", index: "store" }).expect(200);
    const sent = peer.requests.filter((r) => r.url.startsWith("/search?"));
    expect(sent).toHaveLength(1);
    expect(sent[0].url).toContain("term=batman");
    expect(sent[0].headers).not.toHaveProperty("x-auth-key");
  });

  test("a burst of requests for one uncached query asks the provider once", async () => {
    const answers = await Promise.all(Array.from({ length: 20 }, () => get("/api/search").query({ query: "burst", index: "store" })));
    expect(answers.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect(peer.requests.filter((r) => r.url.includes("term=burst"))).toHaveLength(1);
  });

  test("vidsite search: channels deduplicated, at most 25; a repeated query does not run the tool again", async () => {
    const before = toolRuns();
    const res = await get("/api/search").query({ query: "pinchflat", index: "youtube" });
    expect(res.status).toBe(200);
    expect(res.body.results.map((c: any) => c.channelId)).toEqual(["UCEABC123", "UCxyz0000000000000000002", "UCxyz0000000000000000003"]);
    expect(res.body.results[0]).toEqual({
      channelId: "UCEABC123",
      name: "PinchflatTestChannel",
      description: "",
      thumbnailUrl: expect.stringMatching(/^https:/),
      url: "https://www.youtube.com/channel/UCEABC123",
    });
    await get("/api/search").query({ query: "pinchflat", index: "vidsite" }).expect(200);
    expect(toolRuns()).toBe(before + 1);
    const many = await get("/api/search").query({ query: "many", index: "vidsite" });
    expect(many.body.results).toHaveLength(25);
    expect(new Set(many.body.results.map((c: any) => c.channelId)).size).toBe(25);
  });

  test("the extraction tool runs YTDLP_CONCURRENCY processes at a time, the others wait their turn", async () => {
    config.ytdlpConcurrency = 1;
    try {
      const before = toolLines().length;
      const answers = await Promise.all(["one", "two", "three"].map((q) => get("/api/search").query({ query: `queued ${q}`, index: "vidsite" })));
      expect(answers.map((r) => r.status)).toEqual([200, 200, 200]);
      const lines = toolLines()
        .slice(before)
        .map((l) => (l === "exit" ? "exit" : "start"));
      expect(lines).toEqual(["start", "exit", "start", "exit", "start", "exit"]);
    } finally {
      config.ytdlpConcurrency = saved.ytdlpConcurrency;
    }
  });

  test("podcast details by directory feed id; 404 for an unknown id; 400 for a malformed one", async () => {
    const res = await get("/api/podcast").query({ id: "75075" });
    expect(res.status).toBe(200);
    expect(res.body.feed).toMatchObject({ id: 75075, title: "Batman University", storeId: 1441923632, episodeCount: 19 });
    const missing = await get("/api/podcast").query({ id: "999999999" });
    expect(missing.status).toBe(404);
    expect(missing.headers["content-type"]).toMatch(/^text\/plain/);
    expect(missing.text).toBe("Podcast not found");
    expect((await get("/api/podcast").query({ id: "abc" })).status).toBe(400);
    expect((await get("/api/podcast")).status).toBe(400);
  });

  test("channel details: at most 15 recent videos, PT#M#S durations, null counts; 404 for a missing or empty channel", async () => {
    const res = await get("/api/vidsite/channel").query({ id: "UCEABC123" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      channelId: "UCEABC123",
      name: "PinchflatTestChannel",
      description: "This is a test file for Pinchflat",
      subscriberCount: null,
      videoCount: null,
      url: expect.any(String),
      thumbnailUrl: expect.any(String),
    });
    expect(res.body.recentVideos).toHaveLength(15);
    expect(res.body.recentVideos.slice(0, 3).map((v: any) => v.duration)).toEqual(["PT62M5S", "PT1M1S", "PT0M0S"]);
    expect(res.body.recentVideos[0]).toEqual({
      id: "chv00000000a",
      title: "Channel video 0",
      description: "Description of video 0",
      url: "https://www.youtube.com/watch?v=chv00000000a",
      thumbnail: expect.stringMatching(/^https:\/\/i\.ytimg\.com\//),
      publishedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/),
      duration: "PT62M5S",
    });
    // A day without a time (upload_date) is midnight UTC.
    expect(res.body.recentVideos[1].publishedAt).toMatch(/T00:00:00\.000Z$/);
    for (const id of ["UCnotfound", "UCempty"]) {
      const nf = await get("/api/vidsite/channel").query({ id });
      expect(nf.status).toBe(404);
      expect(nf.text).toBe("Channel not found or has no videos");
    }
    expect((await get("/api/vidsite/channel").query({ id: "--exec=rm" })).status).toBe(400);
  });

  test("bad input: 400 in plain text", async () => {
    for (const query of [
      { index: "store" },
      { query: "x", index: "nope" },
      { query: "x", search_type: "guest" },
      { query: "x", index: "store", search_type: "person" },
      { query: ["a", "b"] },
    ]) {
      const res = await get("/api/search").query(query);
      expect(res.status).toBe(400);
      expect(res.headers["content-type"]).toMatch(/^text\/plain/);
      expect(res.text.length).toBeGreaterThan(0);
    }
    expect((await get("/api/nothing")).status).toBe(404);
  });

  test("provider failures: 503 when it rate-limits, is down or misses the deadline; 500 for an unreadable answer", async () => {
    config.searchProviderTimeoutMs = 1000;
    try {
      const cases: [Record<string, string>, number, RegExp][] = [
        [{ query: "ratelimit" }, 503, /rate limit/],
        [{ query: "ratelimit", index: "store" }, 503, /rate limit/],
        [{ query: "down" }, 503, /unavailable/],
        [{ query: "hang" }, 503, /unavailable/],
        [{ query: "hang", index: "store" }, 503, /unavailable/],
        [{ query: "broken" }, 500, /^Failed to parse response body$/],
        [{ query: "ratelimit", index: "vidsite" }, 503, /rate limit/],
        [{ query: "hang", index: "vidsite" }, 503, /in time/],
        [{ query: "crash", index: "vidsite" }, 500, /^video channel search failed$/],
        [{ query: "broken", index: "vidsite" }, 500, /^Failed to parse response body$/],
      ];
      for (const [query, status, text] of cases) {
        const res = await get("/api/search").query(query);
        expect([query, res.status]).toEqual([query, status]);
        expect(res.text).toMatch(text);
      }
      expect((await get("/api/vidsite/channel").query({ id: "UCcrash" })).text).toBe("video channel fetch failed");
      // A refusal is final: no second try with another User-Agent (the agent sent to providers is fixed).
      const refused = await get("/api/search").query({ query: "forbidden", index: "store" });
      expect([refused.status, refused.text]).toEqual([500, "store request failed (HTTP 403)"]);
      expect(peer.requests.filter((r) => r.url.includes("term=forbidden"))).toHaveLength(1);
    } finally {
      config.searchProviderTimeoutMs = saved.searchProviderTimeoutMs;
    }
  });

  test("missing credentials: 500 API_KEY not set / API_SECRET not set; the store still answers", async () => {
    config.apiKey = "";
    let res = await get("/api/search").query({ query: "no key" });
    expect([res.status, res.text]).toEqual([500, "API_KEY not set"]);
    config.apiKey = TEST_KEY;
    config.apiSecret = "";
    res = await get("/api/podcast").query({ id: "12345" });
    expect([res.status, res.text]).toEqual([500, "API_SECRET not set"]);
    config.apiSecret = TEST_SECRET;
    await get("/api/search").query({ query: "no key", index: "store" }).expect(200);
  });

  test("extraction tool absent: the documented error for vidsite, the other providers unaffected", async () => {
    config.ytdlpPath = path.join(os.tmpdir(), "no-such-yt-dlp");
    try {
      const res = await get("/api/search").query({ query: "absent tool", index: "vidsite" });
      expect([res.status, res.text]).toEqual([500, "the external extraction tool is unavailable (tool not installed)"]);
      expect((await get("/api/vidsite/channel").query({ id: "UCabsent" })).status).toBe(500);
      await get("/api/search").query({ query: "absent tool", index: "store" }).expect(200);
    } finally {
      config.ytdlpPath = FAKE_YTDLP;
    }
  });

  test("CORS: any origin, preflight answered", async () => {
    const pre = await request(server.searchUrl)
      .options("/api/search")
      .set("Origin", "https://client.example")
      .set("Access-Control-Request-Method", "GET")
      .set("Access-Control-Request-Headers", "content-type");
    expect(pre.status).toBe(204);
    expect(pre.headers["access-control-allow-origin"]).toBe("*");
    expect(pre.headers["access-control-allow-methods"]).toContain("GET");
    expect(pre.headers["access-control-allow-headers"]).toBe("content-type");
    const res = await get("/api/stats").set("Origin", "https://client.example");
    expect(res.headers["access-control-allow-origin"]).toBe("*");
    const err = await get("/api/podcast").query({ id: "x" }).set("Origin", "https://client.example");
    expect([err.status, err.headers["access-control-allow-origin"]]).toEqual([400, "*"]);
  });

  test("stats: per-provider counters and total_hits, kept across a restart", async () => {
    const before = (await get("/api/stats").expect(200)).body;
    expect(before.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    for (let i = 0; i < 3; i++) await get("/api/search").query({ query: "batman university", index: "store" });
    await get("/api/search").query({ query: "batman university" });
    await get("/api/search"); // the connection check counts for no provider
    const after = (await get("/api/stats")).body.api_usage;
    expect(after.store_hits - before.api_usage.store_hits).toBe(3);
    expect(after.directory_hits - before.api_usage.directory_hits).toBe(1);
    expect(after.total_hits).toBe(after.store_hits + after.directory_hits + after.vidsite_hits);
    await server.stop();
    server = await startServer({ dataDir, services });
    expect((await get("/api/stats")).body.api_usage).toEqual(after);
  });
});
