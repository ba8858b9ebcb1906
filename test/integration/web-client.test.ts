/**
 * PinePods' web client (web/src/requests/*.rs, Rust with serde) as a client of this server: its calls replayed as it
 * makes them (paths and names through the documents' neutral words: gpodder -> podsync, nextcloud -> cloudsync,
 * youtube -> vidsite, ntfy -> notifa, gotify -> notifb) and each answer read the way serde reads it into the
 * client's struct: a field not an Option must be there, with its exact type (an i32 refuses 1.5, a string, a
 * bool, null); an Option may be null or missing; two names of one field (#[serde(alias)]) in one answer are serde's
 * "duplicate field" error. Where the mobile app reads the same answer, its reads are checked too.
 * docs/pinepods-client-calls.md, first table, lists every call of the web client and what it reads.
 */
import fs from "fs";
import path from "path";
import { generateSecret } from "otplib";
import { api, basic, expectErrorBody } from "../helpers/client";
import { capturingLogger } from "../helpers/logs";
import { Library, startLibrary } from "../helpers/library";
import { rssFeed } from "../helpers/podcasts";
import { tempDir } from "../helpers/server";
import { totp } from "../helpers/totp";
import { config } from "../../shared/config";

/**
 * A serde type: i32, i64, u16, usize, f32, f64, bool, String, Value (any JSON), Unit (null only), BoolOrInt and
 * StartTime (the client's custom deserializers), Option<T>, Vec<T>, Map<T> (HashMap<String, T>), or a struct below.
 */
type Ty = string;
/**
 * A struct as the client declares it, by field: "name" or "name|alias|alias" (#[serde(alias)]); "name=" has
 * #[serde(default)]; "name!" has deserialize_with and no default, so it must be there even as an Option.
 * "#default" is #[serde(default)] on the struct (every field may be missing).
 */
type Struct = Record<string, Ty | true>;

const int = (min: number, max: number) => (v: unknown) => Number.isInteger(v) && (v as number) >= min && (v as number) <= max;
const SCALARS: Record<string, (v: unknown) => boolean> = {
  i32: int(-(2 ** 31), 2 ** 31 - 1),
  i64: int(-Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER),
  u16: int(0, 65535),
  usize: int(0, Number.MAX_SAFE_INTEGER),
  f32: (v) => typeof v === "number",
  f64: (v) => typeof v === "number",
  bool: (v) => typeof v === "boolean",
  String: (v) => typeof v === "string",
  Value: () => true,
  Unit: (v) => v === null,
  BoolOrInt: (v) => typeof v === "boolean" || Number.isInteger(v),
  StartTime: (v) => v === null || typeof v === "number",
};

/** The client's names on this server's wire: the documents' neutral words for third-party names. */
function wire(name: string): string {
  return name.replace(/gpodder/g, "podsync").replace(/nextcloud/g, "cloudsync").replace(/youtube/g, "vidsite").replace(/^ntfy_/, "notifa_").replace(/^gotify_/, "notifb_");
}

