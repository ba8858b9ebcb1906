/**
 * Push notifications of new episodes, black-box over HTTP: receivers in the ntfy, gotify and webhook
 * shapes on loopback record what they get; a feed on loopback gains an episode and a refresh announces it.
 */
import type http from "http";
import { config } from "../../shared/config";
import { api, asUsers, expectErrorBody } from "../helpers/client";
import { capturingLogger } from "../helpers/logs";
import { Loopback, startLoopback } from "../helpers/loopback";
import { createUsers, rssFeed } from "../helpers/podcasts";
import { startServer, TestServer } from "../helpers/server";

interface Received {
  path: string;
  method: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

const NTFY_TOKEN = "tk_ntfy_secret_123";
const GOTIFY_TOKEN = "gotify-app-token-456";
const HOOK_TOKEN = "hook-bearer-789";

describe("push notifications", () => {
  let server: TestServer;
  let feeds: Loopback;
  let receiver: Loopback;
  let u: Record<string, { id: number; key: string }>;
  const got: Received[] = [];
  const lines: string[] = [];
  let failing = 0; // the next n requests to /hook answer 500
  const { get, post } = asUsers(() => ({ url: server.url, users: u }));
  const put = (path: string, who: string, body: object) => api(server.url).put(path).set("Api-Key", u[who].key).send(body);
  const item = (n: number) => ({ title: `Episode ${n}`, guid: `ep-${n}`, url: `${feeds.url}/media/${n}.mp3`, date: `2024-01-0${n}T00:00:00Z` });
  let podcastId = 0;

  async function until(check: () => boolean) {
    for (let i = 0; i < 100 && !check(); i++) await new Promise((r) => setTimeout(r, 50));
  }

  beforeAll(async () => {
    config.refreshInterval = 0;
    config.syncInterval = 0;
    feeds = await startLoopback();
    feeds.route("/show.xml", { body: rssFeed("The Show", [item(1)]) });
    receiver = await startLoopback(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const path = (req.url ?? "").split("?")[0];
      if (path === "/hook" && failing > 0) {
        failing--;
        res.writeHead(500).end();
        return;
      }
      got.push({ path, method: req.method ?? "", headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      res.writeHead(200, { "Content-Type": "application/json" }).end("{}");
    });
    server = await startServer({
      broker: capturingLogger(lines),
    });
    u = await createUsers(server.url, ["alice", "bob", "carol"]);
    for (const who of ["alice", "bob", "carol"]) {
      const res = await post("/api/data/add_podcast", who, { podcast_values: { pod_feed_url: `${feeds.url}/show.xml`, user_id: u[who].id } });
      podcastId = res.body.podcast_id;
    }
  });
  afterAll(async () => {
    await server?.stop();
    await feeds?.close();
    await receiver?.close();
  });

  test("settings: validated, secrets never returned, another user's are 403", async () => {
    expectErrorBody(await put("/api/data/user/notification_settings", "alice", { user_id: u.alice.id, platform: "pager", enabled: true }), 400);
    expectErrorBody(await put("/api/data/user/notification_settings", "alice", { user_id: u.alice.id, platform: "gotify", enabled: true }), 400);
    expectErrorBody(await put("/api/data/user/notification_settings", "alice", { user_id: u.bob.id, platform: "ntfy", enabled: true, notifa_topic: "x" }), 403);
    expect((await api(server.url).get("/api/data/user/notification_settings").query({ user_id: u.alice.id })).status).toBe(401);
    expect((await api(server.url).get("/api/data/user/notification_settings").set("Api-Key", "bad").query({ user_id: u.alice.id })).status).toBe(401);

    const saved = await put("/api/data/user/notification_settings", "alice", {
      user_id: u.alice.id,
      platform: "notifa",
      enabled: true,
      notifa_topic: "alice-news",
      notifa_server_url: `${receiver.url}/ntfy`,
      notifa_access_token: NTFY_TOKEN,
    });
    expect(saved.status).toBe(200);
    expect(
      (
        await put("/api/data/user/notification_settings", "bob", {
          user_id: u.bob.id,
          platform: "gotify",
          enabled: true,
          notifb_url: `${receiver.url}/gotify`,
          notifb_token: GOTIFY_TOKEN,
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await put("/api/data/user/notification_settings", "bob", {
          user_id: u.bob.id,
          platform: "http",
          enabled: true,
          http_url: `${receiver.url}/hook`,
          http_token: HOOK_TOKEN,
          http_method: "post",
        })
      ).status,
    ).toBe(200);
    expect(
      (await put("/api/data/user/notification_settings", "carol", { user_id: u.carol.id, platform: "http", enabled: true, http_url: `${receiver.url}/hook` }))
        .status,
    ).toBe(200);

    const mine = await get("/api/data/user/notification_settings", "alice", { user_id: u.alice.id });
    expect(mine.body.settings).toEqual([
      expect.objectContaining({ platform: "ntfy", enabled: true, notifa_topic: "alice-news", notifa_access_token_set: true, notifa_password_set: false }),
    ]);
    expect(JSON.stringify(mine.body)).not.toContain(NTFY_TOKEN);
    expectErrorBody(await get("/api/data/user/notification_settings", "alice", { user_id: u.bob.id }), 403);
  });

  test("test_notification reaches the endpoint; a failing one is a clear 400", async () => {
    const res = await post("/api/data/user/test_notification", "alice", { user_id: u.alice.id, platform: "ntfy" });
    expect(res.status).toBe(200);
    const msg = got.find((g) => g.path === "/ntfy/alice-news")!;
    expect(msg).toMatchObject({ method: "POST", body: "Notifications from your podcast server work." });
    expect(msg.headers.authorization).toBe(`Bearer ${NTFY_TOKEN}`);
    expect(msg.headers.title).toBe("Test notification");

    failing = 10;
    const bad = await post("/api/data/user/test_notification", "carol", { user_id: u.carol.id, platform: "http" });
    expectErrorBody(bad, 400);
    expect(bad.body.message).toMatch(/HTTP 500/);
    failing = 0;
    expectErrorBody(await post("/api/data/user/test_notification", "carol", { user_id: u.carol.id, platform: "gotify" }), 400);

    // The outbound address policy: cloud metadata addresses are refused for everyone, admins included.
    await put("/api/data/user/notification_settings", "admin", {
      user_id: u.admin.id,
      platform: "http",
      enabled: true,
      http_url: "http://169.254.169.254/latest/meta-data",
    });
    const refused = await post("/api/data/user/test_notification", "admin", { user_id: u.admin.id, platform: "http" });
    expectErrorBody(refused, 400);
    expect(refused.body.message).toMatch(/not allowed/);
  });

  test("a new episode: one message per endpoint of each subscriber with notifications on, none for the others", async () => {
    expectErrorBody(await post("/api/data/podcast/toggle_notifications", "alice", { user_id: u.bob.id, podcast_id: podcastId, enabled: true }), 403);
    expect((await post("/api/data/podcast/toggle_notifications", "alice", { user_id: u.alice.id, podcast_id: podcastId, enabled: true })).body.enabled).toBe(
      true,
    );
    // The web client toggles with PUT.
    expect((await put("/api/data/podcast/toggle_notifications", "bob", { user_id: u.bob.id, podcast_id: podcastId })).body.enabled).toBe(true);
    expect((await post("/api/data/podcast/notification_status", "carol", { user_id: u.carol.id, podcast_id: podcastId })).body.enabled).toBe(false);
    expect((await post("/api/data/podcast/notification_status", "bob", { user_id: u.bob.id, podcast_id: podcastId })).body.enabled).toBe(true);

    got.length = 0;
    failing = 1; // the webhook fails once: the retry delivers it
    feeds.route("/show.xml", { body: rssFeed("The Show", [item(1), item(2)]) });
    expect((await get("/api/data/refresh_pods", "admin")).status).toBe(200);
    await until(() => got.length >= 3);
    await new Promise((r) => setTimeout(r, 200)); // nothing more arrives

    expect(got.map((g) => g.path).sort()).toEqual(["/gotify/message", "/hook", "/ntfy/alice-news"]);
    const ntfy = got.find((g) => g.path === "/ntfy/alice-news")!;
    expect(ntfy.body).toBe("Episode 2");
    expect(ntfy.headers.title).toBe("New episode: The Show");
    const gotify = got.find((g) => g.path === "/gotify/message")!;
    expect(gotify.headers["x-gotify-key"]).toBe(GOTIFY_TOKEN);
    expect(JSON.parse(gotify.body)).toEqual({ title: "New episode: The Show", message: "Episode 2", priority: 5 });
    const hook = got.find((g) => g.path === "/hook")!;
    expect(hook.headers.authorization).toBe(`Bearer ${HOOK_TOKEN}`);
    expect(JSON.parse(hook.body)).toMatchObject({
      event: "episode.new",
      user_id: u.bob.id,
      podcast_id: podcastId,
      podcast_title: "The Show",
      episode_title: "Episode 2",
      episode_url: `${feeds.url}/media/2.mp3`,
      pub_date: "2024-01-02T00:00:00.000Z",
    });
  });

  test("a per-user rate limit; tokens never reach a log", async () => {
    config.notifyPerMinute = 3; // each user had one episode announced in the last minute
    got.length = 0;
    feeds.route("/show.xml", { body: rssFeed("The Show", [1, 2, 3, 4, 5].map(item)) });
    await get("/api/data/refresh_pods", "admin");
    await until(() => got.length >= 6);
    await new Promise((r) => setTimeout(r, 200));
    // Three new episodes, two left in each user's minute: alice's ntfy gets two, bob's two endpoints two each.
    expect(got.filter((g) => g.path === "/ntfy/alice-news")).toHaveLength(2);
    expect(got.filter((g) => g.path === "/gotify/message")).toHaveLength(2);
    expect(got.filter((g) => g.path === "/hook")).toHaveLength(2);
    expect(lines.join("\n")).toContain("notification dropped: rate limit");
    for (const secret of [NTFY_TOKEN, GOTIFY_TOKEN, HOOK_TOKEN]) expect(lines.join("\n")).not.toContain(secret);
  });
});
