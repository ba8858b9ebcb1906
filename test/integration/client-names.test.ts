/**
 * PinePods' clients' own names on this server (shared/client-names.ts, RouteDef.clientNames): the web client's calls
 * replayed exactly as it makes them (web/src/requests/setting_reqs.rs, pod_req.rs, search_pods.rs: its literal paths
 * /api/gpodder/..., /api/data/check_youtube_channel, its query and body names gpodder_url, nextcloud_url, ntfy_topic)
 * and each answer read into the client's struct under the client's own names with serde's rules (test/helpers/serde.ts):
 * the gPodder page over this server's own sync server and over another gPodder server, the Nextcloud login, the video
 * channel calls, the notification settings; and the clients' names the documented answers carry beside the documents'
 * (is_youtube, isyoutubechannel, GpodderUrl). The mobile app reads the same answers with `?? default` casts.
 */
import { api, basic, expectErrorBody } from "../helpers/client";
import { Library, startLibrary } from "../helpers/library";
import { rssFeed } from "../helpers/podcasts";
import { FAKE_YTDLP } from "../helpers/providers";
import { serdeErrors, type Ty } from "../helpers/serde";
import { clientName, neutralName, toNeutralNames, withClientNames } from "../../shared/client-names";
import { config } from "../../shared/config";
import { routes } from "../../services/api.routes";

const PASSWORD = "a long password";
const CHANNEL_URL = "https://www.youtube.com/channel/UCEABC123";
/** How often the web client's Nextcloud page asks whether the login went through; the server polls Nextcloud every 5 s. */
const CLIENT_POLL_MS = 250;