/** The web client's structs, as web/src/requests/*.rs declares them (only what serde reads). */
const S: Record<string, Struct> = {
  // episode.rs: every list and episode answer.
  Episode: {
    "#default": true, podcastid: "i32", "podcastname|feedTitle": "String", "episodetitle|Episodetitle|title": "String", "artworkurl|feedImage": "String",
    "author|feedAuthor": "String", categories: "Option<Map<String>>", "episodedescription|Episodedescription|description": "String", episodecount: "Option<i32>",
    "feedurl|feedUrl": "String", "websiteurl|link": "String", explicit: "i32", userid: "i32", "episodeid|Episodeid": "i32",
    "episodeurl|Episodeurl|enclosure_url|enclosureUrl": "String", "episodeartwork|Episodeartwork|artwork|image": "String",
    "episodepubdate|Episodepubdate|pub_date": "String", "episodeduration|Episodeduration|duration": "i32", "listenduration|Listenduration": "Option<i32>",
    "completed|Completed": "bool", "saved|is_saved": "bool", "queued|is_queued": "bool", "downloaded|is_downloaded": "bool", is_youtube: "bool",
    is_video: "bool", guid: "String", queueposition: "Option<i32>", downloadedlocation: "Option<String>", listendate: "Option<String>", savedate: "Option<String>",
  },
  EpisodeAnswer: { episode: "Episode" },
  SearchPage: { data: "Vec<Episode>", total: "i64" },
  PodcastFeedResult: { episodes: "Vec<Value>", total: "i64" },
  // pod_req.rs Podcast (add_custom_podcast's data)
  Podcast: {
    podcastid: "i32", podcastname: "String", artworkurl: "Option<String>", description: "Option<String>", episodecount: "Option<i32>", websiteurl: "Option<String>",
    feedurl: "String", author: "Option<String>", categories: "Option<Map<String>>", "explicit!": "BoolOrInt", "podcastindexid=": "i32", "is_favorite=": "bool", "is_video=": "bool",
  },
  AddCustomPodcastResponse: { data: "Podcast" },
  // login_requests.rs
  OIDCProvider: {
    provider_id: "i32", provider_name: "String", client_id: "String", authorization_url: "String", scope: "String", button_color: "String", button_text: "String",
    button_text_color: "String", icon_svg: "Option<String>",
  },
  PublicOIDCProvidersResponse: { providers: "Vec<OIDCProvider>", disable_standard_login: "bool" },
  CheckMfaEnabledResponse: { mfa_enabled: "bool" },
  VerifyMFAResponse: { verified: "bool" },
  // setting_reqs.rs
  SettingsUser: { userid: "i32", fullname: "String", username: "String", email: "String", isadmin: "i32" },
  RestoreStatusResponse: { restore_in_progress: "bool" },
  SaveMFASecretResponse: { status: "String" },
  GenerateMFAResponse: { secret: "String", qr_code_svg: "String" },
  VerifyTempMFAResponse: { verified: "bool" },
  DeleteMFAResponse: { deleted: "bool" },
  RemoveSyncResponse: { success: "bool", message: "String" },
  AddUserResponse: { detail: "String", user_id: "Option<i32>" },
  CreateAPIKeyResponse: { api_key: "String" },
  DeleteAPIKeyResponse: { detail: "String" },
  APIInfo: { apikeyid: "i32", userid: "i32", username: "String", lastfourdigits: "String", created: "String" },
  APIInfoResponse: { api_info: "Vec<APIInfo>" },
  SuccessResponse: { success: "bool" },
  DetailResponse: { detail: "String" },
  DeleteUserResponse: { status: "String" },
  FinalAdminResponse: { final_admin: "bool" },
  AdminCheckResponse: { is_admin: "bool" },
  GetRssKeyResponse: { rss_key: "String" },
  ServerDefaultLanguageResponse: { default_language: "String" },
  ImportProgressResponse: { current: "i32", total: "i32", current_podcast: "String" },
  UnmatchedPodcast: { podcast_id: "i32", podcast_name: "String", artwork_url: "Option<String>", author: "Option<String>", description: "Option<String>", feed_url: "String" },
  PodcastsOfUnmatched: { podcasts: "Vec<UnmatchedPodcast>" },
  GetPodcastCoverPreferenceResponse: { use_podcast_covers: "bool" },
  NotificationSettings: {
    platform: "String", enabled: "bool", ntfy_topic: "Option<String>", ntfy_server_url: "Option<String>", ntfy_username: "Option<String>", ntfy_password: "Option<String>",
    ntfy_access_token: "Option<String>", gotify_url: "Option<String>", gotify_token: "Option<String>", http_url: "Option<String>", http_token: "Option<String>", http_method: "Option<String>",
  },
  NotificationSettingsResponse: { settings: "Vec<NotificationSettings>" },
  CustomTheme: Object.fromEntries([
    ["themeid", "i32"], ["name", "String"],
    ...["background_color", "button_color", "container_button_color", "button_text_color", "text_color", "text_secondary_color", "border_color", "accent_color", "prog_bar_color",
      "error_color", "bonus_color", "secondary_background", "container_background", "standout_color", "hover_color", "link_color", "thumb_color", "unfilled_color", "check_box_color"].map((c) => [c, "String"]),
  ]),
  CreateCustomThemeResponse: { theme: "CustomTheme" },
  GetCustomThemesResponse: { themes: "Vec<CustomTheme>" },
  LocalDirEntry: { name: "String", path: "String", audio_count: "usize" },
  LocalDirListing: { current_path: "String", directories: "Vec<LocalDirEntry>" },
  NextcloudAuthResponse: {},
  GpodderCheckResponse: { status: "String", message: "String" },
  NextcloudCheckResponse: { data: "bool" },
  GpodderData: { gpodderurl: "String", gpoddertoken: "String" },
  NextcloudGetResponse: { data: "GpodderData" },
  GpodderApiStatusResponse: { sync_type: "String", gpodder_enabled: "bool", external_enabled: "bool", external_url: "Option<String>", api_url: "Option<String>" },
  GpodderDevice: { id: "String", name: "String", type: "String", caption: "Option<String>", last_sync: "Option<String>", is_active: "bool", is_remote: "Option<bool>", is_default: "Option<bool>" },
  "ApiResponse<()>": { success: "bool", message: "String", data: "Option<Unit>" },
  "ApiResponse<Value>": { success: "bool", message: "String", data: "Option<Value>" },
  ServerDevice: { id: "String", caption: "String", device_type: "String", subscriptions: "i32" },
  ServerSubscription: { url: "String", title: "Option<String>", description: "Option<String>" },
  ServerEpisodeAction: { podcast: "String", episode: "String", action: "String", timestamp: "String", position: "Option<i32>", device: "Option<String>" },
  EndpointTest: { endpoint: "String", status: "String", response_time_ms: "Option<i64>", error: "Option<String>" },
  GpodderStatistics: {
    server_url: "String", sync_type: "String", sync_enabled: "bool", server_devices: "Vec<ServerDevice>", total_devices: "i32", server_subscriptions: "Vec<ServerSubscription>",
    total_subscriptions: "i32", recent_episode_actions: "Vec<ServerEpisodeAction>", total_episode_actions: "i32", connection_status: "String",
    last_sync_timestamp: "Option<String>", api_endpoints_tested: "Vec<EndpointTest>",
  },
  // pod_req.rs
  ClearPlaybackSpeedResponse: { message: "String" },
  CheckYouTubeChannelResponse: { exists: "bool" },
  ShareLinkResponse: { url_key: "String" },
  RecordListenDurationResponse: { detail: "String" },
  Chapter: { "startTime!": "StartTime", title: "String", url: "Option<String>", img: "Option<String>" },
  Transcript: { url: "String", mime_type: "String", language: "Option<String>", rel: "Option<String>" },
  Person: { name: "String", role: "Option<String>", group: "Option<String>", img: "Option<String>", href: "Option<String>", id: "Option<i32>", description: "Option<String>" },
  Podcasting2Data: { chapters: "Vec<Chapter>", transcripts: "Vec<Transcript>", people: "Vec<Person>" },
  ValueRecipient: { name: "String", type: "String", address: "String", split: "String" },
  Value2: { type: "String", method: "String", suggested: "Option<String>", recipients: "Vec<ValueRecipient>" },
  Podcasting2PodData: { people: "Vec<Person>", podroll: "Vec<PodrollItem>", funding: "Vec<Funding>", value: "Vec<Value2>" },
  PodrollItem: { feed_guid: "String" },
  Funding: { url: "String", description: "String" },
  PlaylistEpisode: { title: "String", artwork: "String" },
  Playlist: {
    playlist_id: "i32", user_id: "i32", name: "String", description: "Option<String>", is_system_playlist: "bool", podcast_ids: "Option<Vec<i32>>", include_unplayed: "bool",
    include_partially_played: "bool", include_played: "bool", min_duration: "Option<i32>", max_duration: "Option<i32>", sort_order: "String", group_by_podcast: "bool",
    max_episodes: "Option<i32>", last_updated: "String", created: "String", episode_count: "Option<i32>", preview_episodes: "Vec<PlaylistEpisode>", icon_name: "Option<String>",
  },
  PlaylistResponse: { playlists: "Vec<Playlist>" },
  PlaylistInfo: {
    name: "String", description: "Option<String>", episode_count: "Option<i32>", icon_name: "Option<String>", is_system_playlist: "Option<bool>", podcast_ids: "Option<Vec<i32>>",
    include_unplayed: "Option<bool>", include_partially_played: "Option<bool>", include_played: "Option<bool>", min_duration: "Option<i32>", max_duration: "Option<i32>",
    sort_order: "Option<String>", group_by_podcast: "Option<bool>", max_episodes: "Option<i32>", play_progress_min: "Option<f32>", play_progress_max: "Option<f32>", time_filter_hours: "Option<i32>",
  },
  PlaylistFeedPage: { episodes: "Vec<Episode>", playlist_info: "PlaylistInfo", total: "i64" },
  // stat_reqs.rs
  TopPodcastStat: { podcastid: "i32", podcastname: "String", artworkurl: "String", total_seconds: "i64" },
  CategoryStat: { name: "String", total_seconds: "i64" },
  LongestEpisodeStat: { episodeid: "i32", episodetitle: "String", episodeduration: "i32", podcastname: "String" },
  ExtendedUserStats: {
    top_podcasts: "Vec<TopPodcastStat>", favorite_categories: "Vec<CategoryStat>", completion_rate: "i32", longest_episode: "Option<LongestEpisodeStat>",
    listening_badge: "String", total_downloaded_bytes: "i64", total_downloaded_formatted: "String", current_streak: "i32", listening_by_dow: "Vec<i64>",
  },
  // The per-podcast and per-episode setters (pod_req.rs SkipTimesResponse, AutoPlayNextResponse, MarkEpisodeCompletedResponse, UpdateEpisodeDurationResponse).
  DetailOnly: { detail: "String" },
};

