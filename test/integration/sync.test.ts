/**
 * podsync and cloudsync, black-box over HTTP: the gateway on NeDB files, feeds from a loopback server,
 * and a gPodder v2 server (with a Nextcloud login flow and gpoddersync endpoints) on loopback that
 * plays the other devices of the user.
 */
import fs from "fs";
import path from "path";
import { config } from "../../shared/config";
import { encryptSecret } from "../../shared/secrets";
import { api, asUsers, expectErrorBody } from "../helpers/client";
import { GpodderPeer, startGpodderPeer } from "../helpers/gpodder-peer";
import { capturingLogger } from "../helpers/logs";
import { Loopback, startLoopback } from "../helpers/loopback";
import { audioBytes, mediaRoute, waitForTask } from "../helpers/media";
import { createUsers, rssFeed } from "../helpers/podcasts";
import { startServer, tempDir, TestServer } from "../helpers/server";

const REMOTE_USER = "alice-remote";
const REMOTE_PASSWORD = "remote sync pass 42";
const DEVICE = "podcast-server"; // the server's device id: SERVICE_NAME made an id

describe("podsync: a gPodder v2 server", () => {
  let server: TestServer;
  let feeds: Loopback;
  let peer: GpodderPeer;
  let u: Record<string, { id: number; key: string }>;
  const lines: string[] = [];
  const { get, post } = asUsers(() => ({ url: server.url, users: u }));
  const feed = (name: string) => `${feeds.url}/${name}.xml`;
  const episodeUrl = (name: string, n: number) => `${feeds.url}/media/${name}-${n}.mp3`;
  const account = { podsync_url: "", podsync_username: REMOTE_USER, podsync_password: REMOTE_PASSWORD };
  const myFeeds = async (who: string) => (await get(`/api/data/return_pods/${u[who].id}`, who)).body.pods.map((p: any) => p.feed_url).sort();
  const positionOf = async (who: string, feedName: string, n: number) => {
    const pods = (await get(`/api/data/return_pods/${u[who].id}`, who)).body.pods;
    const pod = pods.find((p: any) => p.feed_url === feed(feedName));
    const eps = (await get("/api/data/podcast_episodes", who, { user_id: u[who].id, podcast_id: pod.podcast_id })).body.episodes;
    return eps.find((e: any) => e.episodeurl === episodeUrl(feedName, n))?.listenduration ?? null;
  };

  beforeAll(async () => {
    Object.assign(config, { refreshInterval: 0, syncInterval: 0, downloadDir: tempDir("podcast-sync-dl-"), workerPollMs: 100, taskRetryBaseMs: 200 });
    feeds = await startLoopback();
    for (const name of ["one", "two", "three"]) {
      for (const n of [1, 2]) feeds.route(`/media/${name}-${n}.mp3`, mediaRoute(audioBytes(20_000)));
      feeds.route(`/${name}.xml`, {
        body: rssFeed(
          `Feed ${name}`,
          [1, 2].map((n) => ({ title: `${name} ${n}`, guid: `${name}-${n}`, url: episodeUrl(name, n), date: `2024-0${n}-01T00:00:00Z` })),
        ),
      });
    }
    peer = await startGpodderPeer(REMOTE_USER, REMOTE_PASSWORD);
    account.podsync_url = peer.url;
    server = await startServer({
      broker: capturingLogger(lines),
    });
    u = await createUsers(server.url, ["alice", "bob"]);
  });
  afterAll(async () => {
    await server?.stop();
    await feeds?.close();
    await peer?.close();
  });

  test("a wrong password is a clear 401; the right one verifies", async () => {
    const bad = await post("/api/data/verify_podsync_auth", "alice", { ...account, podsync_password: "wrong" });
    expectErrorBody(bad, 401);
    expect(bad.body.message).toMatch(/sync server rejected the username or password/);
    const ok = await post("/api/data/verify_podsync_auth", "alice", account);
    expect(ok.status).toBe(200);
    expect(ok.body.valid).toBe(true);
    expectErrorBody(await post("/api/data/verify_podsync_auth", "alice", { ...account, podsync_url: "not a url" }), 400);
    expect((await post("/api/data/verify_podsync_auth", "alice", { ...account, podsync_url: "http://169.254.169.254/" })).body.message).toMatch(/not allowed/);
    expectErrorBody(await post("/api/data/add_podsync_server", "alice", { ...account, podsync_password: "wrong" }), 401);
  });

  test("routes need a key and the user's own id", async () => {
    expect((await api(server.url).get("/api/podsync/devices")).status).toBe(401);
    expect((await api(server.url).get("/api/podsync/devices").set("Api-Key", "nope")).status).toBe(401);
    expectErrorBody(await get(`/api/data/get_podsync_settings/${u.bob.id}`, "alice"), 403);
    expectErrorBody(await get(`/api/podsync/devices/${u.bob.id}`, "alice"), 403);
    expect((await get(`/api/data/get_podsync_settings/${u.alice.id}`, "alice")).status).toBe(200);
    // Nothing set up: no account elsewhere, and this server's own sync server switched off for alice.
    const ownSyncServer = (on: boolean) =>
      api(server.url).put("/api/data/user/sync_server").set("Api-Key", u.alice.key).send({ user_id: u.alice.id, sync_server: on });
    await ownSyncServer(false);
    expectErrorBody(await post("/api/podsync/sync", "alice", {}), 404);
    await ownSyncServer(true);
  });

  test("the account is stored (password sealed, never returned) and subscriptions go both ways", async () => {
    expect((await post("/api/data/add_podsync_server", "alice", account)).status).toBe(200);
    const settings = await get(`/api/data/get_podsync_settings/${u.alice.id}`, "alice");
    expect(settings.body).toMatchObject({ sync_type: "gpodder", enabled: true, server_url: peer.url, username: REMOTE_USER, device_id: DEVICE });
    expect(JSON.stringify(settings.body)).not.toContain(REMOTE_PASSWORD);
    const stored = fs.readFileSync(
      path.join(
        server.dataDir,
        fs.readdirSync(server.dataDir).find((f) => f.startsWith("sync_accounts"))!,
      ),
      "utf8",
    );
    expect(stored).not.toContain(REMOTE_PASSWORD);

    // Here: feed one. There (this server's device): feed two.
    await post("/api/data/add_podcast", "alice", { podcast_values: { pod_feed_url: feed("one"), user_id: u.alice.id } });
    peer.change(DEVICE, [feed("two")], []);
    const res = await post("/api/podsync/sync", "alice", {});
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, subscriptions_added_here: 1, subscriptions_uploaded: 1 });
    expect(await myFeeds("alice")).toEqual([feed("one"), feed("two")]);
    expect(peer.subscriptions(DEVICE).sort()).toEqual([feed("one"), feed("two")]);

    // Removed there: removed here; added here: uploaded. A second sync changes nothing.
    peer.change(DEVICE, [], [feed("two")]);
    await post("/api/data/add_podcast", "alice", { podcast_values: { pod_feed_url: feed("three"), user_id: u.alice.id } });
    expect((await post("/api/podsync/sync", "alice", {})).body).toMatchObject({ subscriptions_removed_here: 1, subscriptions_uploaded: 1 });
    expect(await myFeeds("alice")).toEqual([feed("one"), feed("three")]);
    expect(peer.subscriptions(DEVICE).sort()).toEqual([feed("one"), feed("three")]);
    expect((await post("/api/podsync/sync", "alice", {})).body).toMatchObject({
      subscriptions_added_here: 0,
      subscriptions_removed_here: 0,
      subscriptions_uploaded: 0,
      subscriptions_removed_there: 0,
    });
  });

  test("play positions: 1200 s there resumes here, and the reverse; the newest wins", async () => {
    peer.upload([
      {
        podcast: feed("one"),
        episode: episodeUrl("one", 1),
        device: "phone",
        action: "play",
        timestamp: new Date().toISOString().slice(0, 19),
        started: 0,
        position: 1200,
        total: 3000,
      },
    ]);
    await post("/api/podsync/sync", "alice", {});
    expect(await positionOf("alice", "one", 1)).toBe(1200);

    // Played here (the local player records the position) to 300 s: uploaded as a UTC play action.
    const pods = (await get(`/api/data/return_pods/${u.alice.id}`, "alice")).body.pods;
    const three = pods.find((p: any) => p.feed_url === feed("three"));
    const ep = (await get("/api/data/podcast_episodes", "alice", { user_id: u.alice.id, podcast_id: three.podcast_id })).body.episodes.find(
      (e: any) => e.episodeurl === episodeUrl("three", 2),
    );
    await server.broker.call("episodes.update_state", { user_id: u.alice.id, episode_id: ep.episodeid, listen_duration: 300 });
    const res = await post("/api/podsync/sync", "alice", {});
    expect(res.body.actions_uploaded).toBe(1);
    const sent = peer.actions().filter((a) => a.device === DEVICE);
    expect(sent).toEqual([
      {
        podcast: feed("three"),
        episode: episodeUrl("three", 2),
        device: DEVICE,
        action: "play",
        timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/),
        started: 0,
        position: 300,
        total: 0,
      },
    ]);
    // The upload is not sent again, and the server's own action does not come back as a change.
    expect((await post("/api/podsync/sync", "alice", {})).body).toMatchObject({ actions_uploaded: 0, positions_applied: 0 });

    // An older action from another device does not overwrite the newer local position.
    peer.upload([
      { podcast: feed("three"), episode: episodeUrl("three", 2), device: "phone", action: "play", timestamp: "2020-01-01T00:00:00", position: 5, total: 3000 },
    ]);
    await post("/api/podsync/sync", "alice", {});
    expect(await positionOf("alice", "three", 2)).toBe(300);
  });

  test("devices, default device, statistics and test-connection", async () => {
    const created = await post("/api/podsync/devices", "alice", { device_name: "kitchen-radio", device_type: "other", device_caption: "Kitchen" });
    expect(created.status).toBe(200);
    expectErrorBody(await post("/api/podsync/devices", "alice", { device_name: "bad name/..", device_type: "mobile" }), 400);
    const devices = (await get("/api/podsync/devices", "alice")).body;
    expect(devices.map((d: any) => d.id).sort()).toEqual(["kitchen-radio", DEVICE].sort());
    expect((await get("/api/podsync/default_device", "alice")).body).toMatchObject({ id: DEVICE, is_default: true });
    expectErrorBody(await post("/api/podsync/set_default/no-such-device", "alice", {}), 404);

    const stats = (await get("/api/podsync/podsync_statistics", "alice")).body;
    expect(stats).toMatchObject({
      server_url: peer.url,
      sync_type: "gpodder",
      sync_enabled: true,
      total_devices: 2,
      total_subscriptions: 2,
      connection_status: "connected",
    });
    expect(stats.total_episode_actions).toBeGreaterThanOrEqual(3);
    expect(stats.recent_episode_actions.length).toBeGreaterThan(0);
    expect(stats.last_sync_timestamp).toEqual(expect.any(String));
    expect(stats.api_endpoints_tested.every((e: any) => e.ok)).toBe(true);

    expect((await get("/api/podsync/test-connection", "alice")).body).toMatchObject({ success: true, total_devices: 2 });
    expect((await get("/api/data/podsync/status", "alice")).body).toMatchObject({ enabled: true, last_status: "success" });
  });

  test("toggle, subscriptions-only refresh, force sync", async () => {
    expect((await post("/api/data/podsync/toggle", "alice", { enabled: false })).body.enabled).toBe(false);
    expect((await get("/api/data/podsync/status", "alice")).body.enabled).toBe(false);
    await post("/api/data/podsync/toggle", "alice", { enabled: true });
    peer.change(DEVICE, [feed("two")], []);
    expect((await get("/api/data/refresh_podsync_subscriptions", "alice")).body).toMatchObject({ subscriptions_added_here: 1, actions_received: 0 });
    const forced = await post("/api/podsync/sync/force", "alice", {});
    expect(forced.status).toBe(200);
    expect(await myFeeds("alice")).toEqual([feed("one"), feed("three"), feed("two")].sort());
  });

  test("download and delete actions go both ways; a delete from the server keeps listening history", async () => {
    const now = () => new Date().toISOString().slice(0, 19);
    const idOf = async (feedName: string, n: number) => {
      const pod = (await get(`/api/data/return_pods/${u.alice.id}`, "alice")).body.pods.find((p: any) => p.feed_url === feed(feedName));
      const eps = (await get("/api/data/podcast_episodes", "alice", { user_id: u.alice.id, podcast_id: pod.podcast_id })).body.episodes;
      return eps.find((e: any) => e.episodeurl === episodeUrl(feedName, n)).episodeid as number;
    };
    const downloaded = async () =>
      (await get("/api/data/download_episode_list", "alice", { user_id: u.alice.id })).body.downloaded_episodes.map((e: any) => e.episodeurl).sort();
    const mine = () => peer.actions().filter((a) => a.device === DEVICE && a.action !== "play");
    const syncTask = async () => {
      const res = await post("/api/podsync/sync", "alice", {});
      expect(res.status).toBe(200);
      return res.body;
    };
    const until = async (check: () => Promise<boolean>) => {
      for (const end = Date.now() + 15_000; !(await check()); await new Promise((r) => setTimeout(r, 50))) if (Date.now() > end) throw new Error("timed out");
    };

    // The phone downloaded one-2: the server downloads it too (a job), and does not report that back.
    peer.upload([{ podcast: feed("one"), episode: episodeUrl("one", 2), device: "phone", action: "download", timestamp: now() }]);
    expect(await syncTask()).toMatchObject({ downloads_queued: 1, downloads_deleted: 0 });
    await until(async () => (await downloaded()).includes(episodeUrl("one", 2)));
    expect(await syncTask()).toMatchObject({ downloads_queued: 0, actions_uploaded: 0 });
    expect(mine()).toEqual([]);

    // Downloaded and deleted here: uploaded once each, as UTC actions of this device.
    const three1 = await idOf("three", 1);
    const started = await post("/api/data/download_podcast", "alice", { episode_id: three1, user_id: u.alice.id });
    expect((await waitForTask(server.url, u.alice.key, started.body.task_id)).status).toBe("SUCCESS");
    expect((await syncTask()).actions_uploaded).toBe(1);
    expect((await post("/api/data/delete_episode", "alice", { episode_id: three1, user_id: u.alice.id })).status).toBe(200);
    expect((await syncTask()).actions_uploaded).toBe(1);
    const utc = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);
    expect(mine()).toEqual([
      { podcast: feed("three"), episode: episodeUrl("three", 1), device: DEVICE, action: "download", timestamp: utc },
      { podcast: feed("three"), episode: episodeUrl("three", 1), device: DEVICE, action: "delete", timestamp: utc },
    ]);
    expect((await syncTask()).actions_uploaded).toBe(0);
    // A download older than the local delete does not bring the file back.
    peer.upload([{ podcast: feed("three"), episode: episodeUrl("three", 1), device: "phone", action: "download", timestamp: "2020-01-01T00:00:00" }]);
    expect(await syncTask()).toMatchObject({ downloads_queued: 0 });
    // With downloads turned off on this server, a download from the phone is only counted.
    expect((await post("/api/data/enable_disable_downloads", "admin", {})).body.downloads_enabled).toBe(false);
    peer.upload([{ podcast: feed("three"), episode: episodeUrl("three", 2), device: "phone", action: "download", timestamp: now() }]);
    expect(await syncTask()).toMatchObject({ actions_received: 1, downloads_queued: 0 });
    expect((await post("/api/data/enable_disable_downloads", "admin", {})).body.downloads_enabled).toBe(true);
    expect(await downloaded()).not.toContain(episodeUrl("three", 2));

    // Played here to 600 s, then deleted on the phone: the file goes, the position stays, nothing goes back.
    const one2 = await idOf("one", 2);
    await server.broker.call("episodes.update_state", { user_id: u.alice.id, episode_id: one2, listen_duration: 600 });
    await new Promise((r) => setTimeout(r, 1100)); // the API's timestamps have whole seconds: the delete is newer than the download
    peer.upload([{ podcast: feed("one"), episode: episodeUrl("one", 2), device: "phone", action: "delete", timestamp: now() }]);
    expect(await syncTask()).toMatchObject({ downloads_deleted: 1 });
    expect(await downloaded()).not.toContain(episodeUrl("one", 2));
    expect(await positionOf("alice", "one", 2)).toBe(600);
    expect(await syncTask()).toMatchObject({ downloads_deleted: 0, actions_uploaded: 0 });
    expect(mine().filter((a) => a.episode === episodeUrl("one", 2))).toEqual([]);
  });

  test("a sync is a task; one sync of a user at a time: a held lease holds the job back, an expired one is taken over", async () => {
    const sync: any = server.broker.getLocalService("sync");
    const done = await post("/api/podsync/sync", "alice", {});
    expect(done.body).toMatchObject({ success: true, detail: "Sync complete", task_id: expect.any(String), actions_received: expect.any(Number) });
    const tasks = (await get(`/api/tasks/user/${u.alice.id}`, "alice")).body;
    expect(tasks.find((t: any) => t.id === done.body.task_id)).toMatchObject({ task_type: "sync", status: "SUCCESS", user_id: u.alice.id });

    expect(await sync.claimLease(u.alice.id)).toBe(true); // another replica syncs alice now
    const wait = config.syncWaitMs;
    config.syncWaitMs = 300;
    try {
      const held = await post("/api/podsync/sync", "alice", {});
      expect(held.body).toEqual({
        success: true,
        detail: "The sync continues in the background",
        message: "The sync continues in the background",
        task_id: expect.any(String),
      });
      expect((await get(`/api/tasks/${held.body.task_id}`, "alice")).body.status).not.toBe("SUCCESS");
      await sync.adapter.updateMany({ _id: u.alice.id }, { $set: { lease_until: new Date(Date.now() - 1000) } }); // and died
      expect(await waitForTask(server.url, u.alice.key, held.body.task_id)).toMatchObject({ status: "SUCCESS", task_type: "sync" });
    } finally {
      config.syncWaitMs = wait;
    }
    expect((await post("/api/podsync/sync", "alice", {})).body.detail).toBe("Sync complete"); // released after each sync
  });

  test("the scheduler queues one sync task per due user, once per interval", async () => {
    const sync: any = server.broker.getLocalService("sync");
    const interval = config.syncInterval;
    config.syncInterval = 15;
    try {
      await sync.adapter.updateMany({ _id: u.alice.id }, { $set: { last_sync: new Date(Date.now() - 3_600_000) } });
      const before = (await get(`/api/tasks/user/${u.alice.id}`, "alice")).body.length;
      await Promise.all([sync.syncDue(), sync.syncDue()]); // two replicas at once
      const tasks = (await get(`/api/tasks/user/${u.alice.id}`, "alice")).body;
      expect(tasks.length).toBe(before + 1);
      expect(await waitForTask(server.url, u.alice.key, tasks[0].id)).toMatchObject({ task_type: "sync", status: "SUCCESS" });
      await sync.syncDue(); // synced now: nothing is due
      expect((await get(`/api/tasks/user/${u.alice.id}`, "alice")).body.length).toBe(before + 1);
    } finally {
      config.syncInterval = interval;
    }
  });

  test("a sync the server refuses answers 401 and its task fails without retries", async () => {
    const sync: any = server.broker.getLocalService("sync");
    const { password_sealed } = await sync.adapter.findOne({ _id: u.alice.id });
    await sync.adapter.updateMany({ _id: u.alice.id }, { $set: { password_sealed: encryptSecret("changed on the server since") } });
    try {
      expectErrorBody(await post("/api/podsync/sync", "alice", {}), 401);
      const [task] = (await get(`/api/tasks/user/${u.alice.id}`, "alice")).body;
      expect(task).toMatchObject({ task_type: "sync", status: "FAILED", message: expect.stringMatching(/rejected the username or password/) });
      expect((await get("/api/data/podsync/status", "alice")).body).toMatchObject({ last_status: "failed" });
    } finally {
      await sync.adapter.updateMany({ _id: u.alice.id }, { $set: { password_sealed } });
    }
  });

  test("the remote password never reaches a log", () => {
    const all = lines.join("\n");
    expect(all).toContain("sync account saved");
    expect(all).not.toContain(REMOTE_PASSWORD);
    expect(all).not.toContain(Buffer.from(`${REMOTE_USER}:${REMOTE_PASSWORD}`).toString("base64"));
  });

  test("cloudsync: login flow v2, then the gpoddersync endpoints", async () => {
    const start = await post("/api/data/initiate_cloudsync_login", "bob", { user_id: u.bob.id, cloudsync_url: peer.url });
    expect(start.status).toBe(200);
    expect(start.body).toMatchObject({ login_url: expect.any(String), token: expect.any(String), poll_endpoint: `${peer.url}/index.php/login/v2/poll` });
    const body = { user_id: u.bob.id, token: start.body.token, poll_endpoint: start.body.poll_endpoint, cloudsync_url: peer.url };
    expectErrorBody(await post("/api/data/add_cloudsync_server", "bob", { ...body, poll_endpoint: "http://elsewhere.test/poll" }), 400);
    peer.approveLogin(start.body.token);
    expect((await post("/api/data/add_cloudsync_server", "bob", body)).body.status).toBe("connected");
    expect((await get(`/api/data/get_podsync_settings/${u.bob.id}`, "bob")).body).toMatchObject({ sync_type: "nextcloud", username: REMOTE_USER });

    peer.change("nextcloud", [feed("one")], []);
    await post("/api/data/add_podcast", "bob", { podcast_values: { pod_feed_url: feed("two"), user_id: u.bob.id } });
    expect((await get("/api/data/refresh_cloudsync_subscriptions", "bob")).body).toMatchObject({ subscriptions_added_here: 1, subscriptions_uploaded: 1 });
    expect(await myFeeds("bob")).toEqual([feed("one"), feed("two")]);
    expect(peer.subscriptions("nextcloud").sort()).toEqual([feed("one"), feed("two")]);
    expectErrorBody(await get("/api/data/refresh_podsync_subscriptions", "bob"), 404);
  });
});