describe("PinePods' clients' names", () => {
  let lib: Library;
  const saved = { ...config };
  const uid = (who = "alice") => lib.users[who].id;
  const http = () => api(lib.server.url);
  const get = (path: string, who: string, query: Record<string, unknown> = {}) => http().get(path).query(query).set("Api-Key", lib.users[who].key);
  /** A POST as the client sends it: a JSON body, or (set_default, youtube/subscribe) none at all. */
  const post = (path: string, who: string, body?: object) => {
    const req = http().post(path).set("Api-Key", lib.users[who].key);
    return body === undefined ? req : req.set("Content-Type", "application/json").send(body);
  };
  const del = (path: string, who: string, body: object) => http().delete(path).set("Api-Key", lib.users[who].key).send(body);
  /** The read: a 200 that serde reads into the client's struct, its fields by the client's own names. */
  const reads = (res: { status: number; body: unknown }, ty: Ty) => {
    expect([res.status, serdeErrors(res.body, ty)]).toEqual([200, []]);
    return res.body as any;
  };
  /** The documented key comes first, the client's right after it. */
  const twinAfter = (obj: object, neutral: string) => {
    const keys = Object.keys(obj);
    expect(keys.indexOf(clientName(neutral))).toBe(keys.indexOf(neutral) + 1);
  };

  beforeAll(async () => {
    config.ytdlpPath = FAKE_YTDLP; // the search service's video channels
    lib = await startLibrary();
  });
  afterAll(async () => {
    await lib?.stop();
    Object.assign(config, saved);
  });

  test("the layer: the clients' words read in params, added beside the neutral ones in answers, never overwriting", () => {
    const params: Record<string, unknown> = {
      gpodder_url: "u",
      podsync_username: "documented",
      gpodder_username: "client",
      nested: [{ nextcloud_url: "n" }],
      other: 1,
    };
    toNeutralNames(params);
    expect(params).toEqual({ podsync_username: "documented", nested: [{ cloudsync_url: "n" }], other: 1, podsync_url: "u" });

    const answer = {
      sync_type: "gpodder",
      podsync_enabled: true,
      data: { podsyncurl: "u" },
      items: [{ is_vidsite: true, x: 1 }],
      PodsyncUrl: "v",
      notifb_url: null,
      is_youtube: false,
      is_vidsite: true,
    };
    const shown = withClientNames(answer);
    // Order and values as sent (JSON.stringify keeps key order): each twin right after its key; a client key already there stays.
    expect(JSON.stringify(shown)).toBe(
      JSON.stringify({
        sync_type: "gpodder",
        podsync_enabled: true,
        gpodder_enabled: true,
        data: { podsyncurl: "u", gpodderurl: "u" },
        items: [{ is_vidsite: true, is_youtube: true, x: 1 }],
        PodsyncUrl: "v",
        GpodderUrl: "v",
        notifb_url: null,
        gotify_url: null,
        is_youtube: false,
        is_vidsite: true,
      }),
    );
    expect(answer).not.toHaveProperty("gpodder_enabled"); // the action's answer (perhaps a cached one) is not changed
    // A "__proto__" key of stored data stays a key: the answer's prototype is not set from it.
    const odd = withClientNames(JSON.parse('{"__proto__": {"podsync": 1}}'));
    expect([Object.getPrototypeOf(odd), JSON.stringify(odd)]).toEqual([Object.prototype, '{"__proto__":{"podsync":1,"gpodder":1}}']);
  });

  test("each client alias is its documented route, and the OpenAPI document says so with both names", async () => {
    const aliases = Object.entries(routes).filter(([, def]) => def.summary?.startsWith("Client alias of"));
    expect(aliases.length).toBeGreaterThanOrEqual(20);
    for (const [key, def] of aliases) {
      const documented = routes[neutralName(key)];
      expect([key, def.clientNames, def.action, def.auth]).toEqual([key, true, documented.action, documented.auth]);
      expect(documented.clientNames).toBeUndefined();
    }
    const doc = (await http().get("/api/openapi.json")).body;
    const status = doc.paths["/api/data/gpodder/status"].get;
    expect(status.summary).toMatch(/^Client alias of GET \/api\/data\/podsync\/status/);
    const props = Object.keys(status.responses["200"].content["application/json"].schema.properties);
    expect(props.indexOf("gpodder_enabled")).toBe(props.indexOf("podsync_enabled") + 1);
    const test = doc.paths["/api/gpodder/test-connection"].get.parameters.map((p: any) => p.name);
    expect(test).toEqual(expect.arrayContaining(["podsync_url", "gpodder_url", "gpodder_username", "gpodder_password"]));
    // The documented route itself is unchanged.
    expect(Object.keys(doc.paths["/api/data/podsync/status"].get.responses["200"].content["application/json"].schema.properties)).not.toContain(
      "gpodder_enabled",
    );
  });

  test("the gPodder page over this server's own sync server: status, real devices, default, statistics, sync, the switch", async () => {
    const phone = (path: string) => http().post(path).set("Authorization", basic("alice", PASSWORD));
    lib.feeds.route("/phone.xml", {
      body: rssFeed("Phone Show", [
        { title: "From the phone", guid: "phone-1", url: "https://media.test/phone/1.mp3", date: new Date().toISOString(), duration: 60 },
      ]),
    });
    const phoneFeed = lib.feeds.url + "/phone.xml";

    const status = reads(await get("/api/data/gpodder/status", "alice"), "GpodderApiStatusResponse");
    expect(status).toMatchObject({
      sync_type: "gpodder",
      podsync_enabled: true,
      gpodder_enabled: true,
      external_enabled: false,
      external_url: null,
      api_url: lib.server.url,
    });
    twinAfter(status, "podsync_enabled");
    expect(reads(await get(`/api/gpodder/devices/${uid()}`, "alice"), "Vec<GpodderDevice>")).toEqual([]);
    expectErrorBody(await get("/api/gpodder/default_device", "alice"), 404);
    expect(reads(await get(`/api/data/check_gpodder_settings/${uid()}`, "alice"), "NextcloudCheckResponse")).toEqual({ data: false });
    // No account elsewhere: the page shows "Not currently syncing" for an empty gpodderurl.
    expect(reads(await get(`/api/data/get_gpodder_settings/${uid()}`, "alice"), "NextcloudGetResponse").data).toEqual({
      podsyncurl: "",
      gpodderurl: "",
      podsynctoken: "",
      gpoddertoken: "",
    });

    // A phone configures itself, subscribes and plays, through the gPodder API.
    expect((await phone("/api/2/devices/alice/phone.json").send({ caption: "My phone", type: "mobile" })).status).toBe(200);
    expect((await phone("/api/2/subscriptions/alice/phone.json").send({ add: [phoneFeed], remove: [] })).status).toBe(200);
    const played = {
      podcast: lib.feeds.url + "/shared.xml",
      episode: "https://media.test/shared/1.mp3",
      device: "phone",
      action: "play",
      timestamp: "2024-01-01T10:00:00",
      started: 0,
      position: 120,
      total: 900,
    };
    expect((await phone("/api/2/episodes/alice.json").send([played])).status).toBe(200);

    // The page's devices are the gPodder API's.
    const devices = reads(await get(`/api/gpodder/devices/${uid()}`, "alice"), "Vec<GpodderDevice>");
    const gpodderDevices = (await http().get("/api/2/devices/alice.json").set("Authorization", basic("alice", PASSWORD))).body;
    expect(devices.map((d: any) => d.id)).toEqual(gpodderDevices.map((d: any) => d.id));
    expect(devices.find((d: any) => d.id === "phone")).toMatchObject({ name: "My phone", type: "mobile", is_active: true, is_remote: false });
    expectErrorBody(await get(`/api/gpodder/devices/${uid()}`, "bob"), 403);

    // A device made on the page (CreateDeviceRequest) is a device of the sync server.
    const made = await post("/api/gpodder/devices", "alice", { user_id: uid(), device_name: "desk", device_type: "desktop", device_caption: "Desk" });
    expect(reads(made, "GpodderDevice")).toMatchObject({ id: "desk", name: "Desk", type: "desktop", is_default: false, is_remote: false });
    const listed = (await http().get("/api/2/devices/alice.json").set("Authorization", basic("alice", PASSWORD))).body;
    expect(listed.map((d: any) => d.id)).toEqual([...devices.map((d: any) => d.id), "desk"]);
    expectErrorBody(
      await post("/api/gpodder/devices", "alice", { user_id: uid(), device_name: "bad name/..", device_type: "desktop", device_caption: null }),
      400,
    );

    expect(reads(await post("/api/gpodder/set_default/desk", "alice"), "ApiResponse<()>").success).toBe(true);
    expect(reads(await get("/api/gpodder/default_device", "alice"), "GpodderDevice")).toMatchObject({ id: "desk", is_default: true });
    expectErrorBody(await post("/api/gpodder/set_default/nowhere", "alice"), 404);

    // Statistics count the records: the devices, the feeds they follow (alice's two and the phone's), the actions.
    const stats = reads(await get("/api/gpodder/gpodder_statistics", "alice"), "GpodderStatistics");
    expect(stats).toMatchObject({
      server_url: lib.server.url,
      sync_type: "gpodder",
      sync_enabled: true,
      total_devices: devices.length + 1,
      total_subscriptions: 3,
    });
    expect(stats.server_subscriptions.map((s: any) => s.url)).toContain(phoneFeed);
    expect(stats.recent_episode_actions).toContainEqual(expect.objectContaining({ device: "phone", action: "play", position: 120 }));

    // Sync now (SyncRequest) applies what the phone sent: its feed is subscribed here.
    const sync = { user_id: uid(), device_id: "desk", device_name: "Desk", is_remote: false };
    expect(reads(await post("/api/gpodder/sync", "alice", sync), "ApiResponse<()>").success).toBe(true);
    expect((await get(`/api/data/return_pods/${uid()}`, "alice")).body.pods.map((p: any) => p.feed_url)).toContain(phoneFeed);
    expect(reads(await post("/api/gpodder/sync/force", "alice", sync), "ApiResponse<()>").success).toBe(true);

    // The switch: this account's sync routes off, then on.
    const off = reads(await post("/api/data/gpodder/toggle", "alice", { enabled: false }), "GpodderApiStatusResponse");
    expect(off).toMatchObject({ sync_type: "None", gpodder_enabled: false, api_url: null });
    expect((await http().get("/api/2/devices/alice.json").set("Authorization", basic("alice", PASSWORD))).status).toBe(403);
    expectErrorBody(await get(`/api/gpodder/devices/${uid()}`, "alice"), 404);
    expect(reads(await post("/api/data/gpodder/toggle", "alice", { enabled: true }), "GpodderApiStatusResponse")).toMatchObject({
      sync_type: "gpodder",
      gpodder_enabled: true,
    });
    expect((await get(`/api/gpodder/devices/${uid()}`, "alice")).body.map((d: any) => d.id)).toEqual(listed.map((d: any) => d.id));

    // The statistics page of the same account: no sync address (no account elsewhere).
    expect(reads(await get("/api/data/get_stats", "alice", { user_id: uid() }), "UserStats")).toMatchObject({ GpodderUrl: "", Pod_Sync_Type: "None" });

    // Remove sync: nothing left on, as the client then shows; what the phone sent is still there when switched on again.
    expect(reads(await del("/api/data/remove_podcast_sync", "alice", { user_id: uid() }), "RemoveSyncResponse").success).toBe(true);
    expect(reads(await get("/api/data/gpodder/status", "alice"), "GpodderApiStatusResponse")).toMatchObject({ sync_type: "None", gpodder_enabled: false });
    expectErrorBody(await del("/api/data/remove_podcast_sync", "bob", { user_id: uid() }), 403);
    await post("/api/data/gpodder/toggle", "alice", { enabled: true });
    expect((await get(`/api/gpodder/devices/${uid()}`, "alice")).body.map((d: any) => d.id)).toEqual(listed.map((d: any) => d.id));
  });

  test("the gPodder page with another gPodder server (this one, reached as an external server by the admin)", async () => {
    const login = { gpodder_url: lib.server.url, gpodder_username: "bob", gpodder_password: PASSWORD };
    const account = { user_id: uid("admin"), ...login };
    expect(reads(await post("/api/data/verify_gpodder_auth", "admin", login), "GpodderCheckResponse").status).toBe("success");
    // As the page tests the form before saving: the account in the query.
    expect(reads(await get("/api/gpodder/test-connection", "admin", account), "ApiResponse<Value>")).toMatchObject({
      success: true,
      message: expect.any(String),
    });
    expectErrorBody(await get("/api/gpodder/test-connection", "admin", { ...account, gpodder_password: "wrong" }), 401);
    expectErrorBody(await get("/api/gpodder/test-connection", "admin", { user_id: uid("admin"), gpodder_url: lib.server.url }), 400);
    reads(await post("/api/data/add_gpodder_server", "admin", account), "NextcloudAuthResponse");
    expect(reads(await get(`/api/data/check_gpodder_settings/${uid("admin")}`, "admin"), "NextcloudCheckResponse")).toEqual({ data: true });
    const settings = reads(await get(`/api/data/get_gpodder_settings/${uid("admin")}`, "admin"), "NextcloudGetResponse");
    expect(settings.data).toEqual({ podsyncurl: lib.server.url, gpodderurl: lib.server.url, podsynctoken: "", gpoddertoken: "" });
    expect(JSON.stringify(settings)).not.toContain(PASSWORD);
    expect(reads(await get("/api/data/gpodder/status", "admin"), "GpodderApiStatusResponse")).toMatchObject({
      sync_type: "both",
      external_enabled: true,
      external_url: lib.server.url,
    });
    const stats = reads(await get("/api/data/get_stats", "admin", { user_id: uid("admin") }), "UserStats");
    expect(stats).toMatchObject({ GpodderUrl: lib.server.url, Pod_Sync_Type: "gpodder" });
    expect(JSON.stringify(stats)).not.toContain(PASSWORD);

    expect(
      reads(await post("/api/gpodder/sync", "admin", { user_id: uid("admin"), device_id: null, device_name: null, is_remote: true }), "ApiResponse<()>")
        .success,
    ).toBe(true);
    const made = await post("/api/gpodder/devices", "admin", {
      user_id: uid("admin"),
      device_name: "admin-laptop",
      device_type: "laptop",
      device_caption: "Laptop",
    });
    expect(reads(made, "GpodderDevice")).toMatchObject({ id: "admin-laptop", is_remote: true });
    const devices = reads(await get(`/api/gpodder/devices/${uid("admin")}`, "admin"), "Vec<GpodderDevice>");
    expect(devices.every((d: any) => d.is_remote)).toBe(true);
    expect(devices.map((d: any) => d.id)).toContain("admin-laptop");
    // A remote device is set with its name and is_remote in the query.
    reads(await post("/api/gpodder/set_default/admin-laptop?device_name=Laptop&is_remote=true", "admin"), "ApiResponse<()>");
    expect(reads(await get("/api/gpodder/default_device", "admin"), "GpodderDevice")).toMatchObject({ id: "admin-laptop", is_default: true });
    expect(reads(await get("/api/gpodder/gpodder_statistics", "admin"), "GpodderStatistics")).toMatchObject({
      server_url: lib.server.url,
      connection_status: "connected",
    });
    reads(await del("/api/data/remove_podcast_sync", "admin", { user_id: uid("admin") }), "RemoveSyncResponse");
    expect(reads(await get(`/api/data/check_gpodder_settings/${uid("admin")}`, "admin"), "NextcloudCheckResponse")).toEqual({ data: false });
  });

  test("the Nextcloud login as the page runs it: initiate, add at once, the person grants access, the page polls the settings", async () => {
    const user_id = uid("admin");
    const started = reads(await post("/api/data/initiate_nextcloud_login", "admin", { user_id, nextcloud_url: lib.server.url }), "NextcloudInitiateResponse");
    expect(started.poll.endpoint).toBe(`${lib.server.url}/index.php/login/v2/poll`);
    const auth = { user_id, token: started.poll.token, poll_endpoint: started.poll.endpoint, nextcloud_url: lib.server.url };
    reads(await post("/api/data/add_nextcloud_server", "admin", auth), "NextcloudAuthResponse");
    expect((await get(`/api/data/check_gpodder_settings/${user_id}`, "admin")).body).toEqual({ data: false });

    // The person signs in on the login page the client opened.
    const page = await api(started.login).get("");
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)![1];
    const cookie = String(page.headers["set-cookie"][0]).split(";")[0];
    expect((await api(started.login).post("").type("form").set("Cookie", cookie).send({ user: "admin", password: PASSWORD, csrf })).text).toContain(
      "Access granted",
    );

    for (const until = Date.now() + 15_000; !(await get(`/api/data/check_gpodder_settings/${user_id}`, "admin")).body.data;) {
      if (Date.now() > until) throw new Error("the Nextcloud account was not stored");
      await new Promise((r) => setTimeout(r, CLIENT_POLL_MS));
    }
    expect(reads(await get(`/api/data/get_gpodder_settings/${user_id}`, "admin"), "NextcloudGetResponse").data).toMatchObject({
      gpodderurl: lib.server.url,
      gpoddertoken: "",
    });
    expect((await get(`/api/data/get_podsync_settings/${user_id}`, "admin")).body).toMatchObject({ sync_type: "nextcloud", username: "admin" });
    reads(await del("/api/data/remove_podcast_sync", "admin", { user_id }), "RemoveSyncResponse");
    expectErrorBody(await post("/api/data/initiate_nextcloud_login", "admin", { user_id, nextcloud_url: "not a url" }), 400);
  }, 30_000);

  test("a video channel: check, subscribe, its videos, is_youtube in the lists, details, home and stats, remove", async () => {
    const channel = { user_id: uid(), channel_name: "PinchflatTestChannel", channel_url: CHANNEL_URL };
    expect(reads(await get("/api/data/check_youtube_channel", "alice", channel), "CheckYouTubeChannelResponse")).toEqual({ exists: false });
    const subscribed = reads(await post(`/api/data/youtube/subscribe?channel_id=UCEABC123&user_id=${uid()}`, "alice"), "YouTubeSubscribeResponse");
    expect(subscribed.success).toBe(true);
    const podcast_id = subscribed.podcast_id;
    expect(reads(await get("/api/data/check_youtube_channel", "alice", channel), "CheckYouTubeChannelResponse")).toEqual({ exists: true });
    expectErrorBody(await get("/api/data/check_youtube_channel", "alice", { ...channel, user_id: uid("bob") }), 403);

    // The videos as the client's Episode (every field of it has a default: the names must be the client's to show anything).
    const videos = reads(await get("/api/data/youtube_episodes", "alice", { user_id: uid(), podcast_id }), "PodcastEpisodesResponse").episodes;
    expect(videos).toHaveLength(15);
    expect(videos[0]).toMatchObject({
      episodeid: videos[0].episode_id,
      podcastid: podcast_id,
      podcastname: "PinchflatTestChannel",
      episodetitle: "Channel video 0",
      episodeduration: 3725,
      is_vidsite: true,
      is_youtube: true,
    });
    expect(videos[0].episodeurl).toBe(videos[0].episode_url);
    twinAfter(videos[0], "is_vidsite");
    expectErrorBody(await get("/api/data/youtube_episodes", "bob", { user_id: uid("bob"), podcast_id }), 404);

    // The documented lists and records carry is_youtube beside is_vidsite.
    const pod = (await get(`/api/data/return_pods/${uid()}`, "alice")).body.pods.find((p: any) => p.podcast_id === podcast_id);
    expect(pod).toMatchObject({ is_vidsite: true, is_youtube: true });
    twinAfter(pod, "is_vidsite");
    const details = reads(await get("/api/data/get_podcast_details", "alice", { user_id: uid(), podcast_id }), "PodcastDetailsResponse").details;
    expect(details).toMatchObject({ podcastid: podcast_id, is_vidsite: true, is_youtube: true, isyoutubechannel: true });
    const shared = reads(await get("/api/data/get_podcast_details", "alice", { user_id: uid(), podcast_id: lib.shared }), "PodcastDetailsResponse").details;
    expect(shared).toMatchObject({ is_youtube: false, isyoutubechannel: false });
    const dynamic = await get("/api/data/get_podcast_details_dynamic", "alice", {
      user_id: uid(),
      podcast_title: "PinchflatTestChannel",
      podcast_url: CHANNEL_URL,
      podcast_index_id: 0,
      added: true,
      display_only: false,
    });
    expect(reads(dynamic, "ClickedFeedURL")).toMatchObject({ podcastid: podcast_id, is_vidsite: true, is_youtube: true });
    const episodes = (await get("/api/data/podcast_episodes", "alice", { user_id: uid(), podcast_id })).body.episodes;
    expect(episodes.every((e: any) => e.is_vidsite && e.is_youtube)).toBe(true);

    // A video heard and queued: the queue and the home page (HomeOverview: HomePodcast requires is_youtube).
    const video = videos[1].episodeid;
    expect((await post("/api/data/record_podcast_history", "alice", { episode_id: video, episode_pos: 60, user_id: uid(), is_youtube: true })).status).toBe(
      200,
    );
    expect((await post("/api/data/queue_pod", "alice", { episode_id: video, user_id: uid(), is_youtube: true })).status).toBe(200);
    expect((await get("/api/data/get_queued_episodes", "alice", { user_id: uid() })).body.data.find((e: any) => e.episodeid === video)).toMatchObject({
      is_vidsite: true,
      is_youtube: true,
    });
    const home = reads(await get("/api/data/home_overview", "alice", { user_id: uid() }), "HomeOverview");
    expect(home.top_podcasts.find((p: any) => p.podcastid === podcast_id)).toMatchObject({ is_vidsite: true, is_youtube: true });
    expect(home.in_progress_episodes.find((e: any) => e.episodeid === video)).toMatchObject({ is_youtube: true });
    expect(home.queue_preview.find((e: any) => e.episodeid === video)).toMatchObject({ is_youtube: true });
    reads(await get("/api/data/get_stats", "alice", { user_id: uid() }), "UserStats");

    // remove_youtube_channel (RemoveYouTubeChannelValues as JSON).
    expectErrorBody(await post("/api/data/remove_youtube_channel", "bob", { ...channel, user_id: uid("bob") }), 404);
    expect(reads(await post("/api/data/remove_youtube_channel", "alice", channel), "YoutubeChannelResponse")).toEqual({ success: true });
    expect(reads(await get("/api/data/check_youtube_channel", "alice", channel), "CheckYouTubeChannelResponse")).toEqual({ exists: false });
  });

  test("notification settings as the web client sends and reads them (ntfy_*, gotify_*), and a test message through them", async () => {
    const received: string[] = [];
    lib.feeds.route("/new-episodes", (req, res) => {
      req.on("data", (c) => received.push(String(c)));
      req.on("end", () => res.end("{}"));
    });
    const none = {
      ntfy_topic: null,
      ntfy_server_url: null,
      ntfy_username: null,
      ntfy_password: null,
      ntfy_access_token: null,
      gotify_url: null,
      gotify_token: null,
      http_url: null,
      http_token: null,
      http_method: null,
    };
    const ntfy = { ...none, ntfy_topic: "new-episodes", ntfy_server_url: lib.feeds.url };
    reads(
      await http()
        .put("/api/data/user/notification_settings")
        .set("Api-Key", lib.users.alice.key)
        .send({ user_id: uid(), platform: "ntfy", enabled: true, ...ntfy }),
      "DetailResponse",
    );
    const gotify = { ...none, gotify_url: lib.feeds.url + "/gotify", gotify_token: "a gotify token" };
    reads(
      await http()
        .put("/api/data/user/notification_settings")
        .set("Api-Key", lib.users.alice.key)
        .send({ user_id: uid(), platform: "gotify", enabled: false, ...gotify }),
      "DetailResponse",
    );

    const { settings } = reads(await get("/api/data/user/notification_settings", "alice", { user_id: uid() }), "NotificationSettingsResponse");
    const byPlatform = Object.fromEntries(settings.map((s: any) => [s.platform, s]));
    expect(byPlatform.ntfy).toMatchObject({
      enabled: true,
      notifa_topic: "new-episodes",
      ntfy_topic: "new-episodes",
      notifa_server_url: lib.feeds.url,
      ntfy_server_url: lib.feeds.url,
    });
    twinAfter(byPlatform.ntfy, "notifa_topic");
    expect(byPlatform.gotify).toMatchObject({ enabled: false, notifb_url: gotify.gotify_url, gotify_url: gotify.gotify_url });
    expect(JSON.stringify(settings)).not.toContain("a gotify token");

    reads(await post("/api/data/user/test_notification", "alice", { user_id: uid(), platform: "ntfy" }), "DetailResponse");
    expect(received.join("")).toContain("Notifications from your podcast server work.");
  });
});