/** The mobile app's reads (Dart: a `?? default` read is an Option; a typed field fed a missing key fails like a serde field). */
const DART: Record<string, Struct> = {
  // services/pinepods/oidc_service.dart OidcProvider.fromJson
  OidcProvider: {
    provider_id: "i32", provider_name: "String", client_id: "String", authorization_url: "String", scope: "String", button_color: "Option<String>",
    button_text: "Option<String>", button_text_color: "Option<String>", icon_svg: "Option<String>",
  },
  // pinepods_service.dart SearchEpisodeResult.fromJson
  SearchEpisodeResult: Object.fromEntries([
    ...["podcastid", "episodecount", "userid", "episodeid", "episodeduration", "listenduration"].map((k) => [k, "Option<i32>"]),
    ...["podcastname", "artworkurl", "author", "description", "feedurl", "websiteurl", "episodetitle", "episodedescription", "episodepubdate", "episodeartwork", "episodeurl"].map((k) => [k, "Option<String>"]),
    ...["completed", "saved", "queued", "downloaded", "is_youtube"].map((k) => [k, "Option<bool>"]),
    ["explicit", "Option<i32>"], ["categories", "Option<Value>"],
  ]),
  // pinepods_service.dart getEpisodeMetadata
  EpisodeMetadata: Object.fromEntries([
    ...["episodeduration", "listenduration", "episodeid", "podcastid"].map((k) => [k, "Option<i32>"]),
    ...["podcastname", "episodetitle", "episodepubdate", "episodedescription", "episodeartwork", "episodeurl"].map((k) => [k, "Option<String>"]),
    ...["completed", "is_saved", "is_queued", "is_downloaded", "is_youtube"].map((k) => [k, "Option<bool>"]),
  ]),
};

