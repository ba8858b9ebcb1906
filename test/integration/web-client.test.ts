/**
 * PinePods' web client (web/src/requests/*.rs, Rust with serde) as a client of this server: its calls replayed as it
 * makes them and each answer read the way serde reads it into the client's struct, by the client's own field names
 * (test/helpers/serde.ts): a field not an Option must be there, with its exact type (an i32 refuses 1.5, a string, a
 * bool, null); an Option may be null or missing; two names of one field (#[serde(alias)]) in one answer are serde's
 * "duplicate field" error. Where the mobile app reads the same answer, its reads are checked too. The calls whose
 * paths or fields carry third-party names (the gPodder and Nextcloud page, video channels, notification settings)
 * are in test/integration/client-names.test.ts.
 * docs/pinepods-client-calls.md, first table, lists every call of the web client and what it reads.
 */
import fs from "fs";
import path from "path";
import { generateSecret } from "otplib";
import { api, basic, expectErrorBody } from "../helpers/client";
import { capturingLogger } from "../helpers/logs";
import { Library, startLibrary } from "../helpers/library";
import { tempDir } from "../helpers/server";
import { totp } from "../helpers/totp";
import { config } from "../../shared/config";
import { serdeErrors as serdeRead, type Struct, type Ty, WEB_STRUCTS as S } from "../helpers/serde";

/** The mobile app's reads (Dart: a `?? default` read is an Option; a typed field fed a missing key fails like a serde field). */
const DART: Record<string, Struct> = {
  // services/pinepods/oidc_service.dart OidcProvider.fromJson
  OidcProvider: {
    provider_id: "i32",
    provider_name: "String",
    client_id: "String",
    authorization_url: "String",
    scope: "String",
    button_color: "Option<String>",
    button_text: "Option<String>",
    button_text_color: "Option<String>",
    icon_svg: "Option<String>",
  },
  // pinepods_service.dart SearchEpisodeResult.fromJson
  SearchEpisodeResult: Object.fromEntries([
    ...["podcastid", "episodecount", "userid", "episodeid", "episodeduration", "listenduration"].map((k) => [k, "Option<i32>"]),
    ...[
      "podcastname",
      "artworkurl",
      "author",
      "description",
      "feedurl",
      "websiteurl",
      "episodetitle",
      "episodedescription",
      "episodepubdate",
      "episodeartwork",
      "episodeurl",
    ].map((k) => [k, "Option<String>"]),
    ...["completed", "saved", "queued", "downloaded", "is_youtube"].map((k) => [k, "Option<bool>"]),
    ["explicit", "Option<i32>"],
    ["categories", "Option<Value>"],
  ]),
  // pinepods_service.dart getEpisodeMetadata
  EpisodeMetadata: Object.fromEntries([
    ...["episodeduration", "listenduration", "episodeid", "podcastid"].map((k) => [k, "Option<i32>"]),
    ...["podcastname", "episodetitle", "episodepubdate", "episodedescription", "episodeartwork", "episodeurl"].map((k) => [k, "Option<String>"]),
    ...["completed", "is_saved", "is_queued", "is_downloaded", "is_youtube"].map((k) => [k, "Option<bool>"]),
  ]),
};

/** What serde_json would report reading `value` as `ty` (empty: the client reads it). */
const serdeErrors = (value: unknown, ty: Ty, at = "answer", structs: Record<string, Struct> = S) => serdeRead(value, ty, { structs, at });
const dartErrors = (value: unknown, ty: string) => serdeErrors(value, ty, "answer", DART);

