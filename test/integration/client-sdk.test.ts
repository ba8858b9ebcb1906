/**
 * The generated client works: web/src/api-schema.d.ts (the web app's types) is what openapi-typescript makes of
 * docs/openapi.json, the small program test/client-sdk/client.ts compiles against it with tsc (strict),
 * and it runs against a real server (login, subscribe, queue, history, a playlist).
 */
import { execFileSync } from "child_process";
import fs from "fs";
import path from "path";
import { runClient } from "../client-sdk/client";
import { startLoopback, Loopback } from "../helpers/loopback";
import { rssFeed } from "../helpers/podcasts";
import { startServer, tempDir, TestServer } from "../helpers/server";

const ROOT = path.resolve(__dirname, "..", "..");
const SDK = path.join(ROOT, "test", "client-sdk");

test("web/src/api-schema.d.ts is generated from docs/openapi.json (npm run openapi)", () => {
  const out = path.join(tempDir("sdk-"), "api.d.ts");
  execFileSync(process.execPath, [path.join(ROOT, "node_modules", "openapi-typescript", "bin", "cli.js"), path.join(ROOT, "docs", "openapi.json"), "-o", out], {
    cwd: ROOT,
    stdio: "pipe",
  });
  expect(fs.readFileSync(out, "utf8")).toBe(fs.readFileSync(path.join(ROOT, "web", "src", "api-schema.d.ts"), "utf8"));
});

test("the client program compiles against the generated types (tsc --strict --noEmit)", () => {
  const tsc = require.resolve("typescript/bin/tsc");
  const run = () => execFileSync(process.execPath, [tsc, "-p", path.join(SDK, "tsconfig.json")], { cwd: ROOT, encoding: "utf8", stdio: "pipe" });
  expect(run).not.toThrow();
});

describe("against a server", () => {
  let server: TestServer;
  let feeds: Loopback;
  beforeAll(async () => {
    const now = Date.now();
    const items = ["Third", "Second", "First"].map((title, n) => ({
      title,
      guid: `sdk-${title}`,
      url: `https://media.test/sdk/${n}.mp3`,
      date: new Date(now - n * 3_600_000).toISOString(),
      duration: 600,
    }));
    feeds = await startLoopback({ "/sdk.xml": { body: rssFeed("SDK Show", items), headers: { "Content-Type": "application/rss+xml" } } });
    server = await startServer();
  });
  afterAll(async () => {
    await server.stop();
    await feeds.close();
  });

  test("login, subscribe, queue, history and a playlist through the typed client", async () => {
    const run = await runClient(server.url, `${feeds.url}/sdk.xml`);
    expect(run.user_id).toBeGreaterThan(0);
    expect(run.podcast_id).toBeGreaterThan(0);
    expect(run.queued_titles).toEqual(["Third"]);
    expect(run.history_titles).toEqual(["Second"]);
    expect(run.playlist_id).toBeGreaterThan(0);
    expect(run.playlist_names).toContain("From the SDK");
  });
});