/** What serde_json would report reading `value` as `ty` (empty: the client reads it). */
function serdeErrors(value: unknown, ty: Ty, at = "answer", structs: Record<string, Struct> = S): string[] {
  const generic = /^(Option|Vec|Map)<(.+)>$/.exec(ty);
  if (generic) {
    const [, kind, inner] = generic;
    if (kind === "Option") return value === null || value === undefined ? [] : serdeErrors(value, inner, at, structs);
    if (kind === "Vec") return Array.isArray(value) ? value.flatMap((v, i) => serdeErrors(v, inner, `${at}[${i}]`, structs)) : [`${at}: ${JSON.stringify(value)} is not a sequence`];
    if (typeof value !== "object" || value === null || Array.isArray(value)) return [`${at}: ${JSON.stringify(value)} is not a map`];
    return Object.entries(value).flatMap(([k, v]) => serdeErrors(v, inner, `${at}.${k}`, structs));
  }
  if (SCALARS[ty]) return SCALARS[ty](value) ? [] : [`${at}: invalid type ${JSON.stringify(value)}, expected ${ty}`];
  const def = structs[ty] ?? S[ty];
  if (!def) throw new Error(`no struct ${ty}`);
  if (typeof value !== "object" || value === null || Array.isArray(value)) return [`${at}: ${JSON.stringify(value)} is not a struct ${ty}`];
  const obj = value as Record<string, unknown>;
  return Object.entries(def).flatMap(([key, fieldTy]) => {
    if (key === "#default") return [];
    const [name, ...aliases] = key.replace(/[=!]$/, "").split("|");
    const present = [name, ...aliases].map(wire).filter((n) => Object.prototype.hasOwnProperty.call(obj, n));
    if (present.length > 1) return [`${at}: duplicate field \`${name}\` (${present.join(", ")})`];
    if (!present.length) {
      const mayMiss = def["#default"] || key.endsWith("=") || (!key.endsWith("!") && String(fieldTy).startsWith("Option<"));
      return mayMiss ? [] : [`${at}: missing field \`${wire(name)}\``];
    }
    return serdeErrors(obj[present[0]], fieldTy as Ty, `${at}.${present[0]}`, structs);
  });
}
const dartErrors = (value: unknown, ty: string) => serdeErrors(value, ty, "answer", DART);