describe("PinePods' web client reading this server's answers", () => {
  let lib: Library;
  const logs: string[] = [];
  const uid = (who = "alice") => lib.users[who].id;
  const key = (who: string) => lib.users[who].key;
  const http = () => api(lib.server.url);
  const put = (path: string, who: string, body: object) => http().put(path).set("Api-Key", key(who)).send(body);
  const del = (path: string, who: string, body: object) => http().delete(path).set("Api-Key", key(who)).send(body);
  /** The read: the answer must be a 200 that serde reads into the struct. */
  const reads = (res: { status: number; body: unknown }, ty: Ty) => {
    expect([res.status, serdeErrors(res.body, ty)]).toEqual([200, []]);
    return res.body as any;
  };
  const oidcAllowHttp = config.oidcAllowHttp;

  beforeAll(async () => {
    lib = await startLibrary({ broker: capturingLogger(logs) });
    config.oidcAllowHttp = true; // the providers' endpoints below are loopback http
  });
  afterAll(async () => {
    config.oidcAllowHttp = oidcAllowHttp;
    await lib?.stop();
  });

  test("the checker reports what serde would: missing, wrong type, null, duplicate alias", () => {
    expect(serdeErrors({ saved: true, is_saved: true }, "Episode")).toEqual(["answer: duplicate field `saved` (saved, is_saved)"]);
    expect(serdeErrors({ explicit: true }, "Episode")).toEqual(["answer.explicit: invalid type true, expected i32"]);
    expect(serdeErrors({ podcastname: null }, "Episode")).toEqual(["answer.podcastname: invalid type null, expected String"]);
    expect(serdeErrors({ podcastid: 1.5 }, "Episode")).toEqual(["answer.podcastid: invalid type 1.5, expected i32"]);
    expect(serdeErrors({}, "CheckYouTubeChannelResponse")).toEqual(["answer: missing field `exists`"]);
    expect(serdeErrors({ podsync_enabled: true, sync_type: "None", external_enabled: false }, "GpodderApiStatusResponse")).toEqual([
      "answer: missing field `gpodder_enabled`",
    ]);
    expect(serdeErrors({ title: "t", url: null }, "Chapter")).toEqual(["answer: missing field `startTime`"]);
    expect(serdeErrors([{ episodeid: 1, description: "d" }], "Vec<Episode>")).toEqual([]);
  });

  test("search_data: every entry reads as the client's Episode (and the app's SearchEpisodeResult); the web client's filters", async () => {
    const search = (body: object, query: object) =>
      http()
        .post("/api/data/search_data")
        .query(query)
        .set("Api-Key", key("alice"))
        .send({ user_id: uid(), ...body });
    await lib.post("/api/data/add_category", "alice", { user_id: uid(), podcast_id: lib.shared, category: "Science" });
    const ep = lib.ids["Quarter"];
    await lib.post("/api/data/save_episode", "alice", { episode_id: ep, user_id: uid(), is_youtube: false });
    await lib.post("/api/data/queue_pod", "alice", { episode_id: ep, user_id: uid(), is_youtube: false });
    await lib.post("/api/data/record_listen_duration", "alice", { episode_id: lib.ids["Half"], user_id: uid(), listen_duration: 300, is_youtube: false });

    // As the search page sends it: limit, offset and the filter chip in the query, categories in the body.
    const all = reads(await search({ search_term: "" }, { limit: 20, offset: 0, filter: "all" }), "SearchPage");
    expect([all.data.length, all.total]).toEqual([20, 42]); // 2 podcasts, then 40 episodes
    for (const entry of all.data) expect(dartErrors(entry, "SearchEpisodeResult")).toEqual([]);
    const podcast = all.data.find((d: any) => d.type === "podcast" && d.podcast_id === lib.shared);
    expect(podcast).toMatchObject({
      podcastid: lib.shared,
      podcastname: "Shared Show",
      categories: { "1": "Science" },
      explicit: 0,
      feedurl: lib.feeds.url + "/shared.xml",
    });
    const byCategory = reads(await search({ search_term: "", categories: ["Science"] }, { limit: 50, offset: 0, filter: "all" }), "SearchPage");
    expect(byCategory.data.filter((d: any) => d.type === "episode").every((d: any) => d.podcastid === lib.shared)).toBe(true);

    const quarter = reads(await search({ search_term: "quarter" }, { limit: 20, offset: 0, filter: "all" }), "SearchPage");
    expect(quarter.data.find((d: any) => d.episodeid === ep)).toMatchObject({
      episodetitle: "Quarter",
      podcastname: "Shared Show",
      episodeduration: 900,
      saved: true,
      queued: true,
      downloaded: false,
    });

    const chip = async (filter: string) => reads(await search({ search_term: "" }, { limit: 100, offset: 0, filter }), "SearchPage");
    const saved = await chip("saved");
    expect(saved.data.map((d: any) => d.episodeid)).toEqual([ep]);
    expect(saved.total).toBe(1);
    expect((await chip("in_progress")).data.map((d: any) => d.episodeid)).toEqual([lib.ids["Half"]]);
    expect((await chip("downloaded")).data).toEqual([]);
    const unplayed = await chip("unplayed");
    // The server's word as in its other lists (not played: not completed nor heard to the end); the client narrows it to unheard ones itself.
    expect(unplayed.data.every((d: any) => d.type === "episode" && !d.completed)).toBe(true);
    expect(unplayed.data.map((d: any) => d.episodeid)).toContain(lib.ids["Half"]);
    expect(unplayed.total).toBe(unplayed.data.length);
    expectErrorBody(await search({ search_term: "" }, { filter: "everything" }), 400);
  });

  test("get_episode_metadata: one name per fact (is_saved, is_queued, is_downloaded), explicit an integer", async () => {
    const ep = lib.ids["Twenty"];
    await lib.post("/api/data/save_episode", "alice", { episode_id: ep, user_id: uid(), is_youtube: false });
    // As the episode page sends it (EpisodeRequest).
    const res = await lib.post("/api/data/get_episode_metadata", "alice", { episode_id: ep, user_id: uid(), person_episode: false, is_youtube: false });
    const { episode } = reads(res, "EpisodeAnswer");
    expect(episode).toMatchObject({ episodeid: ep, is_saved: true, is_queued: false, is_downloaded: false, explicit: 0 });
    expect(episode).not.toHaveProperty("saved");
    expect(dartErrors(episode, "EpisodeMetadata")).toEqual([]);
  });

  test("public_oidc_providers: the documents' id, name, icon_url, login_url and both clients' names; update_oidc_provider", async () => {
    const provider = {
      provider_name: "Test IdP",
      client_id: "web-client-test",
      client_secret: "a client secret",
      authorization_url: "http://127.0.0.1:9/auth",
      token_url: "http://127.0.0.1:9/token",
      user_info_url: "http://127.0.0.1:9/userinfo",
      button_text: "Log in with Test IdP",
      scope: "openid email",
      button_color: "#224488",
      button_text_color: "#ffffff",
      icon_svg: "<svg/>",
      name_claim: "name",
      email_claim: "email",
      username_claim: "preferred_username",
      roles_claim: "",
      user_role: "",
      admin_role: "",
    };
    const added = await lib.post("/api/data/add_oidc_provider", "admin", provider);
    expect(added.status).toBe(200);
    const id = added.body.provider_id; // the client reads result["provider_id"].as_i64()
    expect(Number.isInteger(id)).toBe(true);

    const listing = reads(await http().get("/api/data/public_oidc_providers"), "PublicOIDCProvidersResponse");
    const entry = listing.providers.find((p: any) => p.provider_id === id);
    expect(entry).toMatchObject({
      id,
      name: "Test IdP",
      provider_name: "Test IdP",
      authorization_url: provider.authorization_url,
      icon_svg: "<svg/>",
      client_id: provider.client_id,
    });
    expect(entry.icon_url).toMatch(/^data:image\/svg\+xml;base64,/);
    expect(entry.login_url).toMatch(/^http:\/\/127\.0\.0\.1:9\/auth\?/);
    expect(dartErrors(entry, "OidcProvider")).toEqual([]);

    // The edit form sends the add record again, client_secret empty unless changed.
    const edited = { ...provider, provider_name: "Renamed IdP", client_secret: "", scope: "openid email profile" };
    expect((await put(`/api/data/update_oidc_provider/${id}`, "admin", edited)).status).toBe(200);
    const after = (await http().get("/api/data/public_oidc_providers")).body.providers.find((p: any) => p.provider_id === id);
    expect(after).toMatchObject({ name: "Renamed IdP", provider_name: "Renamed IdP", scope: "openid email profile" });
    const secretOf = async () => (await (lib.server.broker.getLocalService("oidc") as any).adapter.findOne({ _id: id })).client_secret;
    expect(await secretOf()).toBe("a client secret");
    expect((await put(`/api/data/update_oidc_provider/${id}`, "admin", { ...edited, client_secret: "a new secret" })).status).toBe(200);
    expect(await secretOf()).toBe("a new secret");
    expect(logs.join("\n")).not.toContain("a new secret");

    expectErrorBody(await put(`/api/data/update_oidc_provider/${id}`, "alice", edited), 403);
    expectErrorBody(await put("/api/data/update_oidc_provider/999999", "admin", edited), 404);
    expectErrorBody(await put(`/api/data/update_oidc_provider/${id}`, "admin", { ...edited, token_url: "not a url" }), 400);
    const other = await lib.post("/api/data/add_oidc_provider", "admin", { ...provider, client_id: "web-client-other" });
    expectErrorBody(await put(`/api/data/update_oidc_provider/${other.body.provider_id}`, "admin", edited), 409);
    // As the client removes one: the bare id as the whole JSON body.
    for (const p of [id, other.body.provider_id]) {
      expect(
        (await http().post("/api/data/remove_oidc_provider").set("Api-Key", key("admin")).set("Content-Type", "application/json").send(String(p))).status,
      ).toBe(200);
    }
  });

  test("get_user_info (admin), restore_status (no key)", async () => {
    const users = reads(await lib.get("/api/data/get_user_info", "admin"), "Vec<SettingsUser>");
    expect(users.map((u: any) => [u.username, u.isadmin])).toEqual([
      ["admin", 1],
      ["alice", 0],
      ["bob", 0],
    ]);
    expect(JSON.stringify(users)).not.toMatch(/hashed|argon|mfa/i);
    expectErrorBody(await lib.get("/api/data/get_user_info", "alice"), 403);

    // The restore overlay polls without a key.
    expect(reads(await http().get("/api/data/restore_status"), "RestoreStatusResponse")).toEqual({ restore_in_progress: false });
    const backups: any = lib.server.broker.getLocalService("backups");
    backups.restoring = true;
    try {
      expect((await http().get("/api/data/restore_status")).body).toEqual({ restore_in_progress: true });
    } finally {
      backups.restoring = false;
    }
  });

  test("MFA: save_mfa_secret turns it on with the client's secret (never logged), then the generate / verify / delete calls", async () => {
    const secret = generateSecret();
    const saved = await lib.post("/api/data/save_mfa_secret", "bob", { user_id: uid("bob"), mfa_secret: secret });
    expect(reads(saved, "SaveMFASecretResponse").status).toBe("success");
    expect(reads(await lib.get(`/api/data/check_mfa_enabled/${uid("bob")}`, "bob"), "CheckMfaEnabledResponse")).toEqual({ mfa_enabled: true });
    const login = await http().get("/api/data/get_key").set("Authorization", basic("bob", "a long password"));
    expect(login.body).toMatchObject({ status: "mfa_required", mfa_required: true });
    expect(reads(await lib.post("/api/data/verify_mfa", "bob", { user_id: uid("bob"), mfa_code: totp(secret) }), "VerifyMFAResponse")).toEqual({
      verified: true,
    });
    expect(logs.join("\n")).not.toContain(secret);
    expect(reads(await del("/api/data/delete_mfa", "bob", { user_id: uid("bob") }), "DeleteMFAResponse").deleted).toBe(true);

    expectErrorBody(await lib.post("/api/data/save_mfa_secret", "bob", { user_id: uid("bob"), mfa_secret: "SHORT" }), 400);
    expectErrorBody(await lib.post("/api/data/save_mfa_secret", "bob", { user_id: uid("bob"), mfa_secret: "not base32 at all, 0189 !!!!!!!!!!" }), 400);
    expectErrorBody(await lib.post("/api/data/save_mfa_secret", "bob", { user_id: uid("alice"), mfa_secret: secret }), 403);

    // The settings page's own path: generate, then verify a code of the pending secret.
    const generated = reads(await lib.get(`/api/data/generate_mfa_secret/${uid("bob")}`, "bob"), "GenerateMFAResponse");
    const verified = await lib.post("/api/data/verify_temp_mfa", "bob", { user_id: uid("bob"), mfa_code: totp(generated.secret) });
    expect(reads(verified, "VerifyTempMFAResponse")).toEqual({ verified: true });
    reads(await del("/api/data/delete_mfa", "bob", { user_id: uid("bob") }), "DeleteMFAResponse");
  });

  test("the other open answers of the first table read into the client's structs", async () => {
    const ep = lib.ids["Tiny"];
    const a = { user_id: uid(), podcast_id: lib.shared };
    reads(await lib.post("/api/data/clear_podcast_playback_speed", "alice", a), "ClearPlaybackSpeedResponse");
    reads(await lib.post("/api/data/adjust_skip_times", "alice", { ...a, start_skip: 5, end_skip: 5 }), "DetailOnly");
    reads(await lib.post("/api/data/enable_auto_play_next", "alice", { ...a, auto_play_next: true }), "DetailOnly");
    reads(await lib.post("/api/data/mark_episode_completed", "alice", { episode_id: ep, user_id: uid(), is_youtube: false }), "DetailOnly");
    reads(await lib.post("/api/data/mark_episode_uncompleted", "alice", { episode_id: ep, user_id: uid(), is_youtube: false }), "DetailOnly");
    reads(await lib.post("/api/data/update_episode_duration", "alice", { episode_id: ep, new_duration: 300, is_youtube: false }), "DetailOnly");
    reads(
      await lib.post("/api/data/record_listen_duration", "alice", { episode_id: ep, user_id: uid(), listen_duration: 10, is_youtube: false }),
      "RecordListenDurationResponse",
    );
    const { url_key } = reads(await lib.post(`/api/data/share_episode/${ep}`, "alice", {}), "ShareLinkResponse");
    reads(await http().get(`/api/data/episode_by_url/${url_key}`), "EpisodeAnswer");

    const feed = reads(await lib.get("/api/data/fetch_podcast_feed", "admin", { podcast_feed: lib.feeds.url + "/shared.xml" }), "PodcastFeedResult");
    // Each episode is read on its own (one that serde refuses is dropped): all must read.
    expect(feed.episodes.flatMap((e: unknown, i: number) => serdeErrors(e, "Episode", `episodes[${i}]`))).toEqual([]);
    expect(feed.episodes.length).toBe(10);
    reads(await lib.get("/api/data/fetch_podcasting_2_data", "alice", { episode_id: ep, user_id: uid() }), "Podcasting2Data");
    reads(await lib.get("/api/data/fetch_podcasting_2_pod_data", "alice", { podcast_id: lib.shared, user_id: uid() }), "Podcasting2PodData");
    const episodeId = await lib.get("/api/data/get_episode_id_ep_name", "alice", {
      user_id: uid(),
      episode_url: "https://media.test/shared/0.mp3",
      episode_title: "Tiny",
      is_youtube: false,
    });
    expect(episodeId.text.trim()).toBe(String(ep)); // the client parses the text as an i32

    const custom = await lib.post("/api/data/add_custom_podcast", "bob", {
      feed_url: lib.feeds.url + "/own.xml",
      user_id: uid("bob"),
      username: null,
      password: null,
      youtube_channel: false,
      feed_cutoff: null,
    });
    expect(reads(custom, "AddCustomPodcastResponse").data.feedurl).toBe(lib.feeds.url + "/own.xml");

    const playlists = reads(await lib.get("/api/data/get_playlists", "alice", { user_id: uid() }), "PlaylistResponse");
    reads(
      await lib.get("/api/data/get_playlist_episodes", "alice", { user_id: uid(), playlist_id: playlists.playlists[0].playlist_id, limit: 20, offset: 0 }),
      "PlaylistFeedPage",
    );
    reads(await lib.get("/api/data/get_extended_stats", "alice", { user_id: uid() }), "ExtendedUserStats");
    reads(await lib.post("/api/data/get_unmatched_podcasts", "alice", { user_id: uid() }), "PodcastsOfUnmatched");
    reads(await lib.post("/api/data/get_ignored_podcasts", "alice", { user_id: uid() }), "PodcastsOfUnmatched");
    reads(await lib.get(`/api/data/import_progress/${uid()}`, "alice"), "ImportProgressResponse");
    reads(await lib.get("/api/data/get_rss_key", "alice", { user_id: uid() }), "GetRssKeyResponse");
    reads(await http().get("/api/data/get_server_default_language"), "ServerDefaultLanguageResponse");
    reads(await lib.get(`/api/data/user_admin_check/${uid()}`, "alice"), "AdminCheckResponse");
    reads(await lib.get("/api/data/user/get_podcast_cover_preference", "alice", { user_id: uid() }), "GetPodcastCoverPreferenceResponse");
    reads(await lib.post("/api/data/user/set_global_podcast_cover_preference", "alice", { user_id: uid(), use_podcast_covers: true }), "DetailResponse");

    const created = reads(await lib.post("/api/data/create_api_key", "alice", { user_id: uid(), rssonly: false, podcast_ids: null }), "CreateAPIKeyResponse");
    const info = reads(await lib.get(`/api/data/get_api_info/${uid()}`, "alice"), "APIInfoResponse");
    const made =
      info.api_info.find((k: any) => created.api_key.endsWith(k.lastfourdigits) && k.apikeyid !== info.api_info[0].apikeyid) ??
      info.api_info[info.api_info.length - 1];
    reads(await del("/api/data/delete_api_key", "alice", { api_id: String(made.apikeyid), user_id: uid() }), "DeleteAPIKeyResponse");

    const colors = [
      "background_color",
      "button_color",
      "container_button_color",
      "button_text_color",
      "text_color",
      "text_secondary_color",
      "border_color",
      "accent_color",
      "prog_bar_color",
      "error_color",
      "bonus_color",
      "secondary_background",
      "container_background",
      "standout_color",
      "hover_color",
      "link_color",
      "thumb_color",
      "unfilled_color",
      "check_box_color",
    ];
    const theme = { user_id: uid(), name: "Web theme", ...Object.fromEntries(colors.map((c) => [c, "#123456"])) };
    reads(await lib.post("/api/data/user/custom_themes", "alice", theme), "CreateCustomThemeResponse");
    reads(await lib.get(`/api/data/user/custom_themes/${uid()}`, "alice"), "GetCustomThemesResponse");

    lib.feeds.route("/hook", { body: "{}" });
    const hook = { user_id: uid(), platform: "http", enabled: true, http_url: lib.feeds.url + "/hook", http_token: null, http_method: "POST" };
    reads(await put("/api/data/user/notification_settings", "alice", hook), "DetailResponse");
    reads(await lib.get("/api/data/user/notification_settings", "alice", { user_id: uid() }), "NotificationSettingsResponse");
    reads(await lib.post("/api/data/user/test_notification", "alice", { user_id: uid(), platform: "http" }), "DetailResponse");

    // Admin pages.
    const added = reads(
      await lib.post("/api/data/add_user", "admin", { fullname: "Carol", username: "carol", email: "carol@example.org", hash_pw: "a long password" }),
      "AddUserResponse",
    );
    reads(await put("/api/data/user/set_isadmin", "admin", { user_id: added.user_id, isadmin: false }), "DetailResponse");
    reads(await lib.get(`/api/data/user/final_admin/${uid("admin")}`, "admin"), "FinalAdminResponse");
    reads(await del(`/api/data/user/delete/${added.user_id}`, "admin", {}), "DeleteUserResponse");
    for (let i = 0; i < 2; i++) {
      reads(await lib.post("/api/data/enable_disable_downloads", "admin", {}), "SuccessResponse");
      reads(await lib.post("/api/data/enable_disable_self_service", "admin", {}), "SuccessResponse");
    }
    for (const res of [
      await lib.post("/api/data/get_scheduled_backup", "admin", { user_id: uid("admin") }),
      await lib.post("/api/data/list_backup_files", "admin", { user_id: uid("admin") }),
    ]) {
      expect([res.status, res.headers["content-type"]]).toEqual([200, expect.stringMatching(/json/)]);
    }
    const media = tempDir("web-client-media-");
    fs.mkdirSync(path.join(media, "A show"));
    const mediaBefore = config.localMediaDir;
    config.localMediaDir = media;
    try {
      expect(reads(await lib.get("/api/data/list_local_directories", "admin", { path: "" }), "LocalDirListing").directories).toEqual([
        expect.objectContaining({ name: "A show", audio_count: 0 }),
      ]);
    } finally {
      config.localMediaDir = mediaBefore;
    }
  });
});