/** The client's path on this server: its third-party words as the documents' neutral words. */
const at = (clientPath: string) => wire(clientPath);
/** A body or query the client sends, its keys in the neutral words. */
const neutral = (fields: Record<string, unknown>) => Object.fromEntries(Object.entries(fields).map(([k, v]) => [wire(k), v]));

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
    expect(serdeErrors({ gpodder_enabled: true, sync_type: "None", external_enabled: false }, "GpodderApiStatusResponse")).toEqual(["answer: missing field `podsync_enabled`"]);
    expect(serdeErrors({ title: "t", url: null }, "Chapter")).toEqual(["answer: missing field `startTime`"]);
    expect(serdeErrors([{ episodeid: 1, description: "d" }], "Vec<Episode>")).toEqual([]);
  });

  test("search_data: every entry reads as the client's Episode (and the app's SearchEpisodeResult); the web client's filters", async () => {
    const search = (body: object, query: object) => http().post("/api/data/search_data").query(query).set("Api-Key", key("alice")).send({ user_id: uid(), ...body });
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
    expect(podcast).toMatchObject({ podcastid: lib.shared, podcastname: "Shared Show", categories: { "1": "Science" }, explicit: 0, feedurl: lib.feeds.url + "/shared.xml" });
    const byCategory = reads(await search({ search_term: "", categories: ["Science"] }, { limit: 50, offset: 0, filter: "all" }), "SearchPage");
    expect(byCategory.data.filter((d: any) => d.type === "episode").every((d: any) => d.podcastid === lib.shared)).toBe(true);

    const quarter = reads(await search({ search_term: "quarter" }, { limit: 20, offset: 0, filter: "all" }), "SearchPage");
    expect(quarter.data.find((d: any) => d.episodeid === ep)).toMatchObject({ episodetitle: "Quarter", podcastname: "Shared Show", episodeduration: 900, saved: true, queued: true, downloaded: false });

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
      provider_name: "Test IdP", client_id: "web-client-test", client_secret: "a client secret", authorization_url: "http://127.0.0.1:9/auth", token_url: "http://127.0.0.1:9/token",
      user_info_url: "http://127.0.0.1:9/userinfo", button_text: "Log in with Test IdP", scope: "openid email", button_color: "#224488", button_text_color: "#ffffff",
      icon_svg: "<svg/>", name_claim: "name", email_claim: "email", username_claim: "preferred_username", roles_claim: "", user_role: "", admin_role: "",
    };
    const added = await lib.post("/api/data/add_oidc_provider", "admin", provider);
    expect(added.status).toBe(200);
    const id = added.body.provider_id; // the client reads result["provider_id"].as_i64()
    expect(Number.isInteger(id)).toBe(true);

    const listing = reads(await http().get("/api/data/public_oidc_providers"), "PublicOIDCProvidersResponse");
    const entry = listing.providers.find((p: any) => p.provider_id === id);
    expect(entry).toMatchObject({ id, name: "Test IdP", provider_name: "Test IdP", authorization_url: provider.authorization_url, icon_svg: "<svg/>", client_id: provider.client_id });
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
      expect((await http().post("/api/data/remove_oidc_provider").set("Api-Key", key("admin")).set("Content-Type", "application/json").send(String(p))).status).toBe(200);
    }
  });

  test("get_user_info (admin), restore_status (no key), check_vidsite_channel", async () => {
    const users = reads(await lib.get("/api/data/get_user_info", "admin"), "Vec<SettingsUser>");
    expect(users.map((u: any) => [u.username, u.isadmin])).toEqual([["admin", 1], ["alice", 0], ["bob", 0]]);
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

    const channel = await lib.get(at("/api/data/check_youtube_channel"), "alice", { user_id: uid(), channel_name: "Nobody", channel_url: "https://www.youtube.com/channel/UCnobody" });
    expect(reads(channel, "CheckYouTubeChannelResponse")).toEqual({ exists: false });
  });

  test("MFA: save_mfa_secret turns it on with the client's secret (never logged), then the generate / verify / delete calls", async () => {
    const secret = generateSecret();
    const saved = await lib.post("/api/data/save_mfa_secret", "bob", { user_id: uid("bob"), mfa_secret: secret });
    expect(reads(saved, "SaveMFASecretResponse").status).toBe("success");
    expect(reads(await lib.get(`/api/data/check_mfa_enabled/${uid("bob")}`, "bob"), "CheckMfaEnabledResponse")).toEqual({ mfa_enabled: true });
    const login = await http().get("/api/data/get_key").set("Authorization", basic("bob", "a long password"));
    expect(login.body).toMatchObject({ status: "mfa_required", mfa_required: true });
    expect(reads(await lib.post("/api/data/verify_mfa", "bob", { user_id: uid("bob"), mfa_code: totp(secret) }), "VerifyMFAResponse")).toEqual({ verified: true });
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

  test("the sync page over this server's own sync server: real devices, default, statistics, sync, the toggle, remove", async () => {
    const phone = (path: string) => http().post(path).set("Authorization", basic("alice", "a long password"));
    lib.feeds.route("/phone.xml", { body: rssFeed("Phone Show", [{ title: "From the phone", guid: "phone-1", url: "https://media.test/phone/1.mp3", date: new Date().toISOString(), duration: 60 }]) });
    const phoneFeed = lib.feeds.url + "/phone.xml";

    const status = reads(await lib.get(at("/api/data/gpodder/status"), "alice"), "GpodderApiStatusResponse");
    expect(status).toMatchObject({ sync_type: "gpodder", podsync_enabled: true, external_enabled: false, external_url: null, api_url: lib.server.url });
    expect(reads(await lib.get(at(`/api/gpodder/devices/${uid()}`), "alice"), "Vec<GpodderDevice>")).toEqual([]);
    expect((await lib.get(at("/api/gpodder/default_device"), "alice")).status).toBe(404);

    // A phone configures itself, subscribes and plays, through the gPodder API.
    expect((await phone("/api/2/devices/alice/phone.json").send({ caption: "My phone", type: "mobile" })).status).toBe(200);
    expect((await phone("/api/2/subscriptions/alice/phone.json").send({ add: [phoneFeed], remove: [] })).status).toBe(200);
    const played = { podcast: lib.feeds.url + "/shared.xml", episode: "https://media.test/shared/1.mp3", device: "phone", action: "play", timestamp: "2024-01-01T10:00:00", started: 0, position: 120, total: 900 };
    expect((await phone("/api/2/episodes/alice.json").send([played])).status).toBe(200);

    // The gPodder API's devices: the phone, and this server's own device (its changes reach the phones as that device's).
    const devices = reads(await lib.get(at(`/api/gpodder/devices/${uid()}`), "alice"), "Vec<GpodderDevice>");
    const gpodderDevices = (await http().get("/api/2/devices/alice.json").set("Authorization", basic("alice", "a long password"))).body;
    expect(devices.map((d: any) => d.id)).toEqual(gpodderDevices.map((d: any) => d.id));
    expect(devices.find((d: any) => d.id === "phone")).toEqual({ id: "phone", name: "My phone", caption: "My phone", type: "mobile", subscriptions: 3, is_default: devices[0].id === "phone", is_active: true, is_remote: false, last_sync: null });
    expect(devices.filter((d: any) => d.is_default).map((d: any) => d.id)).toEqual([devices[0].id]); // none chosen yet: the oldest
    expectErrorBody(await lib.get(at(`/api/gpodder/devices/${uid()}`), "bob"), 403);

    // A device made on the web page is a device of the sync server (the gPodder API lists it).
    const made = await lib.post(at("/api/gpodder/devices"), "alice", { user_id: uid(), device_name: "desk", device_type: "desktop", device_caption: "Desk" });
    expect(reads(made, "GpodderDevice")).toMatchObject({ id: "desk", name: "Desk", type: "desktop", is_default: false, is_remote: false });
    const listed = await http().get("/api/2/devices/alice.json").set("Authorization", basic("alice", "a long password"));
    expect(listed.body.map((d: any) => d.id)).toEqual([...devices.map((d: any) => d.id), "desk"]);
    expectErrorBody(await lib.post(at("/api/gpodder/devices"), "alice", { user_id: uid(), device_name: "bad name/..", device_type: "desktop" }), 400);

    const setDefault = await lib.post(at("/api/gpodder/set_default/desk"), "alice", {});
    expect(reads(setDefault, "ApiResponse<()>").success).toBe(true);
    expect(reads(await lib.get(at("/api/gpodder/default_device"), "alice"), "GpodderDevice")).toMatchObject({ id: "desk", is_default: true });
    expectErrorBody(await lib.post(at("/api/gpodder/set_default/nowhere"), "alice", {}), 404);

    // Statistics count the records: devices, the feeds the devices follow (alice's two and the phone's), actions.
    const stats = reads(await lib.get(at("/api/gpodder/gpodder_statistics"), "alice"), "GpodderStatistics");
    expect(stats).toMatchObject({ server_url: lib.server.url, sync_enabled: true, total_devices: devices.length + 1, total_subscriptions: 3, connection_status: "connected" });
    expect(stats.server_subscriptions.map((s: any) => s.url)).toContain(phoneFeed);
    expect(stats.total_episode_actions).toBeGreaterThanOrEqual(1);
    expect(stats.recent_episode_actions).toContainEqual(expect.objectContaining({ device: "phone", action: "play", position: 120 }));

    // Sync now applies what the phone sent: its feed is subscribed here.
    const sync = await lib.post(at("/api/gpodder/sync"), "alice", { user_id: uid(), device_id: "desk", device_name: "Desk", is_remote: false });
    expect(reads(sync, "ApiResponse<()>").success).toBe(true);
    const pods = (await lib.get(`/api/data/return_pods/${uid()}`, "alice")).body.pods;
    expect(pods.map((p: any) => p.feed_url)).toContain(phoneFeed);
    reads(await lib.post(at("/api/gpodder/sync/force"), "alice", { user_id: uid(), device_id: "desk", device_name: "Desk", is_remote: false }), "ApiResponse<()>");
    expect(reads(await lib.get(at("/api/gpodder/test-connection"), "alice"), "ApiResponse<Value>").success).toBe(true);

    // The toggle switches this account's sync routes.
    const off = reads(await lib.post(at("/api/data/gpodder/toggle"), "alice", { enabled: false }), "GpodderApiStatusResponse");
    expect(off).toMatchObject({ sync_type: "None", podsync_enabled: false, api_url: null });
    expect((await http().get("/api/2/devices/alice.json").set("Authorization", basic("alice", "a long password"))).status).toBe(403);
    expect((await lib.get(at(`/api/gpodder/devices/${uid()}`), "alice")).status).toBe(404);
    const on = reads(await lib.post(at("/api/data/gpodder/toggle"), "alice", { enabled: true }), "GpodderApiStatusResponse");
    expect(on).toMatchObject({ sync_type: "gpodder", podsync_enabled: true });
    expect((await http().get("/api/2/devices/alice.json").set("Authorization", basic("alice", "a long password"))).status).toBe(200);

    // Remove sync: nothing left on, as the client then shows; what the phone sent is still there when switched on again.
    expect(reads(await del("/api/data/remove_podcast_sync", "alice", { user_id: uid() }), "RemoveSyncResponse").success).toBe(true);
    expect(reads(await lib.get(at("/api/data/gpodder/status"), "alice"), "GpodderApiStatusResponse")).toMatchObject({ sync_type: "None", podsync_enabled: false });
    reads(await lib.get(at(`/api/data/check_gpodder_settings/${uid()}`), "alice"), "NextcloudCheckResponse");
    expectErrorBody(await del("/api/data/remove_podcast_sync", "bob", { user_id: uid() }), 403);
    await lib.post(at("/api/data/gpodder/toggle"), "alice", { enabled: true });
    expect((await lib.get(at(`/api/gpodder/devices/${uid()}`), "alice")).body.map((d: any) => d.id)).toEqual(listed.body.map((d: any) => d.id));
  });

  test("the sync page with another gPodder server (this one, reached as an external server by the admin)", async () => {
    const login = { gpodder_url: lib.server.url, gpodder_username: "bob", gpodder_password: "a long password" };
    const account = neutral({ user_id: uid("admin"), ...login });
    expect(reads(await lib.post(at("/api/data/verify_gpodder_auth"), "admin", neutral(login)), "GpodderCheckResponse").status).toBe("success");
    expect(reads(await lib.get(at("/api/gpodder/test-connection"), "admin", account), "ApiResponse<Value>").success).toBe(true);
    expectErrorBody(await lib.get(at("/api/gpodder/test-connection"), "admin", { ...account, podsync_password: "wrong" }), 401);
    reads(await lib.post(at("/api/data/add_gpodder_server"), "admin", account), "NextcloudAuthResponse");
    expect(reads(await lib.get(at(`/api/data/check_gpodder_settings/${uid("admin")}`), "admin"), "NextcloudCheckResponse")).toEqual({ data: true });
    expect(reads(await lib.get(at(`/api/data/get_gpodder_settings/${uid("admin")}`), "admin"), "NextcloudGetResponse").data).toEqual({ podsyncurl: lib.server.url, podsynctoken: "" });
    expect(reads(await lib.get(at("/api/data/gpodder/status"), "admin"), "GpodderApiStatusResponse")).toMatchObject({ sync_type: "both", external_enabled: true, external_url: lib.server.url });

    const synced = await lib.post(at("/api/gpodder/sync"), "admin", { user_id: uid("admin"), device_id: null, device_name: null, is_remote: true });
    expect(reads(synced, "ApiResponse<()>").success).toBe(true);
    const made = await lib.post(at("/api/gpodder/devices"), "admin", { user_id: uid("admin"), device_name: "admin-laptop", device_type: "laptop", device_caption: "Laptop" });
    expect(reads(made, "GpodderDevice")).toMatchObject({ id: "admin-laptop", is_remote: true });
    const devices = reads(await lib.get(at(`/api/gpodder/devices/${uid("admin")}`), "admin"), "Vec<GpodderDevice>");
    expect(devices.every((d: any) => d.is_remote)).toBe(true);
    expect(devices.map((d: any) => d.id)).toContain("admin-laptop");
    reads(await lib.post(at("/api/gpodder/set_default/admin-laptop"), "admin", {}), "ApiResponse<()>");
    expect(reads(await lib.get(at("/api/gpodder/default_device"), "admin"), "GpodderDevice")).toMatchObject({ id: "admin-laptop", is_default: true });
    reads(await lib.get(at("/api/gpodder/gpodder_statistics"), "admin"), "GpodderStatistics");
    reads(await del("/api/data/remove_podcast_sync", "admin", { user_id: uid("admin") }), "RemoveSyncResponse");
    expect(reads(await lib.get(at(`/api/data/check_gpodder_settings/${uid("admin")}`), "admin"), "NextcloudCheckResponse")).toEqual({ data: false });
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
    reads(await lib.post("/api/data/record_listen_duration", "alice", { episode_id: ep, user_id: uid(), listen_duration: 10, is_youtube: false }), "RecordListenDurationResponse");
    const { url_key } = reads(await lib.post(`/api/data/share_episode/${ep}`, "alice", {}), "ShareLinkResponse");
    reads(await http().get(`/api/data/episode_by_url/${url_key}`), "EpisodeAnswer");

    const feed = reads(await lib.get("/api/data/fetch_podcast_feed", "admin", { podcast_feed: lib.feeds.url + "/shared.xml" }), "PodcastFeedResult");
    // Each episode is read on its own (one that serde refuses is dropped): all must read.
    expect(feed.episodes.flatMap((e: unknown, i: number) => serdeErrors(e, "Episode", `episodes[${i}]`))).toEqual([]);
    expect(feed.episodes.length).toBe(10);
    reads(await lib.get("/api/data/fetch_podcasting_2_data", "alice", { episode_id: ep, user_id: uid() }), "Podcasting2Data");
    reads(await lib.get("/api/data/fetch_podcasting_2_pod_data", "alice", { podcast_id: lib.shared, user_id: uid() }), "Podcasting2PodData");
    const episodeId = await lib.get("/api/data/get_episode_id_ep_name", "alice", { user_id: uid(), episode_url: "https://media.test/shared/0.mp3", episode_title: "Tiny", is_youtube: false });
    expect(episodeId.text.trim()).toBe(String(ep)); // the client parses the text as an i32

    const custom = await lib.post("/api/data/add_custom_podcast", "bob", { feed_url: lib.feeds.url + "/own.xml", user_id: uid("bob"), username: null, password: null, youtube_channel: false, feed_cutoff: null });
    expect(reads(custom, "AddCustomPodcastResponse").data.feedurl).toBe(lib.feeds.url + "/own.xml");

    const playlists = reads(await lib.get("/api/data/get_playlists", "alice", { user_id: uid() }), "PlaylistResponse");
    reads(await lib.get("/api/data/get_playlist_episodes", "alice", { user_id: uid(), playlist_id: playlists.playlists[0].playlist_id, limit: 20, offset: 0 }), "PlaylistFeedPage");
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
    const made = info.api_info.find((k: any) => created.api_key.endsWith(k.lastfourdigits) && k.apikeyid !== info.api_info[0].apikeyid) ?? info.api_info[info.api_info.length - 1];
    reads(await del("/api/data/delete_api_key", "alice", { api_id: String(made.apikeyid), user_id: uid() }), "DeleteAPIKeyResponse");

    const colors = ["background_color", "button_color", "container_button_color", "button_text_color", "text_color", "text_secondary_color", "border_color", "accent_color", "prog_bar_color",
      "error_color", "bonus_color", "secondary_background", "container_background", "standout_color", "hover_color", "link_color", "thumb_color", "unfilled_color", "check_box_color"];
    const theme = { user_id: uid(), name: "Web theme", ...Object.fromEntries(colors.map((c) => [c, "#123456"])) };
    reads(await lib.post("/api/data/user/custom_themes", "alice", theme), "CreateCustomThemeResponse");
    reads(await lib.get(`/api/data/user/custom_themes/${uid()}`, "alice"), "GetCustomThemesResponse");

    lib.feeds.route("/hook", { body: "{}" });
    const hook = { user_id: uid(), platform: "http", enabled: true, http_url: lib.feeds.url + "/hook", http_token: null, http_method: "POST" };
    reads(await put("/api/data/user/notification_settings", "alice", hook), "DetailResponse");
    reads(await lib.get("/api/data/user/notification_settings", "alice", { user_id: uid() }), "NotificationSettingsResponse");
    reads(await lib.post("/api/data/user/test_notification", "alice", { user_id: uid(), platform: "http" }), "DetailResponse");

    // Admin pages.
    const added = reads(await lib.post("/api/data/add_user", "admin", { fullname: "Carol", username: "carol", email: "carol@example.org", hash_pw: "a long password" }), "AddUserResponse");
    reads(await put("/api/data/user/set_isadmin", "admin", { user_id: added.user_id, isadmin: false }), "DetailResponse");
    reads(await lib.get(`/api/data/user/final_admin/${uid("admin")}`, "admin"), "FinalAdminResponse");
    reads(await del(`/api/data/user/delete/${added.user_id}`, "admin", {}), "DeleteUserResponse");
    for (let i = 0; i < 2; i++) {
      reads(await lib.post("/api/data/enable_disable_downloads", "admin", {}), "SuccessResponse");
      reads(await lib.post("/api/data/enable_disable_self_service", "admin", {}), "SuccessResponse");
    }
    for (const res of [await lib.post("/api/data/get_scheduled_backup", "admin", { user_id: uid("admin") }), await lib.post("/api/data/list_backup_files", "admin", { user_id: uid("admin") })]) {
      expect([res.status, res.headers["content-type"]]).toEqual([200, expect.stringMatching(/json/)]);
    }
    const media = tempDir("web-client-media-");
    fs.mkdirSync(path.join(media, "A show"));
    const mediaBefore = config.localMediaDir;
    config.localMediaDir = media;
    try {
      expect(reads(await lib.get("/api/data/list_local_directories", "admin", { path: "" }), "LocalDirListing").directories).toEqual([expect.objectContaining({ name: "A show", audio_count: 0 })]);
    } finally {
      config.localMediaDir = mediaBefore;
    }
  });
});
